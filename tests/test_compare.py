"""`rulebook compare`: rule variants side by side, with exact optimal scores where the solver can."""
import json

import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.play.compare import Variant, compare, parse_variant
from rulebook.interpreter.model.errors import UsageError


@pytest.fixture(autouse=True)
def solver_cache(tmp_path_factory, monkeypatch):
    # shared with test_simulate: a table solved there is read here, and the other way round
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path_factory.getbasetemp() / "solver-cache-sim"))


def test_yahtzee_joker_and_bonus_variants(cli, tmp_path, monkeypatch):
    plot = tmp_path / "scores.svg"
    args = ("compare", "yahtzee", "--variant", "joker=forced", "--variant", "joker=free",
            "--variant", "upper_bonus=50", "--games", "8", "--seed", "4", "--json", "--plot", str(plot))
    code, out, err = cli(*args)
    assert code == 0, err
    data = json.loads(out)
    forced, free, bonus50 = data["variants"]
    assert [v["label"] for v in data["variants"]] == ["joker=forced", "joker=free", "upper_bonus=50"]
    assert forced["player"] == "optimal" and forced["exact"]
    assert forced["expected_score"] == pytest.approx(254.5877, abs=1e-4)
    assert free["expected_score"] == pytest.approx(254.5896, abs=1e-4)
    assert bonus50["options"]["upper_bonus"] == 50
    # 15 more points for the bonus, earned in about two games of three with optimal play
    assert 254.5877 + 5 < bonus50["expected_score"] < 254.5877 + 15
    for v in data["variants"]:
        assert v["games"] == 8 and set(v["zero_rate"]) == set(load_model("yahtzee").boxes)
        assert set(v["bonus_rate"]) == {"upper_bonus", "yahtzee_bonus"}
        assert all(0 <= r <= 1 for r in [*v["zero_rate"].values(), *v["bonus_rate"].values()])
        skill = v["skill"]
        assert skill["best"] == v["expected_score"] and skill["best"] > skill["greedy"] > skill["random"]
        assert skill["best_minus_greedy"] == pytest.approx(skill["best"] - skill["greedy"])
        first = v["first_player"]
        assert first["games"] == 8 and first["first"] + first["second"] + first["tie"] == pytest.approx(1)
        assert v["turns"] == 13 and 13 <= v["rolls"] <= 39
        assert v["stdev"] > 0 and v["percentiles"]["p25"] <= v["percentiles"]["p75"]
    svg = plot.read_text()
    assert svg.startswith("<svg") and svg.count("<rect") > 10
    for label in ("joker=forced (optimal, exact)", "joker=free (optimal, exact)", "upper_bonus=50 (optimal, exact)"):
        assert label in svg

    # a second run reads every number from the cache: nothing is solved or played again
    from rulebook.interpreter.play import compare as module
    from rulebook.interpreter.solver import solve as solver
    monkeypatch.setattr(solver, "solve", lambda *a, **k: pytest.fail("solved again"))
    monkeypatch.setattr(module, "_play", lambda *a, **k: pytest.fail("played again"))
    monkeypatch.setattr(module, "_bulk_play", lambda *a, **k: pytest.fail("played again in bulk"))
    solver._SPACES.clear()
    code, again, err = cli(*args)
    assert code == 2 and "--force" in err  # the plot is there: never overwritten unasked
    code, again, err = cli(*args, "--force")
    assert code == 0, err
    assert json.loads(again) == data


def test_unsolvable_variant_is_measured_by_the_best_bot_and_labelled(cli):
    code, out, err = cli("compare", "generala", "--variant", "served_generala_wins=true",
                         "--variant", "served_generala_wins=false", "--games", "6", "--json")
    assert code == 0, err
    served, plain = json.loads(out)["variants"]
    assert served["player"] in ("greedy", "strong") and not served["exact"]
    assert "end_if" in served["unsolvable"]
    assert plain["player"] == "optimal" and plain["exact"]
    assert plain["expected_score"] == pytest.approx(159.618456, abs=1e-6)
    # a served generala can end a game early: never more turns than boxes
    boxes = len(load_model("generala").boxes)
    assert served["turns"] <= boxes and plain["turns"] == boxes


def test_table_speaks_german(cli):
    code, out, err = cli("compare", "yacht", "--variant", "", "--model", "yacht", "--games", "4", "--lang", "de")
    assert code == 0, err
    assert "Erwartete Punktzahl" in out and "166,9551" in out and "gestrichen" in out


def test_model_files_and_refusals(cli, tmp_path):
    code, _, err = cli("compare", "yacht")
    assert code == 2 and "at least two variants" in err
    code, _, err = cli("compare", "yacht", "--variant", "joker", "--variant", "a=b")
    assert code == 2 and "NAME=VALUE" in err
    code, _, err = cli("compare", "yahtzee", "--variant", "joker=sometimes", "--variant", "joker=free")
    assert code == 2 and "sometimes" in err
    code, _, err = cli("compare", "yacht", "--model", "yacht", "--plot", str(tmp_path / "p.png"))
    assert code == 2 and "SVG" in err


def test_parse_variant():
    assert parse_variant("a=1, b = x") == {"a": "1", "b": "x"}
    with pytest.raises(UsageError):
        parse_variant("a=1,,b=2")


def test_compare_library_call_is_in_order_and_refuses_no_games():
    yacht = load_model("yacht")
    with pytest.raises(UsageError):
        compare([(Variant("a", "yacht"), yacht)], 0, 1)
    (m,) = compare([(Variant("a", "yacht"), yacht)], 3, 1, use_cache=False)
    assert m.label == "a" and len(m.totals) == 3 and m.expected_score == pytest.approx(166.955068, abs=1e-6)


def test_every_compare_text_is_translated():
    from pathlib import Path

    from babel.messages.extract import extract_from_file
    from babel.messages.pofile import read_po
    from rulebook.tools.i18n import LOCALES_DIR
    source = Path(__file__).resolve().parents[1] / "tools" / "commands" / "compare.py"
    ids = {m[1] for m in extract_from_file("python", source)}
    assert len(ids) > 20
    for lang in ("de", "nl"):
        with (LOCALES_DIR / lang / "LC_MESSAGES" / "rulebook.po").open("rb") as f:
            catalog = read_po(f)
        missing = sorted(i for i in ids if i not in catalog or not catalog[i].string)
        assert missing == [], (lang, missing)


def test_boxes_used_several_times_count_each_entry():
    """A box with several cells (balut: each box four times) is scratched in a share of its entries."""
    from rulebook.interpreter.play.compare import _cells_of
    model = load_model("balut")
    cells = _cells_of(model)
    assert max(len(c) for c in cells.values()) > 1
    (m,) = compare([(Variant("b", "balut"), model)], 3, 2, use_cache=False)
    # the solver reads boxes used several times (as counts): the best player is the optimal one,
    # and the exact value is Balut's expected grand total (what the solver maximizes)
    assert m.player == "optimal" and m.exact and m.expected_score == pytest.approx(433.347124, abs=1e-6)
    for box, rate in m.zero_rate.items():
        entries = 3 * len(cells[box])
        assert 0 <= rate <= 1 and abs(rate * entries - round(rate * entries)) < 1e-9
    assert any(rate > 0 for rate in m.zero_rate.values())


def _within(a: list[float], b: list[float], k: float = 3.0) -> bool:
    """Whether two samples' means agree within k standard errors of their difference."""
    import statistics
    se = (statistics.variance(a) / len(a) + statistics.variance(b) / len(b)) ** 0.5
    return abs(statistics.fmean(a) - statistics.fmean(b)) <= k * max(se, 1e-9)


def _rate_within(p: float, n: int, q: float, m: int, k: float = 3.0) -> bool:
    pooled = (p * n + q * m) / (n + m)
    se = (pooled * (1 - pooled) * (1 / n + 1 / m)) ** 0.5
    return abs(p - q) <= k * se + 1e-9


@pytest.mark.parametrize("name, kind", [("yacht", "greedy"), ("yacht", "optimal"), ("yahtzee", "greedy"),
                                        ("yahtzee", "random"), ("yatzy", "random")])
def test_bulk_games_give_the_statistics_of_games_played_one_by_one(name, kind):
    """compare plays greedy, optimal and random games in bulk: other games, the same statistics (3 SE)."""
    import random

    from rulebook.interpreter.play import compare as module
    from rulebook.interpreter.players.registry import make_bot
    model = load_model(name)
    assert module.bulk_reason(model, [kind]) is None
    n, m = 300, 3000
    bot = make_bot(kind, model, random.Random(7))
    one = [module._play(model, [bot], 7 + i) for i in range(n)]
    bulk = module._bulk_play(model, [kind], m, 7, None)
    assert len(bulk) == m
    for field in ("totals", "rolls", "turns"):
        a, b = [getattr(g, field)[0] for g in one], [getattr(g, field)[0] for g in bulk]
        assert _within(a, b), (field, sum(a) / n, sum(b) / m)
    assert {g.turns[0] for g in bulk} == {len(model.boxes)}
    for box in model.boxes:
        p = sum(g.sheets[0][box] == 0 for g in one) / n
        q = sum(g.sheets[0][box] == 0 for g in bulk) / m
        assert _rate_within(p, n, q, m), (box, p, q)
    for bonus in model.bonuses:
        p = sum(g.bonuses[0][bonus.id] > 0 for g in one) / n
        q = sum(g.bonuses[0][bonus.id] > 0 for g in bulk) / m
        assert _rate_within(p, n, q, m), (bonus.id, p, q)
    games = module.play_games(model, kind, 500, 7)  # "auto": in bulk
    assert games.games == 500 and games.turns == len(model.boxes) and _within(games.totals, [g.totals[0] for g in one])


def test_two_player_games_in_bulk_rank_as_games_played_one_by_one():
    from rulebook.interpreter.play import compare as module
    model = load_model("yacht")
    one = module.first_player_wins(model, "greedy", 300, 3, engine="game")
    bulk = module.first_player_wins(model, "greedy", 3000, 3)
    for key in ("first", "second", "tie"):
        assert _rate_within(one[key], 300, bulk[key], 3000), (key, one, bulk)


def test_compare_plays_in_bulk_only_what_bulk_takes(monkeypatch):
    from rulebook.interpreter.play import compare as module
    played = []
    real_play, real_bulk = module._play, module._bulk_play
    monkeypatch.setattr(module, "_play", lambda model, bots, seed: played.append("game") or real_play(model, bots, seed))
    monkeypatch.setattr(module, "_bulk_play", lambda *a: played.append("bulk") or real_bulk(*a))
    model = load_model("yacht")
    module.play_games(model, "strong", 3, 1)
    assert set(played) == {"game"}
    played.clear()
    module.play_games(model, "random", 3, 1)
    assert played == ["bulk"]
    played.clear()
    module.play_games(model, "greedy", 3, 1)
    assert played == ["bulk"]
    played.clear()
    module.play_games(model, "greedy", 3, 1, engine="game")
    assert set(played) == {"game"}


def test_exact_spread_where_the_solver_reads_both_variants(cli, tmp_path):
    svg = tmp_path / "c.svg"
    code, out, err = cli("compare", "yacht", "--variant", "", "--model", "yacht", "--games", "4", "--json",
                         "--plot", str(svg))
    assert code == 0, err
    for v in json.loads(out)["variants"]:
        dist = {int(k): p for k, p in v["distribution"].items()}
        assert v["exact_spread"] and abs(sum(dist.values()) - 1) < 1e-9
        # Yacht's exact percentiles (tests/test_distribution.py), not those of the 4 games played
        assert v["percentiles"] == {"p5": 111.0, "p25": 143.0, "p50": 167.0, "p75": 188.0, "p95": 231.0}
        assert v["stdev"] == pytest.approx(sum(p * (s - 166.955068) ** 2 for s, p in dist.items()) ** 0.5, abs=1e-4)
    assert "yacht (optimal, exact)" in svg.read_text()
    code, out, err = cli("compare", "yacht", "--variant", "", "--model", "yacht", "--games", "4", "--lang", "nl")
    assert code == 0, err
    assert "exact (solver)" not in out and "exact (oplosser)" in out


def test_versus_win_rates_with_their_standard_errors(cli, monkeypatch):
    """--versus plays two kinds of computer player against each other in every variant, half the games
    each seated first; the first kind's share won (a tie counts half) ± its standard error, also per
    seat, beside the first and second player's shares of two equal players with theirs."""
    code, out, err = cli("compare", "yacht", "--model", "rules/yacht.yaml", "--games", "300", "--seed", "3",
                         "--versus", "win:optimal", "--json", "--no-cache")
    assert code == 0, err
    for v in json.loads(out)["variants"]:
        versus, first = v["versus"], v["first_player"]
        assert versus["players"] == ["win", "optimal"] and versus["games"] == 300
        assert versus["win_rate"] == pytest.approx(143 / 300) and versus["first"]["win_rate"] == pytest.approx(0.45)
        assert versus["second"]["win_rate"] == pytest.approx(151 / 300)
        assert versus["win_rate_stderr"] == pytest.approx((143 / 300 * 157 / 300 / 300) ** 0.5)
        assert versus["first"]["games"] == versus["second"]["games"] == 150
        assert first["first"] == pytest.approx(134 / 300)
        assert first["first_stderr"] == pytest.approx((134 / 300 * 166 / 300 / 300) ** 0.5)
    monkeypatch.setenv("COLUMNS", "300")  # a table row on one line
    for lang, words in {"en": ("plays to win against optimal: share won (a tie counts half)", "± "),
                        "de": ("spielt auf Sieg gegen optimal: Anteil gewonnen", "Der zweite Spieler gewinnt"),
                        "nl": ("speelt om te winnen tegen optimaal, als tweede aan de beurt", "De tweede speler wint")}.items():
        code, out, err = cli("compare", "yacht", "--model", "rules/yacht.yaml", "--games", "20", "--seed", "3",
                             "--versus", "win:optimal", "--lang", lang, "--no-cache")
        assert code == 0 and all(w in out for w in words), (lang, out)
    code, out, err = cli("compare", "yacht", "--model", "rules/yacht.yaml", "--versus", "win", "--lang", "de")
    assert code == 2 and "--versus braucht zwei Computerspieler" in err and err.count("\n") == 1
