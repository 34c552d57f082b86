"""The progress of work cut into units: units done / total, the executor and its worker count, on stderr
(:class:`benchmark.runs.progress.WorkProgress`: a bar on a terminal, a line now and then in a log)."""

from __future__ import annotations

from types import TracebackType

from benchmark.execution.executors import Executor, described
from benchmark.runs.progress import WorkProgress


class UnitProgress:
    """Units done / total, the executor and its worker count, on stderr (a no-op when disabled)."""

    def __init__(self, total: int, executor: Executor, *, enabled: bool, label: str = "building dataset units") -> None:
        self._work = WorkProgress(label, total, where=described(executor), enabled=enabled)

    def advance(self, _unit: object = None) -> None:
        self._work.advance()

    def skip(self, count: int) -> None:
        self._work.advance(count)

    def __enter__(self) -> UnitProgress:
        self._work.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._work.__exit__(kind, error, trace)
