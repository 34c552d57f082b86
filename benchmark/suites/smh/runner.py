"""An SMH run from a run spec (``suite: smh``): settings × instances × trials, concurrent, resumable.

The main bench runner's run directory (:mod:`benchmark.runs.store`), with the manifest named ``smh-run.json``:
it holds the spec and its hash, the instances (as the manifest's episodes), the settings (as its conditions)
and each instance's content hash; ``--resume`` with the same spec keeps the records already written (a record
of a changed or foreign instance, a second record of one run, a torn last line or a bad line is dropped and
run again) and runs the rest. Records are appended (fsync'd) as they finish, so a killed run loses at most
the ones in flight; when the run completes, ``records.jsonl`` is rewritten in the canonical order (setting,
instance, trial), so the file is byte-identical whatever the concurrency and however often the run was
interrupted and resumed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmark.llm.client import LLMClient
from benchmark.runs.spec import RunSpec
from benchmark.runs.store import RECORDS, RecordShape, prepare_run_directory
from benchmark.suites.smh import agents
from benchmark.suites.smh.instance import Instance, dump_instance, load_instances
from benchmark.suites.smh.judge import SmhAnswerJudge, SmhClarificationJudge
from benchmark.suites.smh.report import summarize
from benchmark.suites.smh.run_marker import RUN_MARKER
from benchmark.suites.smh.session import Homes
from benchmark.suites.smh.settings import run_dr, run_eia
from benchmark.suites.smh.taxonomy import SETTINGS
from emulator.files import append_line, open_for_append, write_atomically

MANIFEST_SCHEMA = "homefabric-smh-run/3"  # /3: the run store's manifest (episodes, conditions, episode_sha256)
SMH_RECORD = RecordShape(episode="instance_id", condition="setting", required=("setting", "verdict.overall_pass"))
Key = tuple[str, str, int]  # (setting, instance id, trial)


class SmhRunError(ValueError):
    """A run that cannot start (or resume); the message names the file and the fix."""


def instance_sha256(instance: Instance) -> str:
    return hashlib.sha256(dump_instance(instance).encode("utf-8")).hexdigest()


def select_instances(spec: RunSpec) -> list[Instance]:
    assert spec.smh is not None
    instances = load_instances(Path(spec.episodes.path))
    if spec.smh.subcategories:
        instances = [i for i in instances if i.subcategory in spec.smh.subcategories]
    if spec.smh.tiers:
        instances = [i for i in instances if i.tier in spec.smh.tiers]
    if spec.episodes.ids:
        instances = [i for i in instances if i.id in set(spec.episodes.ids)]
    instances.sort(key=lambda i: i.id)
    return instances[: spec.episodes.limit] if spec.episodes.limit else instances


def _key(record: dict[str, Any]) -> Key:
    return record["setting"], record["instance_id"], int(record.get("trial", 0))


def _order(key: Key) -> tuple[int, str, int]:
    return SETTINGS.index(key[0]), key[1], key[2]


def record_line(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n"


@dataclass
class SmhRunSummary:
    out: Path
    ran: int
    kept: int
    dropped: list[str] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)


def make_agent(spec: RunSpec, setting: str) -> Any:
    name = spec.agent.name
    if name == "oracle":
        return agents.OracleDr() if setting == "dr" else agents.OracleEia()
    if name == "null":
        return agents.NullDr() if setting == "dr" else agents.NullEia()

    assert spec.agent.model is not None  # the spec's validation guarantees one model for react
    client = LLMClient.from_spec(spec.agent.model)
    return agents.LlmDr(client) if setting == "dr" else agents.ReactEia(client, max_turns=spec.agent.max_steps)


def make_judges(spec: RunSpec) -> tuple[Any, Any]:
    """(answer judge, clarification judge): both None for the rules, else the LLM judges of the spec."""
    if spec.judge.kind != "llm" or spec.judge.model is None:
        return None, None

    return (
        SmhAnswerJudge.from_spec(spec.judge.model, votes=spec.judge.votes),
        SmhClarificationJudge.from_spec(spec.judge.model, votes=spec.judge.votes),
    )


class SmhRunner:
    def __init__(
        self,
        spec: RunSpec,
        out: Path,
        *,
        resume: bool = False,
        agent_factory: Callable[[str], Any] | None = None,
        judges: tuple[Any, Any] | None = None,
        on_record: Callable[[dict[str, Any]], None] | None = None,
        force: bool = False,
    ) -> None:
        if spec.suite != "smh" or spec.smh is None:
            raise SmhRunError("an SMH run needs a spec with suite: smh")
        self.spec, self.out, self.resume = spec, Path(out), resume
        self.force = force  # resume without a manifest (no spec or instance check of the records kept)
        self.agent_factory = agent_factory or (lambda setting: make_agent(spec, setting))
        self.judges = judges
        self.on_record = on_record
        self._fd: int | None = None

    def _manifest(self, instances: list[Instance]) -> dict[str, Any]:
        assert self.spec.smh is not None
        return {
            "schema": MANIFEST_SCHEMA,
            "suite": self.spec.episodes.path,
            "agent": self.spec.agent.name,
            "budget": self.spec.smh.budget,
            "trials": self.spec.trials,
            "model": self.spec.agent.model.model if self.spec.agent.model else None,
            "spec": self.spec.model_dump(mode="json", by_alias=True),
            "spec_sha256": self.spec.sha256(),
            "episodes": [i.id for i in instances],
            "conditions": self.spec.smh.settings,
            "episode_sha256": {i.id: instance_sha256(i) for i in instances},
        }

    def _upgrade_manifest(self) -> None:
        """A run started under schema /2 (``settings``, ``instance_sha256``) resumes: its manifest is rewritten in
        the run store's names, the facts unchanged (a missing or damaged one is left for the run store to name)."""
        path = self.out / RUN_MARKER
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(old, dict) or old.get("schema") != "homefabric-smh-run/2":
            return
        hashes, settings = old.pop("instance_sha256", None) or {}, old.pop("settings", None)
        upgraded = {
            **old,
            "schema": MANIFEST_SCHEMA,
            "episodes": sorted(hashes),
            "conditions": settings,
            "episode_sha256": hashes,
        }
        write_atomically(path, json.dumps(upgraded, indent=2, ensure_ascii=False) + "\n")

    def _prepare(self, instances: list[Instance]) -> tuple[list[dict[str, Any]], list[str]]:
        if self.resume:
            self._upgrade_manifest()
        prepared = prepare_run_directory(
            self.out,
            self._manifest(instances),
            resume=self.resume,
            force=self.force,
            line=record_line,
            manifest_name=RUN_MARKER,
            shape=SMH_RECORD,
        )
        dropped = [
            f"line {d['line']}: "
            + (f"{d['episode_id']} trial {d['trial']}: " if "episode_id" in d else "")
            + d["reason"]
            for d in prepared.dropped
        ]
        if prepared.torn:
            dropped.append("the last line was cut off mid-write (a killed run): it runs again")
        return prepared.kept, dropped

    async def run(self, instances: list[Instance] | None = None) -> SmhRunSummary:
        assert self.spec.smh is not None
        instances = select_instances(self.spec) if instances is None else instances
        by_id = {i.id: i for i in instances}
        wanted = {(s, i.id, t) for s in self.spec.smh.settings for i in instances for t in range(self.spec.trials)}
        kept, dropped = self._prepare(instances)
        done = {_key(r) for r in kept}
        todo = sorted(wanted - done, key=_order)
        homes = Homes(Path(self.spec.episodes.path))
        agents: dict[str, Any] = {s: self.agent_factory(s) for s in self.spec.smh.settings}
        budget = self.spec.smh.budget  # the run's spec does not change while it runs
        answer_judge, clarification_judge = self.judges if self.judges is not None else make_judges(self.spec)
        semaphore = asyncio.Semaphore(self.spec.concurrency)
        fresh: list[dict[str, Any]] = []

        async def one(key: Key) -> None:
            setting, instance_id, trial = key
            instance = by_id[instance_id]
            async with semaphore:
                if setting == "dr":
                    outcome = await run_dr(
                        instance, agents[setting], homes, judge=answer_judge, clarification_judge=clarification_judge
                    )
                else:
                    outcome = await run_eia(
                        instance,
                        agents[setting],
                        homes,
                        budget=budget,
                        judge=answer_judge,
                        clarification_judge=clarification_judge,
                    )
            record = {**outcome.record(instance), "trial": trial}
            assert self._fd is not None
            append_line(self._fd, record_line(record))  # as it finishes: a kill loses only what was running
            fresh.append(record)
            if self.on_record is not None:
                self.on_record(record)

        self._fd = open_for_append(self.out / RECORDS)
        try:
            await asyncio.gather(*(one(key) for key in todo))
        finally:
            os.close(self._fd)
            self._fd = None
        records = sorted(kept + fresh, key=lambda r: _order(_key(r)))
        write_atomically(self.out / RECORDS, "".join(record_line(r) for r in records))
        summary = summarize(records)
        write_atomically(self.out / "summary.json", json.dumps(summary, indent=1, sort_keys=True) + "\n")
        return SmhRunSummary(self.out, len(todo), len(kept), dropped, summary)
