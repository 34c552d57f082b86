"""Durable file writes shared by every layer that keeps files: a whole file replaced atomically, or lines
appended to an ``O_APPEND`` file, each fsynced so a kill leaves the old file, the new one, or at most a torn
last line — never a partial file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (``os.write`` may write less than asked)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def write_bytes_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` so a reader sees the old file or the new one, never a partial one."""
    target = Path(path)
    fd, temp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp_name, target)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    fsync_directory(target.parent)


def write_atomically(path: str | os.PathLike[str], text: str) -> None:
    """:func:`write_bytes_atomically` of ``text`` as UTF-8."""
    write_bytes_atomically(path, text.encode("utf-8"))


def remove_leftover_temp_files(directory: Path) -> list[Path]:
    """Delete the temp files that ``write_atomically`` (``.NAME.*.tmp``) and the node's state store (``.NAME.*``)
    leave when a process is killed mid-write; only for a directory this process owns (``serve`` holds its lock)."""
    removed = []
    for candidate in directory.glob(".*.*"):
        stem = candidate.name[1:].split(".")
        if (
            candidate.is_file()
            and not candidate.is_symlink()
            and len(stem) >= 3
            and (candidate.name.endswith(".tmp") or stem[1] == "json")
        ):
            candidate.unlink(missing_ok=True)
            removed.append(candidate)
    return removed


def fsync_directory(directory: Path) -> None:
    """Make a rename or unlink in ``directory`` durable; a platform that cannot open a directory skips it."""
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def open_for_append(path: Path) -> int:
    """A records (or timings) file opened for :func:`append_line`, created if missing."""
    return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)


def append_line(fd: int, line: str) -> None:
    """Append one line to an ``O_APPEND`` file and fsync it (a kill leaves at most a torn last line)."""
    write_line(fd, line)
    os.fsync(fd)


def write_line(fd: int, line: str) -> None:
    """Append one line to an ``O_APPEND`` file, not yet fsynced (the caller fsyncs before it acknowledges)."""
    write_all(fd, line.encode("utf-8"))
