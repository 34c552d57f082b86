"""Benchmark-harness throughput: the oracle on 600 generated episodes (50 per kind), judge ``rules``.

Prints the generation time, the run's wall time, episodes per second and the oracle's success per kind.
Target: < 60 s on 2 cores. Usage: python perf/harness.py [--per-type 50] [--seed 1] [--concurrency 4] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmark.reports.report import build_report
from benchmark.runs.runner import Runner
from benchmark.runs.spec import parse_spec
from benchmark.suites.simuhome.episode import parse_episode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-type", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    try:
        from benchmark.generation.generate import episode_file_name, generate_episodes
    except ImportError:
        print("skipped: benchmark.generation.generate (the episode generator) is not available")
        return 0
    started = time.perf_counter()
    raw = generate_episodes("all", options.per_type, options.seed)
    generation_s = time.perf_counter() - started
    episodes = []
    for data in raw:
        name = episode_file_name(data).removesuffix(".json")
        episodes.append(parse_episode(data, name, episode_id=name, check_home=False))
    with tempfile.TemporaryDirectory() as out:
        spec = parse_spec({"episodes": {"path": out}, "agent": {"name": "oracle"}, "judge": {"kind": "rules"},
                           "concurrency": options.concurrency})
        started = time.perf_counter()
        asyncio.run(Runner(spec, Path(out) / "run", progress=False).run(episodes))
        run_s = time.perf_counter() - started
        report = build_report(Path(out) / "run")
    result = {
        "episodes": len(episodes), "generation_s": round(generation_s, 2), "run_wall_s": round(run_s, 2),
        "episodes_per_s": round(len(episodes) / run_s, 1) if run_s else None,
        "oracle_success_rate": report["overall"]["success_rate"],
        "by_kind": {k: v["success_rate"] for k, v in report["by_kind"].items()},
        "state_changing_feasible_success_rate": (report["state_changing_feasible"] or {}).get("success_rate"),
        "irrelevant_change_runs": report["overall"]["irrelevant_change_runs"],
    }
    if options.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"generated {result['episodes']} episodes in {result['generation_s']} s")
        print(f"oracle + rules judge: {result['run_wall_s']} s wall, {result['episodes_per_s']} episodes/s")
        print(f"oracle success: {result['oracle_success_rate']}  (state-changing feasible: "
              f"{result['state_changing_feasible_success_rate']})")
        for kind, rate in result["by_kind"].items():
            print(f"  {kind:18s} {rate}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
