"""Where units of work run: here, one after another (``local``), or as Ray tasks (``ray``, in
:mod:`benchmark.execution.ray_executor`, imported only when asked for).

Every executor hands the units' outputs back **in unit order**, whatever order they finished in, so the driver
writes the same files whatever the number of workers. A unit's output is whatever its task returns (picklable): the
JSONL text of a dataset unit's examples, an episode's run records, a rendered episode's turns and WAV bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar


@dataclass(frozen=True)
class WorkUnit:
    """One unit of work: its number (the order outputs come back in), what it is about (a dataset kind, an
    episode id) and the range it covers (``first``, ``count``: examples of a kind, a trial, an episode's index)."""

    number: int
    kind: str
    first: int
    count: int

    FILE_PATTERN: ClassVar[str] = "unit-*.jsonl"  # every file_name matches it

    @property
    def file_name(self) -> str:
        """The file a unit's output is kept in while the work runs (:mod:`benchmark.execution.unit_outputs`)."""
        return f"unit-{self.number:05d}.jsonl"


class ExecutorError(RuntimeError):
    """The executor could not run (Ray missing, no cluster at the address, a unit failed): a one-line reason."""


Output = TypeVar("Output")
UnitTask = Callable[[Any, WorkUnit], Output]  # (shared data, unit) -> the unit's output; module-level (Ray pickles it)


class Executor(Protocol):
    name: str

    @property
    def workers(self) -> int:
        """How many units can run at once (the cluster's CPUs for Ray)."""
        ...

    def map(self, task: UnitTask[Output], shared: Any, units: Sequence[WorkUnit]) -> Iterator[tuple[WorkUnit, Output]]:
        """``task(shared, unit)`` for each unit, handed back in the order given."""
        ...

    def close(self) -> None: ...


def described(executor: Executor) -> str:
    """The executor and its worker count, as progress shows them: ``ray, 4 workers``."""
    workers = executor.workers
    return f"{executor.name}, {workers} worker{'s' if workers != 1 else ''}"


class LocalExecutor:
    name = "local"

    @property
    def workers(self) -> int:
        return 1

    def map(self, task: UnitTask[Output], shared: Any, units: Sequence[WorkUnit]) -> Iterator[tuple[WorkUnit, Output]]:
        for unit in units:
            yield unit, task(shared, unit)

    def close(self) -> None:
        return None
