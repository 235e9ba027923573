"""Computer players by name: random, greedy (this turn's points) and optimal (the solver's table).

`players` has the policies that need no solver; this module adds the ones that do, so the solver
may build on `PlannerBot` without an import circle.
"""
from __future__ import annotations

import random

from .abstraction import NotSolvable
from .errors import Message, UsageError
from .players import PlannerBot, RandomBot, immediate_table
from .solver import OptimalBot, greedy_table
from .state import GameState

__all__ = ["BOTS", "GreedyBot", "OptimalBot", "RandomBot", "make_bot"]


class GreedyBot(PlannerBot):
    """Maximizes this turn's points and bonus; the future sheet does not count."""

    def write_table(self, state: GameState, roll_number: int | None = None):
        try:
            return greedy_table(state, roll_number)
        except NotSolvable:
            return immediate_table(state, roll_number)


BOTS = {"random", "greedy", "optimal"}


def make_bot(kind: str, model, rng: random.Random, options=None):
    """A computer player by name."""
    if kind == "random":
        return RandomBot(rng)
    if kind == "greedy":
        return GreedyBot()
    if kind == "optimal":
        return OptimalBot(model)
    raise UsageError("unknown player kind '{kind}'", Message("choose human, {kinds}", {"kinds": ", ".join(sorted(BOTS))}),
                     kind=kind)
