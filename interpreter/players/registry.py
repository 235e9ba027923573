"""Computer players by name: random, greedy (this turn's points), optimal (the solver's table) and
strong (exact turns against the sum of exactly solved parts of the sheet, `strong.py`).

`players` has the policies that need no solver; this module adds the ones that do, so the solver
may build on `PlannerBot` without an import circle.
"""
from __future__ import annotations

import random

from ..solver.abstraction import NotSolvable
from ..model.errors import Message, UsageError
from .base import PlannerBot, RandomBot, immediate_table
from ..solver.solve import OptimalBot, greedy_space, greedy_table
from ..solver.writetable import encode
from ..engine.state import GameState
from .strong import StrongBot

__all__ = ["BOTS", "GreedyBot", "OptimalBot", "RandomBot", "StrongBot", "make_bot"]


class GreedyBot(PlannerBot):
    """Maximizes this turn's points and bonus; the future sheet does not count."""

    def write_table(self, state: GameState, roll_number: int | None = None):
        if self._space(state) is None:
            return immediate_table(state, roll_number)
        return greedy_table(state, roll_number)

    def plan_key(self, state: GameState):
        """The solver's encoding of the sheet where the model has one (plans shared), else the sheet."""
        space = self._space(state)
        if space is None:
            return super().plan_key(state)
        mask, fvals = encode(space, state.sheets[state.player])
        return mask, tuple(fvals)

    def _space(self, state: GameState):
        """The model's solver Space (None if the solver cannot read the model), once per model."""
        spaces = self.__dict__.setdefault("_spaces", {})
        model = state.model
        if id(model) not in spaces:
            try:
                spaces[id(model)] = (model, greedy_space(model))
            except NotSolvable:
                spaces[id(model)] = (model, None)
        return spaces[id(model)][1]


BOTS = {"random", "greedy", "optimal", "strong"}


def make_bot(kind: str, model, rng: random.Random, options=None):
    """A computer player by name."""
    if kind == "random":
        return RandomBot(rng)
    if kind == "greedy":
        return GreedyBot()
    if kind == "optimal":
        return OptimalBot(model)
    if kind == "strong":
        return StrongBot(model)
    raise UsageError("unknown player kind '{kind}'", Message("choose human, {kinds}", {"kinds": ", ".join(sorted(BOTS))}),
                     kind=kind)
