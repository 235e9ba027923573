"""Pig (rules/pig.yaml): push your luck with one die. Rule facts and hand-computed turns, how the
game ends (`end: now | round | last_turn`), what `check` refuses, and every bot playing full games."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from rulebook.interpreter.engine.actions import Roll, RollOn, Stop
from rulebook.interpreter.engine.state import GameState
from rulebook.interpreter.model.errors import ErrorList, IllegalActionError
from rulebook.interpreter.model.loader import load_model, load_source
from rulebook.interpreter.players.registry import make_bot

PIG = Path(__file__).resolve().parent.parent / "rules" / "pig.yaml"


@pytest.fixture(scope="module")
def pig():
    return load_model(PIG)


def roll(state: GameState, face: int) -> None:
    state.apply(Roll((face,)))


def test_a_turn_of_4_then_6_then_hold_banks_10(pig):
    s = GameState(pig, ["Ann", "Bob"])
    roll(s, 4)
    assert s.step().id == "hold" and s.counter_values[0]["turn"] == 4
    assert s.legal_actions() == [Stop(), RollOn()]
    s.apply(RollOn())
    roll(s, 6)
    assert s.counter_values[0]["turn"] == 10
    s.apply(Stop())
    assert s.counter_values[0]["score"] == 10
    assert s.player == 1 and s.is_chance_node()  # Bob's turn
    assert s.counter_values[1] == {"turn": 0, "score": 0}


def test_a_1_loses_the_turn_total_and_ends_the_turn(pig):
    s = GameState(pig, ["Ann", "Bob"])
    roll(s, 5)
    s.apply(Stop())  # Ann banks 5
    roll(s, 6)
    s.apply(RollOn())
    roll(s, 3)
    assert s.counter_values[1]["turn"] == 9
    s.apply(RollOn())
    roll(s, 1)  # bust: Bob's 9 are lost, and it is Ann's turn again
    assert s.counter_values[1] == {"turn": 0, "score": 0}
    assert s.player == 0 and s.is_chance_node()
    assert s.counter_values[0]["score"] == 5


def test_reaching_100_ends_the_game_at_once_and_wins(pig):
    s = GameState(pig, ["Ann", "Bob"])
    s.counter_values[0]["score"] = 96
    roll(s, 4)
    s.apply(Stop())
    assert s.is_terminal()
    assert s.ranking() == [(1, "Ann", 100), (2, "Bob", 0)]
    with pytest.raises(IllegalActionError):
        s.apply(RollOn())


def test_the_goal_is_an_option(pig):
    short = load_model(PIG, {"goal": 10})
    s = GameState(short, ["Ann"])
    roll(s, 6)
    s.apply(RollOn())
    roll(s, 4)
    s.apply(Stop())
    assert s.is_terminal() and s.returns() == [10]


def test_a_save_in_the_middle_of_a_turn_plays_on_alike(pig):
    s = GameState(pig, ["Ann", "Bob"])
    roll(s, 3)
    s.apply(RollOn())
    roll(s, 5)
    back = GameState.from_json(pig, s.to_json())
    assert back.counter_values == s.counter_values and back.step().id == "hold"
    back.apply(Stop())
    assert back.counter_values[0]["score"] == 8


def test_greedy_holds_at_20_the_one_roll_look_ahead(pig):
    """Rolling once more at turn total t gains 5/6 (t + 4) - t: more than holding below 20."""
    bot = make_bot("greedy", pig, random.Random(0))
    for total, expected in ((19, RollOn()), (20, Stop()), (25, Stop()), (6, RollOn())):
        s = GameState(pig, ["Ann", "Bob"])
        roll(s, 6)
        s.counter_values[0]["turn"] = total
        assert bot.choose(s) == expected, total


def test_strong_banks_when_banking_wins(pig):
    """Greedy rolls on at 95 + 6 (101 now, 5/6 × 105 + 1/6 × 95 = 103.3 expected); strong banks the win."""
    s = GameState(pig, ["Ann", "Bob"])
    roll(s, 6)
    s.counter_values[0]["score"] = 95
    assert make_bot("greedy", pig, random.Random(0)).choose(s) == RollOn()
    assert make_bot("strong", pig, random.Random(0)).choose(s) == Stop()


@pytest.mark.parametrize("kind", ["random", "greedy", "strong"])
def test_every_bot_plays_full_games(pig, kind):
    rng = random.Random(7)
    for _ in range(3):
        s = GameState(pig, ["Ann", "Bob", "Cid"])
        bots = [make_bot(kind, pig, rng) for _ in range(3)]
        while not s.is_terminal():
            s.apply(s.sample_chance(rng) if s.is_chance_node() else bots[s.current_player()].choose(s))
        ranking = s.ranking()
        assert ranking[0][2] >= 100 and all(score < 100 for _, _, score in ranking[1:])


def test_solve_refuses_in_one_line(cli):
    code, _, err = cli("solve", str(PIG))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "no fixed length" in lines[0] and "pig.yaml:" in lines[0]


def _variant(**changes) -> str:
    text = PIG.read_text(encoding="utf-8")
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    return text


def test_end_last_turn_gives_every_other_player_one_more_turn():
    model = load_source(_variant(**{"end: now": "end: last_turn"}), "pig-last.yaml", {"goal": 10})
    s = GameState(model, ["Ann", "Bob", "Cid"])
    s.counter_values[0]["score"] = 8
    roll(s, 2)
    s.apply(Stop())  # Ann reaches 10: Bob and Cid have one more turn each
    assert not s.is_terminal() and s.player == 1
    roll(s, 6)
    s.apply(RollOn())
    roll(s, 6)
    s.apply(Stop())  # Bob passes her with 12
    assert not s.is_terminal() and s.player == 2
    roll(s, 1)  # Cid busts: the game is over
    assert s.is_terminal()
    assert s.ranking() == [(1, "Bob", 12), (2, "Ann", 10), (3, "Cid", 0)]


def test_end_round_finishes_the_round():
    model = load_source(_variant(**{"end: now": "end: round"}), "pig-round.yaml", {"goal": 10})
    s = GameState(model, ["Ann", "Bob", "Cid"])
    roll(s, 2)
    s.apply(Stop())
    s.counter_values[1]["score"] = 7
    roll(s, 3)
    s.apply(Stop())  # Bob reaches 10 in the middle of the round: Cid still plays
    assert not s.is_terminal() and s.player == 2
    roll(s, 4)
    s.apply(Stop())
    assert s.is_terminal()  # Ann does not play again
    assert s.ranking()[0] == (1, "Bob", 10)


def test_equal_scores_share_a_rank():
    model = load_source(_variant(**{"end: now": "end: last_turn"}), "pig-tie.yaml", {"goal": 10})
    s = GameState(model, ["Ann", "Bob"])
    roll(s, 5)
    s.apply(RollOn())
    roll(s, 5)
    s.apply(Stop())
    roll(s, 4)
    s.apply(RollOn())
    roll(s, 6)
    s.apply(Stop())
    assert s.is_terminal() and s.ranking() == [(1, "Ann", 10), (1, "Bob", 10)]


def test_check_refuses_a_game_that_can_never_end():
    text = _variant(**{"end_if: counter.score >= option.goal\nend: now\n": ""})
    with pytest.raises(ErrorList) as refused:
        load_source(text, "pig-endless.yaml")
    assert "repeat 'game' has no 'times' and nothing ends the game" in str(refused.value)


WARM_UP = """        - id: warm_up
          kind: repeat
          name: {en: Warm up, de: Aufwärmen, nl: Opwarmen}
          steps:
            - id: warm_roll
              kind: roll
              dice: all
              name: {en: Roll, de: Werfen, nl: Gooien}
BUST
        - id: rolling
"""


def test_check_refuses_a_turn_that_can_never_end():
    text = _variant(**{"        - id: rolling\n": WARM_UP.replace("BUST\n", "")})
    with pytest.raises(ErrorList) as refused:
        load_source(text, "pig-no-way-out.yaml")
    assert "repeat 'warm_up' has no 'times' and no way out" in str(refused.value)


def test_a_bust_that_no_roll_meets_is_no_way_out():
    text = _variant(**{"        - id: rolling\n": WARM_UP.replace("BUST", "              bust: dice[0] == 7")})
    with pytest.raises(ErrorList) as refused:
        load_source(text, "pig-never-busts.yaml")
    assert "no way out" in str(refused.value)


def test_simulate_plays_pig(cli):
    code, out, err = cli("simulate", str(PIG), "--games", "20", "--players", "a:greedy,b:strong", "--seed", "1")
    assert code == 0, err
    assert "points: mean" in out
