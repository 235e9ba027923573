"""Farkle (rules/farkle.yaml): six dice, set aside scoring dice, bank or roll on. The model's scoring
table in hand-computed rolls, farkles, hot dice, the opening option, the last turns, and every bot."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rulebook.interpreter.engine.actions import Keep, Roll, RollOn, Stop
from rulebook.interpreter.engine.state import GameState
from rulebook.interpreter.model.errors import IllegalActionError
from rulebook.interpreter.model.loader import load_model
from rulebook.interpreter.players.registry import make_bot

FARKLE = Path(__file__).resolve().parent.parent / "rules" / "farkle.yaml"


@pytest.fixture(scope="module")
def farkle():
    return load_model(FARKLE)


def after_roll(model, faces, players=("Ann", "Bob")) -> GameState:
    s = GameState(model, list(players))
    s.apply(Roll(tuple(sorted(faces))))
    return s


def turn_total(state: GameState, player: int = 0) -> int:
    return state.counter_values[player]["turn"]


@pytest.mark.parametrize("faces, keep, points", [
    ((1, 1, 1, 5, 2, 3), (1, 1, 1, 5), 1050),  # three 1s and a 5
    ((1, 1, 1, 5, 2, 3), (1,), 100),
    ((1, 1, 1, 5, 2, 3), (1, 5), 150),
    ((2, 2, 2, 2, 3, 4), (2, 2, 2, 2), 400),  # four 2s: three of a kind doubled
    ((6, 6, 6, 6, 6, 3), (6, 6, 6, 6, 6), 2400),  # five 6s: 600 × 2 × 2
    ((1, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 1), 8000),  # six 1s: 1000 × 8
    ((5, 5, 5, 5, 3, 4), (5, 5, 5, 5), 1000),
    ((1, 2, 3, 4, 5, 6), (1, 2, 3, 4, 5, 6), 1500),  # a straight
    ((2, 2, 3, 3, 4, 4), (2, 2, 3, 3, 4, 4), 1500),  # three pairs
])
def test_the_scoring_table(farkle, faces, keep, points):
    s = after_roll(farkle, faces)
    s.apply(Keep(keep))
    assert turn_total(s) == points and s.step().id == "bank"


def test_only_scoring_dice_may_be_set_aside(farkle):
    s = after_roll(farkle, (1, 1, 1, 5, 2, 3))
    assert [str(a) for a in s.legal_actions()] == [
        "keep 1", "keep 5", "keep 1 1", "keep 1 5", "keep 1 1 1", "keep 1 1 5", "keep 1 1 1 5"]
    for bad in ((2,), (1, 2), ()):
        with pytest.raises(IllegalActionError):
            s.apply(Keep(bad))


def test_a_farkle_loses_the_turn_total(farkle):
    s = after_roll(farkle, (1, 2, 3, 3, 4, 6))
    s.apply(Keep((1,)))
    s.apply(RollOn())
    assert s.dice_to_roll() == 5
    s.apply(Roll((2, 3, 3, 4, 6)))  # no 1, no 5, no three of a kind among the five thrown
    assert s.player == 1 and s.is_chance_node()
    assert s.counter_values[0] == {"turn": 0, "score": 0}


def test_three_pairs_score_only_with_the_six_dice_option():
    plain = load_model(FARKLE, {"six_dice": False})
    s = after_roll(plain, (2, 2, 3, 3, 4, 4))
    assert s.player == 1  # a farkle without the option


def test_hot_dice_roll_all_six_again(farkle):
    s = after_roll(farkle, (1, 1, 1, 5, 5, 5))
    s.apply(Keep((1, 1, 1, 5, 5, 5)))
    assert turn_total(s) == 1500 and s.held == (1, 1, 1, 5, 5, 5)
    s.apply(RollOn())
    assert s.dice_to_roll() == 6 and len(s.chance_outcomes()) == 462
    s.apply(Roll((2, 2, 3, 4, 5, 6)))
    assert s.held == () and s.dice == (2, 2, 3, 4, 5, 6)
    s.apply(Keep((5,)))
    s.apply(Stop())
    assert s.counter_values[0]["score"] == 1550


def test_dice_set_aside_stay_aside(farkle):
    s = after_roll(farkle, (1, 2, 3, 4, 6, 6))
    s.apply(Keep((1,)))
    s.apply(RollOn())
    s.apply(Roll((5, 5, 5, 2, 3)))
    assert s.dice == (1, 2, 3, 5, 5, 5)
    s.apply(Keep((1, 5, 5, 5)))  # the 1 stays; three 5s of this roll
    assert turn_total(s) == 600


def test_the_opening_option_holds_back_a_small_first_bank():
    model = load_model(FARKLE, {"opening": 500})
    s = after_roll(model, (1, 2, 3, 4, 6, 6))
    s.apply(Keep((1,)))
    assert s.legal_actions() == [RollOn()]
    with pytest.raises(IllegalActionError):
        s.apply(Stop())


def test_the_others_have_one_last_turn():
    model = load_model(FARKLE, {"goal": 1000})
    s = after_roll(model, (1, 1, 1, 2, 3, 4), players=("Ann", "Bob", "Cid"))
    s.apply(Keep((1, 1, 1)))
    s.apply(Stop())  # Ann reaches 1000
    assert not s.is_terminal() and s.player == 1
    s.apply(Roll((5, 2, 2, 3, 4, 6)))
    s.apply(Keep((5,)))
    s.apply(Stop())
    assert not s.is_terminal() and s.player == 2
    s.apply(Roll((2, 2, 3, 3, 4, 6)))  # Cid farkles: the game is over
    assert s.is_terminal()
    assert s.ranking() == [(1, "Ann", 1000), (2, "Bob", 50), (3, "Cid", 0)]


@pytest.mark.parametrize("kind", ["random", "greedy", "strong"])
def test_every_bot_plays_a_full_game(kind):
    model = load_model(FARKLE, {"goal": 1000})
    rng = random.Random(3)
    s = GameState(model, ["Ann", "Bob"])
    bots = [make_bot(kind, model, rng) for _ in range(2)]
    while not s.is_terminal():
        s.apply(s.sample_chance(rng) if s.is_chance_node() else bots[s.current_player()].choose(s))
    assert max(s.returns()) >= 1000


def test_greedy_sets_aside_the_most_points_and_banks_a_big_turn(farkle):
    bot = make_bot("greedy", farkle, random.Random(0))
    s = after_roll(farkle, (1, 1, 1, 5, 2, 3))
    assert bot.choose(s) == Keep((1, 1, 1, 5))
    s.apply(Keep((1, 1, 1, 5)))
    assert bot.choose(s) == Stop()  # 1050 with two dice left: a farkle is too likely (4/9)


def test_a_game_saved_in_its_last_turns_resumes_to_the_same_end():
    """Once a player reaches the goal the others have their last turns (`end: last_turn`); a save made
    then keeps that, so the resumed game ends after the same turns, with the same totals."""
    from rulebook.interpreter.engine.state import CHANCE, TERMINAL
    from rulebook.interpreter.model.errors import SaveFileError
    model = load_model(FARKLE, {"goal": 1000})
    bots = [make_bot("greedy", model, random.Random(1)), make_bot("greedy", model, random.Random(2))]
    rng = random.Random(5)
    state, saved = GameState(model, ["Ann", "Bob"]), None
    while state.current_player() != TERMINAL:
        if saved is None and state.to_json().get("ending") is not None:
            saved = state.to_json()
            draws = rng.getstate()
        player = state.current_player()
        state.apply(state.sample_chance(rng) if player == CHANCE else bots[player].choose(state))
    assert saved is not None and saved["ending"] == 0 and saved["ended_by"] == 0  # Bob's last turn to come
    resumed = GameState.from_json(model, json.loads(json.dumps(saved)))
    rng.setstate(draws)
    while resumed.current_player() != TERMINAL:
        player = resumed.current_player()
        resumed.apply(resumed.sample_chance(rng) if player == CHANCE else bots[player].choose(resumed))
    assert resumed.returns() == state.returns() and resumed.to_json() == state.to_json()
    with pytest.raises(SaveFileError, match="game end"):
        GameState.from_json(model, {**saved, "ending": 7})
