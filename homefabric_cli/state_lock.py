"""One `serve` per state directory: an exclusive lock on ``<state-dir>/serve.lock``, which names the holder's PID.

The lock is ``flock(2)``: the kernel drops it when the process dies (even on kill -9), so a crash leaves no stale
lock to clean up; the PID in the file is only there to tell the user which process holds it.

The file is opened with ``O_NOFOLLOW`` and must be a plain file with one link: a ``serve.lock`` planted as a
symbolic or hard link to another file would otherwise have that file truncated.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from collections.abc import Iterator
from pathlib import Path

LOCK_NAME = "serve.lock"


class StateDirInUse(RuntimeError):
    """Another process serves from this state directory, or its lock file is not one this process may use."""


@contextlib.contextmanager
def hold_state_dir(state_dir: Path) -> Iterator[Path]:
    """Create ``state_dir`` if needed and hold its lock for the duration; StateDirInUse names the holder."""
    state_dir.mkdir(parents=True, exist_ok=True)
    path = state_dir / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as error:
        if error.errno != errno.ELOOP:
            raise
        raise StateDirInUse(
            f"{path} is a symbolic link; serve will not write through it — remove it (serve makes its own lock file)"
        ) from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode) or status.st_nlink != 1:
            raise StateDirInUse(
                f"{path} is not a plain file of its own (a hard link or a special file); "
                "remove it (serve makes its own lock file)"
            )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
            raise StateDirInUse(
                f"--state-dir {state_dir} is in use by another homefabric serve (PID {holder}); "
                "stop it or choose another --state-dir"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield path
        os.ftruncate(fd, 0)  # released: no PID names a process that no longer holds it
    finally:
        os.close(fd)
