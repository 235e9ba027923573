"""The exact distribution of the final score under the optimal player (solver/distribution.py)."""
import io
import json
import math
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.play.game import Seat
from rulebook.interpreter.play.simulate import run_games
from rulebook.interpreter.solver.distribution import score_distribution, summary
from rulebook.interpreter.solver.solve import solved
from rulebook.tools.cli import main


@pytest.fixture(scope="module", autouse=True)
def solver_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("RULEBOOK_CACHE", str(tmp_path_factory.mktemp("solver-cache")))
    yield
    mp.undo()


def cli(*args):
    """`rulebook ARGS…` in this process (its stdout): the kernels compiled here, and the tables solved
    here, are not made again in a new process for each command. The refusals below run in a subprocess."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    assert code == 0, err.getvalue()
    return out.getvalue()


def test_yacht_distribution_json_sums_to_one_and_its_mean_is_the_solve_value():
    out = json.loads(cli("solve", "yacht", "--distribution", "--json"))
    dist = {int(k): v for k, v in out["distribution"].items()}
    assert abs(sum(dist.values()) - 1) < 1e-9
    mean = sum(s * p for s, p in dist.items())
    assert abs(mean - 166.955068) < 1e-6
    assert abs(mean - out["expected_score"]) < 1e-6
    assert out["percentiles"] == {"5": 111, "25": 143, "50": 167, "75": 188, "95": 231}
    assert min(dist) >= 0 and max(dist) <= 12 * 50


def test_yacht_percentiles_agree_with_simulated_optimal_games():
    model = load_model("yacht")
    space, table = solved(model)
    dist = score_distribution(space, table.values)
    mean, percentiles = summary(dist)
    games = 20_000
    scores = np.array([r.totals[0] for r in run_games(model, [Seat("a", "optimal")], games, seed=7)])
    assert abs(scores.mean() - mean) < 3 * scores.std() / math.sqrt(games)
    cdf = {}
    acc = 0.0
    for s in sorted(dist):
        acc += dist[s]
        cdf[s] = acc
    for q, x in percentiles.items():  # the chance of at most x, and of less than x, as sampled and exact
        below = cdf.get(x, 0) - dist.get(x, 0)
        assert below < q / 100 <= cdf[x]
        for exact, seen in ((cdf[x], (scores <= x).mean()), (below, (scores < x).mean())):
            assert abs(seen - exact) <= 3 * math.sqrt(exact * (1 - exact) / games), (q, x, seen, exact)


def test_solve_distribution_speaks_german_and_dutch():
    de = cli("solve", "yacht", "--distribution", "--lang", "de")
    nl = cli("solve", "yacht", "--distribution", "--lang", "nl")
    assert "5 %: 111" in de and "95 %: 231" in de and "exakte" in de.lower()
    assert "5 %: 111" in nl and "95 %: 231" in nl and "exacte" in nl.lower()


def test_at_least_and_plot_in_german(tmp_path):
    svg = tmp_path / "yacht.svg"
    out = json.loads(cli("solve", "yacht", "--at-least", "200", "--at-least", "250", "--plot", str(svg), "--json"))
    dist = {int(k): v for k, v in out["distribution"].items()}
    assert out["at_least"]["200"] == pytest.approx(sum(p for s, p in dist.items() if s >= 200), abs=1e-12)
    assert out["at_least"]["200"] == pytest.approx(0.166759535, abs=1e-8)
    assert out["at_least"]["250"] == pytest.approx(0.003893891, abs=1e-8)
    assert out["policy"] == "optimal" and out["plot"] == str(svg)
    de = cli("solve", "yacht", "--at-least", "200", "--plot", str(tmp_path / "de.svg"), "--lang", "de")
    assert "Chance auf eine Endpunktzahl von mindestens 200: 16,676 %" in de
    drawn = (tmp_path / "de.svg").read_text()
    assert "Yacht: exakte Verteilung der Endpunktzahl bei optimalem Spiel" in drawn and "Wahrscheinlichkeit" in drawn
    assert drawn.count("<rect") > 20


def test_greedy_distribution_agrees_with_simulated_greedy_games():
    out = json.loads(cli("solve", "yacht", "--policy", "greedy", "--distribution", "--json"))
    dist = {int(k): v for k, v in out["distribution"].items()}
    mean = sum(s * p for s, p in dist.items())
    assert out["policy"] == "greedy" and mean == pytest.approx(152.633578, abs=1e-6)
    assert out["percentiles"] == {"5": 93, "25": 126, "50": 151, "75": 177, "95": 219}
    games = 10_000
    scores = np.array([r.totals[0] for r in run_games(load_model("yacht"), [Seat("a", "greedy")], games, seed=3)])
    assert abs(scores.mean() - mean) < 3 * scores.std() / math.sqrt(games)


def test_objective_win_and_a_plot_not_svg_are_refused_in_one_line(tmp_path):
    for args in (("--objective", "win"), ("--objective", "reach:x"), ("--plot", str(tmp_path / "a.png"))):
        done = subprocess.run([sys.executable, "-m", "rulebook.interpreter", "solve", "yacht", *args],
                              capture_output=True, text=True)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_yahtzee_distribution_mean_is_the_solve_value_254_5877():
    space, table = solved(load_model("yahtzee"))
    dist = score_distribution(space, table.values)
    mean, percentiles = summary(dist)
    assert abs(sum(dist.values()) - 1) < 1e-9
    assert mean == pytest.approx(254.5877, abs=1e-4)
    assert abs(mean - table.expected_score) < 1e-6
    assert percentiles == {5: 180, 25: 217, 50: 248, 75: 272, 95: 388}


@pytest.mark.slow
def test_yahtzee_distribution_agrees_with_100000_simulated_optimal_games():
    """P(score >= 300) and the 5/50/95 percentiles against 100,000 games of the optimal bot (lockstep bulk play).
    Each check is binomial: the number of games at or above 300, and at or below (and below) each exact
    percentile x, is Binomial(n, exact chance); it must lie within 3 standard errors."""
    model = load_model("yahtzee")
    space, table = solved(model)
    dist = score_distribution(space, table.values)
    _, percentiles = summary(dist, (5, 50, 95))
    assert percentiles == {5: 180, 50: 248, 95: 388}
    games = 100_000
    scores = np.array([r.totals[0] for r in run_games(model, [Seat("a", "optimal")], games, seed=11, jobs=2)])

    def within(seen, exact):
        return abs(seen - exact) <= 3 * math.sqrt(exact * (1 - exact) / games)

    exact300 = sum(p for s, p in dist.items() if s >= 300)
    assert exact300 == pytest.approx(0.143264050, abs=1e-8)
    assert within((scores >= 300).mean(), exact300)
    for q, x in percentiles.items():
        at_most = sum(p for s, p in dist.items() if s <= x)
        below = at_most - dist[x]
        assert below < q / 100 <= at_most
        assert within((scores <= x).mean(), at_most) and within((scores < x).mean(), below), (q, x)


@pytest.mark.slow
def test_yahtzee_reach_beats_the_expected_player_at_200_250_300_350():
    """reach:T (solver/reach.py) in one pass for every T <= 350: at least the optimal (expected) player's chance."""
    from rulebook.interpreter.solver.distribution import at_least
    from rulebook.interpreter.solver.reach import reach_chances
    space, table = solved(load_model("yahtzee"))
    best = reach_chances(space, 350, jobs=2)
    dist = score_distribution(space, table.values)
    pinned = {200: 0.910760710, 250: 0.541860935, 300: 0.176018772, 350: 0.097510467}
    expected = {200: 0.863570742, 250: 0.483690729, 300: 0.143264050, 350: 0.072395548}
    for t in pinned:
        assert best[t] == pytest.approx(pinned[t], abs=1e-8)
        assert at_least(dist, t) == pytest.approx(expected[t], abs=1e-8)
        assert best[t] > at_least(dist, t)
    assert best[0] == pytest.approx(1, abs=1e-12) and np.all(np.diff(best) <= 1e-12)


def test_yacht_reach_json_is_the_best_chance_and_at_least_the_expected_players():
    out = json.loads(cli("solve", "yacht", "--objective", "reach:200", "--json"))
    assert out["objective"] == "reach:200" and out["target"] == 200
    assert out["reach_probability"] == pytest.approx(0.218063150, abs=1e-8)
    assert out["expected_player_reach_probability"] == pytest.approx(0.166759535, abs=1e-8)
    assert "distribution" not in out


def test_the_distribution_read_from_policy_tables_is_the_planned_one():
    """The bot's policy tables (built once beside the table) give the same distribution, bit for bit, as
    planning every state; a state the tables lack is planned."""
    from rulebook.interpreter.play.bulk import policy_tables
    model = load_model("yacht")
    space, table = solved(model)
    tables = policy_tables(model, space)
    assert tables is not None
    planned = score_distribution(space, table.values, jobs=1)
    assert score_distribution(space, table.values, jobs=2, policy=tables) == planned
    slot = np.array(tables[0])
    slot[::3] = -1  # (every chunk of a layer then has a state the tables lack)
    assert score_distribution(space, table.values, jobs=1, policy=(slot, *tables[1:])) == planned
