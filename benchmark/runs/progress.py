"""Progress of long work, on stderr: stdout is the command's result (a report, JSON), which a user pipes or
saves, so no progress ever goes there.

:class:`WorkProgress` counts units done of a total. On a terminal it is rich's live bar (label, bar, done/total,
a detail, the elapsed time), redrawn in place. When stderr is not a terminal (a pipe, a log file) it writes a plain
line — ``label done/total [where:] detail H:MM:SS`` — when the work starts, every tenth of the total or every
``interval_s`` seconds (whichever comes first; checked as units finish), and when it ends, so a log shows the
work moving. ``where`` names where the units run when an executor runs them (``ray, 4 workers``: the executor
and its worker count), shown before the detail. :class:`RunProgress` is a benchmark run's: the statuses so far
(``passed 3 failed 1``) as the detail; runs kept from before (``--resume``) start it part-way, their statuses in
the tally.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Iterable
from datetime import timedelta
from types import TracebackType
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # rich is loaded only by a progress that shows; its live bar only on a terminal
    from rich.progress import Progress, TaskID

PLAIN_LINES: Final = 10  # a log gets a line per tenth of the total (plus one per interval_s at most)
INTERVAL_S: Final = 10.0


class WorkProgress:
    """Units done of ``total``, on stderr (nothing at all when not ``enabled``)."""

    def __init__(
        self,
        label: str,
        total: int,
        *,
        done: int = 0,
        detail: str = "",
        where: str = "",
        enabled: bool = True,
        transient: bool = False,
        interval_s: float = INTERVAL_S,
    ) -> None:
        self.label = label
        self.total = total
        self.done = done
        self.detail = detail
        self.where = where
        self._enabled = enabled
        self._every = max(1, -(-total // PLAIN_LINES))
        self._interval_s = interval_s
        self._started = self._line_at = time.monotonic()
        self._line_done: int | None = None  # units done when the last plain line was written
        self._bar: tuple[Progress, TaskID] | None = None
        if not enabled:
            return  # shows nothing: rich is not loaded
        from rich.console import Console

        console = Console(stderr=True)
        if console.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            # redirect_stdout off: what the command prints to stdout stays there, even on a terminal
            progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[detail]}"),
                TimeElapsedColumn(),
                console=console,
                transient=transient,
                redirect_stdout=False,
            )
            self._bar = (progress, progress.add_task(label, total=total, completed=done, detail=self._shown()))

    def advance(self, count: int = 1, *, detail: str | None = None) -> None:
        """``count`` more units done (``detail``: the new detail text, if it changed)."""
        self.done += count
        if detail is not None:
            self.detail = detail
        if self._bar is not None:
            progress, task = self._bar
            progress.update(task, advance=count, detail=self._shown())
            return
        now = time.monotonic()
        line_done = self._line_done or 0
        if self.done - line_done >= self._every or now - self._line_at >= self._interval_s:
            self._plain_line(now)

    def _shown(self) -> str:
        """The detail as shown: ``where: detail``, or whichever of the two there is."""
        return ": ".join(part for part in (self.where, self.detail) if part)

    def _plain_line(self, now: float) -> None:
        if not self._enabled:
            return
        elapsed = timedelta(seconds=int(now - self._started))
        detail = f" {shown}" if (shown := self._shown()) else ""
        sys.stderr.write(f"{self.label} {self.done}/{self.total}{detail} {elapsed}\n")
        sys.stderr.flush()
        self._line_at, self._line_done = now, self.done

    def __enter__(self) -> WorkProgress:
        self._started = self._line_at = time.monotonic()
        if self._bar is not None:
            self._bar[0].start()
        else:
            self._plain_line(self._started)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar[0].stop()
        elif self._line_done != self.done:
            self._plain_line(time.monotonic())


class RunProgress:
    """A benchmark run's progress: runs done of all, the statuses so far as the detail."""

    def __init__(
        self, label: str, total: int, *, kept: Iterable[str] = (), where: str = "", enabled: bool = True
    ) -> None:
        # kept: the status of each run kept from before; where: the executor the runs are units on, if any
        self._tally = Counter(kept)
        self._work = WorkProgress(
            label, total, done=self._tally.total(), detail=self._text(), where=where, enabled=enabled
        )

    def _text(self) -> str:
        return " ".join(f"{status} {count}" for status, count in sorted(self._tally.items()))

    def advance(self, status: str) -> None:
        """One more run finished, with this status."""
        self._tally[status] += 1
        self._work.advance(detail=self._text())

    def __enter__(self) -> RunProgress:
        self._work.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._work.__exit__(kind, error, trace)
