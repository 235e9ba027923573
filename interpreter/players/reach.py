"""The reach:T computer player: the highest chance that its final score is at least T.

Each turn is planned exactly (the keeps of `PlannerBot`), but a write is worth the chance, from the
sheet it leaves, of still gaining the points the player needs: T minus its points so far, less the
write's points and bonus (`solver/reach.py`'s table over every reached state and every need from 0
to T). The keeps maximize the expected chance. Once T is reached every move is worth 1: the player
then keeps and writes by the bots' tie rules (more dice kept, the first box on the sheet). Solitaire
play: the other players do not count.
"""
from __future__ import annotations

import numpy as np

from ..engine.state import GameState
from ..model.errors import UsageError
from ..model.frozen import Model
from ..solver.reach import ReachTable
from ..solver.solve import greedy_space
from ..solver.writetable import encode, gather
from .base import PlannerBot

_TABLES: dict[tuple, tuple[object, ReachTable]] = {}  # (model key, T) -> (space, table): made once per process


def reach_table(model: Model, target: int, progress=None) -> tuple[object, ReachTable]:
    """The Space and ReachTable of a model for the target T (kept in memory: forked workers share it)."""
    from ..solver.cache import cache_key
    key = (cache_key(model), target)
    if key not in _TABLES:
        space = greedy_space(model)
        if not model.simple_sheet or any(space.mult[b] != 1 for b in space.boxes):
            raise UsageError("The reach:T computer player needs a sheet where every box takes one entry and no "
                             "column multiplies its points.")
        _TABLES[key] = (space, ReachTable(space, target, progress=progress))
    return _TABLES[key]


class ReachBot(PlannerBot):
    """Maximizes the chance of a final score of at least `target` (see the module's text)."""

    def __init__(self, model: Model, target: int, progress=None):
        super().__init__()
        self.target = target
        self.space, self.reach = reach_table(model, target, progress)

    def gained(self, state: GameState, player: int) -> int:
        """The points the player's writes have gained so far: the counted boxes and the write bonuses
        (the end bonuses are in the table, added when the sheet is full)."""
        counts = self.space.counts
        sheet = state.sheets[player]
        return int(sum(v for b, v in sheet.items() if counts.get(b, True)) + sum(state.awards[player].values()))

    def need(self, state: GameState) -> int:
        """The points still needed to reach T (0 once reached)."""
        return max(0, self.target - self.gained(state, state.player))

    def write_table(self, state: GameState, roll_number: int | None = None):
        """(open boxes, chance of reaching T after writing each roll into each box); -inf where refused."""
        mask, fvals = encode(self.space, state.sheets[state.player])
        boxes, gain, nxt = gather(self.space, roll_number).moves(mask, fvals)
        points = np.where(nxt >= 0, gain, 0).astype(np.int64)
        chance = self.reach.chances(nxt, self.need(state) - points)
        return boxes, np.where(nxt >= 0, chance, -np.inf)

    def plan_key(self, state: GameState):
        """A plan depends on the sheet as the solver sees it and on the points still needed."""
        mask, fvals = encode(self.space, state.sheets[state.player])
        return mask, tuple(fvals), self.need(state)

    def roll_dependent(self, state: GameState) -> bool:
        return self.space.roll_dependent
