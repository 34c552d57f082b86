"""The progress bar of work cut into units: units done / total, the executor and its worker count, on stderr."""

from __future__ import annotations


class UnitProgress:
    """Units done / total, the executor and its worker count, on stderr (a no-op when disabled)."""

    def __init__(
        self, total: int, workers: int, executor: str, *, enabled: bool, label: str = "building dataset units"
    ) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            TextColumn(label),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(f"{executor}, {workers} worker{'s' if workers != 1 else ''}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            disable=not enabled,
            redirect_stdout=False,
        )
        self._task = self._progress.add_task("units", total=total)

    def advance(self, _unit: object = None) -> None:
        self._progress.advance(self._task)

    def skip(self, count: int) -> None:
        self._progress.advance(self._task, count)

    def __enter__(self) -> UnitProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()
