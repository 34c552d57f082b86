"""The replay agent: re-runs the tool calls of a recorded trajectory (a run record of an earlier run).

Useful to re-grade old trajectories after an evaluator or episode fix, and to reproduce a failure
without the model. Calls are replayed in order with their recorded arguments; the observations are the
new fabric's. The recorded final answer is given again (through ``finish`` if the record used it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from benchmark.agents.base import AgentBase, AgentOutcome, AgentStep, AgentTask, EndReason, TokenUsage, ToolCaller


def recorded_calls(record: Mapping[str, Any]) -> tuple[list[tuple[str, Any]], str | None, str]:
    """(tool calls [(name, arguments)], final answer, end reason) from a run record (``outcome.steps``)."""
    outcome = record.get("outcome") or {}
    calls = [(s["tool"], s.get("arguments")) for s in outcome.get("steps", []) if s.get("tool")]
    return calls, outcome.get("final_answer"), outcome.get("end_reason") or "finished"


def load_records(path: str | Path) -> dict[tuple[str, int], dict[str, Any]]:
    """Records of a run directory (``records.jsonl``) or a JSONL file, by (episode_id, trial)."""
    file = Path(path)
    if file.is_dir():
        file = file / "records.jsonl"
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for line in file.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # a torn last line of a killed run
        if isinstance(record, dict) and "episode_id" in record:
            out[(record["episode_id"], int(record.get("trial", 0)))] = record
    return out


class ReplayAgent(AgentBase):
    name = "replay"
    needs_episode = False

    def __init__(self, records: Mapping[tuple[str, int], Mapping[str, Any]]) -> None:
        self.records = records

    @classmethod
    def from_path(cls, path: str | Path) -> ReplayAgent:
        return cls(load_records(path))

    def _record(self, task: AgentTask) -> Mapping[str, Any] | None:
        trial = int(task.extras.get("trial", 0))
        return self.records.get((task.episode_id, trial)) or self.records.get((task.episode_id, 0))

    async def run(self, task: AgentTask, tools: ToolCaller) -> AgentOutcome:
        record = self._record(task)
        if record is None:
            return AgentOutcome(None, [], "aborted", error=f"no recorded trajectory for {task.episode_id!r}")
        calls, answer, end_reason = recorded_calls(record)
        steps: list[AgentStep] = []
        for name, arguments in calls:
            envelope = tools.call(name, arguments)
            steps.append(AgentStep(len(steps), None, name, arguments, envelope))
        if answer is not None and not any(name == "finish" for name, _ in calls):
            envelope = tools.call("finish", {"answer": answer})
            steps.append(AgentStep(len(steps), None, "finish", {"answer": answer}, envelope))
        tokens = TokenUsage()
        ended = cast(EndReason, end_reason)  # a record's end_reason is one the runner wrote
        return AgentOutcome(answer, steps, ended if ended != "infra_error" else "aborted", tokens)
