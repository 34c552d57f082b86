"""An exclusive lock on a host-wide resource a test cannot make unique per run (the Docker sandbox's namespace,
engine and compose project): a second run of the suite on the same host waits for the first, bounded, instead of
tearing down its containers. ``fcntl.flock`` is released by the kernel when the holder dies, so a killed run
never leaves the lock held."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path


class HostLockTimeout(AssertionError):
    """The resource stayed held by another run for longer than the wait allowed."""


@contextlib.contextmanager
def host_lock(path: Path, timeout_s: float, *, poll_s: float = 0.5) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if absent) for the ``with`` body; wait at most ``timeout_s``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 100, 0).decode("utf-8", "replace").strip() or "unknown"
                    raise HostLockTimeout(
                        f"{path} is still held by another test run (pid {holder}) after {timeout_s:.0f} s; "
                        "run one suite at a time on this host"
                    ) from None
                time.sleep(poll_s)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
