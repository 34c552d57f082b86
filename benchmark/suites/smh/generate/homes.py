"""Seeded SMH homes over the three tiers (facts §3): small apartments, multi-room homes, and one dense nested
home (31 rooms, 135 devices, 17 device types covering the paper's 12 categories) shared by every complex
instance. Appliances stand only in rooms that take them (an oven in a kitchen, a washer in a utility room or
bathroom).

At most one device of a type per room, so "<room name> <noun>" names every device uniquely. Initial
states are drawn per device from a blake2b sub-seed and written as cluster attribute paths; the fabric
builds the home (and refuses a bad one) before any instance uses it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from emulator.home_config import HomeConfig, validate_home
from emulator.home_generation.seeds import sub_seed

NOUNS: dict[str, str] = {
    "on_off_light": "ceiling light",
    "dimmable_light": "lamp",
    "color_temperature_light": "reading lamp",
    "extended_color_light": "light strip",
    "fan_light": "fan light",
    "fan": "fan",
    "air_conditioner": "AC",
    "curtain": "curtain",
    "blind": "blind",
    "smart_speaker": "speaker",
    "smart_screen": "smart screen",
    "tv": "TV",
    "rvc": "robot cleaner",
    "door_lock": "door lock",
    "climate_sensor": "climate sensor",
    "occupancy_sensor": "motion sensor",
    "smart_plug": "smart plug",
    "water_heater": "water heater",
    "oven": "oven",
    "laundry_washer": "washing machine",
    "laundry_dryer": "dryer",
    "dishwasher": "dishwasher",
    "microwave_oven": "microwave",
    "refrigerator": "fridge",
    "freezer": "freezer",
}
# Opt-in (``water=True``): one main water valve per home and leak sensors by the wet rooms' appliances. Kept out
# of NOUNS so that homes generated without the option stay byte-identical.
WATER_NOUNS: dict[str, str] = {"water_valve": "water valve", "water_leak_detector": "leak sensor"}
ALL_NOUNS: dict[str, str] = {**NOUNS, **WATER_NOUNS}
WATER_GROUPS: tuple[tuple[str, ...], ...] = (("water_valve",), ("water_leak_detector",))
APPLIANCES = (
    "water_heater",
    "oven",
    "laundry_washer",
    "laundry_dryer",
    "dishwasher",
    "microwave_oven",
    "refrigerator",
    "freezer",
)
# Room types an appliance may stand in (every other type may stand anywhere).
APPLIANCE_ROOMS: dict[str, tuple[str, ...]] = {
    "water_heater": ("bathroom", "utility_room", "kitchen", "garage"),
    "oven": ("kitchen",),
    "laundry_washer": ("utility_room", "bathroom"),
    "laundry_dryer": ("utility_room", "bathroom"),
    "dishwasher": ("kitchen",),
    "microwave_oven": ("kitchen",),
    "refrigerator": ("kitchen", "pantry"),
    "freezer": ("kitchen", "pantry", "garage", "utility_room"),
    "water_valve": ("utility_room", "garage", "kitchen"),
    "water_leak_detector": ("kitchen", "bathroom", "utility_room", "toilet"),
}
# The complex home's 17 types (facts §3): the paper's 12 categories, without TV, plug, screen, dryer, dishwasher,
# microwave, fridge and freezer.
COMPLEX_TYPES = tuple(
    t
    for t in NOUNS
    if t
    not in (
        "tv",
        "smart_plug",
        "smart_screen",
        "laundry_dryer",
        "dishwasher",
        "microwave_oven",
        "refrigerator",
        "freezer",
    )
)
LIGHTS = ("on_off_light", "dimmable_light", "color_temperature_light", "extended_color_light")
DIMMABLE = ("dimmable_light", "color_temperature_light", "extended_color_light")
COVERS = ("curtain", "blind")
PLAYERS = ("smart_speaker", "smart_screen", "tv")


@dataclass(frozen=True)
class RoomKind:
    id: str
    type: str
    name: str
    floor: int
    parent: str | None = None


# The complex home's 31 rooms (nested: en-suites and balconies inside bedrooms, a pantry in the kitchen).
ROOMS: tuple[RoomKind, ...] = (
    RoomKind("porch", "entrance", "Porch", 0),
    RoomKind("hall", "hallway", "Hall", 0),
    RoomKind("lounge", "living_room", "Lounge", 0),
    RoomKind("kitchen", "kitchen", "Kitchen", 0),
    RoomKind("pantry", "pantry", "Pantry", 0, "kitchen"),
    RoomKind("dining", "dining_room", "Dining room", 0),
    RoomKind("study", "study_room", "Study", 0),
    RoomKind("den", "media_room", "Den", 0),
    RoomKind("garage", "garage", "Garage", 0),
    RoomKind("utility", "utility_room", "Utility room", 0),
    RoomKind("guest_wc", "toilet", "Guest toilet", 0),
    RoomKind("gym", "home_gym", "Gym", 0),
    RoomKind("terrace", "terrace", "Terrace", 0),
    RoomKind("landing", "hallway", "Landing", 1),
    RoomKind("master_bedroom", "bedroom", "Master bedroom", 1),
    RoomKind("master_bath", "bathroom", "Master bathroom", 1, "master_bedroom"),
    RoomKind("master_closet", "walk_in_closet", "Walk-in closet", 1, "master_bedroom"),
    RoomKind("master_balcony", "balcony", "Master balcony", 1, "master_bedroom"),
    RoomKind("guest_room", "bedroom", "Guest room", 1),
    RoomKind("guest_bath", "bathroom", "Guest bathroom", 1, "guest_room"),
    RoomKind("kids_room", "kids_room", "Kids' room", 1),
    RoomKind("nursery", "kids_room", "Nursery", 1),
    RoomKind("family_bath", "bathroom", "Family bathroom", 1),
    RoomKind("office", "office", "Office", 1),
    RoomKind("library", "study_room", "Library", 1),
    RoomKind("playroom", "kids_room", "Playroom", 1),
    RoomKind("laundry", "utility_room", "Laundry", 1),
    RoomKind("attic", "attic", "Attic", 2),
    RoomKind("loft", "bedroom", "Loft", 2),
    RoomKind("loft_bath", "bathroom", "Loft bathroom", 2, "loft"),
    RoomKind("storage", "storage_room", "Storage room", 2),
)
SMALL_ROOMS = (
    "lounge",
    "kitchen",
    "master_bedroom",
    "study",
    "porch",
    "guest_room",
    "master_bath",
    "kids_room",
    "dining",
)


@dataclass(frozen=True)
class TierShape:
    rooms: tuple[int, int]
    devices: tuple[int, int]


TIER_SHAPES = {
    "simple": TierShape((4, 7), (5, 8)),
    "medium": TierShape((9, 12), (30, 40)),
    "complex": TierShape((31, 31), (135, 135)),
}


def initial_state(device_type: str, rng: random.Random) -> dict[str, Any]:
    """A varied initial state as cluster attribute paths (only values the HomeEnv reads)."""

    def level(percent: int) -> int:
        return round(percent * 254 / 100)

    on = rng.random() < 0.5
    if device_type in LIGHTS:
        out: dict[str, Any] = {"1.OnOff.OnOff": on}
        if device_type in DIMMABLE:
            out["1.LevelControl.CurrentLevel"] = level(rng.randrange(10, 101, 5))
        if device_type in ("color_temperature_light", "extended_color_light"):
            out["1.ColorControl.ColorTemperatureMireds"] = round(1e6 / rng.randrange(2700, 6501, 100))
        return out
    if device_type == "fan_light":
        fan_on = rng.random() < 0.5
        return {
            "1.OnOff.OnOff": on,
            "1.LevelControl.CurrentLevel": level(rng.randrange(10, 101, 5)),
            "2.OnOff.OnOff": fan_on,
            "2.FanControl.FanMode": rng.choice((1, 2)) if fan_on else 0,
        }
    if device_type == "fan":
        return {"1.OnOff.OnOff": on, "1.FanControl.FanMode": rng.choice((1, 2)) if on else 0}
    if device_type == "air_conditioner":
        return {
            "1.OnOff.OnOff": on,
            "1.Thermostat.SystemMode": rng.choice((3, 4)) if on else 0,
            "1.Thermostat.OccupiedCoolingSetpoint": rng.randrange(2200, 2801, 50),
            "1.Thermostat.OccupiedHeatingSetpoint": rng.randrange(1800, 2301, 50),
        }
    if device_type in COVERS:
        position = rng.randrange(0, 101, 10)
        closed = (100 - position) * 100
        return {
            "1.WindowCovering.TargetPositionLiftPercent100ths": closed,
            "1.WindowCovering.CurrentPositionLiftPercent100ths": closed,
        }
    if device_type in PLAYERS:
        return {
            "1.OnOff.OnOff": on,
            "1.LevelControl.CurrentLevel": level(rng.randrange(10, 81, 5)),
            "1.MediaPlayback.CurrentState": rng.choice((0, 1, 2)) if on else 2,
        }
    if device_type == "door_lock":
        return {"1.DoorLock.LockState": rng.choice((1, 1, 2))}
    if device_type == "occupancy_sensor":
        return {"1.OccupancySensing.Occupancy": rng.choice((0, 1))}
    if device_type == "rvc":
        return {"1.RvcOperationalState.OperationalState": 0x42}
    if device_type == "smart_plug":
        return {"1.OnOff.OnOff": on}
    if device_type == "water_heater":
        return {
            "1.WaterHeaterMode.CurrentMode": rng.choice((0, 1, 2)),
            "1.Thermostat.OccupiedHeatingSetpoint": rng.randrange(4000, 6501, 100),
            "1.WaterHeaterManagement.TankPercentage": rng.randrange(20, 81, 10),
        }
    if device_type == "oven":
        return {
            "2.OvenMode.CurrentMode": rng.choice((0, 1, 2, 3)),
            "2.TemperatureControl.TemperatureSetpoint": rng.randrange(15000, 22001, 500),
        }
    if device_type in ("laundry_washer", "laundry_dryer", "dishwasher"):
        out = {"1.OnOff.OnOff": on}
        if device_type == "laundry_washer":
            out.update(
                {
                    "1.LaundryWasherMode.CurrentMode": rng.choice((0, 1, 2, 3)),
                    "1.TemperatureControl.TemperatureSetpoint": rng.choice((2000, 3000, 4000, 6000)),
                    "1.LaundryWasherControls.SpinSpeedCurrent": rng.choice((0, 1, 2)),
                    "1.LaundryWasherControls.NumberOfRinses": rng.choice((1, 2)),
                }
            )
        elif device_type == "laundry_dryer":
            out["1.LaundryDryerControls.SelectedDrynessLevel"] = rng.choice((0, 1, 2, 3))
        else:
            out["1.DishwasherMode.CurrentMode"] = rng.choice((0, 1, 2, 3))
        return out
    if device_type == "microwave_oven":
        return {
            "1.MicrowaveOvenMode.CurrentMode": rng.choice((0, 0, 1)),
            "1.MicrowaveOvenControl.CookTime": rng.choice((30, 60, 90, 120, 180, 300)),
            "1.MicrowaveOvenControl.PowerSetting": rng.randrange(50, 101, 10),
        }
    if device_type == "water_valve":
        return {"1.ValveConfigurationAndControl.CurrentState": 1 if rng.random() < 0.8 else 0}
    if device_type == "water_leak_detector":
        return {"1.BooleanState.StateValue": rng.random() < 0.3}
    if device_type in ("refrigerator", "freezer"):
        setpoint = rng.randrange(300, 701, 100) if device_type == "refrigerator" else rng.randrange(-2200, -1499, 100)
        return {
            "1.TemperatureControl.TemperatureSetpoint": setpoint,
            "1.TemperatureMeasurement.MeasuredValue": setpoint,
            "1.RefrigeratorAndTemperatureControlledCabinetMode.CurrentMode": rng.choice((0, 0, 1)),
        }
    return {}


def _environment(rng: random.Random) -> dict[str, int]:
    return {
        "temperature": rng.randrange(1600, 3101, 10),
        "humidity": rng.randrange(3000, 8501, 10),
        "illuminance": rng.randrange(50, 801, 10),
        "pm10": rng.randrange(5, 60),
    }


def fits(room_type: str, device_type: str) -> bool:
    return room_type in APPLIANCE_ROOMS.get(device_type, (room_type,))


BASE_TIME = "2025-06-27 20:00:00"  # a Friday evening: one-off rules ("tonight at 22:00") resolve against it


def build_home(
    name: str, tier: str, seed: int, required: tuple[tuple[str, ...], ...] = (), *, water: bool = False
) -> HomeConfig:
    """A home of ``tier`` holding every group in ``required``, each group's types together in one room; with
    ``water``, also exactly one water valve and at least one leak sensor."""
    rng = random.Random(sub_seed(seed, "smh-home", name))
    shape = TIER_SHAPES[tier]
    if tier == "complex":
        rooms = list(ROOMS)
    else:
        pool = [r for r in ROOMS if r.parent is None] if tier == "medium" else [r for r in ROOMS if r.id in SMALL_ROOMS]
        rooms = sorted(rng.sample(pool, rng.randint(*shape.rooms)), key=lambda r: ROOMS.index(r))
        rooms = [RoomKind(r.id, r.type, r.name, r.floor, None) for r in rooms]
    types = (COMPLEX_TYPES if tier == "complex" else tuple(NOUNS)) + (tuple(WATER_NOUNS) if water else ())
    if water:
        required = (*required, *WATER_GROUPS)
    slots = [(r.id, t) for r in rooms for t in types if fits(r.type, t)]
    placed: list[tuple[str, str]] = []
    for group in required:
        free = [r.id for r in rooms if all((r.id, t) not in placed and fits(r.type, t) for t in group)]
        if not free:
            raise ValueError(f"no free room for {group} in a {tier} home")
        room_id = rng.choice(free)
        placed += [(room_id, t) for t in group]
    total = max(len(placed), rng.randint(*shape.devices))
    rest = [s for s in slots if s not in placed and s[1] != "water_valve"]  # one main valve: never a filler
    placed += rng.sample(rest, total - len(placed))
    placed.sort(key=lambda s: (next(i for i, r in enumerate(rooms) if r.id == s[0]), list(ALL_NOUNS).index(s[1])))
    names = {r.id: r.name for r in rooms}
    devices = [
        {
            "id": f"{room}-{ALL_NOUNS[t].replace(' ', '_').lower()}",
            "type": t,
            "room": room,
            "name": f"{names[room]} {ALL_NOUNS[t]}",
            "attributes": initial_state(t, random.Random(sub_seed(seed, name, room, t))),
        }
        for room, t in placed
    ]
    return validate_home(
        {
            "name": name,
            "seed": seed,
            "tier": tier,
            "base_time": BASE_TIME,
            "rooms": [
                {
                    "id": r.id,
                    "name": r.name,
                    "type": r.type,
                    "floor": r.floor,
                    "parent": r.parent,
                    "environment": _environment(random.Random(sub_seed(seed, name, "env", r.id))),
                }
                for r in rooms
            ],
            "devices": devices,
        },
        f"<smh {tier} home {name}>",
    )
