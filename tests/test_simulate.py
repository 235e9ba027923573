"""Simulations: statistics of bot games, and agreement with the solver."""
import json
import statistics

import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.play.game import Seat
from rulebook.interpreter.play.simulate import run_games, summarize


@pytest.fixture(autouse=True)
def solver_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path_factory.getbasetemp() / "solver-cache-sim"))


def test_results_do_not_depend_on_jobs():
    model = load_model("yacht")
    seats = [Seat("g", "greedy"), Seat("r", "random")]
    one = run_games(model, seats, 12, seed=5, jobs=1)
    two = run_games(model, seats, 12, seed=5, jobs=2)
    assert [r.totals for r in one] == [r.totals for r in two]


def test_summary_counts_zeros_bonuses_and_wins():
    model = load_model("yahtzee")
    seats = [Seat("g", "greedy"), Seat("r", "random")]
    results = run_games(model, seats, 30, seed=1)
    g, r = summarize(model, seats, results)
    assert g.games == 30 and g.mean > r.mean
    assert g.mean == pytest.approx(statistics.fmean(x.totals[0] for x in results))
    assert 0 <= g.zero_rate["yahtzee"] <= 1 and set(g.bonus_rate) == {"upper_bonus", "yahtzee_bonus"}
    assert g.wins + r.wins >= 30


def test_optimal_bot_simulated_mean_agrees_with_the_solver():
    from rulebook.interpreter.solver.solve import solved
    model = load_model("yahtzee", {"joker": "free"})
    expected = solved(model)[1].expected_score
    results = run_games(model, [Seat("cpu", "optimal")], 300, seed=100, jobs=2)
    (s,) = summarize(model, [Seat("cpu", "optimal")], results)
    assert abs(s.mean - expected) < 3 * s.stderr, (s.mean, s.stderr)


def test_simulate_cli_json_and_plot(cli, tmp_path):
    plot = tmp_path / "h.svg"
    code, out, err = cli("simulate", "yacht", "--games", "20", "--players", "a:greedy,b:random",
                         "--seed", "3", "--json", "--plot", str(plot))
    assert code == 0, err
    data = json.loads(out)
    assert data["games"] == 20 and [p["player"] for p in data["players"]] == ["a", "b"]
    assert data["players"][0]["mean"] > data["players"][1]["mean"]
    svg = plot.read_text()
    assert svg.startswith("<svg") and "<rect" in svg and "a (greedy)" in svg


def test_simulate_without_players_seats_as_many_greedy_players_as_the_game_needs(cli):
    """Qwixx is for 2 to 5 players: the default is two greedy computers, not one (which it refuses)."""
    code, out, err = cli("simulate", "qwixx", "--games", "4", "--json")
    assert code == 0, err
    assert [(p["player"], p["kind"]) for p in json.loads(out)["players"]] == [
        ("Computer 1", "greedy"), ("Computer 2", "greedy")]
    code, out, err = cli("simulate", "yacht", "--games", "4", "--json")
    assert code == 0 and [p["player"] for p in json.loads(out)["players"]] == ["Computer"]


def test_simulate_cli_refuses_humans_and_bad_plot(cli, tmp_path):
    code, _, err = cli("simulate", "yacht", "--players", "me:human")
    assert code == 2 and "computer players only" in err
    code, _, err = cli("simulate", "yacht", "--plot", str(tmp_path / "h.png"))
    assert code == 2 and "SVG" in err


def test_solve_cli_json(cli, monkeypatch, tmp_path):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path))
    code, out, _ = cli("solve", "yacht", "--json")
    data = json.loads(out)
    assert code == 0 and data["expected_score"] == pytest.approx(166.955068) and data["states"] == 4096
    assert list(tmp_path.glob("yacht-*.npy")) and list(tmp_path.glob("yacht-*.json"))
    code, _, err = cli("solve", "generala")
    assert code == 2 and "end_if" in err


def test_a_model_with_its_own_final_score_reports_it_beside_the_grand_total(cli):
    """Balut ranks on Balut points: simulate reports their mean and spread as well as the total's."""
    from rulebook.interpreter.model.scoring import Scorer
    model = load_model("balut")
    seats = [Seat("a", "greedy"), Seat("b", "random")]
    results = run_games(model, seats, 12, seed=4)
    scorer = Scorer(model)
    for r in results:  # each game's final score is the model's ranking of its full sheets
        assert r.finals == [scorer.final_score(sheet, {})[0] for sheet in r.sheets]
        best = max(zip(r.finals, r.totals))  # points, then the total breaks ties
        assert [rank == 1 for rank in r.ranks] == [(f, t) == best for f, t in zip(r.finals, r.totals)]
    a, b = summarize(model, seats, results)
    points = [r.finals[0] for r in results]
    assert a.final["mean"] == pytest.approx(statistics.fmean(points))
    assert a.final["stdev"] == pytest.approx(statistics.stdev(points))
    assert a.final["name"]["en"] == "Balut points" and a.mean == pytest.approx(statistics.fmean(r.totals[0] for r in results))
    assert a.final["mean"] > b.final["mean"]
    assert summarize(load_model("yacht"), [Seat("g", "greedy")], run_games(load_model("yacht"), [Seat("g", "greedy")], 2, 1))[0].final is None
    code, out, err = cli("simulate", "balut", "--games", "12", "--players", "a:greedy,b:random", "--seed", "4", "--json")
    assert code == 0, err
    data = json.loads(out)["players"]
    assert data[0]["final"]["mean"] == pytest.approx(a.final["mean"]) and data[0]["mean"] == pytest.approx(a.mean)
    for lang, total, name in (("en", "Grand total: mean", "Balut points: mean"),
                              ("de", "Gesamtsumme: Mittelwert", "Balut-Punkte: Mittelwert"),
                              ("nl", "Eindtotaal: gemiddelde", "Balutpunten: gemiddelde")):
        code, out, err = cli("simulate", "balut", "--games", "12", "--players", "a:greedy,b:random", "--seed", "4",
                             "--lang", lang)
        assert code == 0, err
        assert total in out and name in out and out.index(total) < out.index(name)
    code, out, _ = cli("simulate", "yacht", "--games", "3")
    assert "Grand total" not in out and out.count("mean ") == 1


def test_neighbouring_seeds_share_no_game():
    """Game i's seed is a hash of (run seed, i): seeds 11 and 12 play other games (seed + i repeated all but one),
    and one seed always plays the same ones."""
    from rulebook.interpreter.play.simulate import game_seed, game_seeds, play_one
    eleven, twelve = game_seeds(11, 1000), game_seeds(12, 1000)
    assert not set(eleven) & set(twelve)
    assert len(set(eleven)) == 1000 and game_seeds(11, 1000) == eleven
    assert game_seed(11, 0) == 0x47E80A95ACD43B4E
    model = load_model("yacht")
    seats = [Seat("a", "greedy")]
    a = [r.totals[0] for r in run_games(model, seats, 40, seed=11, engine="game")]
    b = [r.totals[0] for r in run_games(model, seats, 40, seed=12, engine="game")]
    assert a == [r.totals[0] for r in run_games(model, seats, 40, seed=11, engine="game")]
    assert a[:5] == [168, 181, 148, 142, 205] and b[:5] == [231, 189, 133, 144, 137]
    assert sum(x == y for x, y in zip(a, b[1:])) == 0  # with seed + i, b's game i was a's game i + 1: all 39 equal
    assert a[0] == play_one(model, seats, game_seed(11, 0)).totals[0]
