"""Oracle cost per episode by home size: the same episode kinds generated on a pinned simuhome-tier home and on a
pinned stress-tier home (1,000 devices), each run by the oracle with the rules judge in this process.

Prints JSON: devices per home, CPU seconds per oracle episode on each tier (median of ``--repeat`` runs; the
machine may be shared, so CPU time, not wall time), and the growth ratios (cost growth vs device growth; issue 24
item 3 asks cost growth ≤ device growth), and of each tier's CPU the part spent in the cyclic collector
(``gc_cpu_s_per_episode``: the piece that grows faster than the home). ``--profile TIER`` prints the top
cProfile entries of one run instead.
Both tiers' episodes are made first and the process then prepared with ``freeze_long_lived`` before any run, as
``bench run`` prepares its process after loading its episodes (without it, the cyclic collector's full passes over
the loaded 1,000-device episodes cost about as much as the runs themselves and the figure is not the command's).
Usage: python perf/oracle_scaling.py [--kinds qt2,qt3] [--per-type 3] [--seed 1] [--repeat 3] [--profile stress]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import json
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmark.generation.generate import episode_file_name, generate_episodes
from benchmark.generation.homes import pinned_home
from benchmark.runs.runner import Runner, freeze_long_lived
from benchmark.runs.spec import parse_spec
from benchmark.suites.simuhome.episode import Episode, parse_episode
from emulator.home_generation.generator import generate_home

TIERS = ("simuhome", "stress")


def episodes_on(tier: str, kinds: str, per_type: int, seed: int) -> tuple[int, list[Episode]]:
    config = generate_home(tier, seed)
    with pinned_home(config):
        raw = generate_episodes(kinds, per_type, seed)
    episodes = []
    for data in raw:
        name = episode_file_name(data).removesuffix(".json")
        episodes.append(parse_episode(data, name, episode_id=name, check_home=False))
    return len(config.devices), episodes


class CollectorClock:
    """CPU seconds spent inside the cyclic collector's passes while it is installed (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.cpu_s = 0.0
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.process_time()
        else:
            self.cpu_s += time.process_time() - self._began


def oracle_cpu_s(episodes: list[Episode]) -> tuple[float, float]:
    """CPU seconds of one oracle + rules-judge run over ``episodes`` (one at a time), and those of them spent in
    the cyclic collector."""
    collector = CollectorClock()
    with tempfile.TemporaryDirectory() as out:
        spec = parse_spec(
            {"episodes": {"path": out}, "agent": {"name": "oracle"}, "judge": {"kind": "rules"}, "concurrency": 1}
        )
        gc.callbacks.append(collector)
        try:
            began = time.process_time()
            asyncio.run(Runner(spec, Path(out) / "run", progress=False).run(episodes))
            return time.process_time() - began, collector.cpu_s
        finally:
            gc.callbacks.remove(collector)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", default="qt2,qt3")
    parser.add_argument("--per-type", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", choices=TIERS)
    options = parser.parse_args()
    if options.profile:
        _, episodes = episodes_on(options.profile, options.kinds, options.per_type, options.seed)
        freeze_long_lived()
        profiler = cProfile.Profile()
        profiler.runcall(oracle_cpu_s, episodes)
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(40)
        print(text.getvalue())
        return 0
    result: dict[str, Any] = {"kinds": options.kinds, "per_type": options.per_type, "seed": options.seed}
    per_tier: dict[str, dict[str, Any]] = {}
    made = {tier: episodes_on(tier, options.kinds, options.per_type, options.seed) for tier in TIERS}
    freeze_long_lived()
    for tier, (devices, episodes) in made.items():
        measured = [oracle_cpu_s(episodes) for _ in range(options.repeat)]
        runs = [cpu / len(episodes) for cpu, _ in measured]
        per_tier[tier] = {
            "devices": devices,
            "episodes": len(episodes),
            "cpu_s_per_episode_runs": [round(run, 4) for run in runs],
            "cpu_s_per_episode": round(statistics.median(runs), 4),
            "gc_cpu_s_per_episode": round(statistics.median(gc_cpu / len(episodes) for _, gc_cpu in measured), 4),
        }
    small, big = per_tier["simuhome"], per_tier["stress"]
    result["tiers"] = per_tier
    result["device_growth"] = round(big["devices"] / small["devices"], 1)
    result["cost_growth"] = round(big["cpu_s_per_episode"] / small["cpu_s_per_episode"], 1)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
