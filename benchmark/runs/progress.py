"""The progress bar of a benchmark run (the SimuHome runner's and the voice suite's): a label, the bar,
runs done of all, the statuses so far (``passed 3 failed 1``) and the elapsed time.

It is rich's ``Progress`` on stderr (stdout is the run's report, which a user pipes or saves: a bar there would
end up in the file): on a terminal it redraws in place; on a pipe or file it writes the final bar once, when the
run ends. Runs kept from before (``--resume``) start it part-way, their statuses in the tally.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn


class RunProgress:
    def __init__(self, label: str, total: int, *, kept: Iterable[str] = (), enabled: bool = True) -> None:
        # kept: the status of each run kept from before
        self._tally = Counter(kept)
        # redirect_stdout off: what the run prints to stdout stays there, even on a terminal
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[tally]}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=False,
            disable=not enabled,
            redirect_stdout=False,
        )
        self._bar: TaskID = self._progress.add_task(
            label, total=total, completed=self._tally.total(), tally=self._text()
        )

    def _text(self) -> str:
        return " ".join(f"{status} {count}" for status, count in sorted(self._tally.items()))

    def advance(self, status: str) -> None:
        """One more run finished, with this status."""
        self._tally[status] += 1
        self._progress.update(self._bar, advance=1, tally=self._text())

    def __enter__(self) -> RunProgress:
        self._progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._progress.stop()
