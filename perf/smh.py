"""SMH suite throughput: generate the default 1,100 instances (25/15/10 per subcategory), then run the oracle
over all of them in DR and in EIA, each instance on a fresh copy of its home and scored by the verifier.

Prints generation time, each setting's oracle run time and instances per second, the oracle's success rate
(it must be 100 %), and the process's peak resident memory. Target: each phase < 60 s on 2 cores. Each phase
also reports its CPU seconds (``*_cpu_s``): on a machine shared with other work, wall time varies, CPU less.
Usage: python perf/smh.py [--per-subcategory 25,15,10] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmark.suites.smh.agents import OracleDr, OracleEia
from benchmark.suites.smh.generate import generate_suite
from benchmark.suites.smh.instance import load_instances
from benchmark.suites.smh.report import summarize
from benchmark.suites.smh.run import run_suite
from benchmark.suites.smh.taxonomy import TIERS


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-subcategory", default="25,15,10")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    counts = dict(zip(TIERS, (int(x) for x in options.per_subcategory.split(",")), strict=True))
    figures: dict[str, object] = {"seed": options.seed, "per_subcategory": counts}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        started, cpu = time.perf_counter(), time.process_time()
        summary = generate_suite(out, options.seed, counts)
        figures["generation_s"] = round(time.perf_counter() - started, 2)
        figures["generation_cpu_s"] = round(time.process_time() - cpu, 2)
        figures["instances"] = summary["instances"]
        figures["homes"] = summary["homes"]
        figures["generation_instances_per_s"] = round(summary["instances"] / figures["generation_s"], 1)
        instances = load_instances(out)
        for setting, agent in (("dr", OracleDr()), ("eia", OracleEia())):
            started, cpu = time.perf_counter(), time.process_time()
            records = asyncio.run(run_suite(out, instances, setting, agent))
            elapsed = time.perf_counter() - started
            figures[f"oracle_{setting}_s"] = round(elapsed, 2)
            figures[f"oracle_{setting}_cpu_s"] = round(time.process_time() - cpu, 2)
            figures[f"oracle_{setting}_instances_per_s"] = round(len(records) / elapsed, 1)
            figures[f"oracle_{setting}_success_rate"] = summarize(records)["overall"]["success_rate"]
    figures["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if options.json:
        print(json.dumps(figures, indent=1))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    return 0 if figures["oracle_dr_success_rate"] == figures["oracle_eia_success_rate"] == 100.0 else 1


if __name__ == "__main__":
    sys.exit(main())
