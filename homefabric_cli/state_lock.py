"""One `serve` per state directory: an exclusive lock on ``<state-dir>/serve.lock``, which names the holder's PID.

The lock is ``flock(2)``: the kernel drops it when the process dies (even on kill -9), so a crash leaves no stale
lock to clean up; the PID in the file is only there to tell the user which process holds it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

LOCK_NAME = "serve.lock"


class StateDirInUse(RuntimeError):
    """Another process serves from this state directory."""


@contextlib.contextmanager
def hold_state_dir(state_dir: Path) -> Iterator[Path]:
    """Create ``state_dir`` if needed and hold its lock for the duration; StateDirInUse names the holder."""
    state_dir.mkdir(parents=True, exist_ok=True)
    path = state_dir / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
            raise StateDirInUse(f"--state-dir {state_dir} is in use by another homefabric serve (PID {holder}); "
                                "stop it or choose another --state-dir") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield path
        os.ftruncate(fd, 0)  # released: no PID names a process that no longer holds it
    finally:
        os.close(fd)
