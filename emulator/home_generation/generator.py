"""The generation algorithm: ``generate(params, seed)`` and ``generate_home(tier, seed)``.

Deterministic: one ``random.Random(seed)`` for the home-level draws and blake2b sub-seeds
(``"seed|part|…"``) for each room's devices, each device's initial state and the environment, so the
same seed always gives a byte-identical ``dump_home``. Python's ``hash()`` is never used (it is salted
per process).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from datetime import date, datetime, time
from typing import Any

from clusters.fan_control import mode_for_percent
from emulator.bindings import node_id_of
from emulator.clock import TIME_FORMAT
from emulator.home_config import HomeConfig, room_display_name, validate_home
from emulator.home_generation.device_types import candidate_types, required_types
from emulator.home_generation.errors import GeneratorError
from emulator.home_generation.home_systems import door_light, home_systems
from emulator.home_generation.layouts import RoomSlot, choose_rooms
from emulator.home_generation.params import EnvironmentRanges, GeneratorParams, tier_params
from emulator.home_generation.seeds import sub_seed

# --- environment ---------------------------------------------------------------------------------

# σ of each room around the home baseline, as a fraction of the range (facts §7.3).
_SPREAD = {"temperature": 0.08, "humidity": 0.12, "illuminance": 0.15, "pm10": 0.25}


def _environment_ranges(ranges: EnvironmentRanges) -> dict[str, tuple[float, float]]:
    return {
        "temperature": (ranges.temperature_c.min * 100, ranges.temperature_c.max * 100),
        "humidity": (ranges.humidity_pct.min * 100, ranges.humidity_pct.max * 100),
        "illuminance": (ranges.illuminance_lux.min, ranges.illuminance_lux.max),
        "pm10": (ranges.pm10_ugm3.min, ranges.pm10_ugm3.max),
    }


def _round_state(name: str, value: float) -> int | float:
    return round(value) if name in ("temperature", "humidity") else round(value, 2)


def _room_environments(room_ids: list[str], ranges: EnvironmentRanges, seed: int) -> dict[str, dict[str, Any]]:
    rng = random.Random(sub_seed(seed, "environment"))
    bounds = _environment_ranges(ranges)
    baseline: dict[str, float] = {}
    for name, (low, high) in bounds.items():
        if name in ("temperature", "humidity"):
            baseline[name] = rng.randint(math.ceil(low), math.floor(high))
        else:
            baseline[name] = rng.uniform(low, high)
    states: dict[str, dict[str, Any]] = {}
    for room_id in room_ids:
        state = {}
        for name, (low, high) in bounds.items():
            sigma = (high - low) * _SPREAD[name]
            value = baseline[name]
            for _ in range(20):  # truncated normal: redraw outside the range, clamp as a last resort
                value = rng.normalvariate(baseline[name], sigma) if sigma > 0 else baseline[name]
                if low <= value <= high:
                    break
            state[name] = _round_state(name, min(high, max(low, value)))
            if not low <= state[name] <= high:  # rounding may step past a fractional bound
                state[name] = _round_state(name, low if state[name] < low else high)
        states[room_id] = state
    return states


# --- devices -------------------------------------------------------------------------------------


def _device_counts(rooms: list[RoomSlot], params: GeneratorParams, seed: int) -> dict[str, int]:
    per_room = params.devices_per_room
    required = {r.id: len(required_types(r.type, params.device_catalogue, params.required_devices)) for r in rooms}
    capacity = {r.id: params.max_per_type * len(candidate_types(r.type, params.device_catalogue)) for r in rooms}
    if params.total_devices is None:
        counts = {}
        for room in rooms:
            rng = random.Random(sub_seed(seed, "device-count", room.id))
            counts[room.id] = min(capacity[room.id], max(required[room.id], rng.randint(per_room.min, per_room.max)))
        return counts
    low = {r.id: min(capacity[r.id], max(per_room.min, required[r.id])) for r in rooms}
    high = {r.id: max(low[r.id], min(per_room.max, capacity[r.id])) for r in rooms}
    rng = random.Random(sub_seed(seed, "device-count"))
    least, most = max(params.total_devices.min, sum(low.values())), min(params.total_devices.max, sum(high.values()))
    if least > most:
        raise GeneratorError(
            f"cannot place {params.total_devices.min}..{params.total_devices.max} devices in "
            f"{len(rooms)} rooms holding {sum(low.values())}..{sum(high.values())} devices"
        )
    total = rng.randint(least, most)
    counts = dict(low)
    open_rooms = [r.id for r in rooms if counts[r.id] < high[r.id]]
    for _ in range(total - sum(counts.values())):
        room_id = rng.choice(open_rooms)
        counts[room_id] += 1
        if counts[room_id] == high[room_id]:
            open_rooms.remove(room_id)
    return counts


def _room_device_types(room: RoomSlot, count: int, params: GeneratorParams, seed: int) -> list[str]:
    rng = random.Random(sub_seed(seed, "devices", room.id))
    placed = list(required_types(room.type, params.device_catalogue, params.required_devices))[:count]
    taken = Counter(placed)
    pool = [
        t for t in candidate_types(room.type, params.device_catalogue) for _ in range(params.max_per_type - taken[t])
    ]
    return placed + rng.sample(pool, count - len(placed))


_ON_PROBABILITY = {
    "on_off_light": 0.4,
    "dimmable_light": 0.4,
    "color_temperature_light": 0.4,
    "extended_color_light": 0.4,
    "fan_light": 0.4,
    "smart_plug": 0.5,
    "smart_speaker": 0.3,
    "smart_screen": 0.3,
    "tv": 0.3,
    "fan": 0.4,
    "air_purifier": 0.5,
    "humidifier": 0.4,
    "dehumidifier": 0.4,
    "air_conditioner": 0.5,
}
_LEVEL_LIGHTS = {"dimmable_light", "color_temperature_light", "extended_color_light"}
_FAN_CONTROL = {"fan", "air_purifier", "humidifier", "dehumidifier", "air_conditioner"}


def initial_attributes(device_type: str, rng: random.Random) -> dict[str, Any]:
    """A plausible varied initial state, only through SimuHome's paths; the rest comes from device defaults."""
    attributes: dict[str, Any] = {}
    on = False
    if device_type in _ON_PROBABILITY:
        on = rng.random() < _ON_PROBABILITY[device_type]
        attributes["1.OnOff.OnOff"] = on
    if device_type in _LEVEL_LIGHTS:
        attributes["1.LevelControl.CurrentLevel"] = rng.randint(1, 254)
    if device_type in _FAN_CONTROL:
        percent = rng.randint(1, 100) if on else rng.randint(0, 100)
        # The spec ties them: FanMode is PercentSetting's band, and the fan runs at the speed it is set to.
        attributes["1.FanControl.FanMode"] = mode_for_percent(percent)
        attributes["1.FanControl.PercentSetting"] = percent
        attributes["1.FanControl.PercentCurrent"] = percent
    if device_type == "air_conditioner":
        attributes["1.Thermostat.SystemMode"] = rng.choice((0, 3))
        attributes["1.Thermostat.OccupiedCoolingSetpoint"] = rng.randrange(1600, 3201, 50)
    if device_type == "heat_pump":
        attributes["4.Thermostat.SystemMode"] = rng.choice((0, 4))
        attributes["4.Thermostat.OccupiedHeatingSetpoint"] = rng.randrange(700, 3001, 50)
    if device_type == "window_covering_controller":
        position = rng.randrange(0, 10001, 500)
        attributes["1.WindowCovering.CurrentPositionLiftPercent100ths"] = position
        attributes["1.WindowCovering.TargetPositionLiftPercent100ths"] = position
    return attributes


# --- the generator -------------------------------------------------------------------------------


def _base_time(params: GeneratorParams, rng: random.Random) -> str:
    moment = time(rng.randint(params.base_hours.min, params.base_hours.max), rng.randint(0, 59), rng.randint(0, 59))
    return datetime.combine(date.fromisoformat(params.base_date), moment).strftime(TIME_FORMAT)


def generate(params: GeneratorParams, seed: int, *, tier: str | None = None) -> HomeConfig:
    """Build a home from explicit parameters; the same (params, seed) always gives the same home."""
    rng = random.Random(seed)
    base_time = _base_time(params, rng)
    rooms = choose_rooms(params.layout, rng.randint(params.room_count.min, params.room_count.max), rng)
    environments = _room_environments([room.id for room in rooms], params.environment, seed)
    counts = _device_counts(rooms, params, seed)
    drawn = {room.id: _room_device_types(room, counts[room.id], params, seed) for room in rooms}
    systems = home_systems(params.layout, params.device_catalogue, rooms, drawn)
    room_data: list[dict[str, Any]] = []
    device_data: list[dict[str, Any]] = []
    system_ids: list[str] = []  # added by home_systems, on top of the rooms' own draw
    for room in rooms:
        room_data.append(
            {
                "id": room.id,
                "name": room_display_name(room.id),
                "type": room.type,
                "floor": room.floor,
                "parent": room.parent if params.nesting else None,
                "environment": environments[room.id],
            }
        )
        numbers: Counter[str] = Counter()
        for index, device_type in enumerate(drawn[room.id] + systems[room.id]):
            numbers[device_type] += 1
            device_id = f"{room.id}_{device_type}_{numbers[device_type]}"
            attributes = (
                initial_attributes(device_type, random.Random(sub_seed(seed, "state", device_id)))
                if params.initial_state
                else {}
            )
            device_data.append({"id": device_id, "type": device_type, "room": room.id, "attributes": attributes})
            if index >= len(drawn[room.id]):
                system_ids.append(device_id)
                switched = door_light(drawn[room.id])
                if switched is not None and device_type == switched[1]:  # the door's switch drives the room's light
                    light_id = f"{room.id}_{switched[0]}_1"
                    attributes["1.Binding.Binding"] = [{"node": node_id_of(light_id), "endpoint": 1, "fabricIndex": 0}]
    label = tier or params.layout
    generator: dict[str, Any] = {"params": params.model_dump(mode="json")}
    if system_ids:  # only houses have them: the other layouts' homes keep their bytes
        generator["home_systems"] = system_ids
    return validate_home(
        {
            "name": f"{label}-{seed}",
            "seed": seed,
            "tier": tier,
            "base_time": base_time,
            "rooms": room_data,
            "devices": device_data,
            "extensions": {
                "generator": generator,
                # Our homes have days and nights: daylight follows the sun (emulator/daylight.py) and rooms exchange
                # heat with a daily outdoor swing (late-August defaults: 24 °C ± 5 °C).
                "physics": {
                    "daylight": "sun",
                    "latitude_deg": params.latitude_deg,
                    "outdoor": "daily",
                    "outdoor_mean": 2400.0,
                    "outdoor_amplitude": 500.0,
                },
            },
        },
        f"<generated {label} home, seed {seed}>",
    )


def generate_home(tier: str, seed: int, **overrides: Any) -> HomeConfig:
    """A home of the named tier (see ``TIERS``), e.g. ``generate_home("complex", 7)``."""
    return generate(tier_params(tier, **overrides), seed, tier=tier)
