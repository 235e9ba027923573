"""What a solve or a computer seat maximizes: the one place that reads an objective's name.

- `expected`: the expected final score (the solver's table, `solve.py`).
- `reach:T`: the chance that the final score is at least T (`reach.py`: the state carries the
  points so far, capped at T).
- `win`: the chance to win the game as the model ranks it.

    parse_objective("reach:250") -> Objective(kind="reach", target=250)
    str(Objective("reach", 250)) -> "reach:250"

A name that is none of these is a UsageError with one line in the user's language.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..model.errors import Number, UsageError

KINDS = ("expected", "reach", "win")
EXPECTED, REACH, WIN = KINDS
MAX_TARGET = 100_000  # a target beyond this is a typo, not a score a sheet reaches


@dataclass(frozen=True)
class Objective:
    kind: str  # one of KINDS
    target: int | None = None  # the T of reach:T; None for the others

    def __str__(self) -> str:
        return f"{self.kind}:{self.target}" if self.kind == REACH else self.kind

    @property
    def name(self) -> str:
        """The objective as written on the command line (`expected`, `reach:250`, `win`)."""
        return str(self)


DEFAULT = Objective(EXPECTED)


def parse_objective(text: str | None) -> Objective:
    """`expected`, `reach:T` (T a whole number ≥ 0) or `win`; None or '' is `expected`."""
    raw = (text or "").strip().lower()
    if not raw or raw == EXPECTED:
        return DEFAULT
    if raw == WIN:
        return Objective(WIN)
    kind, sep, rest = raw.partition(":")
    if kind == REACH:
        try:
            target = int(rest.strip()) if sep else None
        except ValueError:
            target = None
        if target is None or not 0 <= target <= MAX_TARGET:
            raise UsageError("--objective reach:T needs a whole number T from 0 to {most}, as in reach:250; "
                             "'{text}' is none", most=Number(MAX_TARGET), text=text)
        return Objective(REACH, target)
    raise UsageError("no such objective '{text}'; the objectives are expected, reach:T (as in reach:250) and win",
                     text=text)
