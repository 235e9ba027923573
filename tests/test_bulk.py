"""Bulk play (interpreter/play/bulk.py) against the per-game engine, its reference.

Decisions: at every position of games played through `GameState` by the greedy and optimal bots,
the bulk plans choose the very same keep or box, write the same points and reach the same next
state. Statistics: over many games, the bulk engine's mean and spread agree with the per-game
engine's within 3 standard errors.
"""
from __future__ import annotations

import random
import statistics

import numpy as np
import pytest

from rulebook.interpreter.play import bulk, plans as plans_module
from rulebook.interpreter import load_model
from rulebook.interpreter.engine.actions import Stop, Write
from rulebook.interpreter.players.registry import make_bot
from rulebook.interpreter.model.errors import UsageError
from rulebook.interpreter.play.game import Seat
from rulebook.interpreter.play.simulate import run_games, spread_stderr, summarize
from rulebook.interpreter.engine.state import CHANCE, GameState


@pytest.fixture(autouse=True)
def solver_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path_factory.getbasetemp() / "solver-cache-sim"))
    monkeypatch.setattr(bulk, "_PLANS", {})  # no plans another test made in this process (with policy tables, say)


@pytest.mark.parametrize("name,kind", [("yacht", "optimal"), ("yahtzee", "greedy"), ("yatzy", "greedy")])
def test_bulk_plans_make_the_per_game_bots_decisions_exactly(name, kind):
    model = load_model(name)
    plans = bulk.plans_for(model, kind)
    space, tt = plans.space, plans.space.tt
    bot = make_bot(kind, model, random.Random(0))
    decisions = keeps = 0
    for g in range(6):
        rng = random.Random(g)
        state = GameState(model, ["cpu"])
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply(state.sample_chance(rng))
                continue
            action = bot.choose(state)
            slot = plans.slots(space.index(*space.encode(state.sheets[0])))
            roll = tt.roll_index[state.dice]
            if isinstance(action, Write):
                box = plans.box[slot, roll]
                assert space.boxes[box[0]] == action.box
                before = space.index(*space.encode(state.sheets[0]))
                points, bonus, after = plans.write(before, box, np.array([roll]))
                awards = dict(state.awards[0])
                state.apply(action)
                assert state.sheets[0][action.box] == points[0]
                ids = [b.id for b in model.bonuses if b.when == "write"]
                assert [state.awards[0].get(i, 0) - awards.get(i, 0) for i in ids] == bonus[:, 0].tolist()
                assert space.index(*space.encode(state.sheets[0]))[0] == after[0]
            else:
                chosen = tt.keeps[plans.keeps(slot, state.rolls_left(), np.array([roll]))[0]]
                assert chosen == (state.dice if isinstance(action, Stop) else action.dice)
                keeps += 1
                state.apply(action)
            decisions += 1
    assert decisions > 6 * len(model.boxes) and keeps > 0


def _agree(a: list[int], b: list[int]) -> None:
    """Same mean and same spread within 3 standard errors."""
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    sa, sb = statistics.stdev(a), statistics.stdev(b)
    se_mean = (sa**2 / len(a) + sb**2 / len(b)) ** 0.5
    assert abs(ma - mb) < 3 * se_mean, (ma, mb, se_mean)
    se_sd = (spread_stderr(a) ** 2 + spread_stderr(b) ** 2) ** 0.5
    assert abs(sa - sb) < 3 * se_sd, (sa, sb, se_sd)


def test_the_spread_s_standard_error_counts_the_tails():
    # normal-like scores: the normal s / sqrt(2n); rare big bonuses: far more (the greedy bot's
    # Yahtzee spread, 49.1 over 200,000 bulk games against 44.1 over 400 per-game games, is 1.4 of
    # these errors apart, not 3.2 of the normal ones: the same play, tested decision by decision above)
    flat = [0, 1, 2, 3] * 50
    assert spread_stderr(flat) == pytest.approx(0.0313, abs=1e-4)  # (light tails: less)
    assert statistics.stdev(flat) / (2 * len(flat)) ** 0.5 == pytest.approx(0.0561, abs=1e-4)
    tail = [0] * 196 + [100] * 4
    assert spread_stderr(tail) == pytest.approx(3.39, abs=0.01)
    assert statistics.stdev(tail) / (2 * len(tail)) ** 0.5 == pytest.approx(0.70, abs=0.01)


@pytest.mark.parametrize("name,kind,per_game", [("yacht", "greedy", 300), ("yacht", "optimal", 300)])
def test_bulk_and_per_game_engines_agree_in_mean_and_spread(name, kind, per_game):
    model = load_model(name)
    seats = [Seat("a", kind)]
    reference = run_games(model, seats, per_game, seed=7, engine="game")
    fast = run_games(model, seats, 4000, seed=7, engine="bulk")
    _agree([r.totals[0] for r in reference], [r.totals[0] for r in fast])
    # the bonuses and sheets are the scorer's: totals add up
    for r in fast[:50]:
        assert r.totals[0] == sum(r.sheets[0].values()) + sum(r.bonuses[0].values())


def test_bulk_results_are_reproducible_and_do_not_depend_on_jobs(monkeypatch):
    monkeypatch.setattr(bulk, "BLOCK", 50)
    model = load_model("yacht")
    seats = [Seat("g", "greedy"), Seat("o", "optimal")]
    one = run_games(model, seats, 130, seed=3, jobs=1, engine="bulk")
    again = run_games(model, seats, 130, seed=3, jobs=1, engine="bulk")
    two = run_games(model, seats, 130, seed=3, jobs=2, engine="bulk")
    other = run_games(model, seats, 130, seed=4, jobs=1, engine="bulk")
    assert [r.totals for r in one] == [r.totals for r in again] == [r.totals for r in two]
    assert [r.totals for r in one] != [r.totals for r in other]
    assert len(one) == 130 and all(len(r.sheets[0]) == len(model.boxes) for r in one)
    for r in one:  # ranks: 1 for the higher total, shared when equal
        a, b = r.totals
        assert r.ranks == ([1, 1] if a == b else [1, 2] if a > b else [2, 1])
    g, o = summarize(model, seats, one)
    assert o.mean > g.mean


def test_the_plan_cache_keeps_to_its_memory_bound():
    model = load_model("yacht")
    plans = bulk.Plans(bulk.plans_for(model, "greedy").space, np.zeros(1 << 22), max_bytes=1)
    assert plans.capacity == plans_module.PLAN_CHUNK
    games = bulk.play_seat(plans, bulk.Dice(plans.space.tt), 600, np.random.default_rng(1))
    assert len(plans.index) <= plans.capacity and len(plans.box) <= plans.capacity
    assert games.points.shape == (600, len(model.boxes)) and (games.points >= 0).all()


def test_what_bulk_play_does_not_support_falls_back_or_is_refused():
    assert bulk.unsupported(load_model("yahtzee"), ["greedy", "random"]) is not None
    assert "end_if" in str(bulk.unsupported(load_model("generala"), ["greedy"]))
    assert "not random" in str(bulk.unsupported(load_model("yacht"), ["random", "greedy"]))
    model = load_model("yacht")
    seats = [Seat("g", "greedy"), Seat("r", "random")]
    auto = run_games(model, seats, 5, seed=1)
    assert [r.totals for r in auto] == [r.totals for r in run_games(model, seats, 5, seed=1, engine="game")]
    with pytest.raises(UsageError, match="bulk play takes greedy and optimal computer players only"):
        run_games(model, seats, 5, seed=1, engine="bulk")


def test_simulate_cli_engine_flag(cli):
    code, out, err = cli("simulate", "yacht", "--games", "300", "--players", "a:greedy", "--engine", "bulk", "--json")
    assert code == 0, err
    assert '"games": 300' in out
    code, _, err = cli("simulate", "yacht", "--games", "3", "--players", "a:random", "--engine", "bulk")
    assert code == 2 and "bulk play takes greedy and optimal" in err and "--engine game" in err


def test_dice_drawn_from_the_grid_are_the_dice_counted_over_every_roll():
    from rulebook.interpreter.engine.turn import turn_tables
    for n, faces in ((5, 6), (3, 8)):
        tt = turn_tables(n, faces)
        dice = bulk.Dice(tt)
        rng = np.random.default_rng(n)
        keeps = rng.integers(0, len(tt.keeps), 50_000)
        u = rng.random(50_000)
        u[:1000] = np.minimum(dice.scum[keeps[:1000], 0], 1 - 2**-53)  # exactly on a cumulative value
        u[1000:1002] = [0.0, 1 - 2**-53]
        rows = dice.cum[keeps]
        counted = np.minimum((rows <= u[:, None]).sum(axis=1), rows.shape[1] - 1)
        assert np.array_equal(dice.after_keep(keeps, u), counted)
        u[:1000] = np.minimum(dice.first[rng.integers(0, len(dice.first), 1000)], 1 - 2**-53)  # the first roll too
        counted = np.minimum((dice.first <= u[:, None]).sum(axis=1), len(dice.first) - 1)
        assert np.array_equal(dice.roll_all(u), counted)


def test_random_players_in_bulk_only_where_asked_and_as_the_engine_plays_them():
    model = load_model("yahtzee")
    assert "not random" in str(bulk.unsupported(model, ["random"]))  # simulate: one by one, as before
    assert bulk.unsupported(model, ["random", "greedy"], allow_random=True) is None
    blocks = bulk.run_games(model, ["random"], 4000, 2)
    points = np.concatenate([b[0].points for b in blocks])
    rolls = np.concatenate([b[0].rolls for b in blocks])
    assert points.shape == (4000, 13) and (points >= 0).all()
    one = [simulate_one(model, i) for i in range(400)]
    totals = [r.totals[0] for r in bulk.results(model, blocks, ["r"])]
    for a, b in ((totals, [t for t, _ in one]), (rolls.tolist(), [r for _, r in one])):
        se = (statistics.variance(a) / len(a) + statistics.variance(b) / len(b)) ** 0.5
        assert abs(statistics.fmean(a) - statistics.fmean(b)) < 3 * se
    again = bulk.run_games(model, ["random"], 4000, 2)
    assert np.array_equal(np.concatenate([b[0].points for b in again]), points)  # one seed, the same games


def simulate_one(model, seed: int) -> tuple[int, int]:
    """(total, rolls) of one random-policy game through the per-game engine."""
    from rulebook.interpreter.play.compare import _play
    game = _play(model, [make_bot("random", model, random.Random(seed))], seed)
    return game.totals[0], game.rolls[0]


@pytest.mark.parametrize("name,reads_sheet", [("yahtzee", True), ("yatzy", False)])
def test_the_compiled_write_is_the_numpy_write(name, reads_sheet, monkeypatch):
    """Plans.write compiled (lockstep.write, the writes whose points read the sheet left to numpy) gives
    the points, write bonuses and next states of its numpy way, at states and rolls of real games."""
    from rulebook.interpreter.solver import lockstep
    if lockstep.compiled() is None:
        pytest.skip("no numba")
    model = load_model(name)
    plans = bulk.plans_for(model, "greedy")
    rng = np.random.default_rng(7)
    trace = []
    bulk.play_seat(plans, bulk.dice_for(plans.space.tt), 3000, rng, trace=trace)
    states = np.concatenate([np.zeros(3000, dtype=np.int64)] + [t[0] for t in trace[:-1]])
    slot = plans.slots(states)
    rolls = rng.integers(0, plans.R, len(states))
    boxes = plans.box[slot, rolls]
    compiled = plans.write(states, boxes, rolls)
    assert bool(len(lockstep.write(plans, states, boxes, rolls)[3])) == reads_sheet  # (jokers: points read the sheet)
    monkeypatch.setattr(lockstep, "write", lambda *a: None)
    numpy_way = plans.write(states, boxes, rolls)
    for a, b in zip(compiled, numpy_way):
        assert a.dtype == b.dtype and np.array_equal(a, b)


@pytest.mark.parametrize("compiled_write", [True, False])
def test_a_box_held_at_least_moves_as_the_rules_say(tmp_path, monkeypatch, compiled_write):
    """A condition `value(box) >= t` (an 'atleast' feature) holds for every value from t up, in bulk play's
    next state as in the solver's: Yahtzee with its bonus condition `value(yahtzee) == 50` said as
    `>= 1` (the box holds 0 or 50, so the rules are the same) plays the very same bulk games."""
    from rulebook.interpreter.model.loader import bundled_models
    from rulebook.interpreter.solver import lockstep
    if not compiled_write:
        monkeypatch.setattr(lockstep, "write", lambda *a: None)
    text = bundled_models()["yahtzee"].read_text(encoding="utf-8")
    assert text.count("value(yahtzee) == 50") == 1
    path = tmp_path / "yahtzee.yaml"
    path.write_text(text.replace("value(yahtzee) == 50", "value(yahtzee) >= 1"), encoding="utf-8")
    variant = load_model(str(path))
    assert [f.kind for f in bulk.plans_for(variant, "greedy").space.feats].count("atleast") == 1
    games = [run_games(m, [Seat("cpu", "greedy")], 3000, 5, 1, engine="bulk") for m in (load_model("yahtzee"), variant)]
    totals = [[r.totals[0] for r in g] for g in games]
    assert totals[0] == totals[1]
    assert sum(r.bonuses[0].get("yahtzee_bonus", 0) > 0 for r in games[1]) > 0  # (some games earn the bonus)
