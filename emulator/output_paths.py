"""Checks of an output path before any work is done, so a bad ``--out`` is one sentence, not a traceback after
minutes of generating (each returns ``None`` when fine, else the sentence naming the path and the fix)."""

from __future__ import annotations

import os
from pathlib import Path


def output_file_problem(path: Path, option: str) -> str | None:
    """A file we will (re)write: its directory must exist and be writable, and it must not be a directory."""
    if path.is_dir():
        return f"{option} {path} is a directory; give a file name"
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        return f"{option} {path}: directory {parent} does not exist (create it first)"
    if not os.access(parent, os.W_OK):
        return f"{option} {path}: directory {parent} is not writable"
    return None


def output_dir_problem(path: Path, option: str) -> str | None:
    """A directory we will create (with parents) or write into: it must not be a file, nor lie under one."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            if not candidate.is_dir():
                what = "is a file" if candidate == path else f"lies under the file {candidate}"
                return f"{option} {path} {what}; give a directory"
            if not os.access(candidate, os.W_OK):
                return f"{option} {path}: {candidate} is not writable"
            return None
    return None
