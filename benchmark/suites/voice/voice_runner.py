"""A voice-suite run directory: every (condition, episode, trial) once, several at a time, resumable.

The directory is the main runner's (:mod:`benchmark.runs.store`): ``manifest.json`` with the spec, its sha256
and each episode's content hash; ``records.jsonl`` appended and fsynced as each record finishes. ``--resume``
refuses a changed spec, keeps the complete records of the run's episodes (as they are now) and conditions,
except infrastructure errors, and runs only the rest. When the run ends, ``records.jsonl`` is rewritten in the
run's order (condition, episode, trial): records hold no wall-clock times, so a run gives the same bytes
whatever its concurrency and however often it was killed and resumed. A progress bar on stderr
(:mod:`benchmark.runs.progress`) counts every (condition, episode, trial), those kept from before as done.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from benchmark.agents.base import Agent
from benchmark.runs.progress import RunProgress
from benchmark.runs.records import RunManifest
from benchmark.runs.store import (
    MANIFEST,
    RECORDS,
    RUN_RECORD,
    episode_sha256,
    git_commit,
    package_version,
    prepare_run_directory,
)
from benchmark.suites.voice.voice_episode import VoiceEpisode
from benchmark.suites.voice.voice_hearing import Hearing
from benchmark.suites.voice.voice_run import harness_error_record, record_line, run_voice_episode
from emulator.files import append_line, open_for_append, write_atomically

VOICE_RUN_SCHEMA = "homefabric-voice-run/2"  # /2: the spec, its hash and the episodes' content hashes


class VoiceRunSpec(BaseModel):
    """What a voice run measures (its hash decides whether ``--resume`` may continue it). How many episodes
    run at once is not part of it: it does not change a record."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: Literal["homefabric-voice-spec/1"] = Field(default="homefabric-voice-spec/1", alias="schema")
    episodes: str = Field(description="the voice episode directory or file")
    limit: int | None = Field(default=None, ge=0, description="at most this many episodes (0 or none: all)")
    agent: Literal["oracle", "null", "react"] = "oracle"
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    input: Literal["text", "asr", "audio"] = "text"
    conditions: list[str] = Field(min_length=1, description="condition ids as run (text input: ['text'])")
    asr: str | None = None
    seed: int = 0
    voices: str = "all"
    noise: str = "room"
    trials: int = Field(default=1, ge=1, le=100)

    def sha256(self) -> str:
        canonical = json.dumps(self.model_dump(mode="json", by_alias=True), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def is_voice_run(run_dir: Path) -> bool:
    try:
        schema = json.loads((run_dir / MANIFEST).read_text(encoding="utf-8")).get("schema")
    except (OSError, ValueError, AttributeError):
        return False
    return isinstance(schema, str) and schema.startswith("homefabric-voice-run/")


def stored_spec(run_dir: Path) -> dict[str, Any] | None:
    """``--resume --out DIR`` alone: the spec the voice run was started with (None: no readable one)."""
    try:
        spec = json.loads((run_dir / MANIFEST).read_text(encoding="utf-8")).get("spec")
    except (OSError, ValueError, AttributeError):
        return None
    return spec if isinstance(spec, dict) else None


def _status(record: dict[str, Any]) -> str:
    return record.get("status") or "infra_error"


@dataclass
class VoiceRunSummary:
    out: Path
    records: list[dict[str, Any]]  # every record of the run, in the run's order
    ran: list[dict[str, Any]]  # the records run this time
    kept: int  # records kept from before (--resume)
    dropped: list[dict[str, Any]]  # earlier lines not kept, and why


class VoiceRunner:
    def __init__(
        self,
        spec: VoiceRunSpec,
        hearings: list[Hearing],
        episodes: list[VoiceEpisode],
        out: Path,
        *,
        resume: bool = False,
        force: bool = False,
        concurrency: int = 1,
        progress: bool = True,
    ) -> None:
        assert [h.condition_id for h in hearings] == spec.conditions
        self.spec = spec
        self.hearings = hearings
        self.episodes = episodes
        self.out = out
        self.resume = resume
        self.force = force  # resume without a manifest (no spec or episode check of the records kept)
        self.concurrency = concurrency
        self.progress = progress  # the bar on stderr: stdout carries the report only

    def manifest(self) -> dict[str, Any]:
        return RunManifest.model_validate(
            {
                "schema": VOICE_RUN_SCHEMA,
                "run_id": self.out.name,
                "spec": self.spec.model_dump(mode="json", by_alias=True),
                "spec_sha256": self.spec.sha256(),
                "git_commit": git_commit(),
                "package_version": package_version(),
                "episodes": [e.episode_id for e in self.episodes],
                "trials": self.spec.trials,
                "conditions": self.spec.conditions,
                "episode_sha256": {e.episode_id: episode_sha256(e) for e in self.episodes},
            }
        ).to_dict()

    async def run(self, agent: Agent) -> VoiceRunSummary:
        prepared = prepare_run_directory(
            self.out, self.manifest(), resume=self.resume, force=self.force, line=record_line
        )
        order = [
            (hearing, episode, trial)
            for hearing in self.hearings
            for episode in self.episodes
            for trial in range(self.spec.trials)
        ]
        done = {RUN_RECORD.key(r): r for r in prepared.kept}
        todo = [(h, e, t) for h, e, t in order if (e.episode_id, h.condition_id, t) not in done]
        fresh: list[dict[str, Any]] = []
        kept = [
            _status(done[(e.episode_id, h.condition_id, t)])
            for h, e, t in order
            if (e.episode_id, h.condition_id, t) in done
        ]
        progress = RunProgress(agent.name, len(order), kept=kept, enabled=self.progress)
        semaphore = asyncio.Semaphore(self.concurrency)
        fd = open_for_append(self.out / RECORDS)

        async def one(hearing: Hearing, episode: VoiceEpisode, trial: int) -> None:
            async with semaphore:
                try:
                    record = await run_voice_episode(episode, agent, hearing, trial=trial)
                except Exception as error:  # a bug of ours in one episode must not end the run
                    record = harness_error_record(episode, agent, hearing, trial, error)
            append_line(fd, record_line(record))  # as it finishes: a kill loses only what was running
            fresh.append(record)
            progress.advance(_status(record))

        try:
            with progress:
                await asyncio.gather(*(one(h, e, t) for h, e, t in todo))
        finally:
            os.close(fd)
        by_key = {**done, **{RUN_RECORD.key(r): r for r in fresh}}
        records = [by_key[(e.episode_id, h.condition_id, t)] for h, e, t in order]
        write_atomically(self.out / RECORDS, "".join(record_line(r) for r in records))  # the run's order
        ran = [by_key[(e.episode_id, h.condition_id, t)] for h, e, t in todo]
        return VoiceRunSummary(self.out, records, ran, len(done), prepared.dropped)
