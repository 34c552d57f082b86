"""Run one agent over an SMH suite in one setting: records (one JSON line per instance) and a summary."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agent_tools.smh.tools import DEFAULT_BUDGET
from benchmark.smh.agents import DrAgent, EiaAgent
from benchmark.smh.instance import Instance, write_atomically
from benchmark.smh.report import summarize
from benchmark.smh.session import Homes
from benchmark.smh.settings import UserFactory, run_dr, run_eia
from benchmark.smh.user_sim import RuleUser


async def run_suite(suite_dir: Path, instances: Iterable[Instance], setting: str, agent: DrAgent | EiaAgent, *,
                    budget: int = DEFAULT_BUDGET, user_factory: UserFactory = RuleUser,
                    judge: Any = None) -> list[dict[str, Any]]:
    homes = Homes(suite_dir)
    records = []
    for instance in instances:
        if setting == "dr":
            outcome = await run_dr(instance, agent, homes, user_factory=user_factory,  # type: ignore[arg-type]
                                   judge=judge)
        else:
            outcome = await run_eia(instance, agent, homes, budget=budget,  # type: ignore[arg-type]
                                    user_factory=user_factory, judge=judge)
        records.append(outcome.record(instance))
    return records


def write_run(out: Path, records: list[dict[str, Any]]) -> dict[str, Any]:
    """``records.jsonl`` and ``summary.json`` (atomically); returns the summary."""
    text = "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in records)
    write_atomically(out / "records.jsonl", text)
    summary = summarize(records)
    write_atomically(out / "summary.json", json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return summary


def load_records(path: Path) -> list[dict[str, Any]]:
    file = path / "records.jsonl" if path.is_dir() else path
    return [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
