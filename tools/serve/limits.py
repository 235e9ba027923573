"""Limits that protect everybody on a shared server: per-client quotas, bounded JSON, allowed hosts.

A client is its IP address (as uvicorn reports it; behind a reverse proxy, uvicorn's
`--forwarded-allow-ips` makes that the visitor's address). Each quota is a sliding window: at most
`n` requests in `window` seconds; the one over it is refused with 429 and a `Retry-After` saying
when the oldest request leaves the window. Nothing here sleeps or reads a clock other than
`time.monotonic` (tests pass their own clock).
"""
from __future__ import annotations

import json
import math
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
MAX_DIGITS = 40        # a JSON number longer than this is refused (seeds, seats and delays are short)
MAX_CLIENTS = 100_000  # clients remembered per quota; the oldest are forgotten first


@dataclass
class Limits:
    """What one server allows; every field is a `rulebook serve` option."""

    tables_per_client: int = 30        # new tables ...
    tables_window: float = 3600.0      # ... per this many seconds
    moves_per_client: int = 600        # moves and hints ...
    moves_window: float = 60.0         # ... per this many seconds
    sockets_per_client: int = 50       # WebSocket connections open at once
    max_tables: int = 1000             # unfinished tables on the server
    abandoned_after: float = 7 * 24 * 3600.0  # an unfinished table nobody moved in this long is deleted
    finished_kept: float = 24 * 3600.0        # a finished table is deleted this long after its end
    sweep_every: float = 300.0         # how often expired tables are looked for
    solve_workers: int = 1             # optimal-player solves at once (each in its own process)
    solve_waiting: int = 8             # rule variants waiting to be solved; more are played greedily
    turn_timer: float = 0.0            # default seconds for a turn (0: no timer); tables may set their own
    copies_per_client: int = 20        # new workshop copies (and a visitor's own copies) ...
    copies_window: float = 3600.0      # ... per this many seconds
    compares_per_client: int = 5       # new comparisons of a copy with its original ...
    compares_window: float = 3600.0    # ... per this many seconds


class Quota:
    """At most `n` hits per `window` seconds for each client key."""

    def __init__(self, n: int, window: float, clock: Callable[[], float] = time.monotonic):
        self.n, self.window, self.clock = n, window, clock
        self._hits: dict[str, deque[float]] = {}

    def hit(self, key: str) -> float:
        """Count one request; 0 if allowed, else the seconds until the next one would be."""
        now = self.clock()
        hits = self._hits.get(key)
        if hits is None:
            if len(self._hits) >= MAX_CLIENTS:
                self._forget(now)
            hits = self._hits[key] = deque()
        while hits and hits[0] <= now - self.window:
            hits.popleft()
        if len(hits) >= self.n:
            return max(1.0, hits[0] + self.window - now)
        hits.append(now)
        return 0.0

    def give_back(self, key: str) -> None:
        """Forget the last request counted for this client (it was refused for another reason)."""
        hits = self._hits.get(key)
        if hits:
            hits.pop()

    def _forget(self, now: float) -> None:
        for key in [k for k, h in self._hits.items() if not h or h[-1] <= now - self.window]:
            del self._hits[key]
        while len(self._hits) >= MAX_CLIENTS:  # all busy: forget the first-seen
            del self._hits[next(iter(self._hits))]


class Counter:
    """How many things (WebSocket connections) each client holds open at once."""

    def __init__(self, n: int):
        self.n = n
        self._open: dict[str, int] = {}

    def take(self, key: str) -> bool:
        if self._open.get(key, 0) >= self.n:
            return False
        self._open[key] = self._open.get(key, 0) + 1
        return True

    def give_back(self, key: str) -> None:
        left = self._open.get(key, 0) - 1
        if left > 0:
            self._open[key] = left
        else:
            self._open.pop(key, None)


def _(text: str) -> str:
    return text  # marks a text for the catalogs (make catalogs); said in the asker's language where it is used


# a quota reached: what the client is told, with the wait as people say it ({when}: "in an hour")
REFUSALS = {"tables": _("too many new tables from your address; try again {when}"),
            "moves": _("too many moves from your address; try again {when}"),
            "copies": _("too many new copies from your address; try again {when}"),
            "compares": _("too many comparisons from your address; try again {when}")}


def retry_after(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))


def how_long(seconds: float, lang: str) -> str:
    """A wait as people say it: "in 40 seconds", "in 3 minutes", "in an hour" (in en, de or nl)."""
    from ..i18n import translator
    t = translator(lang)
    s = max(1, math.ceil(seconds))
    if s < 90:
        return t.ngettext("in %(num)d second", "in %(num)d seconds", s) % {"num": s}
    m = round(s / 60)
    if m < 60:
        return t.ngettext("in %(num)d minute", "in %(num)d minutes", m) % {"num": m}
    h = round(m / 60)
    if h == 1:
        return t.gettext("in an hour")
    return t.ngettext("in %(num)d hour", "in %(num)d hours", h) % {"num": h}


# JSON with bounded numbers ------------------------------------------------------------------------

class NumberError(ValueError):
    """A JSON number the server will not read (too long, or not a number at all)."""


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise NumberError(f"a number in the request has more than {MAX_DIGITS} digits")
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > MAX_DIGITS:
        raise NumberError(f"a number in the request has more than {MAX_DIGITS} characters")
    value = float(text)
    if not math.isfinite(value):
        raise NumberError("a number in the request is too large")
    return value


def _parse_constant(name: str) -> Any:
    raise NumberError(f"'{name}' is not a JSON number")


def loads(text: str) -> Any:
    """`json.loads` that refuses huge integers, NaN and Infinity (NumberError) before any work."""
    return json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)


# hosts --------------------------------------------------------------------------------------------

def host_name(header: str) -> str:
    """The name in a Host header, without the port ("[::1]:8000" → "::1")."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    if header.count(":") == 1:
        return header.partition(":")[0]
    return header


def host_allowed(header: str, allowed: tuple[str, ...]) -> bool:
    name = host_name(header).rstrip(".")
    return bool(name) and ("*" in allowed or name in allowed)
