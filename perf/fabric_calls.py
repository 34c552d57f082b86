"""In-process fabric call latency: read and invoke, p50 and p95 (target p50 ≤ 100 µs).

Usage: python perf/fabric_calls.py [--json]
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from emulator.emulated_home import EmulatedHome
from emulator.home_generation.generator import generate_home

SAMPLES = 20000


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def timed(call: Callable[[int], object], samples: int = SAMPLES) -> dict[str, float]:
    durations = []
    for i in range(samples):
        started = time.perf_counter_ns()
        call(i)
        durations.append((time.perf_counter_ns() - started) / 1000)
    return {
        "p50_us": round(percentile(durations, 0.5), 2),
        "p95_us": round(percentile(durations, 0.95), 2),
        "mean_us": round(statistics.fmean(durations), 2),
    }


def main() -> None:
    fabric = EmulatedHome(generate_home("complex", 7))
    light = next(d.device_id for d in fabric.devices() if d.device_type == "on_off_light")
    ac = next(d.device_id for d in fabric.devices() if d.device_type == "air_conditioner")
    fabric.invoke(ac, 1, "OnOff", "On", {})
    results = {
        "read": timed(lambda i: fabric.read(light, 1, "OnOff", "OnOff")),
        "read_sensor": timed(lambda i: fabric.read(ac, 1, "Thermostat", "LocalTemperature")),
        "invoke": timed(lambda i: fabric.invoke(light, 1, "OnOff", "Toggle", {})),
        "write": timed(lambda i: fabric.write(ac, 1, "FanControl", "PercentSetting", i % 100)),
    }
    if "--json" in sys.argv:
        print(json.dumps(results, indent=2))
        return
    for name, r in results.items():
        print(f"{name:12s} p50 {r['p50_us']:8.2f} µs   p95 {r['p95_us']:8.2f} µs   mean {r['mean_us']:8.2f} µs")


if __name__ == "__main__":
    main()
