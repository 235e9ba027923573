"""Policy tables (interpreter/policy.py) and columnar results (interpreter/columns.py) of bulk play.

The games played from the stored policy tables are the very games played from plans made as
states come (the same boxes, keeps and rolls); the columns' totals and bonuses are the scorer's.
"""
from __future__ import annotations

import numpy as np
import pytest

from rulebook.interpreter.play import bulk
from rulebook.interpreter import load_model
from rulebook.interpreter.solver import policy, solve
from rulebook.interpreter.model.scoring import Scorer
from rulebook.interpreter.solver.cache import cache_path


@pytest.fixture(autouse=True)
def solver_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "cache"))
    solve._SPACES.clear()  # a table solved by an earlier test lives in memory, not in this cache folder
    bulk._PLANS.clear()
    policy._BUILT.clear()
    yield
    bulk._PLANS.clear()
    policy._BUILT.clear()


def _games(model, games):
    blocks = bulk.run_games(model, ["optimal"], games, 11, 1)
    return [np.concatenate([b[0].__dict__[k] for b in blocks]) for k in ("points", "bonus", "rolls")]


@pytest.mark.parametrize("name", ["yacht", pytest.param("yahtzee", marks=pytest.mark.slow)])
def test_games_from_the_policy_tables_are_the_planned_games(name):
    model = load_model(name)
    planned = _games(model, 3000)
    assert bulk._PLANS[next(iter(bulk._PLANS))].keep is None  # few games: no policy tables built
    bulk._PLANS.clear()
    plans = bulk.plans_for(model, "optimal", build_policy=True)
    assert plans.keep is not None
    if cache_path(model).exists():  # a stored table gets its policy tables beside it (a small one is solved in memory)
        assert policy.load(cache_path(model), _digest(model)) is not None
    again = _games(model, 3000)
    for a, b in zip(planned, again):
        assert np.array_equal(a, b)


def _digest(model):
    from rulebook.interpreter.solver.tablefile import read_header
    return read_header(cache_path(model)).digest


def test_columns_totals_are_the_scorers():
    model = load_model("yahtzee")
    res = bulk.results(model, [bulk.play_block(model, ["optimal", "greedy"], 500, 2, 0)], ["a", "b"])
    scorer = Scorer.for_model(model)
    write_ids = [b.id for b in model.bonuses if b.when == "write"]
    for g in range(0, 500, 7):
        r = res[g]
        for p in range(2):
            bonus = {k: r.bonuses[p][k] for k in write_ids}
            t = scorer.totals(r.sheets[p], bonus)
            assert t["total"] == r.totals[p]
            assert {b.id: t[b.id] for b in model.bonuses} == r.bonuses[p]
        assert r.ranks == [1 + sum(o > t for o in r.totals) for t in r.totals]
    assert res.totals.shape == (500, 2) and 200 < res.totals[:, 0].mean() < 300
    from rulebook.interpreter.play.columns import seat_totals
    seat = bulk.play_block(model, ["optimal"], 500, 2, 0)[0]
    assert seat_totals(model, scorer, bulk._space_of(model), seat)[2]  # once per final state, no game-by-game fallback


def test_decisions_from_the_policy_tables_are_the_planned_ones():
    """Two games played side by side, a decision of each in turn (the Decider is shared by the bots
    and remembers the last sheet it met): every decision is the planner's."""
    import random
    from rulebook.interpreter.engine.state import CHANCE, GameState
    from rulebook.interpreter.players.base import PlannerBot
    from rulebook.interpreter.players.optimal import OptimalBot
    model = load_model("yacht")
    bulk.plans_for(model, "optimal", build_policy=True)
    decider = policy.decider_for(model)
    assert decider is not None and policy.decider_for(model) is decider
    bots = [OptimalBot(model), OptimalBot(model)]
    rng = random.Random(4)
    asked = 0
    for _ in range(10):
        states = [GameState(model, ["cpu"]), GameState(model, ["cpu"])]
        while not all(s.is_terminal() for s in states):
            for bot, state in zip(bots, states):
                while state.current_player() == CHANCE:
                    state.apply(state.sample_chance(rng))
                if state.is_terminal():
                    continue
                made = bot.choose(state)
                assert made == decider.choose(state) == PlannerBot.choose(bot, state)  # (read from the tables)
                assert bot._decider is decider
                state.apply(made)
                asked += 1
    assert asked > 20 * 12


def test_the_best_keeps_by_recursion_are_the_scanned_ones():
    """policy.build finds each roll's best keep by recursion over the keeps with one die fewer: the same
    bytes as the scan of every candidate (the first best, larger keeps first), on sampled Yacht states."""
    from rulebook.interpreter.solver import lockstep
    plans = bulk.plans_for(load_model("yacht"), "optimal")
    space = plans.space
    reached = np.flatnonzero(np.isfinite(plans.V))
    states = np.sort(np.random.default_rng(3).choice(reached[reached // space.F != space.codes - 1], 2000, replace=False))
    keepv = np.empty((len(states), space.rerolls, plans.K + 1))
    plans.planner.plan(*plans.decode(states), states, keepv=keepv, tables=False)
    keepv[:, :, -1] = -np.inf
    scanned = np.empty((len(states), space.rerolls, plans.R), dtype=np.uint8)
    found = np.empty_like(scanned)
    lockstep.best_keeps(keepv, plans.candidates, scanned)
    lockstep.best_keeps(keepv, plans.candidates, found, plans.planner.kplan.turn)
    assert np.array_equal(scanned, found)
