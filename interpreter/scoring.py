"""Scoring a roll against a score sheet: legal boxes, points, bonuses and totals, from the model."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .dice import index_of
from .dsl.compiler import Context
from .errors import UsageError
from .model import Model, Step

Sheet = Mapping[str, int]  # filled boxes -> points


@dataclass(frozen=True)
class Choice:
    """Writing the current dice into `box` would score `points` plus `bonus` (write bonuses)."""

    box: str
    points: int
    bonus: int


class Scorer:
    """Evaluates a model's scoring expressions for concrete dice and sheets."""

    def __init__(self, model: Model):
        self.model = model
        self._index = index_of(model.n_dice, model.faces)
        self._write_bonuses = [b for b in model.bonuses if b.when == "write"]
        self._end_bonuses = [b for b in model.bonuses if b.when == "end"]
        self._write_step = next((s for s in model.flow.walk() if s.kind == "write"), None)

    def context(self, dice, sheet: Sheet, target: str | None = None, roll_number: int = 1) -> Context:
        dice = tuple(sorted(dice))
        try:
            index = self._index[dice]
        except KeyError:
            raise UsageError(f"this game needs {self.model.n_dice} dice with faces 1 to {self.model.faces}, "
                             f"not {' '.join(map(str, dice)) or 'none'}") from None
        counts = tuple(dice.count(f) for f in range(1, self.model.faces + 1))
        return Context(dice, index, counts, sheet, target, roll_number)

    def choices(self, dice, sheet: Sheet, roll_number: int = 1, step: Step | None = None) -> list[Choice]:
        """Every box the dice may be written into now, with what it would score."""
        step = step or self._write_step
        ctx = self.context(dice, sheet, None, roll_number)
        out = []
        for box_id, box in self.model.boxes.items():
            if box_id in sheet:
                continue
            ctx.target = box_id
            if step is not None and step.allowed is not None and not step.allowed(ctx):
                continue
            bonus = sum(b.points(ctx) for b in self._write_bonuses)
            out.append(Choice(box_id, box.score(ctx), bonus))
        return out

    def points(self, box: str, dice, sheet: Sheet | None = None, roll_number: int = 1) -> int:
        """What the dice score in one box (legality aside)."""
        ctx = self.context(dice, sheet or {}, box, roll_number)
        return self.model.boxes[box].score(ctx)

    def end_bonuses(self, sheet: Sheet) -> dict[str, int]:
        ctx = Context(sheet=sheet)
        return {b.id: b.points(ctx) for b in self._end_bonuses}

    def progress(self, sheet: Sheet) -> dict[str, tuple[int, int]]:
        """Bonus id → (value, goal), for bonuses that show progress."""
        ctx = Context(sheet=sheet)
        return {b.id: (b.progress[0](ctx), b.progress[1](ctx)) for b in self.model.bonuses if b.progress}

    def totals(self, sheet: Sheet, awards: Mapping[str, int] | None = None) -> dict[str, int]:
        """Section totals, every bonus, and `total` (everything added up)."""
        out: dict[str, int] = {}
        for section in self.model.sections:
            out[section.id] = sum(sheet.get(b, 0) for b in section.boxes)
        bonuses = dict(self.end_bonuses(sheet))
        for b in self._write_bonuses:
            bonuses[b.id] = (awards or {}).get(b.id, 0)
        out.update(bonuses)
        out["total"] = sum(sheet.values()) + sum(bonuses.values())
        return out
