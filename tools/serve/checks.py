"""Checking what people send: the fields of a new table, whole numbers, strings, names and table ids;
anything else is a `ServeError` (400, 404) that says which field is wrong."""
from __future__ import annotations

import re
import unicodedata
from typing import Any

from .errors import ServeError

TABLE_ID = re.compile(r"[A-Za-z0-9_-]{6,40}")
NAME_MAX = 24
SEAT_KINDS = ("human", "greedy", "random", "optimal", "strong", "win")
MAX_PACE_MS = 5000
MAX_SEED = 2**63
MAX_TURN_SECONDS = 3600

SPEC_FIELDS = ("model", "options", "seats", "seed", "pace_ms", "claim", "private", "hints", "turn_seconds")


def check_bool(spec: dict[str, Any], key: str, default: bool) -> bool:
    value = spec.get(key, default)
    if not isinstance(value, bool):
        raise ServeError(400, "'{field}' must be true or false", field=key)
    return value


def check_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ServeError(400, "'{field}' must be a whole number, not {value}", field=what, value=_show(value))
    return value


def check_str(value: Any, what: str, limit: int = 200) -> str:
    if not isinstance(value, str):
        raise ServeError(400, "'{field}' must be a string, not {value}", field=what, value=_show(value))
    if len(value) > limit:
        raise ServeError(400, "'{field}' is too long (at most {limit} characters)", field=what, limit=limit)
    return value


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def clean_name(value: Any, what: str = "name", seat: int | None = None) -> str:
    """A player's name: 1 to 24 printable characters, spaces squeezed (`seat`: whose, counted from 1)."""
    name = " ".join(check_str(value, what, 200).split())
    if not name:
        raise (ServeError(400, "the name is empty") if seat is None
               else ServeError(400, "the name of seat {seat} is empty", seat=seat))
    if len(name) > NAME_MAX:
        raise (ServeError(400, "the name '{name}…' is longer than {most} characters", name=name[:NAME_MAX], most=NAME_MAX)
               if seat is None else
               ServeError(400, "the name of seat {seat}, '{name}…', is longer than {most} characters", seat=seat,
                          name=name[:NAME_MAX], most=NAME_MAX))
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise (ServeError(400, "the name contains control characters") if seat is None
               else ServeError(400, "the name of seat {seat} contains control characters", seat=seat))
    return name


def check_table_id(table_id: str) -> str:
    if not TABLE_ID.fullmatch(table_id or ""):
        raise ServeError(404, "there is no table '{table}'", table=clip(table_id))
    return table_id


def clip(text: str, n: int = 40) -> str:
    text = "".join(c if c.isprintable() else "?" for c in str(text))
    return text if len(text) <= n else text[:n] + "…"
