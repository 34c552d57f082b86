"""Under the simuhome tool profile the oracle's recorded calls use only SimuHome's arguments (facts §1.2): run
on generated episodes (the scheduling kinds qt4-1/2/3 included), every recorded call is accepted and its
argument names are SimuHome's — schedule_workflow without ``description``, which SimuHome refuses. Under
simuhome_ext the oracle still names its workflows."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from benchmark.generation.generate import generate_episodes, write_episodes
from benchmark.runs.runner import Runner, read_records
from benchmark.runs.spec import parse_spec
from tests.agent_tools.test_simuhome_contract import SIMUHOME_ARGUMENTS

KINDS = ["qt2", "qt3_feasible", "qt4-1", "qt4-2", "qt4-3"]


def _oracle_steps(episodes: Path, profile: str, out: Path) -> list[dict[str, Any]]:
    spec = parse_spec(
        {
            "episodes": {"path": str(episodes)},
            "agent": {"name": "oracle"},
            "tools": {"profile": profile},
            "concurrency": 2,
        }
    )
    asyncio.run(Runner(spec, out, progress=False).run())
    records = read_records(out / "records.jsonl")[0]
    assert records
    return [step for record in records for step in record["outcome"]["steps"] if step.get("tool")]


def test_oracle_calls_under_simuhome_use_only_simuhomes_arguments(tmp_path: Path) -> None:
    episodes = tmp_path / "episodes"
    write_episodes(generate_episodes(KINDS, 1, 21), episodes)
    steps = _oracle_steps(episodes, "simuhome", tmp_path / "simuhome")
    scheduled = [s for s in steps if s["tool"] == "schedule_workflow"]
    assert scheduled, "the generated qt4 episodes make the oracle schedule"
    for step in steps:
        required, optional = SIMUHOME_ARGUMENTS[step["tool"]]
        assert required <= set(step["arguments"]) <= required | optional, step
        assert step["observation"]["error"] is None or step["observation"]["error"]["type"] not in (
            "INVALID_PARAMETERS",
            "MISSING_PARAMETERS",
        ), step
    for step in scheduled:
        assert set(step["arguments"]) == {"start_time", "steps"}
        assert step["observation"]["error"] is None, step

    ext = _oracle_steps(episodes, "simuhome_ext", tmp_path / "ext")
    ext_scheduled = [s for s in ext if s["tool"] == "schedule_workflow"]
    assert [s["arguments"]["description"] for s in ext_scheduled] == [
        f"goal at {s['arguments']['start_time']}" for s in scheduled
    ]
