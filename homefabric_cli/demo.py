"""`homefabric demo` — the main job on the embedded default: generate a small episode set of all 12
kinds, run the oracle and the null agent on it in-process, and print both reports."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from benchmark.generation.generate import generate_episodes, write_episodes
from benchmark.reports.report import write_report
from benchmark.runs.runner import Runner
from benchmark.runs.spec import parse_spec


def run_demo(out: Path, *, per_type: int, seed: int, concurrency: int, echo: Any) -> dict[str, dict[str, Any]]:
    episodes_dir = out / "episodes"
    echo(f"generating {per_type} episode(s) of each of the 12 kinds (seed {seed}) into {episodes_dir} …")
    write_episodes(generate_episodes("all", per_type, seed), episodes_dir)
    reports: dict[str, dict[str, Any]] = {}
    for agent in ("oracle", "null"):
        run_dir = out / "runs" / agent
        spec = parse_spec(
            {
                "episodes": {"path": str(episodes_dir)},
                "agent": {"name": agent},
                "judge": {"kind": "rules"},
                "concurrency": concurrency,
                "out": str(run_dir),
            }
        )
        asyncio.run(Runner(spec, run_dir, resume=run_dir.exists(), progress=True).run())
        report, text = write_report(run_dir)
        echo(f"\n=== {agent} agent ({run_dir}) ===\n{text}")
        reports[agent] = report
    return reports
