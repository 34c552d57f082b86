"""Seeded home generator: SimuHome's home-construction recipe (facts §7.1–§7.3) and bigger tiers.

``generate_home(tier, seed)`` is deterministic: one ``random.Random(seed)`` for the home-level draws
and blake2b sub-seeds (``"seed|part|…"``) for each room's devices, each device's initial state and the
environment, so the same seed always gives a byte-identical ``dump_home``. Python's ``hash()`` is never
used (it is salted per process).
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from clusters.fan_control import mode_for_percent
from emulator.clock import TIME_FORMAT
from emulator.home_config import HomeConfig, room_display_name, validate_home, validation_problems

# --- device types --------------------------------------------------------------------------------

SIMUHOME_DEVICE_TYPES = (
    "on_off_light", "dimmable_light", "air_conditioner", "air_purifier", "fan", "humidifier", "dehumidifier",
    "heat_pump", "tv", "window_covering_controller", "dishwasher", "laundry_washer", "laundry_dryer", "rvc",
    "freezer", "refrigerator",
)
# In SimuHome's factory but never placed in its benchmark homes.
SIMUHOME_FACTORY_ONLY_TYPES = ("electrical_sensor",)
OUR_DEVICE_TYPES = (
    "color_temperature_light", "extended_color_light", "fan_light", "climate_sensor", "occupancy_sensor",
    "contact_sensor", "smart_speaker", "smart_screen", "water_heater", "door_lock", "curtain", "blind", "oven",
    "microwave_oven", "smart_plug", "thermostat", "smoke_co_alarm", "air_quality_sensor", "light_sensor",
    "water_leak_detector",
)
ALL_DEVICE_TYPES = SIMUHOME_DEVICE_TYPES + SIMUHOME_FACTORY_ONLY_TYPES + OUR_DEVICE_TYPES

# --- which devices go in which room --------------------------------------------------------------

_SIMUHOME_BASE = ("air_conditioner", "air_purifier", "dehumidifier", "dimmable_light", "fan", "heat_pump",
                  "on_off_light", "window_covering_controller")

# SimuHome's candidate types per room (facts §7.3), exactly.
SIMUHOME_CANDIDATES: dict[str, tuple[str, ...]] = {
    "living_room": (*_SIMUHOME_BASE, "rvc", "tv"),
    "bathroom": (*_SIMUHOME_BASE, "humidifier", "laundry_washer", "laundry_dryer"),
    "kitchen": (*_SIMUHOME_BASE, "dishwasher", "freezer", "humidifier", "refrigerator"),
    "utility_room": (*_SIMUHOME_BASE, "laundry_washer", "laundry_dryer"),
    "bedroom": (*_SIMUHOME_BASE, "tv"),
    "study_room": (*_SIMUHOME_BASE, "tv"),
    "dining_room": (*_SIMUHOME_BASE, "humidifier"),
    "kids_room": (*_SIMUHOME_BASE, "rvc", "tv"),
    "office": (*_SIMUHOME_BASE, "rvc", "tv"),
}
SIMUHOME_REQUIRED: dict[str, tuple[str, ...]] = {
    "living_room": ("on_off_light", "window_covering_controller"),
    "bathroom": ("on_off_light", "air_purifier"),
    "kitchen": ("on_off_light", "dishwasher", "freezer", "refrigerator"),
    "utility_room": ("on_off_light", "laundry_washer", "laundry_dryer"),
}

# Our types added to SimuHome's room types in the extended catalogue.
EXTENDED_EXTRA_CANDIDATES: dict[str, tuple[str, ...]] = {
    "living_room": ("color_temperature_light", "extended_color_light", "fan_light", "climate_sensor",
                    "occupancy_sensor", "contact_sensor", "smart_speaker", "smart_screen", "curtain", "blind",
                    "smart_plug", "thermostat", "smoke_co_alarm", "air_quality_sensor", "light_sensor"),
    "bedroom": ("color_temperature_light", "extended_color_light", "fan_light", "climate_sensor", "occupancy_sensor",
                "contact_sensor", "smart_speaker", "curtain", "blind", "smart_plug", "thermostat", "smoke_co_alarm"),
    "kids_room": ("extended_color_light", "fan_light", "climate_sensor", "contact_sensor", "smart_speaker", "curtain",
                  "blind", "smart_plug", "smoke_co_alarm", "air_quality_sensor"),
    "study_room": ("color_temperature_light", "climate_sensor", "occupancy_sensor", "smart_speaker", "smart_screen",
                   "blind", "smart_plug", "light_sensor"),
    "office": ("color_temperature_light", "climate_sensor", "occupancy_sensor", "contact_sensor", "smart_speaker",
               "smart_screen", "blind", "smart_plug", "light_sensor"),
    "dining_room": ("color_temperature_light", "extended_color_light", "curtain", "blind", "smart_plug",
                    "smart_speaker"),
    "kitchen": ("color_temperature_light", "oven", "microwave_oven", "smart_plug", "smart_screen", "smart_speaker",
                "smoke_co_alarm", "water_leak_detector", "air_quality_sensor", "contact_sensor"),
    "bathroom": ("climate_sensor", "occupancy_sensor", "water_leak_detector", "smart_speaker", "blind"),
    "utility_room": ("water_heater", "water_leak_detector", "smart_plug", "climate_sensor", "contact_sensor",
                     "electrical_sensor"),
}
# Room types SimuHome does not have (used by the bigger layouts).
NEW_ROOM_CANDIDATES: dict[str, tuple[str, ...]] = {
    "entrance": ("on_off_light", "dimmable_light", "door_lock", "contact_sensor", "occupancy_sensor", "smart_screen",
                 "smoke_co_alarm", "light_sensor"),
    "hallway": ("on_off_light", "dimmable_light", "occupancy_sensor", "smoke_co_alarm", "light_sensor", "rvc"),
    "garage": ("on_off_light", "door_lock", "window_covering_controller", "contact_sensor", "occupancy_sensor",
               "smart_plug", "electrical_sensor", "smoke_co_alarm", "freezer", "dehumidifier", "fan"),
    "basement": ("on_off_light", "dehumidifier", "water_heater", "water_leak_detector", "electrical_sensor", "freezer",
                 "laundry_washer", "laundry_dryer", "smart_plug", "climate_sensor", "smoke_co_alarm", "heat_pump",
                 "fan"),
    "balcony": ("on_off_light", "dimmable_light", "window_covering_controller", "curtain", "blind", "climate_sensor",
                "light_sensor", "fan", "contact_sensor"),
    "terrace": ("on_off_light", "dimmable_light", "curtain", "climate_sensor", "light_sensor", "smart_speaker",
                "smart_plug"),
    "walk_in_closet": ("on_off_light", "dimmable_light", "occupancy_sensor", "dehumidifier", "air_purifier",
                       "smart_plug", "contact_sensor"),
    "toilet": ("on_off_light", "dimmable_light", "fan", "air_purifier", "occupancy_sensor", "water_leak_detector",
               "dehumidifier"),
    "home_gym": ("on_off_light", "dimmable_light", "fan", "air_conditioner", "air_purifier", "dehumidifier",
                 "smart_speaker", "smart_screen", "climate_sensor", "air_quality_sensor", "occupancy_sensor", "tv"),
    "media_room": ("on_off_light", "dimmable_light", "extended_color_light", "tv", "smart_speaker", "smart_screen",
                   "curtain", "blind", "air_conditioner", "fan", "occupancy_sensor"),
    "pantry": ("on_off_light", "refrigerator", "freezer", "smart_plug", "climate_sensor", "occupancy_sensor"),
    "storage_room": ("on_off_light", "dehumidifier", "occupancy_sensor", "smart_plug", "contact_sensor",
                     "water_leak_detector"),
    "attic": ("on_off_light", "fan", "dehumidifier", "climate_sensor", "smoke_co_alarm", "window_covering_controller",
              "heat_pump"),
}
EXTENDED_EXTRA_REQUIRED: dict[str, tuple[str, ...]] = {
    "kitchen": ("oven",),
    "entrance": ("door_lock",),
    "garage": ("door_lock",),
    "basement": ("water_heater",),
}
ROOM_TYPES = tuple(SIMUHOME_CANDIDATES) + tuple(NEW_ROOM_CANDIDATES)

Catalogue = Literal["simuhome", "extended"]
RequiredDevices = Literal["full", "minimal", "none"]


def candidate_types(room_type: str, catalogue: Catalogue) -> tuple[str, ...]:
    """Device types a room of ``room_type`` may hold (sorted)."""
    if room_type in SIMUHOME_CANDIDATES:
        types = set(SIMUHOME_CANDIDATES[room_type])
    elif room_type in NEW_ROOM_CANDIDATES:
        types = set(NEW_ROOM_CANDIDATES[room_type])
    else:
        raise GeneratorError(f"unknown room type {room_type!r}; known: {', '.join(ROOM_TYPES)}")
    if catalogue == "extended":
        types |= set(EXTENDED_EXTRA_CANDIDATES.get(room_type, ()))
    else:
        types &= set(SIMUHOME_DEVICE_TYPES)
    return tuple(sorted(types))


def required_types(room_type: str, catalogue: Catalogue, policy: RequiredDevices) -> tuple[str, ...]:
    if policy == "none":
        return ()
    if policy == "minimal":
        return ("on_off_light",)
    required = list(SIMUHOME_REQUIRED.get(room_type, ("on_off_light",)))
    if catalogue == "extended":
        required += EXTENDED_EXTRA_REQUIRED.get(room_type, ())
    allowed = candidate_types(room_type, catalogue)
    return tuple(t for t in required if t in allowed)


# --- parameters ----------------------------------------------------------------------------------

class GeneratorError(ValueError):
    """Parameters that cannot produce a home (e.g. more rooms than the layout offers)."""


class CountRange(BaseModel):
    """An inclusive integer range; a bare int n means exactly n."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min: int = Field(ge=0)
    max: int = Field(ge=0)

    @model_validator(mode="before")
    @classmethod
    def _from_int(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return {"min": value, "max": value}
        if isinstance(value, list | tuple) and len(value) == 2:
            return {"min": value[0], "max": value[1]}
        return value

    @model_validator(mode="after")
    def _ordered(self) -> CountRange:
        if self.min > self.max:
            raise ValueError(f"min {self.min} is greater than max {self.max}")
        return self


class ValueRange(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    min: float
    max: float

    @model_validator(mode="before")
    @classmethod
    def _from_pair(cls, value: Any) -> Any:
        if isinstance(value, list | tuple) and len(value) == 2:
            return {"min": value[0], "max": value[1]}
        return value

    @model_validator(mode="after")
    def _ordered(self) -> ValueRange:
        if self.min > self.max:
            raise ValueError(f"min {self.min} is greater than max {self.max}")
        return self


# SimuHome's spec bounds (facts §7.1); every range must lie inside them.
ENVIRONMENT_BOUNDS = {"temperature_c": (18, 36), "humidity_pct": (15, 85), "illuminance_lux": (10, 3000),
                      "pm10_ugm3": (5, 120)}


class EnvironmentRanges(BaseModel):
    """Room-state ranges in human units; defaults are the values SimuHome's benchmark used."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature_c: ValueRange = ValueRange(min=22, max=32)
    humidity_pct: ValueRange = ValueRange(min=35, max=65)
    illuminance_lux: ValueRange = ValueRange(min=100, max=1500)
    pm10_ugm3: ValueRange = ValueRange(min=20, max=100)

    @model_validator(mode="after")
    def _within_bounds(self) -> EnvironmentRanges:
        for name, (low, high) in ENVIRONMENT_BOUNDS.items():
            value: ValueRange = getattr(self, name)
            if value.min < low or value.max > high:
                raise ValueError(f"{name} {value.min}..{value.max} is outside the allowed {low}..{high}")
        return self


Layout = Literal["simuhome", "apartment", "house", "mansion", "tower"]


class GeneratorParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    layout: Layout = "simuhome"
    device_catalogue: Catalogue = "simuhome"
    room_count: CountRange = CountRange(min=5, max=5)
    devices_per_room: CountRange = CountRange(min=4, max=7)
    total_devices: CountRange | None = None  # when set, per-room counts are drawn to add up to it
    required_devices: RequiredDevices = "full"
    max_per_type: int = Field(default=2, ge=1, le=10)
    environment: EnvironmentRanges = EnvironmentRanges()
    base_date: str = "2025-08-23"
    base_hours: CountRange = CountRange(min=9, max=18)
    nesting: bool = True  # False drops every parent (all rooms top level)
    initial_state: bool = True  # vary on/off, levels, setpoints, covers; False leaves device defaults
    latitude_deg: float = Field(default=37.57, ge=-90, le=90)  # where the sun of the home's daylight is

    @field_validator("base_date")
    @classmethod
    def _date(cls, value: str) -> str:
        try:
            date.fromisoformat(value)
        except ValueError:
            raise ValueError(f"{value!r} is not a date 'YYYY-MM-DD'") from None
        return value

    @field_validator("base_hours")
    @classmethod
    def _hours(cls, value: CountRange) -> CountRange:
        if value.max > 23:
            raise ValueError(f"hours must be 0..23, got max {value.max}")
        return value


TIERS: dict[str, GeneratorParams] = {
    # SimuHome's benchmark recipe: 5 rooms, 4–7 devices each, its 16 types.
    "simuhome": GeneratorParams(),
    # SMH-Bench "simple": a small apartment, ~5.5 rooms, ≤ 8 devices.
    "simple": GeneratorParams(layout="apartment", device_catalogue="extended", room_count=CountRange(min=5, max=6),
                              devices_per_room=CountRange(min=0, max=3), total_devices=CountRange(min=5, max=8),
                              required_devices="none"),
    # SMH-Bench "medium": a multi-room house, ~10.5 rooms, ~35 devices.
    "medium": GeneratorParams(layout="house", device_catalogue="extended", room_count=CountRange(min=10, max=11),
                              devices_per_room=CountRange(min=1, max=8), total_devices=CountRange(min=33, max=37)),
    # SMH-Bench "complex": one dense hierarchical home, 31 nested rooms over 4 floors, 135 devices.
    "complex": GeneratorParams(layout="mansion", device_catalogue="extended", room_count=CountRange(min=31, max=31),
                               devices_per_room=CountRange(min=1, max=9), total_devices=CountRange(min=135, max=135)),
    # Load testing: a 12-floor building of flats, 120 rooms, 1,000 devices.
    "stress": GeneratorParams(layout="tower", device_catalogue="extended", room_count=CountRange(min=120, max=120),
                              devices_per_room=CountRange(min=2, max=14),
                              total_devices=CountRange(min=1000, max=1000)),
}


# --- room layouts --------------------------------------------------------------------------------

@dataclass(frozen=True)
class RoomSlot:
    id: str
    type: str
    floor: int = 0
    parent: str | None = None
    required: bool = False


def _slot(spec: str, floor: int, parent: str | None = None) -> RoomSlot:
    # "id:type" (type defaults to id); a trailing "!" marks a room every home of the layout has.
    required = spec.endswith("!")
    room_id, _, room_type = spec.rstrip("!").partition(":")
    return RoomSlot(room_id, room_type or room_id, floor, parent, required)


SIMUHOME_LAYOUT = (
    *(_slot(f"{r}!", 0) for r in ("living_room", "bathroom", "kitchen", "utility_room")),
    *(_slot(r, 0) for r in ("bedroom", "dining_room", "study_room", "kids_room", "office")),
)
APARTMENT_LAYOUT = (
    _slot("entrance", 0), _slot("living_room!", 0), _slot("balcony", 0, "living_room"), _slot("kitchen!", 0),
    _slot("dining_room", 0), _slot("bathroom!", 0), _slot("bedroom!", 0), _slot("kids_room", 0),
    _slot("study_room", 0), _slot("utility_room", 0),
)
HOUSE_LAYOUT = (
    _slot("entrance!", 0), _slot("living_room!", 0), _slot("terrace", 0, "living_room"), _slot("kitchen!", 0),
    _slot("dining_room", 0), _slot("guest_toilet:toilet", 0), _slot("utility_room!", 0), _slot("office", 0),
    _slot("garage", 0),
    _slot("hallway", 1), _slot("bedroom!", 1), _slot("ensuite_bathroom:bathroom", 1, "bedroom"),
    _slot("walk_in_closet", 1, "bedroom"), _slot("balcony", 1, "bedroom"), _slot("bathroom!", 1),
    _slot("kids_room", 1), _slot("study_room", 1),
)
MANSION_LAYOUT = (
    _slot("basement!", -1), _slot("storage_room", -1, "basement"), _slot("home_gym", -1), _slot("media_room", -1),
    _slot("entrance!", 0), _slot("hallway", 0), _slot("living_room!", 0), _slot("terrace", 0, "living_room"),
    _slot("dining_room", 0), _slot("kitchen!", 0), _slot("pantry", 0, "kitchen"), _slot("utility_room!", 0),
    _slot("laundry_room:utility_room", 0), _slot("guest_toilet:toilet", 0), _slot("office", 0),
    _slot("garage!", 0), _slot("guest_bedroom:bedroom", 0), _slot("guest_bathroom:bathroom", 0, "guest_bedroom"),
    _slot("upstairs_hallway:hallway", 1), _slot("master_bedroom:bedroom!", 1),
    _slot("master_bathroom:bathroom", 1, "master_bedroom"), _slot("master_closet:walk_in_closet", 1, "master_bedroom"),
    _slot("master_balcony:balcony", 1, "master_bedroom"), _slot("bedroom", 1),
    _slot("bedroom_closet:walk_in_closet", 1, "bedroom"), _slot("kids_room", 1), _slot("nursery:kids_room", 1),
    _slot("bathroom!", 1), _slot("study_room", 1),
    _slot("attic", 2), _slot("attic_storage:storage_room", 2, "attic"),
)
# One flat per floor of the tower; children follow their parents so a truncated floor stays valid.
TOWER_FLOOR = (
    ("living_room", "living_room", None), ("kitchen", "kitchen", None), ("bathroom", "bathroom", None),
    ("master_bedroom", "bedroom", None), ("entrance", "entrance", None), ("utility_room", "utility_room", None),
    ("ensuite_bathroom", "bathroom", "master_bedroom"), ("kids_room", "kids_room", None),
    ("dining_room", "dining_room", None), ("balcony", "balcony", "living_room"),
)
LAYOUTS: dict[str, tuple[RoomSlot, ...]] = {
    "simuhome": SIMUHOME_LAYOUT, "apartment": APARTMENT_LAYOUT, "house": HOUSE_LAYOUT, "mansion": MANSION_LAYOUT,
}


def _tower_slots(room_count: int) -> list[RoomSlot]:
    floors = math.ceil(room_count / len(TOWER_FLOOR))
    slots = [
        RoomSlot(f"f{floor:02d}_{suffix}", room_type, floor, f"f{floor:02d}_{parent}" if parent else None, True)
        for floor in range(floors) for suffix, room_type, parent in TOWER_FLOOR
    ]
    return slots[:room_count]


def _choose_rooms(layout: Layout, room_count: int, rng: random.Random) -> list[RoomSlot]:
    if layout == "tower":
        return _tower_slots(room_count)
    slots = LAYOUTS[layout]
    chosen = {slot.id for slot in slots if slot.required}
    if not len(chosen) <= room_count <= len(slots):
        raise GeneratorError(f"the {layout!r} layout has {len(chosen)}..{len(slots)} rooms, "
                             f"room_count {room_count} is outside that")
    while len(chosen) < room_count:
        # A nested room can only be added once the room it sits in is there.
        eligible = [s.id for s in slots if s.id not in chosen and (s.parent is None or s.parent in chosen)]
        chosen.add(rng.choice(eligible))
    return [slot for slot in slots if slot.id in chosen]


# --- seeding -------------------------------------------------------------------------------------

def sub_seed(*parts: object) -> int:
    """Stable sub-seed: blake2b-64 of "part|part|…" mod (2³¹−1), as SimuHome derives them."""
    digest = hashlib.blake2b("|".join(map(str, parts)).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % (2**31 - 1)


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
    baseline = {}
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
        raise GeneratorError(f"cannot place {params.total_devices.min}..{params.total_devices.max} devices in "
                             f"{len(rooms)} rooms holding {sum(low.values())}..{sum(high.values())} devices")
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
    pool = [t for t in candidate_types(room.type, params.device_catalogue)
            for _ in range(params.max_per_type - taken[t])]
    return placed + rng.sample(pool, count - len(placed))


_ON_PROBABILITY = {
    "on_off_light": 0.4, "dimmable_light": 0.4, "color_temperature_light": 0.4, "extended_color_light": 0.4,
    "fan_light": 0.4, "smart_plug": 0.5, "smart_speaker": 0.3, "smart_screen": 0.3, "tv": 0.3, "fan": 0.4,
    "air_purifier": 0.5, "humidifier": 0.4, "dehumidifier": 0.4, "air_conditioner": 0.5,
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
    rooms = _choose_rooms(params.layout, rng.randint(params.room_count.min, params.room_count.max), rng)
    environments = _room_environments([room.id for room in rooms], params.environment, seed)
    counts = _device_counts(rooms, params, seed)
    room_data: list[dict[str, Any]] = []
    device_data: list[dict[str, Any]] = []
    for room in rooms:
        room_data.append({"id": room.id, "name": room_display_name(room.id), "type": room.type, "floor": room.floor,
                          "parent": room.parent if params.nesting else None, "environment": environments[room.id]})
        numbers: Counter[str] = Counter()
        for device_type in _room_device_types(room, counts[room.id], params, seed):
            numbers[device_type] += 1
            device_id = f"{room.id}_{device_type}_{numbers[device_type]}"
            attributes = (initial_attributes(device_type, random.Random(sub_seed(seed, "state", device_id)))
                          if params.initial_state else {})
            device_data.append({"id": device_id, "type": device_type, "room": room.id, "attributes": attributes})
    label = tier or params.layout
    return validate_home({
        "name": f"{label}-{seed}", "seed": seed, "tier": tier, "base_time": base_time, "rooms": room_data,
        "devices": device_data, "extensions": {
            "generator": {"params": params.model_dump(mode="json")},
            # Our homes have days and nights: daylight follows the sun (emulator/daylight.py) and rooms exchange
            # heat with a daily outdoor swing (late-August defaults: 24 °C ± 5 °C).
            "physics": {"daylight": "sun", "latitude_deg": params.latitude_deg, "outdoor": "daily",
                        "outdoor_mean": 2400.0, "outdoor_amplitude": 500.0}},
    }, f"<generated {label} home, seed {seed}>")


def tier_params(tier: str, **overrides: Any) -> GeneratorParams:
    """The parameters of a named tier with ``overrides`` applied (validated)."""
    if tier not in TIERS:
        raise GeneratorError(f"unknown tier {tier!r}; known tiers: {', '.join(TIERS)}")
    try:
        return GeneratorParams.model_validate({**TIERS[tier].model_dump(), **overrides})
    except ValidationError as error:
        problems = "; ".join(f"{path}: {message}" for path, message in validation_problems(error))
        raise GeneratorError(f"invalid parameters for tier {tier!r}: {problems}") from None


def generate_home(tier: str, seed: int, **overrides: Any) -> HomeConfig:
    """A home of the named tier (see ``TIERS``), e.g. ``generate_home("complex", 7)``."""
    return generate(tier_params(tier, **overrides), seed, tier=tier)


# --- summary -------------------------------------------------------------------------------------

class FloorSummary(BaseModel):
    rooms: int
    devices: int


class HomeSummary(BaseModel):
    name: str
    tier: str | None
    seed: int | None
    rooms: int
    devices: int
    device_types: int
    nested_rooms: int
    devices_by_type: dict[str, int]  # most common first
    rooms_by_type: dict[str, int]
    floors: dict[int, FloorSummary]  # lowest floor first

    def lines(self) -> list[str]:
        """Plain-text summary, one fact per line, for the command line."""
        out = [
            f"home {self.name} (tier {self.tier or '-'}, seed {self.seed if self.seed is not None else '-'})",
            f"rooms: {self.rooms} ({self.nested_rooms} nested)",
            f"devices: {self.devices} of {self.device_types} types",
        ]
        out += [f"  floor {floor}: {f.rooms} rooms, {f.devices} devices" for floor, f in self.floors.items()]
        out += [f"  {device_type}: {count}" for device_type, count in self.devices_by_type.items()]
        return out


def summarize_home(config: HomeConfig) -> HomeSummary:
    floor_of = {room.id: room.floor for room in config.rooms}
    by_type = Counter(device.type for device in config.devices)
    room_types = Counter(room.type for room in config.rooms)
    floors: dict[int, FloorSummary] = {}
    for floor in sorted(set(floor_of.values())):
        floors[floor] = FloorSummary(
            rooms=sum(1 for f in floor_of.values() if f == floor),
            devices=sum(1 for d in config.devices if floor_of[d.room] == floor))
    return HomeSummary(
        name=config.name, tier=config.tier, seed=config.seed, rooms=len(config.rooms), devices=len(config.devices),
        device_types=len(by_type), nested_rooms=sum(1 for room in config.rooms if room.parent is not None),
        devices_by_type=dict(sorted(by_type.items(), key=lambda item: (-item[1], item[0]))),
        rooms_by_type=dict(sorted(room_types.items(), key=lambda item: (-item[1], item[0]))),
        floors=floors,
    )

