"""Small constructors that keep the catalogue tables readable."""

from __future__ import annotations

from typing import Any

import clusters.official as Objects
from emulator.catalogue.spec import ClusterSpec, EndpointSpec

# Official device-type ids (python-matter-server's matter_server.client.models.device_types) with
# the revisions we implement.
ON_OFF_LIGHT = (0x0100, 3)
DIMMABLE_LIGHT = (0x0101, 3)
COLOR_TEMPERATURE_LIGHT = (0x010C, 4)
EXTENDED_COLOR_LIGHT = (0x010D, 4)
ON_OFF_PLUG_IN_UNIT = (0x010A, 3)
ROOM_AIR_CONDITIONER = (0x0072, 2)
AIR_PURIFIER = (0x002D, 2)
FAN = (0x002B, 2)
HUMIDITY_SENSOR = (0x0307, 2)
TEMPERATURE_SENSOR = (0x0302, 2)
LIGHT_SENSOR = (0x0106, 3)
OCCUPANCY_SENSOR = (0x0107, 4)
CONTACT_SENSOR = (0x0015, 1)
AIR_QUALITY_SENSOR = (0x002C, 1)
WATER_LEAK_DETECTOR = (0x0043, 1)
SMOKE_CO_ALARM = (0x0076, 1)
HEAT_PUMP = (0x0309, 1)
POWER_SOURCE = (0x0011, 1)
ELECTRICAL_SENSOR = (0x0510, 1)
DEVICE_ENERGY_MANAGEMENT = (0x050D, 1)
THERMOSTAT = (0x0301, 3)
WATER_HEATER = (0x050F, 1)
BASIC_VIDEO_PLAYER = (0x0028, 2)
CASTING_VIDEO_PLAYER = (0x0023, 2)
SPEAKER = (0x0022, 1)
WINDOW_COVERING = (0x0202, 3)
DOOR_LOCK = (0x000A, 3)
DISHWASHER = (0x0075, 1)
LAUNDRY_WASHER = (0x0073, 1)
LAUNDRY_DRYER = (0x007C, 1)
ROBOTIC_VACUUM_CLEANER = (0x0074, 3)
REFRIGERATOR = (0x0070, 2)
TEMPERATURE_CONTROLLED_CABINET = (0x0071, 3)
OVEN = (0x007B, 2)
MICROWAVE_OVEN = (0x0079, 1)
PRESSURE_SENSOR = (0x0305, 2)
FLOW_SENSOR = (0x0306, 2)
RAIN_SENSOR = (0x0044, 1)
WATER_FREEZE_DETECTOR = (0x0041, 1)
WATER_VALVE = (0x0042, 1)
PUMP = (0x0303, 3)
PUMP_CONTROLLER = (0x0304, 4)
ON_OFF_LIGHT_SWITCH = (0x0103, 3)
DIMMER_SWITCH = (0x0104, 3)
COLOR_DIMMER_SWITCH = (0x0105, 3)
GENERIC_SWITCH = (0x000F, 3)
DIMMABLE_PLUG_IN_UNIT = (0x010B, 4)
MODE_SELECT = (0x0027, 1)
VIDEO_REMOTE_CONTROL = (0x002A, 2)
DOOR_LOCK_CONTROLLER = (0x000B, 3)
COOKTOP = (0x0078, 1)
COOK_SURFACE = (0x0077, 1)
EXTRACTOR_HOOD = (0x007A, 1)
SOLAR_POWER = (0x0017, 1)
BATTERY_STORAGE = (0x0018, 1)
ENERGY_EVSE = (0x050C, 2)


def feature(cluster: str, *names: str) -> int:
    """Feature-map bits by their official names, e.g. feature("OnOff", "Lighting")."""
    bitmap = getattr(Objects, cluster).Bitmaps.Feature
    value = 0
    for name in names:
        value |= int(getattr(bitmap, f"k{name}"))
    return value


def cluster(name: str, *features: str, options: dict[str, Any] | None = None, **values: Any) -> ClusterSpec:
    return ClusterSpec(name, feature(name, *features) if features else None, values, options or {})


def endpoint(
    endpoint_id: int,
    device_types: list[tuple[int, int]] | tuple[int, int],
    *clusters: ClusterSpec,
    compat: tuple[str, ...] = (),
) -> EndpointSpec:
    types = (device_types,) if isinstance(device_types, tuple) else tuple(device_types)
    return EndpointSpec(endpoint_id, types, tuple(clusters), frozenset(compat))
