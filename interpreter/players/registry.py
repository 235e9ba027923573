"""Computer players by name: random, greedy (this turn's points), optimal (the solver's table),
strong (exact turns against the sum of exactly solved parts of the sheet, `strong.py`) and win (the
chance to finish ahead of the others, `win.py`).

`base` has the policies that need no solver; `greedy`, `optimal` and `strong` the ones that read it.
"""
from __future__ import annotations

import random

from ..model.errors import Message, UsageError
from .base import RandomBot
from .greedy import GreedyBot
from .optimal import OptimalBot
from .strong import StrongBot
from .win import WinBot

__all__ = ["BOTS", "GreedyBot", "OptimalBot", "RandomBot", "StrongBot", "WinBot", "make_bot"]


BOTS = {"random", "greedy", "optimal", "strong", "win"}


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
    if kind == "win":
        return WinBot(model)
    raise UsageError("unknown player kind '{kind}'", Message("choose human, {kinds}", {"kinds": ", ".join(sorted(BOTS))}),
                     kind=kind)
