"""A strong computer player for every model the solver can read, also where the exact table is out
of reach: it plans each turn exactly (the within-turn dynamic programming) against a value of the
sheet that is the sum of exact values of parts of it.

The parts: the whole sheet if it has at most `PART_STATES` states (then the bot plays optimally),
else the model's sections (a section still too large is halved). Each part is solved
exactly as a game of its own: only its boxes, one turn for each, boxes outside it open and empty
(and, where the write rule would send a roll outside the part, any open box of the part may take
it). Playing every part optimally on its own turns is a strategy for the real game and scores
the sum of the parts' values; the bot does better, because each roll goes to the part where it is
worth most. Where one part is the whole sheet, the bot is the optimal player. Where the solver
cannot read the model at all (`NotSolvable`), it plays like the greedy bot, so it is never weaker.
"""
from __future__ import annotations

import numpy as np

from .abstraction import NotSolvable
from .model import Model
from .players import PlannerBot
from .solver import Limits, Space, Table, cache_key, solve, solved
from .state import GameState

PART_STATES = 2_000_000  # a part with more reachable states than this is split

_PARTS: dict[str, list[tuple[Space, Table]]] = {}


def parts(model: Model, max_states: int = PART_STATES) -> list[list[str]]:
    """The boxes of each part: the whole sheet if it is small enough, else the sections, halved until each fits."""
    if sum(Space(model).level_counts()) <= max_states:
        return [list(model.boxes)]
    out = []
    todo = [list(s.boxes) for s in model.sections if s.boxes]
    while todo:
        boxes = todo.pop(0)
        if len(boxes) > 1 and sum(Space(model, boxes).level_counts()) > max_states:
            todo[:0] = [boxes[:len(boxes) // 2], boxes[len(boxes) // 2:]]
        else:
            out.append(boxes)
    return out


def solved_parts(model: Model, progress=None, max_states: int = PART_STATES) -> list[tuple[Space, Table]]:
    """Each part's space and exact table (kept in memory per model, options and part size; the whole
    sheet's table is the optimal bot's, from the disk cache)."""
    key = (cache_key(model), max_states)
    if key not in _PARTS:
        found = []
        for boxes in parts(model, max_states):
            if len(boxes) == len(model.boxes):
                found.append(solved(model, progress))
            else:
                space = Space(model, boxes)
                found.append((space, solve(model, progress, space, Limits())))
        _PARTS[key] = found
    return _PARTS[key]


class StrongBot(PlannerBot):
    """Plans each turn exactly against the sum of the parts' exact values of the sheet."""

    def __init__(self, model: Model, progress=None, max_states: int = PART_STATES):
        super().__init__()
        self.model = model
        try:
            self.full = Space(model)  # the real rules: points, bonuses and what the write rule allows
            self.parts = solved_parts(model, progress, max_states)
        except NotSolvable as refused:
            self.full, self.parts, self.refused = None, [], refused  # plays like the greedy bot
        self.owner = {b: i for i, (space, _) in enumerate(self.parts) for b in space.boxes}

    def value(self, sheet: dict[str, int]) -> float:
        """The bot's estimate of the points still to come on a sheet (at the start of a turn)."""
        total = 0.0
        for space, table in self.parts:
            masks, feats = space.encode(sheet)
            total += float(table.values[int(space.index(masks, feats)[0])])
        return total

    def write_table(self, state: GameState, roll_number: int | None = None):
        if self.full is None:
            from .bots import GreedyBot
            return GreedyBot().write_table(state, roll_number)
        sheet = state.sheets[state.player]
        masks, feats = self.full.encode(sheet)
        mask, fvals = int(masks[0]), [int(x) for x in feats[0]]
        here = []
        for space, table in self.parts:
            m, f = space.encode(sheet)
            here.append((int(m[0]), [int(x) for x in f[0]], float(table.values[int(space.index(m, f)[0])])))
        everything = sum(v for _, _, v in here)
        open_boxes = [b for b in self.full.boxes if b not in sheet]
        out = np.empty((len(open_boxes), len(self.full.tt.rolls)))
        for row, b in enumerate(open_boxes):
            i = self.owner[b]
            space, table = self.parts[i]
            pm, pf, now = here[i]
            points, gain = self.full.outcomes(mask, fvals, b, roll_number)
            with np.errstate(invalid="ignore"):
                out[row] = gain + np.nan_to_num(space.futures(pm, pf, table.values, b, points)) + (everything - now)
        return open_boxes, out

    def roll_dependent(self, state: GameState) -> bool:
        return self.full.roll_dependent if self.full is not None else super().roll_dependent(state)
