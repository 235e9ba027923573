"""Positions (engine/positions.py) are a shortcut only: a state that uses them and a twin that leaves them
before every call (so that it answers by the general paths) play the same games, on every bundled model."""
from __future__ import annotations

import random

import pytest

from rulebook.interpreter import bundled_models, load_model
from rulebook.interpreter.engine.actions import Keep, Roll, Stop, Write
from rulebook.interpreter.engine.positions import MOST, most_rolls
from rulebook.interpreter.engine.state import GameState, tables

MODELS = list(bundled_models())


def _general(state: GameState) -> GameState:
    """The state without its position (the fields written back): what the general paths see."""
    if state._pos is not None:
        state._settle()
    return state


def _seen(state: GameState) -> tuple:
    return (state.current_player(), [str(a) for a in state.legal_actions()], state.dice, state.kept,
            state.roll_number, state.to_json())


@pytest.mark.parametrize("name", MODELS)
def test_a_state_with_positions_plays_as_one_without(name):
    model = load_model(name)
    for players in sorted({model.min_players, min(model.min_players + 1, model.max_players)}):
        for seed in range(3):
            rng, twin_rng = random.Random(seed), random.Random(seed)
            state, twin = GameState(model, [f"p{i}" for i in range(players)]), None
            twin = _general(GameState(model, [f"p{i}" for i in range(players)]))
            moves = 0
            while not state.is_terminal():
                assert _seen(state) == _seen(_general(twin)), f"{name}: move {moves}"
                if state.is_chance_node():
                    action, other = state.sample_chance(rng), _general(twin).sample_chance(twin_rng)
                else:
                    action, other = rng.choice(state.legal_actions()), twin_rng.choice(_general(twin).legal_actions())
                assert action == other
                state.apply(action)
                _general(twin).apply(other)
                moves += 1
            assert _general(twin).is_terminal() and state.returns() == twin.returns()


def test_yahtzee_plays_its_turns_in_positions():
    """In Yahtzee every roll, keep and write after the first has a position (the speed of issue 26 rests on
    it): count how many moves of a game find one."""
    model = load_model("yahtzee")
    tables(model).precompute()
    rng = random.Random(5)
    state = GameState(model, ["Ann"])
    found = total = 0
    while not state.is_terminal():
        found += state._pos is not None
        total += 1
        state.apply(state.sample_chance(rng) if state.is_chance_node() else rng.choice(state.legal_actions()))
    assert total > 60 and found == total


def test_fields_set_by_hand_leave_the_position():
    """`dice`, `kept` and `roll_number` set by hand are what the state then plays from (the position is left)."""
    model = load_model("yahtzee")
    state = GameState(model, ["Ann"])
    state.apply(Roll((1, 2, 3, 4, 5)))
    assert state._pos is not None and state.roll_number == 1 and state.kept == ()
    state.roll_number = 2
    assert state._pos is None and state.roll_number == 2 and state.dice == (1, 2, 3, 4, 5)
    state.apply(Keep((1, 2)))
    state.apply(Roll((6, 6, 6)))  # (the repeat's passes are counted apart: one is left)
    assert state.dice == (1, 2, 6, 6, 6) and state.roll_number == 3 and state.step().kind == "keep"
    state.apply(Stop())
    state.apply(Write("chance"))
    assert state.sheets[0] == {"chance": 21} and state._pos is not None  # the next turn has its position again


def test_a_stop_and_a_write_in_positions_are_checked():
    """A stop where a keep step may not stop, and a write of a filled box, are refused as the general path refuses them."""
    from rulebook.interpreter.model.errors import IllegalActionError
    model = load_model("yahtzee")
    state = GameState(model, ["Ann"])
    state.apply(Roll((2, 3, 3, 5, 6)))
    state.apply(Stop())
    assert state._pos is not None and state.step().kind == "write"
    state.sheets[0]["chance"] = 19
    with pytest.raises(IllegalActionError, match="already filled"):
        state.apply(Write("chance"))
    state.apply(Write("threes"))
    assert state.sheets[0] == {"chance": 19, "threes": 6}


def test_positions_stay_few():
    """Positions are interned per model: Yahtzee's turn (3 rolls) has at most a few thousand, whatever the games;
    a repeat without `times` is covered up to MOST rolls (and then played by the general path)."""
    model = load_model("yahtzee")
    positions = tables(model).precompute().positions
    counts = (len(positions._rolls), len(positions._keeps), len(positions._writes))
    assert positions.most == 3 and sum(counts) < 5000
    rng = random.Random(1)
    for _ in range(200):
        state = GameState(model, ["Ann"])
        while not state.is_terminal():
            state.apply(state.sample_chance(rng) if state.is_chance_node() else rng.choice(state.legal_actions()))
    assert (len(positions._rolls), len(positions._keeps), len(positions._writes)) == counts
    turn = model.flow.steps[0]  # the each_player: a roll, a repeat of keep and roll (twice), a write
    assert most_rolls(turn) == 3
    from dataclasses import replace
    endless = replace(turn, steps=tuple(replace(s, times=None) if s.kind == "repeat" else s for s in turn.steps))
    assert most_rolls(endless) == MOST
