"""Units of work as Ray tasks: on a cluster already running (``--address``) or on a local one started here.

Ray is imported by this module alone, and this module only by ``make_executor("ray")``. Tasks are submitted a
window at a time (a few per worker, so a large build does not queue everything in the object store) and their
outputs are handed back in unit order; a task that fails fails the build, naming the unit (what was written
before it stays, so ``--resume`` continues from there).
"""

from __future__ import annotations

import logging
import socket
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

from benchmark.execution.executors import ExecutorError, Output, UnitTask, WorkUnit

TASKS_PER_WORKER = 2


def _check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """Fail at once, in one line, when nothing listens at ``host:port`` (ray.init would retry for minutes)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ExecutorError(f"--address {address!r} is not host:port (e.g. 127.0.0.1:6379)")
    try:
        socket.create_connection((host, int(port)), timeout=timeout_s).close()
    except OSError as error:
        raise ExecutorError(
            f"no Ray cluster answers at {address} ({error.strerror or error}); start one with "
            f"`ray start --head --port {port}` or give its address"
        ) from None


class RayExecutor:
    name = "ray"

    def __init__(
        self, *, address: str | None = None, workers: int | None = None, environment: dict[str, str] | None = None
    ) -> None:
        try:
            import ray
        except ImportError:
            raise ExecutorError("--executor ray needs Ray: pip install 'homefabric[ray]'") from None
        self._ray: Any = ray
        if address is not None:
            _check_reachable(address)
        # environment: variables the tasks need that the cluster's workers lack (a model's API key)
        options: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": False}
        if environment:
            options["runtime_env"] = {"env_vars": environment}
        try:
            if address is not None:
                ray.init(address=address, **options)
            else:
                ray.init(num_cpus=workers or 1, include_dashboard=False, **options)
        except (ConnectionError, RuntimeError, ValueError) as error:
            where = f"at {address}" if address is not None else "locally"
            raise ExecutorError(f"cannot start or reach a Ray cluster {where}: {str(error).splitlines()[0]}") from None

    @property
    def workers(self) -> int:
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    def map(self, task: UnitTask[Output], shared: Any, units: Sequence[WorkUnit]) -> Iterator[tuple[WorkUnit, Output]]:
        remote = self._ray.remote(num_cpus=1, max_retries=2)(task)
        data = self._ray.put(shared)
        waiting = deque(units)
        window: deque[tuple[WorkUnit, Any]] = deque()
        limit = self.workers * TASKS_PER_WORKER
        while waiting or window:
            while waiting and len(window) < limit:
                unit = waiting.popleft()
                window.append((unit, remote.remote(data, unit)))
            unit, future = window.popleft()
            try:
                output: Output = self._ray.get(future)
            except self._ray.exceptions.RayError as error:
                cause = getattr(error, "cause", None) or error  # a task's own exception, when it raised one
                raise ExecutorError(
                    f"unit {unit.number} ({unit.kind} {unit.first}..{unit.first + unit.count - 1}) "
                    f"failed on the cluster: {str(cause).splitlines()[0]}"
                ) from None
            yield unit, output

    def close(self) -> None:
        self._ray.shutdown()
