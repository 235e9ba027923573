"""How an expression sees the score sheet: box by box (SheetView), or cell by cell for columns and boxes used several times (CellView)."""
from __future__ import annotations

from itertools import repeat

_ZEROS = repeat(0)  # (map(points.get, boxes, _ZEROS): each box's points, 0 where it is empty)


class SheetView:
    """The score sheet as expressions see it: filled boxes and their points.

    Expressions read the sheet only through these four methods, so a solver can hand in an
    abstract sheet instead (see solver.py).
    """

    __slots__ = ("points",)

    def __init__(self, points: dict[str, int]):
        self.points = points

    def filled(self, box: str) -> bool:
        return box in self.points

    def value(self, box: str) -> int:
        return self.points.get(box, 0)

    def total(self, section: str, boxes: tuple[str, ...]) -> int:
        return sum(map(self.points.get, boxes, _ZEROS))

    def open_count(self, section: str, boxes: tuple[str, ...]) -> int:
        p = self.points
        return sum(1 for b in boxes if b not in p)

    def uses(self, box: str) -> int:
        return 1 if box in self.points else 0

    def entries(self, box: str) -> tuple[int, ...]:
        p = self.points
        return (p[box],) if box in p else ()

    def column_values(self, box: str) -> tuple[int, ...]:
        return (self.value(box),)

    def columns_filled(self, box: str) -> int:
        return 1 if self.filled(box) else 0


class CellView(SheetView):
    """A sheet of cells (boxes used several times, columns) seen box by box, as expressions see it.

    `cells` maps each box to its cells in the column being looked at: a box is filled when all its
    cells are, its value is the sum of its entries.
    """

    __slots__ = ("cells", "rows")

    def __init__(self, points: dict[str, int], cells: dict[str, tuple[str, ...]],
                 rows: dict[str, tuple[tuple[str, ...], ...]] | None = None):
        self.points, self.cells = points, cells
        self.rows = rows or {b: (c,) for b, c in cells.items()}  # box -> its cells in every column

    def filled(self, box: str) -> bool:
        p = self.points
        return all(c in p for c in self.cells[box])

    def value(self, box: str) -> int:
        p = self.points
        return sum(p.get(c, 0) for c in self.cells[box])

    def total(self, section: str, boxes: tuple[str, ...]) -> int:
        p, cells = self.points, self.cells
        return sum(p.get(c, 0) for b in boxes for c in cells[b])

    def open_count(self, section: str, boxes: tuple[str, ...]) -> int:
        return sum(1 for b in boxes if not self.filled(b))

    def uses(self, box: str) -> int:
        p = self.points
        return sum(1 for c in self.cells[box] if c in p)

    def entries(self, box: str) -> tuple[int, ...]:
        p = self.points
        return tuple(p[c] for c in self.cells[box] if c in p)

    def column_values(self, box: str) -> tuple[int, ...]:
        p = self.points
        return tuple(sum(p.get(c, 0) for c in cells) for cells in self.rows[box])

    def columns_filled(self, box: str) -> int:
        p = self.points
        return sum(1 for cells in self.rows[box] if all(c in p for c in cells))
