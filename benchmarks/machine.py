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
