"""The terminal board and the web sheet draw the one sheet layout (tools/documents/sheetlayout.py):
the same rows in the same order, the same write targets per row and column, the same entries per
cell, and the sections that do not count said as such, for every bundled model."""
from __future__ import annotations

import io

import pytest
from rich.console import Console

from rulebook.interpreter import load_model
from rulebook.interpreter.engine.state import GameState
from rulebook.interpreter.model.loader import bundled_models
from rulebook.tools.documents.sheetlayout import sheet_layout
from rulebook.tools.serve.views import model_info
from rulebook.tools.terminal.moves import sheet_order
from rulebook.tools.terminal.view import View


@pytest.mark.parametrize("name", bundled_models())
def test_the_web_sheet_and_the_terminal_read_the_layout(name):
    model = load_model(name)
    layout = sheet_layout(model)
    targets = [t for s in layout.sections for row in s.rows for t in row.targets if t]
    assert sheet_order(model) == targets  # the terminal numbers the boxes in the layout's order
    info = model_info(model, "de")
    assert [s["counts"] for s in info["sections"]] == [s.counts for s in layout.sections]
    web = [t for s in info["sections"] for b in s["boxes"] for t in b["targets"]]
    assert web == targets
    cells = sum(b["uses"] * len(b["targets"]) for s in info["sections"] for b in s["boxes"])
    assert cells == layout.cells == len(model.cells)


def test_yambs_sections_that_do_not_count_say_so_on_both_readers():
    model = load_model("yamb")
    assert [s.id for s in sheet_layout(model).sections if not s.counts] == ["middle"]
    out = io.StringIO()
    View("de", Console(file=out, width=250, color_system=None)).console.print(
        View("de").sheet(GameState(model, ["Ann", "Bea"])))
    assert "Maximum und Minimum (nicht zur Gesamtsumme addiert)" in out.getvalue()
    assert len(sheet_order(model)) == 60
