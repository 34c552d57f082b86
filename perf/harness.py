"""Benchmark-harness throughput: the oracle on 600 generated episodes (50 per kind), judge ``rules``.

Prints the generation time, the run's wall time, episodes per second and the oracle's success per kind, and —
steadier on a shared machine — the run's CPU seconds, episodes per CPU-second and where that CPU went
(``phases_cpu_s``): building each episode's home, the before/after snapshots, the state diff, the agent, the
evaluation, writing records and timing lines, and the rest (runner, records, progress, and the grouped fsync of
those lines, which runs in a worker thread).
Phases are timed by wrapping the runner's own calls in this process (their CPU inside each call); the agent and the
evaluation are coroutines, timed across their await (the oracle and the rules judge do not wait on anything).
Target: < 60 s on 2 cores. Usage: python perf/harness.py [--per-type 50] [--seed 1] [--concurrency 4] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchmark.runs.runner as runner_module
from benchmark.reports.report import build_report
from benchmark.runs.runner import Runner, freeze_long_lived
from benchmark.runs.spec import parse_spec
from benchmark.suites.simuhome.episode import parse_episode
from emulator.emulated_home import EmulatedHome

PHASES = ("home_build", "snapshots", "state_diff", "agent", "evaluation", "records_and_timings")


class PhaseClock:
    """CPU seconds spent inside each wrapped call, by phase (nested calls count in the outer phase only)."""

    def __init__(self) -> None:
        self.cpu = dict.fromkeys(PHASES, 0.0)
        self._depth = 0

    def timed(self, phase: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self._phase(phase):
                return function(*args, **kwargs)

        return wrapper

    def timed_async(self, phase: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self._phase(phase):
                return await function(*args, **kwargs)

        return wrapper

    @contextmanager
    def _phase(self, phase: str) -> Iterator[None]:
        outer = self._depth == 0
        self._depth += 1
        began = time.process_time()
        try:
            yield
        finally:
            self._depth -= 1
            if outer:
                self.cpu[phase] += time.process_time() - began


@contextmanager
def phases_timed(clock: PhaseClock) -> Iterator[None]:
    """Wrap the runner's calls of each phase for the duration of a run."""
    agent_class = runner_module.OracleAgent  # type: ignore[attr-defined]  # the runner's import, patched where it looks it up
    patches: list[tuple[Any, str, Any]] = [
        (runner_module, "fresh_fabric", clock.timed("home_build", runner_module.fresh_fabric)),  # type: ignore[attr-defined]  # the runner's import, patched where it looks it up
        (EmulatedHome, "snapshot", clock.timed("snapshots", EmulatedHome.snapshot)),
        (EmulatedHome, "diff", staticmethod(clock.timed("state_diff", EmulatedHome.diff))),
        (runner_module, "evaluate_episode", clock.timed_async("evaluation", runner_module.evaluate_episode)),  # type: ignore[attr-defined]  # the runner's import, patched where it looks it up
        (runner_module, "write_line", clock.timed("records_and_timings", runner_module.write_line)),  # type: ignore[attr-defined]  # the runner's import, patched where it looks it up
        (agent_class, "run", clock.timed_async("agent", agent_class.run)),
    ]
    saved = [(owner, name, owner.__dict__[name]) for owner, name, _ in patches]
    for owner, name, wrapped in patches:
        setattr(owner, name, wrapped)
    try:
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


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
        spec = parse_spec(
            {
                "episodes": {"path": out},
                "agent": {"name": "oracle"},
                "judge": {"kind": "rules"},
                "concurrency": options.concurrency,
            }
        )
        freeze_long_lived()  # as ``bench run`` does before its run
        clock = PhaseClock()
        with phases_timed(clock):
            started, started_cpu = time.perf_counter(), time.process_time()
            asyncio.run(Runner(spec, Path(out) / "run", progress=False).run(episodes))
            run_s, run_cpu = time.perf_counter() - started, time.process_time() - started_cpu
        report = build_report(Path(out) / "run")
    phases = {phase: round(cpu, 3) for phase, cpu in clock.cpu.items()}
    phases["rest"] = round(run_cpu - sum(clock.cpu.values()), 3)
    result = {
        "episodes": len(episodes),
        "generation_s": round(generation_s, 2),
        "run_wall_s": round(run_s, 2),
        "episodes_per_s": round(len(episodes) / run_s, 1) if run_s else None,
        "run_cpu_s": round(run_cpu, 2),
        "episodes_per_cpu_s": round(len(episodes) / run_cpu, 1) if run_cpu else None,
        "cpu_s_per_episode": round(run_cpu / len(episodes), 4) if episodes else None,
        "phases_cpu_s": phases,
        "oracle_success_rate": report["overall"]["success_rate"],
        "by_kind": {k: v["success_rate"] for k, v in report["by_kind"].items()},
        "state_changing_feasible_success_rate": (report["state_changing_feasible"] or {}).get("success_rate"),
        "irrelevant_change_runs": report["overall"]["irrelevant_change_runs"],
    }
    if options.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"generated {result['episodes']} episodes in {result['generation_s']} s")
        print(
            f"oracle + rules judge: {result['run_wall_s']} s wall, {result['episodes_per_s']} episodes/s; "
            f"{result['run_cpu_s']} CPU-s, {result['episodes_per_cpu_s']} episodes per CPU-second"
        )
        print("CPU by phase: " + ", ".join(f"{phase} {cpu} s" for phase, cpu in phases.items()))
        print(
            f"oracle success: {result['oracle_success_rate']}  (state-changing feasible: "
            f"{result['state_changing_feasible_success_rate']})"
        )
        for kind, rate in result["by_kind"].items():
            print(f"  {kind:18s} {rate}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
