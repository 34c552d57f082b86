"""Server files the API may read on a client's behalf: only under a root the operator configured, only
regular files, bounded in size and count, and always read off the event loop (callers use ``to_thread``).

A client names a path; it may be relative to the root or absolute. Anything that resolves outside the root
is refused without being looked at (no existence oracle for the rest of the disk); FIFOs, devices and
sockets are refused without being opened for a blocking read; symlinks inside a directory are not followed.
Errors quote paths relative to the root, never the server's absolute paths.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bridge.http.errors import ApiError

MAX_PATH_CHARS = 1024
MAX_FILES = 5000  # episode files one load may read
MAX_DEPTH = 8  # directory levels below the named directory
MAX_EPISODE_BYTES = 1 << 20  # one episode file
MAX_RECORDS_BYTES = 64 << 20  # one records.jsonl to replay


@dataclass(frozen=True)
class Root:
    """A directory the operator allowed, and the command-line flag that sets it (for messages)."""

    path: Path | None
    flag: str
    what: str  # "episode files", "run records"

    def confine(self, requested: str) -> Path:
        """The resolved path of ``requested`` under this root, or an ApiError that names the rule."""
        if self.path is None:
            raise ApiError(
                "NOT_ENABLED",
                f"reading {self.what} from the server is off: start the API with "
                f"{self.flag} DIR to allow files under DIR",
                status=403,
            )
        if not isinstance(requested, str) or not requested or len(requested) > MAX_PATH_CHARS or "\0" in requested:
            raise ApiError(
                "INVALID_ARGUMENT",
                f"a path must be 1..{MAX_PATH_CHARS} characters without NUL",
                allowed=f"a path under the {self.flag} directory",
            )
        root = self.path.resolve()
        candidate = Path(requested)
        try:
            resolved = (candidate if candidate.is_absolute() else root / candidate).resolve()
        except (OSError, RuntimeError, ValueError):
            raise ApiError("INVALID_ARGUMENT", f"path {requested[:200]!r} cannot be resolved") from None
        if not resolved.is_relative_to(root):
            raise ApiError(
                "PATH_OUTSIDE_ROOT",
                f"{requested[:200]!r} is not under the {self.flag} directory: only {self.what} there can be read",
                status=403,
            )
        return resolved

    def relative(self, path: Path) -> str:
        assert self.path is not None
        try:
            return str(path.relative_to(self.path.resolve())) or "."
        except ValueError:
            return path.name


def _lstat(path: Path, shown: str) -> os.stat_result:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        raise ApiError("PATH_NOT_FOUND", f"no file or directory {shown!r} under the root") from None
    except OSError as error:
        raise ApiError("INVALID_ARGUMENT", f"{shown!r} cannot be read: {error.strerror}") from None


def regular_files(root: Root, path: Path, *, suffix: str) -> list[Path]:
    """``path`` itself when it is a regular file, or the regular ``*suffix`` files below it (sorted, bounded)."""
    shown = root.relative(path)
    info = _lstat(path, shown)
    if stat.S_ISREG(info.st_mode):
        return [path]
    if not stat.S_ISDIR(info.st_mode):
        raise ApiError(
            "NOT_A_REGULAR_FILE",
            f"{shown!r} is neither a regular file nor a directory",
            allowed="a regular file or a directory of them",
        )
    found: list[Path] = []
    pending = [(path, 0)]
    while pending:
        directory, depth = pending.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                if depth < MAX_DEPTH:
                    pending.append((Path(entry.path), depth + 1))
            elif entry.is_file(follow_symlinks=False) and entry.name.endswith(suffix):
                found.append(Path(entry.path))
                if len(found) > MAX_FILES:
                    raise ApiError(
                        "TOO_MANY_FILES",
                        f"{shown!r} holds more than {MAX_FILES} {suffix} files; name a smaller directory",
                        allowed=f"at most {MAX_FILES}",
                    )
    return sorted(found)


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; OSError/ValueError otherwise (never blocks on
    a FIFO: it is opened non-blocking and checked before any read)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        if info.st_size > limit:
            raise ValueError(f"{info.st_size} bytes; the limit is {limit}")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
        if len(data) > limit:
            raise ValueError(f"over {limit} bytes (the limit)")
        return data
    finally:
        os.close(fd)


def read_json(path: Path, limit: int) -> Any:
    return json.loads(read_regular(path, limit).decode("utf-8"))
