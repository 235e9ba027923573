"""One error type for everything a user can get wrong, each carrying where it happened."""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Pos:
    """A place in a source file (1-based line and column)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class RulebookError(Exception):
    """Base of every error shown to a user: one line, `file:line:col: error: message`."""

    def __init__(self, message: str, pos: Pos | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.hint = hint

    def __str__(self) -> str:
        where = f"{self.pos}: " if self.pos else "rulebook: "
        hint = f"; {self.hint}" if self.hint else ""
        return f"{where}error: {self.message}{hint}"


class ModelError(RulebookError):
    """A model file is not valid YAML, breaks the schema, or is inconsistent."""


class DslError(ModelError):
    """A scoring expression has a syntax, name or type error."""


class IllegalActionError(RulebookError, ValueError):
    """A move that the rules do not allow in the current state."""


class UsageError(RulebookError):
    """A command line that cannot be carried out (bad option value, bad player spec …)."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message, None, hint)


class SaveFileError(RulebookError):
    """A log or save file that is corrupt or does not fit its model."""


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """A `did you mean 'x'?` hint for the closest of `choices`, or None."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


class ErrorList(RulebookError):
    """Several independent problems found in one pass (the checker reports them all)."""

    def __init__(self, errors: list[RulebookError]):
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)
