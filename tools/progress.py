"""A progress bar on stderr (rich), silent when stderr is not a terminal."""
from __future__ import annotations

import sys
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (BarColumn, Progress, ProgressColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from rich.text import Text


class _Count(ProgressColumn):
    """'12/40' once the total is known, nothing before (never '0/None')."""

    def render(self, task) -> Text:
        if task.total is None:
            return Text("")
        return Text(f"{task.completed:.0f}/{task.total:.0f}")


@contextmanager
def progress_bar(label: str, force: bool = False, eta: bool = False):
    """Yields `update(done, total)`; draws a bar only for people (a terminal on stderr).

    `label` is shown as given: callers pass it in the user's language. With `eta`, the bar shows a
    percentage and the time left instead of the counts (for work measured in units that mean nothing
    to a reader)."""
    if not (force or sys.stderr.isatty()):
        yield lambda done, total: None
        return
    columns = ((TaskProgressColumn(), TimeElapsedColumn(), TimeRemainingColumn()) if eta else
               (_Count(), TimeElapsedColumn()))
    with Progress(TextColumn(label), BarColumn(), *columns, console=Console(stderr=True, markup=False), transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)
        yield update
