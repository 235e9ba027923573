"""The compiled turn planner (interpreter/solver/turnplan.py) gives the numpy path's plans bit for bit:
the optimal bot's write tables and keep/roll layers, and bulk play's best boxes and keep values."""
from __future__ import annotations

import random

import numpy as np
import pytest

from rulebook.interpreter.play import bulk
from rulebook.interpreter import load_model
from rulebook.interpreter.players.registry import OptimalBot
from rulebook.interpreter.players.base import PlannerBot
from rulebook.interpreter.engine.state import CHANCE, GameState
from rulebook.interpreter.solver.turnplan import Planner, compiled


@pytest.fixture(autouse=True)
def solver_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path_factory.getbasetemp() / "solver-cache-sim"))


def test_the_planner_is_compiled():
    assert compiled() is not None  # numba is a dependency; RULEBOOK_KERNEL=numpy would choose numpy


def _same_plan(a, b) -> bool:
    boxes_a, tables_a, layers_a, _ = a
    boxes_b, tables_b, layers_b, _ = b
    return (boxes_a == boxes_b and tables_a.keys() == tables_b.keys()
            and all(np.array_equal(tables_a[k], tables_b[k]) for k in tables_b)
            and len(layers_a) == len(layers_b)
            and all((x[0] is None) == (y[0] is None) and (x[0] is None or np.array_equal(x[0], y[0]))
                    and np.array_equal(x[1], y[1]) for x, y in zip(layers_a, layers_b)))


def test_the_optimal_bots_plans_are_the_numpy_plans_bit_for_bit():
    model = load_model("yacht")
    bot = OptimalBot(model)
    plans = 0
    for g in range(4):
        rng, state = random.Random(g), GameState(model, ["cpu"])
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply(state.sample_chance(rng))
                continue
            if state.step().kind == "keep" and state.roll_number == 1:
                assert _same_plan(bot._make_plan(state), PlannerBot._make_plan(bot, state))
                plans += 1
            state.apply(bot.choose(state))
    assert bot._planner.usable and plans == 4 * len(model.boxes)


@pytest.mark.parametrize("name,kind", [("yacht", "optimal"), ("yahtzee", "greedy"), ("yatzy", "greedy")])
def test_bulk_plans_are_the_numpy_plans_bit_for_bit(name, kind):
    model = load_model(name)
    plans = bulk.plans_for(model, kind)
    assert plans.planner.usable
    bulk.play_seat(plans, bulk.Dice(plans.space.tt), 300, np.random.default_rng(1))  # real turn-start states
    states = np.array(sorted(plans.index)[:400], dtype=np.int64)
    fresh = bulk.Plans(plans.space, plans.V)
    fresh._grow(2 * len(states))
    fresh._plan(states, 0)
    fresh.planner = Planner.__new__(Planner)
    fresh.planner.usable = False  # the numpy path
    fresh._plan(states, len(states))
    n = len(states)
    assert np.array_equal(fresh.box[:n], fresh.box[n:2 * n])
    assert np.array_equal(fresh.keepv[:n], fresh.keepv[n:2 * n])



def test_compiled_layers_serve_a_second_kind_of_turn_in_the_same_process():
    """`turnplan.layers` builds the arrays of each (dice, faces, rerolls) the first time it meets them: a
    second kind after the first (one reroll left, then two; then four dice) once failed on an unbound name."""
    from rulebook.interpreter.engine.turn import turn_tables
    from rulebook.interpreter.solver.turnplan import layers
    for n, rerolls in [(5, 1), (5, 2), (4, 2)]:
        tt = turn_tables(n, 6)
        best = np.random.default_rng(n + rerolls).random(len(tt.rolls))
        fast, slow = layers(tt, best, rerolls), tt.layers(best[:, None], rerolls, None)
        assert len(fast) == len(slow) == rerolls + 1
        for (keep_a, roll_a), (keep_b, roll_b) in zip(fast, slow):
            assert (keep_a is None) == (keep_b is None) and np.array_equal(roll_a, roll_b)
            assert keep_a is None or np.array_equal(keep_a, keep_b)
