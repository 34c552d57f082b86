"""The pieces of a qt4 goal: its time window (``when``), its targets and the request chosen for them."""

from __future__ import annotations

import random
from typing import Any

from benchmark.generation.episode_layout import DEFAULT_TOLERANCE_TICKS, GenerationFailed, ticks_to_minutes, time_at
from benchmark.generation.homes import EpisodeHome
from benchmark.generation.targets import NON_OPERATIONAL_TYPES, Variant, asserts_differ, variants

TARGET_TYPES = tuple(t for t in NON_OPERATIONAL_TYPES if t not in ("refrigerator", "freezer"))
TIME_ONLY = "%H:%M:%S"


def when(
    reference_tick: int, relation: str, offset_ticks: int, tolerance: int = DEFAULT_TOLERANCE_TICKS
) -> dict[str, Any]:
    at = reference_tick + offset_ticks if relation == "after" else reference_tick - offset_ticks
    return {
        "reference_tick": reference_tick,
        "reference_minutes": ticks_to_minutes(reference_tick),
        "relation": relation,
        "offset_ticks": offset_ticks,
        "offset_minutes": ticks_to_minutes(offset_ticks),
        "at_tick": at,
        "at_minutes": ticks_to_minutes(at),
        "tolerance_ticks": tolerance,
    }


def device_entry(device: Any) -> dict[str, Any]:
    return {"room_id": device.room_id, "device_id": device.device_id, "device_type": device.device_type}


def strip_value_types(variant: Variant) -> list[dict[str, Any]]:
    return [{k: v for k, v in a.items() if k != "value_type"} for a in variant.asserts]


def clock_time(home: EpisodeHome, tick: int) -> str:
    return time_at(home.initial_home_config, tick).strftime(TIME_ONLY)


def pick_variant(device: Any, attrs: dict[str, Any], rng: random.Random, *, avoid: Variant | None = None) -> Variant:
    options = [
        v
        for v in variants(device.device_type, attrs, rng)
        if asserts_differ(attrs, v) and (avoid is None or v.asserts != avoid.asserts)
    ]
    if not options:
        raise GenerationFailed(f"no request fits {device.device_id}")
    return rng.choice(options)
