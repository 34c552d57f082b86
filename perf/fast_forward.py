"""Fast-forward benchmark: 24 h of virtual time on the complex (135 devices + its systems) and stress (1,000) homes.

Prints wall seconds and simulated seconds per wall second for each home, measured in one run. In the same run: the
complex home as it was before houses got their systems (``complex-rooms``: solar, battery, charger, valve, leak
detectors and buttons left out); the complex home as generated, its systems set going (a vehicle charging, the
battery charging, the valve open, a button pressed); and the complex home with one device of every catalogue type
it lacks added (the device library of issue 22: pump, cooktop, sensors …), each set going likewise. Target: complex
24 h in < 1 s on a 2-core machine; the homes with the new types within 2× ``complex-rooms``.
Usage: python perf/fast_forward.py [--json]
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from emulator.catalogue import CATALOGUE
from emulator.emulated_home import EmulatedHome
from emulator.home_config import DeviceConfig, HomeConfig
from emulator.home_generation.generator import generate_home
from emulator.scenarios import plug_in_vehicle, press_button, start_typical_day

DAY = 24 * 3600


def add_device_library(fabric: EmulatedHome) -> int:
    """One device of every catalogue type the home lacks, over its rooms in turn, each set going. Returns how many."""
    present = {d.device_type for d in fabric.devices()}
    rooms = [r.room_id for r in fabric.rooms()]
    missing = sorted(set(CATALOGUE) - present)
    for index, type_name in enumerate(missing):
        fabric.add_device(DeviceConfig(id=f"lib_{type_name}", type=type_name, room=rooms[index % len(rooms)]))
    set_going(fabric)
    return len(missing)


def set_going(fabric: EmulatedHome) -> None:
    """The first charger, battery, valve and pump of the home started, a vehicle plugged in, a button pressed."""
    first: dict[str, str] = {}
    for device in fabric.devices():
        first.setdefault(device.device_type, device.device_id)
    for type_name, endpoint, cluster, command, args in (
        (
            "evse",
            1,
            "EnergyEvse",
            "EnableCharging",
            {"ChargingEnabledUntil": None, "MinimumChargeCurrent": 6000, "MaximumChargeCurrent": 16000},
        ),
        (
            "battery_storage",
            1,
            "DeviceEnergyManagement",
            "PowerAdjustRequest",
            {"Power": 3_000_000, "Duration": 7200, "Cause": 0},
        ),
        ("water_valve", 1, "ValveConfigurationAndControl", "Open", {"OpenDuration": 1800}),
        ("pump", 1, "OnOff", "On", {}),
    ):
        if type_name in first:
            fabric.invoke(first[type_name], endpoint, cluster, command, args)
    if "evse" in first:
        plug_in_vehicle(fabric, first["evse"], demand_kWh=30)
    if "generic_switch" in first:
        press_button(fabric, first["generic_switch"], 2)


def without_systems(config: HomeConfig) -> HomeConfig:
    """The home as generated before houses got their systems: the devices home_systems added left out."""
    systems = set(config.extensions.get("generator", {}).get("home_systems", []))
    return config.model_copy(update={"devices": [d for d in config.devices if d.id not in systems]})


def measure(tier: str, seed: int = 7, *, library: bool = False, systems: bool = True) -> dict[str, float | int | str]:
    started = time.perf_counter()
    config = generate_home(tier, seed)
    fabric = EmulatedHome(config if systems else without_systems(config))
    added = add_device_library(fabric) if library else 0
    if systems and not library:
        set_going(fabric)
    build_s = time.perf_counter() - started
    actions = start_typical_day(fabric)
    started = time.perf_counter()
    events = fabric.advance(DAY)
    wall = time.perf_counter() - started
    label = tier + ("+library" if library else "") + ("" if systems else "-rooms")
    return {
        "tier": label,
        "library_devices": added,
        "devices": len(fabric.devices()),
        "rooms": len(fabric.rooms()),
        "actions": len(actions),
        "build_s": round(build_s, 3),
        "wall_s": round(wall, 4),
        "events": events,
        "segments": fabric.physics.segment_count,
        "sim_s_per_wall_s": round(DAY / wall),
    }


def side_by_side(tier: str = "complex", seconds: int = 600, seed: int = 7) -> dict[str, float | int | str]:
    """The same virtual span, closed form vs stepping every room's rule every 0.1 s (the reference)."""
    from emulator.physics import VARIABLES

    closed = EmulatedHome(generate_home(tier, seed))
    start_typical_day(closed)
    started = time.perf_counter()
    closed.advance(seconds)
    closed_wall = time.perf_counter() - started

    stepped = EmulatedHome(generate_home(tier, seed))
    start_typical_day(stepped)
    engine = stepped.physics
    changed = {"dirty": True}
    stepped.subscribe(lambda event: changed.update(dirty=True))
    values = {(r, v): engine.value(r, v) for r in engine.rooms for v in VARIABLES}
    processes: dict[Any, Any] = {}
    started = time.perf_counter()
    for tick in range(seconds * 10):
        stepped.clock.advance_to(tick)
        if changed["dirty"]:
            processes = {(r, v): engine.process(r, v) for r in engine.rooms for v in VARIABLES}
            changed["dirty"] = False
        values = {key: processes[key].step(x) for key, x in values.items()}
    stepped_wall = time.perf_counter() - started
    worst = max(abs(closed.room_state(r, exact=True)[v] - values[(r, v)]) for r, v in values)
    return {
        "tier": tier,
        "virtual_s": seconds,
        "closed_form_wall_s": round(closed_wall, 5),
        "tick_stepping_wall_s": round(stepped_wall, 3),
        "speedup": round(stepped_wall / closed_wall),
        "max_abs_difference": worst,
    }


def main() -> None:
    results = [
        measure("complex", systems=False),
        measure("complex"),
        measure("complex", library=True),
        measure("stress"),
    ]
    ratio = side_by_side()
    if "--json" in sys.argv:
        print(json.dumps({"fast_forward": results, "closed_form_vs_tick_stepping": ratio}, indent=2))
        return
    print(
        f"side by side, {ratio['tier']} home, {ratio['virtual_s']} s of virtual time: closed form "
        f"{ratio['closed_form_wall_s']} s vs tick stepping {ratio['tick_stepping_wall_s']} s wall = "
        f"{ratio['speedup']}x faster; largest difference {ratio['max_abs_difference']:.2e}"
    )
    for r in results:
        print(
            f"{r['tier']:16s} {r['devices']:5d} devices {r['rooms']:4d} rooms  24 h in {r['wall_s']:.3f} s wall "
            f"= {r['sim_s_per_wall_s']:,} simulated s per wall s  ({r['events']} events, {r['segments']} physics "
            f"segments, {r['actions']} start actions, home built in {r['build_s']:.2f} s)"
        )


if __name__ == "__main__":
    main()
