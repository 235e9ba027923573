"""Worker processes that end quietly: Ctrl-C and SIGTERM are the parent's to handle.

A pool's workers ignore SIGINT (the terminal sends it to the whole process group; the parent stops
the pool) and take SIGTERM's default action, so an interrupted run prints one line from the parent
and no traceback per worker. Leaving the pool on an exception kills its workers outright instead of
`Pool.terminate()`: a worker that a signal killed while it held the task queue's lock would make
`terminate()` wait for that lock for ever."""
from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import signal


def _quiet() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


class QuietPool(multiprocessing.pool.Pool):
    """A pool that, left on an exception (Ctrl-C, SIGTERM, an error), kills its workers and forgets them."""

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            return super().__exit__(exc_type, exc, tb)
        self.kill()
        return False

    def kill(self) -> None:
        """End the workers at once (SIGKILL), without `terminate()`'s wait for the queue's lock."""
        self._state = multiprocessing.pool.TERMINATE
        self._worker_handler._state = multiprocessing.pool.TERMINATE  # no new workers for the killed ones
        # the handler may be starting a worker for one that died just now: let it finish (it checks its
        # state every 0.1 s), so that no worker is started after the ones killed here
        self._worker_handler.join(2)
        for worker in list(self._pool):
            if worker.exitcode is None:
                worker.kill()
        for worker in list(self._pool):
            worker.join(5)
        self._terminate.cancel()  # no terminate() at exit either: it would wait on the queue's lock


def pool(jobs: int) -> QuietPool:
    """A fork-started pool of `jobs` quiet workers (use it in a `with`: leaving it ends them)."""
    return QuietPool(jobs, initializer=_quiet, context=multiprocessing.get_context("fork"))
