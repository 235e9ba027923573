"""The mechanism chapters of docs/writing-a-game.md: every example block is part of the model file
named above it, that file loads, and it behaves as the chapter says."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.scoring import Scorer
from rulebook.interpreter.state import GameState

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "writing-a-game.md").read_text(encoding="utf-8")
EXAMPLES = re.findall(r"<!-- example: (\S+) -->\n```yaml\n(.*?)```", DOC, re.S)


def test_the_chapters_have_examples():
    assert {path for path, _ in EXAMPLES} >= {"tests/data/examples/rows.yaml"}


@pytest.mark.parametrize("path, block", EXAMPLES, ids=[f"{p}:{i}" for i, (p, _) in enumerate(EXAMPLES)])
def test_each_example_is_in_its_file_and_the_file_loads(path, block):
    text = (ROOT / path).read_text(encoding="utf-8")
    assert block in text, f"the block shown in the chapter is not in {path}"
    load_model(ROOT / path)


def test_rows_boxes_used_several_times_and_the_winner():
    model = load_model(ROOT / "tests/data/examples/rows.yaml")
    scorer = Scorer(model)
    assert model.cells == ("sixes#1", "sixes#2", "sixes#3", "pairs#1", "pairs#2", "pairs#3")
    three_pairs = {"pairs#1": 8, "pairs#2": 2, "pairs#3": 12}
    assert scorer.final_score(three_pairs) == (2, 22)
    scratched = dict(three_pairs, **{"pairs#2": 0})
    assert scorer.final_score(scratched) == (0, 20)
    sixes = {"sixes#1": 12, "sixes#2": 18, "sixes#3": 6}
    assert scorer.final_score(sixes) == (1, 36)
    state = GameState(model, ["a", "b"])
    state.sheets = [dict(sixes), {"sixes#1": 12, "sixes#2": 12, "sixes#3": 18}]
    # one point each (sixes at 36 or more); b's total is 48, a's 36: b wins the tie
    state.sheets[1]["pairs#1"] = 6
    assert state.ranking() == [(1, "b", 1), (2, "a", 1)]
