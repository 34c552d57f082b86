"""Fast-forward benchmark: 24 h of virtual time on the complex (135 devices) and stress (1,000) homes.

Prints wall seconds and simulated seconds per wall second for each home, measured in one run.
Target: complex 24 h in < 1 s on a 2-core machine. Usage: python bench/fast_forward.py [--json]
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from emulator.fabric import Fabric
from emulator.home_generator import generate_home
from emulator.scenarios import start_typical_day

DAY = 24 * 3600


def measure(tier: str, seed: int = 7) -> dict[str, float | int | str]:
    started = time.perf_counter()
    fabric = Fabric(generate_home(tier, seed))
    build_s = time.perf_counter() - started
    actions = start_typical_day(fabric)
    started = time.perf_counter()
    events = fabric.advance(DAY)
    wall = time.perf_counter() - started
    return {"tier": tier, "devices": len(fabric.devices()), "rooms": len(fabric.rooms()), "actions": len(actions),
            "build_s": round(build_s, 3), "wall_s": round(wall, 4), "events": events,
            "segments": fabric.physics.segment_count, "sim_s_per_wall_s": round(DAY / wall)}


def main() -> None:
    results = [measure("complex"), measure("stress")]
    if "--json" in sys.argv:
        print(json.dumps(results, indent=2))
        return
    for r in results:
        print(f"{r['tier']:8s} {r['devices']:5d} devices {r['rooms']:4d} rooms  24 h in {r['wall_s']:.3f} s wall "
              f"= {r['sim_s_per_wall_s']:,} simulated s per wall s  ({r['events']} events, {r['segments']} physics "
              f"segments, {r['actions']} start actions, home built in {r['build_s']:.2f} s)")


if __name__ == "__main__":
    main()
