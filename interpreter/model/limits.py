"""One resource budget for untrusted input: models, logs, saves, solve caches and command-line JSON.

Every limit is checked *before* the work it bounds, and a refusal names the number and the limit.
The defaults let every bundled game through with a wide margin (docs/writing-a-game.md, "What a
model may be", lists them); `--limit NAME=VALUE` on any command raises one for a run.
"""
from __future__ import annotations

import json
import math
import os
import stat
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from .errors import Message, Pos, RulebookError, UsageError, did_you_mean


@dataclass(frozen=True)
class Limits:
    """The budget. Sizes in bytes, counts in items; each field is one `--limit` name."""

    file_bytes: int = 1_000_000  # a model, log or save file (bundled models: 6-12 KB)
    yaml_nodes: int = 20_000  # values in a YAML file, aliases expanded (bundled: 523-810)
    yaml_chars: int = 4_000_000  # characters of all YAML scalars, aliases expanded (bundled: = the file's size)
    yaml_depth: int = 64  # nesting of YAML mappings and lists (bundled: 14)
    expression_chars: int = 4_000  # characters of one expression (bundled: < 200)
    expression_cost: int = 5_000  # steps of one evaluation of an expression, a definition counted at each use (bundled: 6-182)
    table_work: int = 30_000_000  # steps to build a model's per-roll tables: rolls x steps, all tables (bundled: 1,386-6.0 million)
    number_digits: int = 15  # digits of a whole number in a model, an expression, a log or --sheet
    value_digits: int = 15  # digits of any value an expression computes (|v| < 10**15)
    game_steps: int = 100_000  # steps a game can take with the most players: nested repeats multiply (bundled: 528-960)
    boxes: int = 100  # boxes on a score sheet: every decision weighs each open box for every roll (bundled: 12-20)
    table_bytes: int = 256 * 2**20  # the dice's roll x keep tables (5 dice x 6 faces: 0.9 MB)
    solver_states: int = 4_000_000  # upper estimate of the solver's turn-start states (bundled: <= 1.1 million)
    solver_work: int = 40_000_000_000  # states x (rolls x boxes + keeps x faces x rerolls) (bundled: <= 1e10)
    joint_states: int = 2_500_000  # states of a whole game for the chance to win (bundled: Pig to 100, 2 players: 1.0 million)
    solver_batch_bytes: int = 256 * 2**20  # memory of one batch of the solver's (rolls x states) arrays
    cache_bytes: int = 512 * 2**20  # a solve cache file read back from disk

    @property
    def max_value(self) -> int:
        return 10**self.value_digits


DEFAULT = Limits()
_current = DEFAULT
NAMES = [f.name for f in fields(Limits)]


def limits() -> Limits:
    """The budget in force."""
    return _current


def set_limits(new: Limits) -> None:
    global _current
    _current = new


def raise_limits(pairs: list[str]) -> Limits:
    """Apply `--limit NAME=VALUE` pairs to the budget in force and return it."""
    new = _current
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or name not in NAMES:
            raise UsageError("--limit needs NAME=N with a NAME from {names}, not '{pair}'",
                             did_you_mean(name, NAMES), names=", ".join(NAMES), pair=pair)
        value = value.strip().replace("_", "").replace(",", "")
        if not value.isdigit() or len(value) > 30 or int(value) < 1:
            raise UsageError("--limit {name} takes a positive whole number, not '{value}'", name=name, value=value)
        new = replace(new, **{name: int(value)})
    set_limits(new)
    return new


def hint_for(name: str) -> Message:
    """How to raise the limit `name` for one run."""
    return Message("raise it with --limit {name}=N if you trust the file", {"name": name})


# files ------------------------------------------------------------------------------

# One whole sentence per kind of file and problem (German and Dutch translate each).
_FILE_TEXTS = {
    "model": {
        "missing": Message("no such model file: {path}"),
        "folder": Message("{path} is a folder, not a model file"),
        "special": Message("{path} is not a regular file (a device, a pipe or a socket), so it is not read as a model"),
        "size": Message("the model file is {size} bytes; the limit is {limit} bytes"),
        "unreadable": Message("cannot read the model file {path} ({reason})"),
        "encoding": Message("the model file is not UTF-8 text (byte {offset})"),
    },
    "save file": {
        "missing": Message("no such save file: {path}"),
        "folder": Message("{path} is a folder, not a save file"),
        "special": Message("{path} is not a regular file (a device, a pipe or a socket), so it is not read as a save file"),
        "size": Message("the save file is {size} bytes; the limit is {limit} bytes"),
        "unreadable": Message("cannot read the save file ({reason})"),
        "encoding": Message("the save file is not UTF-8 text (byte {offset})"),
    },
    "log file": {
        "missing": Message("no such log file: {path}"),
        "folder": Message("{path} is a folder, not a log file"),
        "special": Message("{path} is not a regular file (a device, a pipe or a socket), so it is not read as a log file"),
        "size": Message("the log file is {size} bytes; the limit is {limit} bytes"),
        "unreadable": Message("cannot read the log file ({reason})"),
        "encoding": Message("the log file is not UTF-8 text (byte {offset})"),
    },
}


def read_untrusted(path: Path, what: str, cls: type[RulebookError], limit: int | None = None) -> str:
    """The text of a file someone else may have written: a regular file, at most `file_bytes` long.

    `what` is "model", "save file" or "log file". A FIFO, a device (/dev/zero), a folder or an
    oversized file is refused before a byte is read; the read stops one byte past the limit, so a
    file that grows meanwhile is refused too.
    """
    texts = _FILE_TEXTS[what]
    limit = limit or _current.file_bytes
    where = Pos(str(path), 1, 1)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise cls(texts["missing"], None, path=path) from None
    except IsADirectoryError:
        raise cls(texts["folder"], None, path=path) from None
    except OSError as exc:
        raise cls(texts["unreadable"], where, path=path, reason=exc.strerror or exc.__class__.__name__) from None
    chunks: list[bytes] = []
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise cls(texts["folder"], None, path=path)
        if not stat.S_ISREG(info.st_mode):
            raise cls(texts["special"], where, path=path)
        if info.st_size > limit:
            raise cls(texts["size"], where, hint_for("file_bytes"), size=info.st_size, limit=limit)
        got = 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:
            raise cls(texts["size"], where, hint_for("file_bytes"), size=f"> {limit}", limit=limit)
    except OSError as exc:
        raise cls(texts["unreadable"], where, path=path, reason=exc.strerror or exc.__class__.__name__) from None
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise cls(texts["encoding"], where, offset=exc.start) from None


# numbers ----------------------------------------------------------------------------

class NumberTooLong(ValueError):
    """A whole number with more digits than `number_digits` (positions are added by the caller)."""

    def __init__(self, digits: int):
        super().__init__(digits)
        self.digits = digits


def bounded_int(text: str) -> int:
    """`int(text)` for a decimal numeral, refusing one of more than `number_digits` digits first."""
    digits = len(text.lstrip("+-").lstrip("0")) or 1
    if digits > _current.number_digits:
        raise NumberTooLong(digits)
    return int(text)


def too_long(digits: int) -> Message:
    """The refusal of a number with `digits` digits (model, expression, log, save or --sheet)."""
    return Message("a number of {digits} digits; numbers may have at most {limit} digits",
                   {"digits": digits, "limit": _current.number_digits})


def loads_json(text: str) -> Any:
    """`json.loads` with whole numbers bounded (NumberTooLong) and no NaN/Infinity."""
    def constant(name: str):
        raise ValueError(f"{name} is not a number JSON allows")
    return json.loads(text, parse_int=bounded_int, parse_constant=constant)


class ValueTooLarge(ArithmeticError):
    def __init__(self, value: int):
        super().__init__()
        self.digits = len(str(abs(value))) if abs(value) < 10**200 else int(math.log10(abs(value))) + 1


def table_bytes(n_dice: int, faces: int) -> int:
    """The bytes of the roll x keep transition table and its companions for n dice with f faces."""
    rolls = math.comb(n_dice + faces - 1, n_dice)
    keeps = math.comb(n_dice + faces, n_dice)
    subs = 2 ** min(n_dice, 60)  # sub-keeps per roll, at most
    return 8 * (keeps * rolls + rolls * min(subs, keeps) + keeps * (faces + n_dice))


def game_steps(step, players: int, outer: int = 1) -> tuple[int, object]:
    """How many steps a game can run (every repeat at its bound, every player's turn), and the
    innermost repeat or turn at which the count first passed `game_steps` (None if it never did)."""
    budget = _current.game_steps
    total, culprit = 0, None
    for child in step.steps:
        times = child.times if child.kind == "repeat" else players if child.kind == "each_player" else 1
        inner = outer * (times or 1)
        if child.steps:
            count, where = game_steps(child, players, inner)
        else:
            count, where = inner, None
        total += count
        if culprit is None and total > budget:
            culprit = where or child
    return total, culprit


def flow_errors(flow, players: int) -> list[RulebookError]:
    """The flow's whole run must stay within `game_steps` (nested repeats multiply)."""
    from .errors import ModelError
    times = flow.times if flow.kind == "repeat" else 1
    total, culprit = game_steps(flow, players, times or 1)
    if total <= _current.game_steps:
        return []
    step = culprit or flow
    return [ModelError("a game can run {count} steps here (the repeats around it multiply, with {players} players); "
                       "the limit is {limit}", step.pos, hint_for("game_steps"), count=total, players=players,
                       limit=_current.game_steps)]


def box_errors(boxes: list) -> list[RulebookError]:
    """At most `boxes` boxes on the sheet (the error points at the first one too many)."""
    from .errors import ModelError
    if len(boxes) <= _current.boxes:
        return []
    return [ModelError("the score sheet has {count} boxes; the limit is {limit}", boxes[_current.boxes].pos,
                       hint_for("boxes"), count=len(boxes), limit=_current.boxes)]
