"""The machine's load, printed with every benchmark figure.

A figure is called "quiet" only if the machine was quiet while it was measured: the 1-minute load
average below a quarter of the cores, before and after. Otherwise it is labelled busy and its
ranges are what a busy shared machine gives, not a quiet-machine figure.
"""
from __future__ import annotations

import os

QUIET_PER_CORE = 0.25


def load() -> tuple[float, float, float]:
    try:
        return os.getloadavg()
    except OSError:  # not available on this platform
        return (float("nan"),) * 3


def is_quiet(loads: tuple[float, ...] | None = None) -> bool:
    """Whether the 1-minute load is below a quarter of the cores (NaN: not known, so not quiet)."""
    one = (loads or load())[0]
    return one == one and one < QUIET_PER_CORE * (os.cpu_count() or 1)


def describe(before: tuple[float, float, float] | None = None) -> str:
    """One line: the load averages now (and at the start), the cores, and quiet or busy."""
    now = load()
    text = f"load average {now[0]:.2f} {now[1]:.2f} {now[2]:.2f} on {os.cpu_count()} cores"
    if before is not None:
        text += f" (at the start {before[0]:.2f})"
        quiet = is_quiet(before) and is_quiet(now)
    else:
        quiet = is_quiet(now)
    return text + (": quiet" if quiet else ": BUSY - not a quiet-machine figure; quote ranges")


# Published figures of the fastest one-game solver we know of, measured on other hardware (not here):
# Delta Yatzy (Rust, Scandinavian Yatzy only; its benchmark file and README).
ANCHORS = {
    "table": "whole table 1.1 s (M1 Max, 8 threads) / 113 ms (M5 Max, 18 threads)",
    "simulate": "lockstep 1M optimal games 283 ms: 3.5M games/s, about 195,000 per thread (M5 Max, 18 threads); "
                "oracle (policy table) 12M games/s",
    "decision": "one /evaluate of every keep and box 2-6 µs (M5 Max)",
}


def anchor(what: str) -> str:
    """One line: the anchor's published figure for `what`, labelled as published on other hardware."""
    return f"anchor, published on other hardware (Delta Yatzy): {ANCHORS[what]}"
