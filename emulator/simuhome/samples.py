"""SimuHome homes built from the shape inventory: every (device type, path, shape) it lists, on a device.

The inventory holds types and ranges, not values. A value is made from its shape: numbers take the ends of the
inventory's range, strings and lists take SimuHome's documented contents where a device needs them to be
coherent (mode tables, phase lists, tag names: facts §2.2), anything else a neutral filler. Each device type
gets *variants* so that every listed shape and both ends of every range occur: the variants run through every
combination of the shapes of its multi-shape paths (at least two), and variant ``v`` takes the low (even ``v``)
or high (odd ``v``) end of each range; combinations SimuHome's device rules never produce (a phase without a
phase list) are settled.

Used by the inventory tests and by ``scripts/simuhome_inventory_homes.py`` (episode files for
``homefabric episodes import``).
"""

from __future__ import annotations

import copy
from typing import Any

from emulator.simuhome.shapes import PathShapes, Shape, parse_shape, shape_of, shape_table

BASE_TIME = "2025-08-23 14:00:00"
ROOM_STATE = {"temperature": 2650.0, "humidity": 5200.0, "illuminance": 420.5, "pm10": 38.25}

# (label, Matter mode tags): the mode-specific tags 0x4000.. and the common ones (Quick 1, Quiet 2, LowEnergy 4).
_DISHWASHER_MODES = (
    ("Normal", 0x4000),
    ("Heavy Duty", 0x4001),
    ("Light Wash", 0x4002),
    ("Quick Wash", 1),
    ("Low Energy", 4),
    ("Silent", 2),
)
_WASHER_MODES = (
    ("Normal", 0x4000),
    ("Delicate", 0x4001),
    ("Heavy", 0x4002),
    ("Whites", 0x4003),
    ("Quick Normal", 1),
    ("Heavy Whites", 0x4002),
)
# SimuHome's documented contents (facts §2.2) for lists and structs whose entries must be coherent.
_CONTENT: dict[tuple[str, str], Any] = {
    ("dishwasher", "1.OperationalState.PhaseList"): ["Pre-wash", "Main wash", "Rinse", "Dry", "Complete"],
    ("laundry_washer", "1.OperationalState.PhaseList"): ["Pre-wash", "Main wash", "Rinse", "Spin", "Complete"],
    ("laundry_dryer", "1.OperationalState.PhaseList"): ["Heating", "Drying", "CoolDown", "Complete"],
    ("rvc", "1.RVCOperationalState.PhaseList"): ["Cleaning", "SeekingCharger", "Docked"],
    ("dishwasher", "1.DishwasherMode.SupportedModes"): [
        (label, i, [tag]) for i, (label, tag) in enumerate(_DISHWASHER_MODES)
    ],
    ("laundry_washer", "1.LaundryWasherMode.SupportedModes"): [
        (label, i, [tag]) for i, (label, tag) in enumerate(_WASHER_MODES)
    ],
    ("rvc", "1.RVCRunMode.SupportedModes"): [("Idle", 1, [0x4000]), ("Vacuum", 2, [0x4001]), ("Mapping", 3, [0x4002])],
    ("rvc", "1.RVCCleanMode.SupportedModes"): [
        ("Vacuum", 1, [0x4001]),
        ("Deep Clean", 2, [0x4002]),
        ("Mop", 3, [0x4003]),
    ],
    ("freezer", "1.RTCCMode.SupportedModes"): [
        ("Normal", 0, [0]),
        ("Energy Save", 4, [4]),
        ("Rapid Cool", 0x4000, [0x4000]),
        ("Rapid Freeze", 0x4001, [0x4001]),
    ],
    ("refrigerator", "1.RTCCMode.SupportedModes"): [
        ("Normal", 0, [0]),
        ("Energy Save", 4, [4]),
        ("Rapid Cool", 0x4000, [0x4000]),
        ("Rapid Freeze", 0x4001, [0x4001]),
    ],
    ("rvc", "1.RVCOperationalState.OperationalStateList"): [0, 1, 2, 3, 0x40, 0x41, 0x42],
    ("laundry_dryer", "1.LaundryDryerControls.SupportedDrynessLevels"): [0, 1, 2, 3],
    ("heat_pump", "1.Descriptor.TagList"): ["Grid"],
    ("heat_pump", "2.Descriptor.TagList"): ["ElectricalSensor"],
    ("heat_pump", "3.Descriptor.TagList"): ["EnergyManagement"],
    ("heat_pump", "4.Descriptor.TagList"): ["RoomThermostat"],
    ("freezer", "1.Descriptor.TagList"): ["Freezer"],
    ("refrigerator", "1.Descriptor.TagList"): ["Refrigerator"],
}
# Washer spin speeds / rinses differ per variant (SimuHome's per-mode tables: Normal, Heavy Whites).
_WASHER_OPTIONS = [([0, 1, 2], [0, 1, 2], 1), ([2, 3], [2, 3], 2)]
_CHANNELS = [(1, "KBS1"), (2, "KBS2"), (3, "MBC"), (4, "SBS"), (5, "EBS")]
_OPERATIONAL_STATES = [0, 1, 2, 3]


def _channel(shape: Shape, major: int, name: str) -> dict[str, Any]:
    known = {
        "MajorNumber": major,
        "MinorNumber": 0,
        "Name": name,
        "CallSign": name,
        "AffiliateCallSign": name,
        "Identifier": name.lower(),
        "Type": 2,
    }
    return {key: known[key] if key in known else filler(sub, 0) for key, sub in shape.fields}


def _mode(shape: Shape, label: str, mode: int, tags: list[int]) -> dict[str, Any]:
    known = {"label": label, "Label": label, "mode": mode, "Mode": mode, "ModeTags": tags}
    return {key: known.get(key, filler(sub, 0)) for key, sub in shape.fields}


def filler(shape: Shape, end: int, low: Any = None, high: Any = None) -> Any:
    """A neutral value of ``shape``: the low (end 0) or high end of a range, 0/"x"/false, empty lists."""
    if shape.kind == "null":
        return None
    if shape.kind == "bool":
        return bool(end % 2)
    if shape.kind in ("int", "float"):
        value = (low if end % 2 == 0 else high) if low is not None else 0
        return float(value) if shape.kind == "float" else int(value)
    if shape.kind == "str":
        return "x"
    if shape.kind == "list":
        return [] if shape.item is None else [filler(shape.item, end)]
    return {key: filler(sub, end) for key, sub in shape.fields}


def sample_value(entry: PathShapes, shape_text: str, variant: int) -> Any:
    """A value of one inventory shape at (device type, path) for ``variant``."""
    shape = parse_shape(shape_text)
    key = (entry.device_type, entry.path)
    cluster, attribute = entry.path.split(".")[1:]
    if shape.kind in ("null", "bool") or (shape.kind in ("int", "float") and entry.minimum is not None):
        return filler(shape, variant, entry.minimum, entry.maximum)
    if key == ("laundry_washer", "1.LaundryWasherControls.SpinSpeeds"):
        return list(_WASHER_OPTIONS[variant % 2][0])
    if key == ("laundry_washer", "1.LaundryWasherControls.SupportedRinses"):
        return list(_WASHER_OPTIONS[variant % 2][1])
    if attribute == "SupportedModes" and shape.item is not None:
        return [_mode(shape.item, *mode) for mode in _CONTENT[key]]
    if attribute == "OperationalStateList" and shape.item is not None:
        ids = _CONTENT.get(key, _OPERATIONAL_STATES)
        return [{name: state for name, _ in shape.item.fields} for state in ids]
    if cluster == "Channel" and attribute == "ChannelList" and shape.item is not None:
        return [_channel(shape.item, *channel) for channel in _CHANNELS]
    if cluster == "Channel" and attribute == "CurrentChannel":
        return _channel(shape, *_CHANNELS[variant % len(_CHANNELS)])
    if key in _CONTENT and shape.kind == "list":
        return copy.deepcopy(_CONTENT[key])
    if cluster == "BasicInformation" and shape.kind == "str":
        return entry.device_type.replace("_", " ").title() if attribute == "ProductName" else "SimuHome"
    return filler(shape, variant)


def _consistent(device_type: str, attributes: dict[str, Any]) -> dict[str, Any]:
    """Settle combinations SimuHome's device rules never produce (a phase without a phase list, a washer
    spin speed outside its speed list)."""
    for cluster in ("OperationalState", "RVCOperationalState"):
        if attributes.get(f"1.{cluster}.PhaseList", []) is None:  # never run: no phase, no countdown
            attributes[f"1.{cluster}.CurrentPhase"] = None
            attributes[f"1.{cluster}.CountdownTime"] = None
    if device_type == "laundry_washer":
        speeds = attributes.get("1.LaundryWasherControls.SpinSpeeds")
        current = attributes.get("1.LaundryWasherControls.SpinSpeedCurrent")
        if isinstance(speeds, list) and current not in speeds:
            attributes["1.LaundryWasherControls.SpinSpeedCurrent"] = speeds[0]
        rinses = attributes.get("1.LaundryWasherControls.SupportedRinses")
        if isinstance(rinses, list) and attributes.get("1.LaundryWasherControls.NumberOfRinses") not in rinses:
            attributes["1.LaundryWasherControls.NumberOfRinses"] = rinses[0]
    return attributes


def _multi_shape_paths(device_type: str) -> list[PathShapes]:
    return [entry for entry in shape_table()[device_type].values() if len(entry.shapes) > 1]


def variant_count(device_type: str) -> int:
    """Every combination of the shapes of multi-shape paths (at least two: both ends of every range)."""
    count = 1
    for entry in _multi_shape_paths(device_type):
        count *= len(entry.shapes)
    return max(2, count)


def device_attributes(device_type: str, variant: int) -> dict[str, Any]:
    """Every inventory path of ``device_type`` with a value of the variant's shape, in inventory order."""
    choice: dict[str, int] = {}
    stride = 1
    for entry in _multi_shape_paths(device_type):
        choice[entry.path] = (variant // stride) % len(entry.shapes)
        stride *= len(entry.shapes)
    attributes = {}
    for path, entry in shape_table()[device_type].items():
        shapes = list(entry.shapes)
        attributes[path] = sample_value(entry, shapes[choice.get(path, 0)], variant)
    return _consistent(device_type, attributes)


def variants(device_type: str) -> list[dict[str, Any]]:
    """The distinct attribute sets of ``device_type`` that together carry every inventory shape."""
    out: list[dict[str, Any]] = []
    for variant in range(variant_count(device_type)):
        attributes = device_attributes(device_type, variant)
        if attributes not in out:
            out.append(attributes)
    return out


def device(device_type: str, attributes: dict[str, Any], room_id: str, number: int = 1) -> dict[str, Any]:
    return {
        "device_id": f"{room_id}_{device_type}_{number}",
        "device_type": device_type,
        "attributes": copy.deepcopy(attributes),
    }


def home(devices: list[dict[str, Any]], room_id: str = "living_room", *, base_time: str = BASE_TIME) -> dict[str, Any]:
    """A SimuHome reset body (``initial_home_config``) with one room holding ``devices``."""
    return {
        "tick_interval": 0.1,
        "base_time": base_time,
        "rooms": {room_id: {"state": dict(ROOM_STATE), "devices": devices}},
    }


def shape_cases() -> list[tuple[str, str, str, dict[str, Any]]]:
    """(device type, path, shape, attributes of a device carrying that shape) for every inventory shape."""
    cases = []
    for device_type, paths in shape_table().items():
        options = variants(device_type)
        for path, entry in paths.items():
            for shape in entry.shapes:
                carrier = next((a for a in options if shape_of(a[path]) == shape), None)
                if carrier is None:
                    raise AssertionError(f"no sample variant of {device_type} carries {path} as {shape}")
                cases.append((device_type, path, shape, carrier))
    return cases


# Where each type sits in the inventory-built homes (rooms where SimuHome's generator puts it, facts §7.3).
PLACEMENT = {
    "living_room": ("on_off_light", "dimmable_light", "window_covering_controller", "tv", "rvc", "air_conditioner"),
    "bathroom": ("air_purifier", "humidifier", "dehumidifier", "laundry_washer", "laundry_dryer"),
    "kitchen": ("dishwasher", "freezer", "refrigerator", "fan"),
    "utility_room": ("heat_pump",),
}


def inventory_homes() -> list[dict[str, Any]]:
    """Four-room homes that together hold every variant of every inventory device type (each type once per
    home, in a room where SimuHome puts it); home ``i`` holds variant ``i`` (modulo the type's count)."""
    by_type = {device_type: variants(device_type) for device_type in shape_table()}
    homes = []
    for index in range(max(len(v) for v in by_type.values())):
        rooms: dict[str, dict[str, Any]] = {}
        for position, (room_id, types) in enumerate(PLACEMENT.items()):
            state = {**ROOM_STATE, "temperature": ROOM_STATE["temperature"] + 25.0 * position}
            rooms[room_id] = {
                "state": state,
                "devices": [
                    device(device_type, by_type[device_type][index % len(by_type[device_type])], room_id)
                    for device_type in types
                ],
            }
        homes.append({"tick_interval": 0.1, "base_time": BASE_TIME, "rooms": rooms})
    return homes
