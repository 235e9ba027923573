"""Computer players by name: random, greedy (this turn's points), optimal (the solver's table) and
strong (exact turns against the sum of exactly solved parts of the sheet, `strong.py`).

`base` has the policies that need no solver; `greedy`, `optimal` and `strong` the ones that read it.
"""
from __future__ import annotations

import random

from ..model.errors import Message, UsageError
from .base import RandomBot
from .greedy import GreedyBot
from .optimal import OptimalBot
from .strong import StrongBot

__all__ = ["BOTS", "GreedyBot", "OptimalBot", "RandomBot", "StrongBot", "make_bot"]


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
