"""The optimal player's solves, shared by every table: each rule variant solved once, a few at a time.

A table with an optimal computer seat never waits: until its variant is solved, that seat plays
greedily (the page says so), and takes the solved table the moment it exists. A solve runs in its
own process (`max_tasks_per_child=1`), so the memory it needs is given back when it ends; it leaves
the table on disk (the solver's cache), which the server then reads. At most `workers` solves run
at once and at most `waiting` variants wait; a variant beyond that is simply played greedily.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
from typing import Callable

from ...interpreter.model.frozen import Model

log = logging.getLogger("rulebook.serve")


def _solve_in_child(name: str, options: dict[str, str]) -> bool:
    """Solve a bundled model's variant and store it in the solver's cache (in a child process)."""
    from ...interpreter.model.loader import load_model
    from ...interpreter.solver.solve import load_or_solve
    load_or_solve(load_model(name, options))
    return True


def is_solved(model: Model) -> bool:
    """The optimal player's table for this variant is on disk (so using it costs no solving)."""
    try:
        from ...interpreter.solver.cache import cache_path
        return cache_path(model).exists()
    except Exception:  # noqa: BLE001 - no solver, no optimal player
        return False


class SolveQueue:
    """Solves by (model name, options), each at most once; `want()` never blocks."""

    def __init__(self, workers: int = 1, waiting: int = 8,
                 solve: Callable[[str, dict[str, str]], bool] = _solve_in_child):
        self.workers, self.waiting = max(1, workers), max(0, waiting)
        self._solve = solve
        self._jobs: dict[tuple, asyncio.Future] = {}
        self._listeners: dict[tuple, list[Callable[[], None]]] = {}
        self._pool: concurrent.futures.Executor | None = None
        self.failed: set[tuple] = set()

    def _executor(self) -> concurrent.futures.Executor:
        if self._pool is None:
            if self._solve is _solve_in_child:
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn"), max_tasks_per_child=1)
            else:
                self._pool = concurrent.futures.ThreadPoolExecutor(self.workers)
        return self._pool

    def pending(self) -> int:
        return sum(1 for f in self._jobs.values() if not f.done())

    def want(self, model: Model, name: str, options: dict[str, str], on_solved: Callable[[], None]) -> str:
        """Ask for a variant: "solved" (use it now), "queued" (`on_solved` is called later, in the
        event loop) or "refused" (too many waiting, or it failed before: play greedily)."""
        if is_solved(model):
            return "solved"
        key = (name, tuple(sorted(options.items())))
        if key in self.failed:
            return "refused"
        job = self._jobs.get(key)
        if job is None:
            if self.pending() >= self.workers + self.waiting:
                return "refused"
            loop = asyncio.get_running_loop()
            job = loop.run_in_executor(self._executor(), self._solve, name, dict(options))
            self._jobs[key] = job
            job.add_done_callback(lambda f, key=key: self._done(key, f))
        self._listeners.setdefault(key, []).append(on_solved)
        return "queued"

    def _done(self, key: tuple, future: asyncio.Future) -> None:
        self._jobs.pop(key, None)
        listeners = self._listeners.pop(key, [])
        if future.cancelled() or future.exception() is not None:
            log.warning("solving %s failed: %s", key[0], None if future.cancelled() else future.exception())
            self.failed.add(key)
            return
        for call in listeners:
            try:
                call()
            except Exception:  # noqa: BLE001 - one table's trouble is not the others'
                log.exception("after solving %s", key[0])

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
