"""The score sheet as every reader draws it: rows (the boxes) × columns × entries, from the model's
write targets, the cells the engine fills. One account of the sheet: the blank sheet to print, the
material list ("a score sheet with 60 boxes") and the tests read it from here.

A sheet without columns has one unnamed column. A box used more than once (a row filled four times, a cargo
kept turn by turn) has as many entries in each column; they fill one after another.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...interpreter.model.frozen import Model


@dataclass(frozen=True)
class LayoutColumn:
    id: str | None  # None: the one column of a sheet without columns
    name: dict | None  # language → name (None without columns)
    order: str  # free, down, up or announced


@dataclass(frozen=True)
class LayoutRow:
    box: str
    entries: int  # cells of the box in each column
    targets: tuple[str, ...]  # the box's write target in each column, in column order


@dataclass(frozen=True)
class LayoutSection:
    id: str
    counts: bool  # whether its points count towards the grand total
    rows: tuple[LayoutRow, ...]


@dataclass(frozen=True)
class SheetLayout:
    columns: tuple[LayoutColumn, ...]
    sections: tuple[LayoutSection, ...]

    @property
    def cells(self) -> int:
        """The cells one player fills in one game: rows × columns × entries."""
        return sum(row.entries * len(self.columns) for s in self.sections for row in s.rows)

    @property
    def named_columns(self) -> bool:
        return self.columns[0].id is not None


def sheet_layout(model: Model) -> SheetLayout:
    """The sheet of one player, as the engine's write targets and cells make it."""
    if model.columns:
        columns = tuple(LayoutColumn(c.id, dict(c.name), c.order) for c in model.columns)
    else:
        columns = (LayoutColumn(None, None, "free"),)
    by_box: dict[str, dict[str | None, str]] = {}
    entries: dict[str, int] = {}
    for t in model.targets.values():
        by_box.setdefault(t.box, {})[t.column] = t.id
        entries[t.box] = len(t.cells)
    sections = []
    for s in model.sections:
        rows = tuple(LayoutRow(b, entries.get(b, 0), tuple(by_box.get(b, {}).get(c.id, "") for c in columns))
                     for b in s.boxes if b in by_box)
        sections.append(LayoutSection(s.id, s.counts, rows))
    return SheetLayout(columns, tuple(sections))
