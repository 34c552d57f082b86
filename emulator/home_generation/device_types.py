"""Device types the generator places, and which of them go in which room type (facts §7.3)."""

from __future__ import annotations

from typing import Literal

from emulator.home_generation.errors import GeneratorError

SIMUHOME_DEVICE_TYPES = (
    "on_off_light",
    "dimmable_light",
    "air_conditioner",
    "air_purifier",
    "fan",
    "humidifier",
    "dehumidifier",
    "heat_pump",
    "tv",
    "window_covering_controller",
    "dishwasher",
    "laundry_washer",
    "laundry_dryer",
    "rvc",
    "freezer",
    "refrigerator",
)
# In SimuHome's factory but never placed in its benchmark homes.
SIMUHOME_FACTORY_ONLY_TYPES = ("electrical_sensor",)
OUR_DEVICE_TYPES = (
    "color_temperature_light",
    "extended_color_light",
    "fan_light",
    "climate_sensor",
    "occupancy_sensor",
    "contact_sensor",
    "smart_speaker",
    "smart_screen",
    "water_heater",
    "door_lock",
    "curtain",
    "blind",
    "oven",
    "microwave_oven",
    "smart_plug",
    "thermostat",
    "smoke_co_alarm",
    "air_quality_sensor",
    "light_sensor",
    "water_leak_detector",
)
ALL_DEVICE_TYPES = SIMUHOME_DEVICE_TYPES + SIMUHOME_FACTORY_ONLY_TYPES + OUR_DEVICE_TYPES

_SIMUHOME_BASE = (
    "air_conditioner",
    "air_purifier",
    "dehumidifier",
    "dimmable_light",
    "fan",
    "heat_pump",
    "on_off_light",
    "window_covering_controller",
)

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
    "living_room": (
        "color_temperature_light",
        "extended_color_light",
        "fan_light",
        "climate_sensor",
        "occupancy_sensor",
        "contact_sensor",
        "smart_speaker",
        "smart_screen",
        "curtain",
        "blind",
        "smart_plug",
        "thermostat",
        "smoke_co_alarm",
        "air_quality_sensor",
        "light_sensor",
    ),
    "bedroom": (
        "color_temperature_light",
        "extended_color_light",
        "fan_light",
        "climate_sensor",
        "occupancy_sensor",
        "contact_sensor",
        "smart_speaker",
        "curtain",
        "blind",
        "smart_plug",
        "thermostat",
        "smoke_co_alarm",
    ),
    "kids_room": (
        "extended_color_light",
        "fan_light",
        "climate_sensor",
        "contact_sensor",
        "smart_speaker",
        "curtain",
        "blind",
        "smart_plug",
        "smoke_co_alarm",
        "air_quality_sensor",
    ),
    "study_room": (
        "color_temperature_light",
        "climate_sensor",
        "occupancy_sensor",
        "smart_speaker",
        "smart_screen",
        "blind",
        "smart_plug",
        "light_sensor",
    ),
    "office": (
        "color_temperature_light",
        "climate_sensor",
        "occupancy_sensor",
        "contact_sensor",
        "smart_speaker",
        "smart_screen",
        "blind",
        "smart_plug",
        "light_sensor",
    ),
    "dining_room": (
        "color_temperature_light",
        "extended_color_light",
        "curtain",
        "blind",
        "smart_plug",
        "smart_speaker",
    ),
    "kitchen": (
        "color_temperature_light",
        "oven",
        "microwave_oven",
        "smart_plug",
        "smart_screen",
        "smart_speaker",
        "smoke_co_alarm",
        "water_leak_detector",
        "air_quality_sensor",
        "contact_sensor",
    ),
    "bathroom": ("climate_sensor", "occupancy_sensor", "water_leak_detector", "smart_speaker", "blind"),
    "utility_room": (
        "water_heater",
        "water_leak_detector",
        "smart_plug",
        "climate_sensor",
        "contact_sensor",
        "electrical_sensor",
    ),
}
# Room types SimuHome does not have (used by the bigger layouts).
NEW_ROOM_CANDIDATES: dict[str, tuple[str, ...]] = {
    "entrance": (
        "on_off_light",
        "dimmable_light",
        "door_lock",
        "contact_sensor",
        "occupancy_sensor",
        "smart_screen",
        "smoke_co_alarm",
        "light_sensor",
    ),
    "hallway": ("on_off_light", "dimmable_light", "occupancy_sensor", "smoke_co_alarm", "light_sensor", "rvc"),
    "garage": (
        "on_off_light",
        "door_lock",
        "window_covering_controller",
        "contact_sensor",
        "occupancy_sensor",
        "smart_plug",
        "electrical_sensor",
        "smoke_co_alarm",
        "freezer",
        "dehumidifier",
        "fan",
    ),
    "basement": (
        "on_off_light",
        "dehumidifier",
        "water_heater",
        "water_leak_detector",
        "electrical_sensor",
        "freezer",
        "laundry_washer",
        "laundry_dryer",
        "smart_plug",
        "climate_sensor",
        "smoke_co_alarm",
        "heat_pump",
        "fan",
    ),
    "balcony": (
        "on_off_light",
        "dimmable_light",
        "window_covering_controller",
        "curtain",
        "blind",
        "climate_sensor",
        "light_sensor",
        "fan",
        "contact_sensor",
    ),
    "terrace": (
        "on_off_light",
        "dimmable_light",
        "curtain",
        "climate_sensor",
        "light_sensor",
        "smart_speaker",
        "smart_plug",
    ),
    "walk_in_closet": (
        "on_off_light",
        "dimmable_light",
        "occupancy_sensor",
        "dehumidifier",
        "air_purifier",
        "smart_plug",
        "contact_sensor",
    ),
    "toilet": (
        "on_off_light",
        "dimmable_light",
        "fan",
        "air_purifier",
        "occupancy_sensor",
        "water_leak_detector",
        "dehumidifier",
    ),
    "home_gym": (
        "on_off_light",
        "dimmable_light",
        "fan",
        "air_conditioner",
        "air_purifier",
        "dehumidifier",
        "smart_speaker",
        "smart_screen",
        "climate_sensor",
        "air_quality_sensor",
        "occupancy_sensor",
        "tv",
    ),
    "media_room": (
        "on_off_light",
        "dimmable_light",
        "extended_color_light",
        "tv",
        "smart_speaker",
        "smart_screen",
        "curtain",
        "blind",
        "air_conditioner",
        "fan",
        "occupancy_sensor",
    ),
    "pantry": ("on_off_light", "refrigerator", "freezer", "smart_plug", "climate_sensor", "occupancy_sensor"),
    "storage_room": (
        "on_off_light",
        "dehumidifier",
        "occupancy_sensor",
        "smart_plug",
        "contact_sensor",
        "water_leak_detector",
    ),
    "attic": (
        "on_off_light",
        "fan",
        "dehumidifier",
        "climate_sensor",
        "smoke_co_alarm",
        "window_covering_controller",
        "heat_pump",
    ),
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
