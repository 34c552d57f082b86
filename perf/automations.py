"""Automations benchmark: 24 h of the complex home with 200 rules of every kind, fast-forwarded.

The same home (``generate_home("complex", seed)`` with the typical-day scenario) is fast-forwarded 24 h
in one run: without rules, with 200 rules (cron, time-and-state, state on room variables and sensor
readings, state on device attributes; drawn from a seeded RNG), and without rules but with the very
commands the rules ran scheduled as workflows at the same ticks. The first ratio (rules / no rules) counts
the rules' own effects (every firing toggles a light, so rooms re-plan their physics); the second (rules /
same commands) is the cost of the rule engine itself: cron planning, crossing planning, conditions, the
loop guard. Target <= 2x. Prints wall times, both ratios, firings and firings per wall second.
Usage: python perf/automations.py [--seed 7] [--rules 200] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from emulator.emulated_home import EmulatedHome
from emulator.home_generation.generator import generate_home
from emulator.scenarios import start_typical_day
from emulator.workflows import WorkflowStep

DAY = 24 * 3600
CRONS = (
    "0 0/15 * * * ?",
    "0 0 * * * ?",
    "0 30 7 ? * MON-FRI *",
    "0 0 22 * * ? *",
    "0 0/5 6-9 * * ?",
    "30 10 0/2 * * ?",
    "0 45 18 ? * SAT,SUN",
    "0 0 12 L * ?",
    "0 0/30 * * * ?",
    "15 0/10 * * * ?",
)
SENSORS = {"TemperatureMeasurement": "temperature", "RelativeHumidityMeasurement": "humidity"}


def _toggle(device_id: str, command: str) -> dict[str, Any]:
    return {"kind": "invoke", "device_id": device_id, "endpoint": 1, "cluster": "OnOff", "command": command}


def make_rules(fabric: EmulatedHome, count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` rules, a quarter of each kind, acting on the home's lights."""
    rng = random.Random(seed)
    lights = sorted(d.device_id for d in fabric.devices() if d.device_type.endswith("_light"))
    switches = sorted(
        d.device_id
        for d in fabric.devices()
        if d.device_type in ("on_off_light", "dimmable_light", "fan", "smart_plug", "tv")
    )
    sensors = sorted(
        (d.device_id, ep, cluster)
        for d in fabric.devices()
        for ep, endpoint in d.endpoints.items()
        for cluster in endpoint.clusters
        if cluster in SENSORS
    )
    rooms = [r.room_id for r in fabric.rooms()]
    rules: list[dict[str, Any]] = []
    for index in range(count):
        kind = index % 4
        action = [_toggle(rng.choice(lights), rng.choice(("On", "Off", "Toggle")))]
        if kind == 0:
            trigger: dict[str, Any] = {"kind": "time", "cron": rng.choice(CRONS)}
            rules.append({"name": f"cron {index}", "trigger": trigger, "actions": action})
        elif kind == 1:
            condition: dict[str, Any] = {
                "device_id": rng.choice(switches),
                "path": "1.OnOff.OnOff",
                "op": "==",
                "value": rng.choice((True, False)),
            }
            rules.append(
                {
                    "name": f"time and state {index}",
                    "trigger": {"kind": "time", "cron": rng.choice(CRONS)},
                    "conditions": [condition],
                    "actions": action,
                }
            )
        elif kind == 2:
            if rng.random() < 0.5:
                room = rng.choice(rooms)
                variable = rng.choice(("temperature", "humidity", "pm10"))
                now = fabric.room_state(room)[variable]
                condition = {"room_id": room, "variable": variable}
            else:
                device_id, ep, cluster = rng.choice(sensors)
                now = fabric.read(device_id, ep, cluster, "MeasuredValue")
                condition = {"device_id": device_id, "path": f"{ep}.{cluster}.MeasuredValue"}
            offset = rng.choice((-1, 1)) * rng.uniform(5, 150)  # near where the day takes the room
            condition |= {
                "op": rng.choice((">", ">=", "<", "<=")),
                "value": round(now + offset, 1),
                "for_s": rng.choice((0, 0, 60, 600)),
            }
            rules.append(
                {"name": f"state {index}", "trigger": {"kind": "state", "condition": condition}, "actions": action}
            )
        else:
            condition = {
                "device_id": rng.choice(switches),
                "path": "1.OnOff.OnOff",
                "op": "==",
                "value": rng.choice((True, False)),
            }
            rules.append(
                {"name": f"attribute {index}", "trigger": {"kind": "state", "condition": condition}, "actions": action}
            )
    return rules


def run_day(
    seed: int,
    rule_count: int,
    commands: list[tuple[int, list[dict[str, Any]]]] | None = None,
) -> tuple[dict[str, Any], list[tuple[int, list[dict[str, Any]]]]]:
    """One 24 h fast-forward; returns its figures and the (tick, steps) of every firing."""
    fabric = EmulatedHome(generate_home("complex", seed))
    start_typical_day(fabric)
    rules = make_rules(fabric, rule_count, seed) if rule_count else []
    for rule in rules:
        fabric.add_automation(rule)
    for tick, steps in commands or []:  # the same commands as the rules ran, as plain workflows
        fabric.schedule(
            tick,
            [
                WorkflowStep("invoke", s["device_id"], s["endpoint"], s["cluster"], s["command"], s.get("args") or {})
                for s in steps
            ],
        )
    fired: list[Any] = []
    fabric.subscribe_automations(fired.append)
    started, cpu_started = time.perf_counter(), time.process_time()
    events = fabric.advance(DAY)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    kinds = [event.kind for event in fired]
    ran = [(event.tick, event.actions) for event in fired if event.kind == "fired" and event.error is None]
    return (
        {
            "rules": len(rules),
            "scheduled_commands": len(commands or []),
            "wall_s": round(wall, 4),
            "cpu_s": round(cpu, 4),
            "events": events,
            "firings": kinds.count("fired"),
            "skipped": kinds.count("skipped"),
            "loop_cuts": kinds.count("loop_cut"),
            "segments": fabric.physics.segment_count,
            "devices": len(fabric.devices()),
        },
        ran,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rules", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3, help="best of N for each side (noise on a shared machine)")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    runs_without, runs_with, runs_same = [], [], []
    _, commands = run_day(options.seed, options.rules)
    for _ in range(options.repeat):  # interleaved, so every side sees the same machine load
        runs_without.append(run_day(options.seed, 0)[0])
        runs_with.append(run_day(options.seed, options.rules)[0])
        runs_same.append(run_day(options.seed, 0, commands)[0])
    # Best of N by CPU time: other processes on a shared machine inflate wall time, not our CPU time.
    without, with_rules, same = (min(runs, key=lambda r: r["cpu_s"]) for runs in (runs_without, runs_with, runs_same))
    result = {
        "home": "complex",
        "seed": options.seed,
        "virtual_s": DAY,
        "devices": without["devices"],
        "without_rules": without,
        "with_rules": with_rules,
        "same_commands_without_rules": same,
        "ratio_to_no_rules": round(with_rules["cpu_s"] / without["cpu_s"], 2),
        "ratio_to_same_commands": round(with_rules["cpu_s"] / same["cpu_s"], 2),
        "target_ratio": 2.0,
        "firings_per_wall_s": round(with_rules["firings"] / with_rules["wall_s"]),
        "firings_per_cpu_s": round(with_rules["firings"] / with_rules["cpu_s"]),
    }
    if options.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"complex home ({result['devices']} devices), 24 h fast-forwarded (best of {options.repeat}, CPU s):\n"
        f"  no rules                 {without['cpu_s']:.3f} s ({without['events']} events)\n"
        f"  {with_rules['rules']} rules                {with_rules['cpu_s']:.3f} s ({with_rules['events']} events) "
        f"= {result['ratio_to_no_rules']:.2f}x no rules, {result['ratio_to_same_commands']:.2f}x the same "
        f"commands as workflows ({same['cpu_s']:.3f} s); target <= 2x\n"
        f"  {with_rules['firings']} firings ({with_rules['skipped']} skipped by conditions, "
        f"{with_rules['loop_cuts']} loop cuts) = {result['firings_per_wall_s']:,} firings per wall second"
    )


if __name__ == "__main__":
    main()
