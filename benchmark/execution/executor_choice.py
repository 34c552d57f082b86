"""Which executor a command runs its units on: ``local`` or ``ray`` (Ray imported only for ``ray``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from benchmark.execution.executors import Executor, ExecutorError, LocalExecutor

EXECUTORS: tuple[str, ...] = ("local", "ray")


def make_executor(
    name: str, *, address: str | None = None, workers: int | None = None, environment: dict[str, str] | None = None
) -> Executor:
    """``local`` or ``ray`` (``address``: an existing cluster, e.g. ``127.0.0.1:6379``; none: a local one with
    ``workers`` CPUs; ``environment``: variables Ray's tasks get, e.g. an API key)."""
    if name == "local":
        if address is not None:
            raise ExecutorError("--address is for --executor ray; the local executor runs in this process")
        return LocalExecutor()
    if name == "ray":
        from benchmark.execution.ray_executor import RayExecutor

        return RayExecutor(address=address, workers=workers, environment=environment)
    raise ExecutorError(f"unknown executor {name!r}; allowed: {', '.join(EXECUTORS)}")


@contextmanager
def opened_executor(
    name: str, *, address: str | None = None, workers: int | None = None, environment: dict[str, str] | None = None
) -> Iterator[Executor]:
    """The executor for a command's options, closed (a local Ray cluster shut down) when the block ends."""
    if workers is not None and (workers < 1 or name != "ray" or address is not None):
        raise ExecutorError("--workers is a positive number of CPUs, for --executor ray without --address")
    executor = make_executor(name, address=address, workers=workers, environment=environment)
    try:
        yield executor
    finally:
        executor.close()
