"""Run one agent over an SMH suite in one setting in process (tests, perf/smh.py), and read a run's records.
Runs from a spec (resume, trials, concurrency) are ``benchmark.suites.smh.runner``'s."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agent_tools.smh import DEFAULT_BUDGET
from benchmark.suites.smh.agents import DrAgent, EiaAgent
from benchmark.suites.smh.instance import Instance
from benchmark.suites.smh.judge import SmhAnswerJudge
from benchmark.suites.smh.session import Homes
from benchmark.suites.smh.settings import UserFactory, run_dr, run_eia
from benchmark.suites.smh.user_sim import RuleUser


async def run_suite(
    suite_dir: Path,
    instances: Iterable[Instance],
    setting: str,
    agent: DrAgent | EiaAgent,
    *,
    budget: int = DEFAULT_BUDGET,
    user_factory: UserFactory = RuleUser,
    judge: SmhAnswerJudge | None = None,
) -> list[dict[str, Any]]:
    homes = Homes(suite_dir)
    records = []
    for instance in instances:
        if setting == "dr":
            outcome = await run_dr(
                instance,
                agent,  # type: ignore[arg-type]  # the setting chose a DrAgent
                homes,
                user_factory=user_factory,
                judge=judge,
            )
        else:
            outcome = await run_eia(
                instance,
                agent,  # type: ignore[arg-type]  # the setting chose an EiaAgent
                homes,
                budget=budget,
                user_factory=user_factory,
                judge=judge,
            )
        records.append(outcome.record(instance))
    return records


def load_records(path: Path) -> list[dict[str, Any]]:
    file = path / "records.jsonl" if path.is_dir() else path
    return [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
