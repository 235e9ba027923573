"""Computer players by name: random, greedy (this turn's points), optimal (the solver's table),
strong (exact turns against the sum of exactly solved parts of the sheet, `strong.py`), win (the
chance to finish ahead of the others: `win.py` from the expected-score solver's table, `exactwin.py`
from the exact joint solve where that solver cannot read the game) and reach:T (the chance of a final
score of at least T, `reach.py`; the one kind with a number, as in `reach:250`).

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

__all__ = ["BOTS", "GreedyBot", "OptimalBot", "RandomBot", "StrongBot", "WinBot", "is_kind", "make_bot", "reach_target"]


BOTS = {"random", "greedy", "optimal", "strong", "win"}
REACH = "reach:"  # reach:T, T a whole number (solver/objective.py)


def reach_target(kind: str) -> int | None:
    """T of a `reach:T` kind (a UsageError in one line if T is not a whole number in range); None for other kinds."""
    if not kind.startswith(REACH):
        return None
    from ..solver.objective import parse_objective
    return parse_objective(kind).target


def is_kind(kind: str) -> bool:
    """Whether `kind` names a computer player (`reach:T` with any T in range)."""
    if kind in BOTS:
        return True
    try:
        return reach_target(kind) is not None
    except UsageError:
        return False


def win_is_exact(model) -> bool:
    """Whether the play-to-win seat plays from the exact joint solve (`exactwin.py`): where the expected-score
    solver cannot read the game (no fixed length, counters that outlive a turn, an end_if, ...) and its
    sheets do not already put the joint states beyond the limit (`joint.check_size`; then the solver's
    own refusal is the one shown)."""
    from ..solver.abstraction import NotSolvable
    from ..solver.joint import check_size
    from ..solver.solve import greedy_space
    try:
        greedy_space(model)
        return False
    except NotSolvable:
        pass
    try:
        check_size(model, max(2, model.min_players))
    except NotSolvable:
        return False
    return True


def win_player(model, players: int | None = None, progress=None):
    """The play-to-win player: the exact `ExactWinBot` where `win_is_exact`, else `WinBot` (from the
    expected-score solver's table). The exact table is made for `players` now, or at the first decision."""
    if win_is_exact(model):
        from .exactwin import ExactWinBot
        return ExactWinBot(model, players, progress)
    return WinBot(model, progress)


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
        return win_player(model)
    if reach_target(kind) is not None:
        from .reach import ReachBot
        return ReachBot(model, reach_target(kind))
    raise UsageError("unknown player kind '{kind}'", Message("choose human, {kinds}", {"kinds": ", ".join(sorted(BOTS) + ["reach:T"])}),
                     kind=kind)
