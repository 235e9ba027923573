"""Scoring a roll against a score sheet: legal boxes, points, bonuses and totals, from the model."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .dice import canonical, group_index, group_rolls
from .dsl.compiler import Context
from .dsl.sheetview import CellView, SheetView
from .errors import UsageError
from .frozen import Model, Step

Sheet = Mapping[str, int]  # filled cells -> points (a cell is a box, unless boxes take several entries or the sheet has columns; see model.Target)


@dataclass(frozen=True)
class Choice:
    """Writing the current dice into `box` would score `points` plus `bonus` (write bonuses)."""

    box: str
    points: int
    bonus: int


# What writing a box would give: the Choice and its write bonuses, ((bonus id, points), …) non-zero only.
Option = tuple[Choice, tuple[tuple[str, int], ...]]


class _Watched(SheetView):
    """A sheet view that notes whether an expression looked at the sheet at all."""

    __slots__ = ("looked", "inner")

    def __init__(self, inner: SheetView):
        self.inner = inner
        self.looked = False

    def filled(self, box):
        self.looked = True
        return self.inner.filled(box)

    def value(self, box):
        self.looked = True
        return self.inner.value(box)

    def total(self, section, boxes):
        self.looked = True
        return self.inner.total(section, boxes)

    def open_count(self, section, boxes):
        self.looked = True
        return self.inner.open_count(section, boxes)

    def uses(self, box):
        self.looked = True
        return self.inner.uses(box)

    def entries(self, box):
        self.looked = True
        return self.inner.entries(box)


class _WatchedCounters:
    """Counters as a plan's probe sees them: reading one marks the plan entry as evaluated live
    (a box score, write rule or write bonus that reads a counter is never tabulated)."""

    __slots__ = ("watched", "start")

    def __init__(self, watched: _Watched, start: Mapping[str, int]):
        self.watched, self.start = watched, start

    def __getitem__(self, name):
        self.watched.looked = True
        return self.start[name]


_DYNAMIC = None  # a plan entry whose value depends on the sheet: evaluated every time


class Scorer:
    """Evaluates a model's scoring expressions for concrete dice and sheets.

    Writing is planned per (write step, roll, roll number where it matters): for each box, if the
    rule, the score and the write bonuses were evaluated without reading the sheet, their result
    holds for every sheet and is kept; only boxes whose expressions read the sheet for that roll
    are evaluated again. Expressions see the sheet only through `SheetView`, so this is exact.
    """

    def __init__(self, model: Model):
        self.model = model
        self._index = group_index(model.groups)
        rolls = group_rolls(model.groups)
        self._counts = [tuple(r.count(f) for f in range(1, model.faces + 1)) for r in rolls]
        self._write_bonuses = [b for b in model.bonuses if b.when == "write"]
        self._end_bonuses = [b for b in model.bonuses if b.when == "end"]
        self._write_step = next((s for s in model.flow.walk() if s.kind == "write"), None)
        self._sections = [(s.id, s.boxes) for s in model.sections]
        self._uncounted = any(not s.counts for s in model.sections)
        # what the grand total adds up (besides every bonus): the sections that count, the one account
        # every reader states (pages, diagrams, sheets)
        self.counted_sections = tuple(s.id for s in model.sections if s.counts)
        self._plans: dict[tuple, dict] = {}  # (step, roll number or 0) → dice → plan
        exprs = [b.score for b in model.boxes.values()] + [b.points for b in self._write_bonuses]
        exprs += [s.allowed for s in model.flow.walk() if s.kind == "write" and s.allowed is not None]
        self._turn_matters = any("turn" in e.deps for e in exprs)
        # a box score, write rule or write bonus reads a counter: those entries are evaluated live
        self._counter_matters = any("counter" in e.deps for e in exprs)
        self._counter_start = {c.id: c.start for c in model.counters}
        self.simple = model.simple_sheet  # cells are boxes: the sheet is box -> points
        self.targets = model.targets
        # per column (None: no columns): box -> its cells there, as expressions see them
        self._cells: dict[str | None, dict[str, tuple[str, ...]]] = {}
        for t in model.targets.values():
            self._cells.setdefault(t.column, {})[t.box] = t.cells
        self._target_of = {c: t for t in model.targets.values() for c in t.cells}
        # box -> its cells in every column, in column order (what column_values/columns_filled read)
        self._rows: dict[str, tuple[tuple[str, ...], ...]] = {}
        for t in model.targets.values():
            self._rows[t.box] = self._rows.get(t.box, ()) + (t.cells,)
        self.columns = {c.id: c for c in model.columns}
        if self.columns:  # outside any column, a box is all its cells in every column
            self._cells[None] = {b: sum(rows, ()) for b, rows in self._rows.items()}
        # what each write target counts as: its column's multiplier (1 without columns)
        self.multiplier = {t.id: self.columns[t.column].multiplier if t.column else 1 for t in model.targets.values()}
        self._column_targets = {c: [t for t in model.targets.values() if t.column == c] for c in self.columns}
        # sections crossed as a row (left to right with skips): box -> the boxes after it in its section
        self._row = {b: s.boxes[i + 1:] for s in model.sections if s.order == "row" for i, b in enumerate(s.boxes)}

    def is_open(self, target: str, sheet: Sheet) -> bool:
        """Whether a write target has a cell left (cells fill in order, so: its last one is empty)."""
        return self.targets[target].cells[-1] not in sheet

    def next_cell(self, target: str, sheet: Sheet) -> str:
        """The cell a write into `target` fills."""
        return next(c for c in self.targets[target].cells if c not in sheet)

    def view(self, sheet: Sheet, column: str | None = None) -> SheetView:
        """The sheet as expressions see it (in one column, on a sheet with columns)."""
        if self.simple:
            return _view(sheet)
        return CellView(sheet, self._cells[column], self._rows)

    def needs_announcement(self, target: str) -> bool:
        """Whether the target's column is filled by announcement only (order `announced`)."""
        column = self.targets[target].column
        return column is not None and self.columns[column].order == "announced"

    def order_allows(self, target: str, sheet: Sheet, announced: str | None = None) -> bool:
        """Whether the fill order of the target's column lets it be written now (free: always;
        down: it is the column's first open box from the top; up: from the bottom; announced: it
        is the target announced this turn)."""
        t = self.targets[target]
        if t.box in self._row and not self._row_allows(t, sheet):
            return False
        column = self.columns.get(t.column) if t.column else None
        if column is None or column.order == "free":
            return True
        if column.order == "row":  # after the last target written in the column
            later = self._column_targets[column.id]
            return not any(c.cells[0] in sheet for c in later[later.index(t) + 1:])
        if column.order == "announced":
            return target == announced
        open_ = [c for c in self._column_targets[column.id] if c.cells[-1] not in sheet]
        if not open_:
            return False
        return (open_[0] if column.order == "down" else open_[-1]).id == target

    def _row_allows(self, t, sheet: Sheet) -> bool:
        """A section crossed as a row (left to right with skips): no later box of it is written (in
        the target's column, on a sheet with columns)."""
        later = self._row[t.box]
        cells = self._cells[t.column]
        return not any(cells[b][0] in sheet for b in later)

    @classmethod
    def for_model(cls, model: Model) -> "Scorer":
        """The model's shared scorer (its plans are worth keeping across games)."""
        scorer = model.__dict__.get("_scorer")  # a cache beside the frozen fields, not part of the model
        if scorer is None:
            scorer = model.__dict__["_scorer"] = cls(model)
        return scorer

    def context(self, dice, sheet: Sheet, target: str | None = None, roll_number: int = 1,
                counters: Mapping[str, int] | None = None) -> Context:
        index = self._index.get(dice) if type(dice) is tuple else None
        if index is None:
            dice = tuple(sorted(dice)) if not self.model.grouped else (canonical(dice, self.model.groups) or tuple(dice))
            try:
                index = self._index[dice]
            except KeyError:
                if not dice:
                    raise UsageError("this game needs {count} dice with faces 1 to {faces}, not none",
                                     count=self.model.n_dice, faces=self.model.faces) from None
                raise UsageError("this game needs {count} dice with faces 1 to {faces}, not {dice}",
                                 count=self.model.n_dice, faces=self.model.faces, dice=" ".join(map(str, dice))) from None
        if self.simple:
            return Context(dice, index, self._counts[index], sheet, target, roll_number, counters=counters)
        t = self.targets.get(target) if target is not None else None
        return Context(dice, index, self._counts[index], self.view(sheet, t.column if t else None),
                       t.box if t else target, roll_number, counters=counters)

    def choices(self, dice, sheet: Sheet, roll_number: int = 1, step: Step | None = None,
                counters: Mapping[str, int] | None = None) -> list[Choice]:
        """Every box the dice may be written into now, with what it would score."""
        return [c for c, _ in self.write_map(dice, sheet, roll_number, step, counters=counters).values()]

    def write_map(self, dice, sheet: Sheet, roll_number: int = 1, step: Step | None = None,
                  announced: str | None = None, counters: Mapping[str, int] | None = None) -> dict[str, Option]:
        """Box → option, for every box the dice may be written into now, in sheet order. With a
        target `announced` this turn, only that target (if the rules let it take the dice)."""
        static, plan = self.write_plan(dice, sheet, roll_number, step)
        if announced is not None:
            found = self.write_map(dice, sheet, roll_number, step, counters=counters) if not self.columns else \
                self._cell_write_map(dice, sheet, roll_number, step, {announced: plan[announced]} if announced in plan else {},
                                     announced, counters)
            return {announced: found[announced]} if announced in found else {}
        if not self.simple:
            return self._cell_write_map(dice, sheet, roll_number, step, plan, None, counters)
        if static:  # nothing on this roll depends on the sheet
            return {box_id: option for box_id, option in plan.items() if box_id not in sheet}
        step = step or self._write_step
        out = {}
        ctx = None
        for box_id, option in plan.items():
            if box_id in sheet:
                continue
            if option is _DYNAMIC:
                if ctx is None:
                    ctx = self.context(dice, sheet, None, roll_number, counters)
                ctx.target = box_id
                option = self._option(ctx, box_id, step)
                if option is None:
                    continue
            out[box_id] = option
        return out

    def writable(self, sheet: Sheet, announced: str | None = None) -> list[str]:
        """The targets a write may go into on this sheet whatever the dice (open, allowed by their
        column's order and the announcement), before the write rule; `write_map` for every roll is
        `options_for(…, writable(sheet, announced))`."""
        if announced is not None:
            return [announced] if self.is_open(announced, sheet) and (
                self.simple or self.order_allows(announced, sheet, announced)) else []
        return [t for t in self.targets if self.is_open(t, sheet) and (self.simple or self.order_allows(t, sheet))]

    def options_for(self, dice, sheet: Sheet, roll_number: int, step: Step | None,
                    targets: list[str], counters: Mapping[str, int] | None = None) -> dict[str, Option]:
        """For each of `targets`: what the dice give there, by the write rule (targets it refuses are
        left out); whether the target is open or its turn has come is the caller's (`writable`).
        One plan lookup per roll, so a bot's table for every roll is cheap."""
        step = step or self._write_step
        _, plan = self.write_plan(dice, sheet, roll_number, step)
        out = {}
        for t in targets:
            option = plan.get(t)
            if option is _DYNAMIC:
                option = self._option(self.context(dice, sheet, t, roll_number, counters), t, step)
            if option is not None:
                out[t] = option
        return out

    def _cell_write_map(self, dice, sheet, roll_number, step, plan, announced=None, counters=None) -> dict[str, Option]:
        """`write_map` on a sheet of cells: targets with a cell left, each seen in its own column."""
        step = step or self._write_step
        out = {}
        for target, option in plan.items():
            if not self.is_open(target, sheet) or not self.order_allows(target, sheet, announced):
                continue
            if option is _DYNAMIC:
                option = self._option(self.context(dice, sheet, target, roll_number, counters), target, step)
                if option is None:
                    continue
            out[target] = option
        return out

    def write_plan(self, dice, sheet: Sheet, roll_number: int = 1, step: Step | None = None) -> tuple[bool, dict]:
        """(static?, box → option) for every box this roll may go into on some sheet, filled or not.

        A static plan holds for every sheet (open boxes only, of course); otherwise some boxes map
        to a marker and are evaluated by `write_map`. `sheet` only serves to build a new plan.
        """
        step = step or self._write_step
        plans = self.plans_for(step, roll_number)
        plan = plans.get(dice) if type(dice) is tuple else None
        if plan is None:
            ctx = self.context(dice, sheet, None, roll_number)  # sorts the dice, or says what is wrong
            plan = plans.get(ctx.dice)
            if plan is None:
                plan = plans[ctx.dice] = self._plan(ctx, sheet, step)
        return plan

    def plans_for(self, step: Step | None, roll_number: int = 1) -> dict[tuple[int, ...], tuple[bool, dict]]:
        """The write plans of a step (and roll number, where it matters), by sorted dice."""
        key = (step.id if step is not None else None, roll_number if self._turn_matters else 0)
        plans = self._plans.get(key)
        if plans is None:
            plans = self._plans[key] = {}
        return plans

    def _option(self, ctx: Context, box_id: str, step: Step | None) -> Option | None:
        """Evaluate writing into one box: None if the rules do not allow it."""
        if step is not None and step.allowed is not None and not step.allowed(ctx):
            return None
        parts = tuple((b.id, p) for b in self._write_bonuses if (p := b.points(ctx)))
        if parts and not self.simple and self.multiplier[box_id] != 1:  # a write bonus counts with its column
            parts = tuple((b, p * self.multiplier[box_id]) for b, p in parts)
        return Choice(box_id, self.model.boxes[ctx.target].score(ctx), sum(p for _, p in parts)), parts

    def _plan(self, ctx: Context, sheet: Sheet, step: Step | None) -> tuple[bool, dict]:
        """(all static?, {box: option or _DYNAMIC}) for every box the roll may go into on some sheet."""
        plan = {}
        for box_id in self.targets:
            t = self.targets[box_id]
            watched = _Watched(self.view(sheet, t.column))
            probe = Context(ctx.dice, ctx.index, ctx.counts, watched, t.box, ctx.roll_number,
                            counters=_WatchedCounters(watched, self._counter_start) if self._counter_matters else None)
            try:
                option = self._option(probe, box_id, step)
            except Exception:  # noqa: BLE001 - evaluated again (and raised) when the box is asked for
                watched.looked = True
            if watched.looked:
                plan[box_id] = _DYNAMIC
            elif option is not None:
                plan[box_id] = option
        return all(o is not _DYNAMIC for o in plan.values()), plan

    def points(self, box: str, dice, sheet: Sheet | None = None, roll_number: int = 1,
               counters: Mapping[str, int] | None = None) -> int:
        """What the dice score in one box or write target (legality aside)."""
        ctx = self.context(dice, sheet or {}, box, roll_number, counters)
        return self.model.boxes[ctx.target].score(ctx)

    def end_bonuses(self, sheet: Sheet) -> dict[str, int]:
        ctx = Context(sheet=self.view(sheet))
        return {b.id: b.points(ctx) for b in self._end_bonuses}

    def final_score(self, sheet: Sheet, awards: Mapping[str, int] | None = None,
                    counters: Mapping[str, int] | None = None) -> tuple[int, ...]:
        """What players are ranked by: (final score, tie-breaks…); (grand total,) without a `winner` mapping.
        `counters`: the player's counters (and the game's), for a model that has them."""
        ranking = self.model.ranking
        if ranking is None:
            return (self.totals(sheet, awards, counters)["total"],)
        ctx = Context(sheet=self.view(sheet), counters=counters)
        return (ranking.score(ctx),) + tuple(c(ctx) for _, c in ranking.tie_breaks)

    def progress(self, sheet: Sheet) -> dict[str, tuple[int, int]]:
        """Bonus id → (value, goal), for bonuses that show progress."""
        ctx = Context(sheet=self.view(sheet))
        out = {}
        for b in self.model.bonuses:
            if b.progress and b.per_column and self.columns:
                for cid in self.columns:
                    c = Context(sheet=self.view(sheet, cid))
                    out[f"{b.id}@{cid}"] = (b.progress[0](c), b.progress[1](c))
            elif b.progress:
                out[b.id] = (b.progress[0](ctx), b.progress[1](ctx))
        return out

    def total(self, sheet: Sheet, awards: Mapping[str, int] | None = None,
              counters: Mapping[str, int] | None = None) -> int:
        """`totals(…)["total"]` alone: the grand total, without the sections and bonuses one by one."""
        if not self.simple or self._uncounted:
            return self.totals(sheet, awards, counters)["total"]
        bonuses = 0
        if self._end_bonuses:  # (a sheet of boxes has no columns)
            ctx = Context(sheet=_view(sheet), counters=counters)
            for b in self._end_bonuses:
                bonuses += b.points.fn(ctx)
        if awards:
            for b in self._write_bonuses:
                bonuses += awards.get(b.id, 0)
        return sum(sheet.values()) + bonuses

    def totals(self, sheet: Sheet, awards: Mapping[str, int] | None = None,
               counters: Mapping[str, int] | None = None) -> dict[str, int]:
        """Section totals, every bonus, and `total` (everything added up). End bonuses may read the
        player's `counters` (and the game's), for a model that has them."""
        out: dict[str, int] = {}
        get = sheet.get
        if self.simple:
            for section_id, boxes in self._sections:
                out[section_id] = sum([get(b, 0) for b in boxes])
        elif not self.columns:
            targets = self.targets
            for section_id, boxes in self._sections:
                out[section_id] = sum(get(c, 0) for t in targets.values() if t.box in boxes for c in t.cells)
        else:  # per column (raw, as `section@column`), and counted with the column's multiplier
            for section_id, boxes in self._sections:
                out[section_id] = 0
                for cid, column in self.columns.items():
                    raw = sum(get(c, 0) for t in self._column_targets[cid] if t.box in boxes for c in t.cells)
                    out[f"{section_id}@{cid}"] = raw
                    out[section_id] += raw * column.multiplier
        bonuses = 0
        if self._end_bonuses:
            ctx = Context(sheet=self.view(sheet), counters=counters)
            for b in self._end_bonuses:
                if b.per_column and self.columns:
                    out[b.id] = points = 0
                    for cid, column in self.columns.items():
                        raw = b.points(Context(sheet=self.view(sheet, cid), counters=counters))
                        out[f"{b.id}@{cid}"] = raw
                        points += raw * column.multiplier
                    out[b.id] = points
                else:
                    out[b.id] = points = b.points(ctx)
                bonuses += points
        for b in self._write_bonuses:
            out[b.id] = points = awards.get(b.id, 0) if awards else 0
            bonuses += points
        if self._uncounted:  # sections read by bonuses only (`counts: false`)
            out["total"] = sum(out[s] for s in self.counted_sections) + bonuses
        else:
            out["total"] = (sum(sheet.values()) if not self.columns
                            else sum(out[section_id] for section_id, _ in self._sections)) + bonuses
        return out


def _view(sheet):
    """The sheet as expressions see it (a plain dict is wrapped once, here)."""
    return SheetView(sheet) if type(sheet) is dict else sheet
