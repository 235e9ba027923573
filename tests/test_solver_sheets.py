"""The solver on sheets beyond one entry per box: a box used N times is one unit whose state is how
many entries it holds (Balut: 5^7 sheets, not 2^28), solved for the expected grand total."""
from __future__ import annotations

import json

import pytest
import yaml

from rulebook.interpreter import load_model
from rulebook.interpreter.loader import RULES_DIR, load_source
from rulebook.interpreter.game import Seat
from rulebook.interpreter.simulate import run_games, summarize
from rulebook.interpreter.solver import Space, solve

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
