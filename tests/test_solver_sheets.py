"""The solver on sheets beyond one entry per box: a box used N times is one unit whose state is how
many entries it holds (Balut: 5^7 sheets, not 2^28), solved for the expected grand total."""
from __future__ import annotations

import json

import numpy as np

import pytest
import yaml

from rulebook.interpreter import load_model
from rulebook.interpreter.model.loader import RULES_DIR, load_source
from rulebook.interpreter.play.game import Seat
from rulebook.interpreter.play.simulate import run_games, summarize
from rulebook.interpreter.solver.space import Space
from rulebook.interpreter.solver.solve import solve

BALUT = 433.347124  # the expected grand total with play that maximizes it (not the Balut points)


def test_balut_is_solved_over_counts_of_entries(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path))
    code, out, err = cli("solve", "balut", "--json")
    data = json.loads(out)
    assert code == 0 and data["expected_score"] == pytest.approx(BALUT, abs=1e-6)
    assert data["states"] == 5**7  # seven rows, each holding 0 to 4 entries
    assert data["maximizes"] == "expected grand total" and data["ranked_by"] == "Balut points"
    code, out, err = cli("solve", "balut")  # from the cache, saying what it maximizes
    assert "433.3471" in out and "maximizes the expected grand total" in out and "Balut points" in out


def _balut(uses: int, split: str | None = None):
    """Balut with every row used `uses` times; `split`: that row as `uses` boxes of one entry each."""
    data = yaml.safe_load((RULES_DIR / "balut.yaml").read_text(encoding="utf-8"))
    boxes = data["sections"][0]["boxes"]
    for box in boxes:
        box["uses"] = uses
    if split:
        i = next(i for i, b in enumerate(boxes) if b["id"] == split)
        row = boxes.pop(i)
        for k in range(uses):
            copy = dict(row, id=f"{split}_{k}", uses=1)
            boxes.insert(i + k, copy)
    data["flow"]["times"] = uses * 7
    data.pop("winner")
    data.pop("define")
    return load_source(yaml.safe_dump(data, allow_unicode=True), "balut_variant.yaml")


def test_a_box_used_twice_is_worth_the_same_as_two_boxes_of_one_entry():
    counted, split = _balut(2), _balut(2, split="choice")
    a, b = Space(counted), Space(split)
    assert sum(a.level_counts()) == 3**7 and sum(b.level_counts()) == 3**6 * 4
    assert solve(counted, space=a).expected_score == pytest.approx(solve(split, space=b).expected_score, abs=1e-9)


def test_the_simulated_optimal_player_scores_the_solved_grand_total():
    model = load_model("balut")
    results = run_games(model, [Seat("a", "optimal")], games=150, seed=3, engine="game")
    (s,) = summarize(model, [Seat("a", "optimal")], results)
    assert abs(s.mean - BALUT) < 3 * s.stderr


@pytest.mark.parametrize("lang, states, table", [("en", "536,448", "8.0 MB"), ("de", "536.448", "8,0 MB"),
                                                  ("nl", "536.448", "8,0 MB")])
def test_the_refusal_writes_its_numbers_as_the_language_does(cli, lang, states, table):
    code, out, err = cli("solve", "yahtzee", "--max-states", "1000", "--no-cache", "--lang", lang)
    assert code == 2 and f" {states} " in err and f" {table} " in err and " 1000 " not in err
    assert "--max-states 536448" in err  # a flag to type stays as the command line takes it


def _yacht_columns(*columns):
    """Yacht on a sheet with these columns: (id, multiplier, order)."""
    data = yaml.safe_load((RULES_DIR / "yacht.yaml").read_text(encoding="utf-8"))
    data["columns"] = [{"id": c, "name": {"en": c, "de": c, "nl": c}, "multiplier": m, "order": o}
                       for c, m, o in columns]
    data["flow"]["times"] = len(columns) * sum(len(s["boxes"]) for s in data["sections"])
    return load_source(yaml.safe_dump(data, allow_unicode=True), "yacht_columns.yaml")


def test_a_column_filled_top_down_is_a_position_and_its_turns_are_independent():
    """Top down, each turn's box is known: the value is the sum of each box's best single turn."""
    from rulebook.interpreter.engine.turn import turn_tables
    model = _yacht_columns(("down", 1, "down"))
    space = Space(model)
    assert space.codes == 13 and sum(space.level_counts()) == 13  # positions 0..12, not 2^12 subsets
    tt = space.tt
    alone = 0.0
    for unit in space.boxes:
        points = np.array([float(t.value) for t in space.trees[space.last_roll][0][unit]])
        alone += float(tt.start_value(points[:, None], space.rerolls)[0])
    assert solve(model, space=space).expected_score == pytest.approx(alone, abs=1e-9)


def test_two_ordered_columns_are_two_positions_with_their_multipliers():
    down_up = _yacht_columns(("a", 1, "down"), ("b", 2, "up"))
    space = Space(down_up)
    assert space.codes == 13 * 13 and sum(space.level_counts()) == 13 * 13
    value = solve(down_up, space=space).expected_score
    single = solve(_yacht_columns(("down", 1, "down"))).expected_score
    assert value > 3 * single  # choosing the column for each roll is worth something
    assert value < 3 * 166.955068  # and it is no better than two free Yacht sheets


def test_the_optimal_player_on_ordered_columns_scores_the_solved_value():
    from rulebook.interpreter.players.optimal import OptimalBot
    from rulebook.interpreter.play.simulate import play_one
    model = _yacht_columns(("a", 1, "down"), ("b", 2, "up"))
    bot = OptimalBot(model)
    import statistics
    totals = []
    for g in range(200):
        totals.append(play_one(model, [Seat("a", "optimal")], 100 + g, [bot]).totals[0])
    se = statistics.stdev(totals) / len(totals) ** 0.5
    assert abs(statistics.fmean(totals) - bot.table.expected_score) < 3 * se
