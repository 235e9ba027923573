"""One finished game as simulate, bulk play and compare report it."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Result:
    """One finished game: per player, the sheet, the bonuses, the total, and the rank; `finals` the
    model's own final score (`Model.ranking`, e.g. points earned per row), None for a model ranked by the total."""

    sheets: list[dict[str, int]]
    bonuses: list[dict[str, int]]
    totals: list[int]
    ranks: list[int]
    finals: list[int] | None = None
