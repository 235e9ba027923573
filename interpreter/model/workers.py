"""Worker processes that end quietly: Ctrl-C and SIGTERM are the parent's to handle.

A pool's workers ignore SIGINT (the terminal sends it to the whole process group; the parent stops
the pool) and take SIGTERM's default action (the pool's terminate() sends it), so an interrupted
run prints one line from the parent and no traceback per worker."""
from __future__ import annotations

import multiprocessing
import signal


def _quiet() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def pool(jobs: int):
    """A fork-started pool of `jobs` quiet workers (use it in a `with`: leaving it terminates them)."""
    return multiprocessing.get_context("fork").Pool(jobs, initializer=_quiet)
