"""Reading a run directory back: records line by line with a problem per bad line, the manifest with the
episodes' content hashes, and which records belong to the run.

A run directory is written by ``benchmark.runner`` and read by resume, reports and the HTTP API. Files get
damaged (a disk error, a hand edit, an appended foreign record); none of that may crash a reader or be
counted silently: every line that cannot be used is named with its number and why, every record that does
not belong to the manifest's episodes is dropped and listed, and a file that cannot be used at all is a
:class:`RunFileError` naming the file and the fix.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from benchmark.records import RunManifest

MANIFEST = "manifest.json"
RECORDS = "records.jsonl"


class RunFileError(ValueError):
    """A run file that cannot be used at all; the message names the file and what to do."""


def episode_sha256(episode: Any) -> str:
    """The content hash of an episode as its file states it (any change to the episode changes it)."""
    return hashlib.sha256(episode.dumps().encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class LineProblem:
    line: int  # 1-based
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "message": self.message}

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class RecordsFile:
    records: list[dict[str, Any]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # each record's line number
    problems: list[LineProblem] = field(default_factory=list)
    torn: bool = False  # the last line was cut off (a run killed mid-write): not a problem, it is run again


def _check_record(record: Any) -> str | None:
    if not isinstance(record, dict):
        return f"a record is a JSON object, got {type(record).__name__}"
    if not isinstance(record.get("episode_id"), str):
        return "no episode_id (text)"
    trial = record.get("trial")
    if not isinstance(trial, int) or isinstance(trial, bool) or trial < 0:
        return f"trial must be an integer >= 0, got {trial!r}"
    return None


def read_records_file(path: str | Path) -> RecordsFile:
    """Every usable record of a records file, and a problem for each line that is not one."""
    out = RecordsFile()
    file = Path(path)
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        return out
    except OSError as error:
        raise RunFileError(f"{file}: cannot be read ({error.strerror or error})") from None
    lines = data.split(b"\n")
    last = len(lines)
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            out.problems.append(LineProblem(number, f"invalid UTF-8 at byte {error.start}"))
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as error:
            if number == last:  # no newline after it: the writer was killed in the middle of this line
                out.torn = True
            else:
                out.problems.append(LineProblem(number, f"invalid JSON at column {error.colno}: {error.msg}"))
            continue
        problem = _check_record(record)
        if problem is not None:
            out.problems.append(LineProblem(number, problem))
            continue
        out.records.append(record)
        out.lines.append(number)
    return out


def load_manifest(run_dir: str | Path, *, force: bool = False) -> dict[str, Any] | None:
    """The run's manifest; None only with ``force`` when there is none (the spec and episode checks are off)."""
    path = Path(run_dir) / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if force:
            return None
        raise RunFileError(f"{path}: the run has no manifest, so which episodes and spec it belongs to is unknown; "
                           "restore it, or pass --force to go on without those checks") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RunFileError(f"{path}: corrupt manifest ({str(error)[:120]}); restore it from a backup, or start the "
                           "run again in a new --out directory") from None
    except OSError as error:
        raise RunFileError(f"{path}: cannot be read ({error.strerror or error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("episodes"), list):
        raise RunFileError(f"{path}: not a run manifest (no episodes list); restore it from a backup, or start the "
                           "run again in a new --out directory")
    try:
        RunManifest.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        fields = ", ".join(f.alias or n for n, f in RunManifest.model_fields.items())
        raise RunFileError(f"{path}: {where}: {first['msg']} (a run manifest has {fields}); restore it from a "
                           "backup, or start the run again in a new --out directory") from None
    return data


@dataclass
class Membership:
    kept: list[dict[str, Any]]
    dropped: list[dict[str, Any]]  # {line, episode_id, trial, reason}


def belonging_records(records: Iterable[dict[str, Any]], lines: Iterable[int], manifest: dict[str, Any] | None,
                      *, hashes: dict[str, str] | None = None) -> Membership:
    """Records of the manifest's episodes and trials, with the episode content the manifest names.

    ``hashes`` (episode id → sha256) overrides the manifest's (resume: the episodes as they are now). A record
    whose episode is not in the run, whose trial is out of range, or whose episode changed since it was
    recorded is dropped with the reason. Without a manifest (``--force``) every record is kept.
    """
    kept: list[dict[str, Any]] = []
    dropped: list[dict[str, Any]] = []
    if manifest is None:
        return Membership(list(records), [])
    episodes = set(manifest.get("episodes") or [])
    trials = manifest.get("trials")
    known = hashes if hashes is not None else manifest.get("episode_sha256") or {}
    for record, line in zip(records, lines, strict=True):
        episode_id, trial = record["episode_id"], record["trial"]
        reason = None
        if episode_id not in episodes:
            reason = "its episode is not in the run's manifest"
        elif isinstance(trials, int) and trial >= trials:
            reason = f"trial {trial} is outside the run's {trials} trial(s)"
        elif episode_id in known and record.get("episode_sha256") not in (None, known[episode_id]):
            reason = "its episode changed since it was recorded (content hash differs)"
        if reason is None:
            kept.append(record)
        else:
            dropped.append({"line": line, "episode_id": episode_id, "trial": trial, "reason": reason})
    return Membership(kept, dropped)
