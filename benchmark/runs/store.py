"""A run directory: records line by line with a problem per bad line, the manifest with the episodes' content
hashes, which records belong to the run, and preparing a directory to start or resume a run in.

A run directory is written by ``benchmark.runs.runner`` (its wall-clock times apart, in ``timings.jsonl``) and
the voice suite's ``benchmark.suites.voice.voice_runner`` (which keys its records by condition too), and read by
resume, reports and the HTTP API. Files get damaged (a disk error, a hand edit, an appended foreign record);
none of that may crash a reader or be counted silently: every line that cannot be used is named with its
number and why, every record that does not belong to the manifest's episodes is dropped and listed, and a
file that cannot be used at all is a :class:`RunFileError` naming the file and the fix.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from benchmark.runs.records import RunManifest, RunTiming
from emulator.files import write_atomically

MANIFEST = "manifest.json"
RECORDS = "records.jsonl"
TIMINGS = "timings.jsonl"  # wall-clock seconds per (episode, trial): not part of the reproducible records


class RunFileError(ValueError):
    """A run file that cannot be used at all; the message names the file and what to do."""


class RunError(RuntimeError):
    """The run cannot start (existing run without --resume, a spec that changed under --resume, …)."""


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


@dataclass(frozen=True)
class RecordShape:
    """The fields that place a record in its run: its episode and, where a run has several, its condition. The
    main runner's records (and the voice suite's, with ``condition``) by default; SMH names its own."""

    episode: str = "episode_id"
    condition: str = "condition"
    required: tuple[str, ...] = ()  # dotted paths a usable record also has (what its readers index)

    def key(self, record: dict[str, Any]) -> tuple[str, Any, int]:
        return record[self.episode], record.get(self.condition), record["trial"]


RUN_RECORD = RecordShape()


def _check_record(record: Any, shape: RecordShape) -> str | None:
    if not isinstance(record, dict):
        return f"a record is a JSON object, got {type(record).__name__}"
    if not isinstance(record.get(shape.episode), str):
        return f"no {shape.episode} (text)"
    trial = record.get("trial")
    if not isinstance(trial, int) or isinstance(trial, bool) or trial < 0:
        return f"trial must be an integer >= 0, got {trial!r}"
    for path in shape.required:
        value: Any = record
        for part in path.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if value is None:
            return f"no {path}"
    return None


def read_records_file(path: str | Path, *, shape: RecordShape = RUN_RECORD) -> RecordsFile:
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
        problem = _check_record(record, shape)
        if problem is not None:
            out.problems.append(LineProblem(number, problem))
            continue
        out.records.append(record)
        out.lines.append(number)
    return out


@dataclass
class TimingsFile:
    wall_time_s: dict[tuple[str, int], float] = field(default_factory=dict)  # (episode id, trial) → seconds
    problems: list[LineProblem] = field(default_factory=list)


def read_timings_file(path: str | Path) -> TimingsFile:
    """The wall-clock time of each (episode, trial) in a timings file; a key timed twice (run again after a
    resume) keeps its last time. A bad line is named and costs only that timing, never a record."""
    read = read_records_file(path)
    out = TimingsFile(problems=list(read.problems))
    for line, entry in zip(read.lines, read.records, strict=True):
        try:
            timing = RunTiming.model_validate(entry)
        except ValidationError as error:
            first = error.errors()[0]
            out.problems.append(LineProblem(line, f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"))
            continue
        out.wall_time_s[(timing.episode_id, timing.trial)] = timing.wall_time_s
    return out


def load_manifest(run_dir: str | Path, *, force: bool = False, name: str = MANIFEST) -> dict[str, Any] | None:
    """The run's manifest; None only with ``force`` when there is none (the spec and episode checks are off)."""
    path = Path(run_dir) / name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if force:
            return None
        raise RunFileError(
            f"{path}: the run has no manifest, so which episodes and spec it belongs to is unknown; "
            "restore it, or pass --force to go on without those checks"
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RunFileError(
            f"{path}: corrupt manifest ({str(error)[:120]}); restore it from a backup, or start the "
            "run again in a new --out directory"
        ) from None
    except OSError as error:
        raise RunFileError(f"{path}: cannot be read ({error.strerror or error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("episodes"), list):
        raise RunFileError(
            f"{path}: not a run manifest (no episodes list); restore it from a backup, or start the "
            "run again in a new --out directory"
        )
    try:
        RunManifest.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        fields = ", ".join(f.alias or n for n, f in RunManifest.model_fields.items())
        raise RunFileError(
            f"{path}: {where}: {first['msg']} (a run manifest has {fields}); restore it from a "
            "backup, or start the run again in a new --out directory"
        ) from None
    return data


@dataclass
class Membership:
    kept: list[dict[str, Any]]
    dropped: list[dict[str, Any]]  # {line, episode_id, trial, reason}


def belonging_records(
    records: Iterable[dict[str, Any]],
    lines: Iterable[int],
    manifest: dict[str, Any] | None,
    *,
    hashes: dict[str, str] | None = None,
    recorded: dict[str, str] | None = None,
    shape: RecordShape = RUN_RECORD,
) -> Membership:
    """Records of the manifest's episodes and trials, with the episode content the manifest names.

    ``hashes`` (episode id → sha256) overrides the manifest's (resume: the episodes as they are now). A record
    whose episode is not in the run, whose trial (or, where the manifest lists them, condition) is out of range,
    or whose episode changed since it was recorded is dropped with the reason. What a record was recorded
    against is its own ``episode_sha256``, or for records that carry none (SMH's) ``recorded``: the hashes of
    the manifest it was written under. Without a manifest (``--force``) every record is kept.
    """
    kept: list[dict[str, Any]] = []
    dropped: list[dict[str, Any]] = []
    if manifest is None:
        return Membership(list(records), [])
    episodes = set(manifest.get("episodes") or [])
    trials = manifest.get("trials")
    conditions = manifest.get("conditions")  # the voice suite's and SMH's runs: one record per condition too
    known = hashes if hashes is not None else manifest.get("episode_sha256") or {}
    for record, line in zip(records, lines, strict=True):
        episode_id, trial = record[shape.episode], record["trial"]
        was = record.get("episode_sha256") or (recorded or {}).get(episode_id)
        reason = None
        if episode_id not in episodes:
            reason = "its episode is not in the run's manifest"
        elif isinstance(trials, int) and trial >= trials:
            reason = f"trial {trial} is outside the run's {trials} trial(s)"
        elif isinstance(conditions, list) and record.get(shape.condition) not in conditions:
            reason = f"its {shape.condition} {record.get(shape.condition)!r} is not one of the run's {shape.condition}s"
        elif episode_id in known and was not in (None, known[episode_id]):
            reason = "its episode changed since it was recorded (content hash differs)"
        if reason is None:
            kept.append(record)
        else:
            dropped.append({"line": line, "episode_id": episode_id, "trial": trial, "reason": reason})
    return Membership(kept, dropped)


# --- starting or resuming a run ------------------------------------------------------------------------------


def git_commit() -> str | None:
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, cwd=Path(__file__).resolve().parent
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() or None if result.returncode == 0 else None


def package_version() -> str | None:
    try:
        return version("homefabric")
    except PackageNotFoundError:
        return None


def spec_differences(old: Any, new: Any, prefix: str = "") -> list[str]:
    """Dotted paths where two specs differ, with both values: "agent.max_steps (20 → 30)"."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            out.extend(spec_differences(old.get(key), new.get(key), f"{prefix}.{key}" if prefix else str(key)))
        return out
    return [] if old == new else [f"{prefix} ({json.dumps(old)} → {json.dumps(new)})"]


@dataclass
class Prepared:
    kept: list[dict[str, Any]]  # earlier records that stay (complete, of this run, not infrastructure errors)
    dropped: list[dict[str, Any]]  # earlier lines not kept, and why
    torn: bool = False  # the records file ended in a line cut off mid-write (it runs again)


def prepare_run_directory(
    out: Path,
    manifest: dict[str, Any],
    *,
    resume: bool,
    force: bool,
    line: Callable[[dict[str, Any]], str],
    manifest_name: str = MANIFEST,
    shape: RecordShape = RUN_RECORD,
) -> Prepared:
    """Make ``out`` ready for the run ``manifest`` describes: refuse an existing run without ``resume`` and a
    changed spec with it, write the manifest (as ``manifest_name``), and rewrite the records file without what
    runs again.

    ``manifest`` has ``spec``, ``spec_sha256``, ``episodes``, ``trials`` and ``episode_sha256`` (the episodes as
    they are now), and ``conditions`` where a run has several; ``line`` writes a kept record back as its line;
    ``shape`` names the fields that place a record in the run. A second record of the same (episode,
    condition, trial) is dropped: each runs once."""
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / manifest_name
    records_path = out / RECORDS
    existing = read_records_file(records_path, shape=shape)
    if not resume and (existing.records or existing.problems or existing.torn):
        raise RunError(f"{out} already holds a run; use --resume to continue it or choose a new --out")
    old = None
    if resume and (existing.records or existing.problems or manifest_path.exists()):
        old = load_manifest(out, force=force, name=manifest_name)  # RunFileError names the file and the fix
        changed = spec_differences({**((old or {}).get("spec") or {}), "out": None}, {**manifest["spec"], "out": None})
        if old is not None and old.get("spec_sha256") != manifest["spec_sha256"] and changed:
            # (a manifest from before `out` left the hash: the same spec under another hash resumes too)
            raise RunError(
                f"{manifest_path}: the run was started with a different spec (differs in "
                f"{', '.join(changed) or 'its hash'}); resume with the same spec (or --resume --out "
                "alone, which reads it from the manifest) or use a new --out"
            )
    dropped = [{"line": p.line, "reason": p.message} for p in existing.problems]
    # Only records of this run's episodes, as the episodes are now: a deleted, changed or foreign
    # episode's record is dropped (and named), and the changed ones run again.
    membership = belonging_records(
        existing.records,
        existing.lines,
        manifest,
        hashes=manifest["episode_sha256"],
        recorded=(old or {}).get("episode_sha256"),
        shape=shape,
    )
    dropped += membership.dropped
    write_atomically(manifest_path, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    lines = {id(record): number for record, number in zip(existing.records, existing.lines, strict=True)}
    kept: list[dict[str, Any]] = []
    seen: set[tuple[str, Any, int]] = set()
    for record in membership.kept:
        if record.get("status") == "infra_error":
            continue  # not the agent's doing: it runs again
        key = shape.key(record)
        if key in seen:
            dropped.append(
                {
                    "line": lines[id(record)],
                    "episode_id": key[0],
                    "trial": key[2],
                    "reason": "a second record of the same run (each runs once; the first is kept)",
                }
            )
            continue
        seen.add(key)
        kept.append(record)
    if existing.torn or len(kept) != len(existing.records) or existing.problems:
        # Rewrite without torn or bad lines, dropped records and infrastructure errors: they run again, once.
        write_atomically(records_path, "".join(line(r) for r in kept))
    return Prepared(kept, dropped, existing.torn)
