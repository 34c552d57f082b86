"""Which executor a command runs its units on: ``local`` or ``ray`` (Ray imported only for ``ray``)."""

from __future__ import annotations

from benchmark.training.executors import Executor, ExecutorError, LocalExecutor

EXECUTORS: tuple[str, ...] = ("local", "ray")


def make_executor(name: str, *, address: str | None = None, workers: int | None = None) -> Executor:
    """``local`` or ``ray`` (``address``: an existing cluster, e.g. ``127.0.0.1:6379``; none: a local one with
    ``workers`` CPUs)."""
    if name == "local":
        if address is not None:
            raise ExecutorError("--address is for --executor ray; the local executor runs in this process")
        return LocalExecutor()
    if name == "ray":
        from benchmark.training.ray_executor import RayExecutor

        return RayExecutor(address=address, workers=workers)
    raise ExecutorError(f"unknown executor {name!r}; allowed: {', '.join(EXECUTORS)}")
