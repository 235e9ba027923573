"""Progress on stderr: a bar (rich) for a terminal, plain lines otherwise (a log, a pipe, CI).

Plain lines come at most every $RULEBOOK_PROGRESS_SECONDS (default 10) and only at a new tenth of
the work, the first once that much time has passed, so a quick command prints none.
RULEBOOK_PROGRESS=none keeps stderr silent (the test suite sets it)."""
from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager


def _count_column():
    """A column of '12/40' once the total is known, nothing before (never '0/None')."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class Count(ProgressColumn):
        def render(self, task) -> Text:
            if task.total is None:
                return Text("")
            return Text(f"{task.completed:.0f}/{task.total:.0f}")
    return Count()


@contextmanager
def progress_bar(label: str, force: bool = False, eta: bool = False):
    """Yields `update(done, total)`; draws a bar only for people (a terminal on stderr).

    `label` is shown as given: callers pass it in the user's language. With `eta`, the bar shows a
    percentage and the time left instead of the counts (for work measured in units that mean nothing
    to a reader)."""
    if not (force or sys.stderr.isatty()):
        if os.environ.get("RULEBOOK_PROGRESS", "").lower() == "none":
            yield lambda done, total: None
        else:
            yield _lines(label)
        return
    from rich.console import Console  # (rich only for a bar: a log or a pipe never imports it)
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    columns = ((TaskProgressColumn(), TimeElapsedColumn(), TimeRemainingColumn()) if eta else
               (_count_column(), TimeElapsedColumn()))
    with Progress(TextColumn(label), BarColumn(), *columns, console=Console(stderr=True, markup=False), transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)
        yield update


def _lines(label: str):
    """`update(done, total)` that writes a plain line now and then: `label: 12/40 (30%)`."""
    try:
        every = max(0.0, float(os.environ.get("RULEBOOK_PROGRESS_SECONDS", "10")))
    except ValueError:
        every = 10.0
    start = time.monotonic()
    state = {"last": start, "tenth": -1}

    def update(done: int, total: int) -> None:
        now = time.monotonic()
        tenth = int(10 * done / total) if total else -1
        if now - state["last"] < every or (total and tenth == state["tenth"]):
            return
        state["last"], state["tenth"] = now, tenth
        shown = f"{done:,}/{total:,} ({100 * done // total}%)" if total else f"{done:,}"
        try:
            print(f"{label}: {shown}", file=sys.stderr, flush=True)
        except (OSError, ValueError):
            pass
    return update
