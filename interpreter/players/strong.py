"""A strong computer player for every model the solver can read, also where the exact table is out
of reach: it plans each turn exactly (the within-turn dynamic programming) against a value of the
sheet that is the sum of exact values of parts of it.

The parts: the whole sheet if it has at most `PART_STATES` states (then the bot plays optimally),
else each column of a sheet with columns (its boxes seen as that column sees them, its points and
bonuses × the column's multiplier), else the model's sections (a part still too large is halved).
Each part is solved exactly as a game of its own: only its units, one turn for each entry, units
outside it open and empty (so a rule that needs other columns, as a bonus for filling a box in
every column, never pays inside a part; and, where the write rule would send a roll outside the
part, any open box of the part may take it). What a write scores now is the real rule's: from
the whole sheet's Space where there is one, else from the engine's scorer (worked out once for the
rolls whose points do not read the sheet). Playing every part optimally on its own turns is a strategy for the real game and scores
the sum of the parts' values; the bot does better, because each roll goes to the part where it is
worth most. Where one part is the whole sheet, the bot is the optimal player. Where the solver
cannot read the model at all (`NotSolvable`), it plays like the greedy bot, so it is never weaker.
"""
from __future__ import annotations

import numpy as np

from ..solver.abstraction import NotSolvable, unit_ids
from ..model.frozen import Model
from .base import PlannerBot, careful_write_now
from .luck import pushes_luck
from ..solver.solve import Limits, solve, solved
from ..solver.space import Space, Table
from ..solver.cache import cache_key
from ..engine.state import GameState
from ..solver.writetable import encode

PART_STATES = 2_000_000  # a part with more reachable states than this is split

_PARTS: dict[str, list[tuple[Space, Table]]] = {}


def _size(model: Model, units: list[str] | None) -> int | None:
    """The reachable states of the whole sheet or a part (None: more than can even be counted)."""
    try:
        return sum(Space(model, units, relaxed=units is not None).level_counts())
    except NotSolvable as refused:
        if "states" in refused.message or "work" in refused.message:
            return None  # refused for its size (`check_size`): too large to count cheaply
        raise


def parts(model: Model, max_states: int = PART_STATES) -> list[list[str]]:
    """The units of each part: the whole sheet if it is small enough, else each column (on a sheet
    with columns), else its sections, halved until each fits. (Packing the sections' boxes into
    the fewest parts that fit was tried and plays worse: a small leftover part misjudges its boxes.)"""
    try:
        whole = _size(model, None)
    except NotSolvable:  # turn rules an exact solve cannot read: the parts are read with them set aside
        whole = None
    if whole is not None and whole <= max_states:
        return [unit_ids(model)]
    columns = [[u for u in unit_ids(model) if model.targets[u].column == c.id] for c in model.columns] or [unit_ids(model)]
    out = []
    for column in columns:
        size = _size(model, column) if len(columns) > 1 else whole
        if size is not None and size <= max_states:
            out.append(column)
            continue
        todo = [[u for u in column if model.targets[u].box in s.boxes] for s in model.sections]
        todo = [t for t in todo if t]
        while todo:
            units = todo.pop(0)
            size = _size(model, units)
            if len(units) > 1 and (size is None or size > max_states):
                todo[:0] = [units[:len(units) // 2], units[len(units) // 2:]]
            else:
                out.append(units)
    return out


def solved_parts(model: Model, progress=None, max_states: int = PART_STATES) -> list[tuple[Space, Table]]:
    """Each part's space and exact table (kept in memory per model, options and part size; the whole
    sheet's table is the optimal bot's, from the disk cache)."""
    key = (cache_key(model), max_states)
    if key not in _PARTS:
        found = []
        for units in parts(model, max_states):
            if len(units) == len(unit_ids(model)):
                found.append(solved(model, progress))
            else:
                space = Space(model, units, relaxed=True)
                found.append((space, solve(model, progress, space, Limits())))
        _PARTS[key] = found
    return _PARTS[key]


class StrongBot(PlannerBot):
    """Plans each turn exactly against the sum of the parts' exact values of the sheet."""

    LUCK = (1, 1, True)  # a turn of no fixed length: a keep weighed with the bank decision after it; banks to win

    def choose_write_now(self, state: GameState):
        """A write its plans cannot read (dice groups, writes others take or may pass): this roll's
        points, less 1 for every box the write closes for good (`players.careful_write_now`)."""
        return careful_write_now(state)

    def __init__(self, model: Model, progress=None, max_states: int = PART_STATES):
        super().__init__()
        self.model = model
        self.full = None  # the real rules as a Space, where the whole sheet can be one (else the engine's scorer)
        self.parts, self.owner, self._immediates = [], {}, {}
        if pushes_luck(model):  # its turns are looked ahead through the engine (luck.py), no parts to solve
            return
        try:
            self.parts = solved_parts(model, progress, max_states)
            try:
                self.full = self.parts[0][0] if len(self.parts) == 1 else Space(model)
            except NotSolvable:
                pass
        except NotSolvable as refused:
            self.parts, self.refused = [], refused  # plays like the greedy bot
        self.owner = {b: i for i, (space, _) in enumerate(self.parts) for b in space.boxes}
        self._immediates: dict[int, _Immediate] = {}

    def value(self, sheet: dict[str, int]) -> float:
        """The bot's estimate of the points still to come on a sheet (at the start of a turn)."""
        total = 0.0
        for space, table in self.parts:
            mask, fvals = encode(space, sheet)
            total += float(table.values[space.index(np.array([mask]), np.array([fvals]).reshape(1, -1))[0]])
        return total

    def write_table(self, state: GameState, roll_number: int | None = None):
        if not self.parts:
            from .greedy import GreedyBot
            return GreedyBot().write_table(state, roll_number)
        sheet = state.sheets[state.player]
        targets, points, gains = self._immediate(state, sheet, roll_number)
        return targets, self._values(sheet, targets, points, gains)

    def _values(self, sheet, targets, points, gains):
        """(B, R): each roll into each target: its gain, its part's value after, the other parts' now."""
        here = []
        for space, table in self.parts:
            m, f = encode(space, sheet)
            here.append((m, f, float(table.values[int(space.index(np.array([m]), np.array([f]).reshape(1, -1))[0])])))
        everything = sum(v for _, _, v in here)
        out = np.empty((len(targets), len(gains[0]) if len(targets) else 0))
        for row, b in enumerate(targets):
            i = self.owner[b]
            space, table = self.parts[i]
            pm, pf, now = here[i]
            with np.errstate(invalid="ignore"):
                out[row] = gains[row] + np.nan_to_num(space.futures(pm, pf, table.values, b, points[row])) + (everything - now)
        return out

    def _immediate(self, state: GameState, sheet, roll_number):
        """(writable targets, raw points (B, R), real gains (B, R): points × column multiplier +
        write bonus, -inf where refused), from the full Space where there is one, else the scorer."""
        if self.full is not None and state.announced is None:
            mask, fvals = encode(self.full, sheet)
            targets = [b for b in self.full.boxes if self.full.writable(mask, b)]
            rows = [self.full.outcomes(mask, fvals, b, roll_number) for b in targets]
            return targets, [p for p, _ in rows], [g for _, g in rows]
        return self._immediate_for(state, sheet, roll_number, state.scorer.writable(sheet, state.announced))

    def _immediate_for(self, state: GameState, sheet, roll_number, targets: list[str]):
        rn = roll_number or self.parts[0][0].last_roll
        if rn not in self._immediates:
            self._immediates[rn] = _Immediate(self.model, self.parts[0][0].tt, rn)
        return self._immediates[rn].table(state.scorer, sheet, targets)

    def _announce_rows(self, state: GameState, targets: list[str]) -> dict[int, np.ndarray]:
        """Roll number → (targets, rolls): each roll written into each target had it been announced,
        valued as every write of this bot (the parts' values after it, not only its points)."""
        if not self.parts:
            return super()._announce_rows(state, targets)
        sheet = state.sheets[state.player]
        numbers = self.parts[0][0].roll_numbers
        out = {}
        for rn in numbers:
            found, points, gains = self._immediate_for(state, sheet, rn, targets)
            values = self._values(sheet, found, points, gains)
            table = np.full((len(targets), values.shape[1] if len(found) else len(self.parts[0][0].tt.rolls)), -np.inf)
            for row, t in enumerate(found):
                table[targets.index(t)] = values[row]
            out[rn] = table
        return out

    def roll_dependent(self, state: GameState) -> bool:
        return self.parts[0][0].roll_dependent if self.parts else super().roll_dependent(state)


class _Immediate:
    """What writing each roll into each target gives now, by the engine's scorer: worked out once for
    the (target, roll) pairs whose points do not read the sheet, per decision for the few that do."""

    def __init__(self, model: Model, tt, roll_number: int):
        from ..model.scoring import Scorer
        self.scorer = scorer = Scorer.for_model(model)
        self.step = next(s for s in model.flow.walk() if s.kind == "write")
        self.rn, self.tt = roll_number, tt
        self.targets = list(model.targets)
        at = {t: i for i, t in enumerate(self.targets)}
        counting = {b for s in model.sections if s.counts for b in s.boxes}
        self.counts = {t: int(model.targets[t].box in counting) for t in self.targets}  # points add to the total
        T, R = len(self.targets), len(tt.rolls)
        self.points = np.zeros((T, R), dtype=np.int64)
        self.gains = np.full((T, R), -np.inf)
        self.dynamic: dict[int, list[int]] = {}  # target -> rolls whose option reads the sheet
        mult = scorer.multiplier
        for r, dice in enumerate(tt.rolls):
            _, plan = scorer.write_plan(dice, {}, roll_number, self.step)
            for t, option in plan.items():
                if option is None:  # (the scorer's mark for an option that reads the sheet)
                    self.dynamic.setdefault(at[t], []).append(r)
                else:
                    choice = option[0]
                    self.points[at[t], r] = choice.points
                    self.gains[at[t], r] = choice.points * mult[t] * self.counts[t] + choice.bonus

    def table(self, scorer, sheet, targets: list[str]):
        """(targets, raw points (B, R), gains (B, R): points × multiplier + write bonus, -inf if refused)."""
        at = self.__dict__.setdefault("_at", {t: i for i, t in enumerate(self.targets)})
        rows = [at[t] for t in targets]
        points, gains = self.points[rows], self.gains[rows]
        for row, i in enumerate(rows):
            for r in self.dynamic.get(i, ()):
                t = self.targets[i]
                option = scorer._option(scorer.context(self.tt.rolls[r], sheet, t, self.rn), t, self.step)
                if option is None:
                    points[row, r], gains[row, r] = 0, -np.inf
                else:
                    points[row, r] = option[0].points
                    gains[row, r] = option[0].points * scorer.multiplier[t] * self.counts[t] + option[0].bonus
        return [self.targets[i] for i in rows], points, gains
