"""SimuHome's home config (``initial_home_config`` / reset body) ⇄ our HomeConfig, losslessly.

SimuHome rooms are a flat map ``room_id → {state, devices}``; attribute values are stored raw, with
SimuHome's own spellings of struct keys (``ModeTags``, ``operational_state_id``, PascalCase channel
objects) and of a few cluster ids (``RVCRunMode``, ``RTCCMode``). We load them into our spellings (chip
field labels in lowerCamel, chip cluster names) and keep everything original in a ``SimuHomeOrigin``, so
exporting an unchanged home gives back exactly what was loaded: equivalent values are written verbatim,
changed ones in SimuHome's spelling, and whatever we did not load is written back as it was.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from emulator.home_config import (
    ATTRIBUTE_PATH_PATTERN,
    DeviceConfig,
    HomeConfig,
    HomeConfigError,
    RoomConfig,
    room_display_name,
    validate_home,
    validation_problems,
)
from emulator.simuhome.shapes import room_state_shapes
from emulator.simuhome.values import (
    DESCRIPTOR_STRUCTURE,
    SIMUHOME_CLUSTER_TO_CHIP,
    SIMUHOME_KEY_TO_OURS,
    UnreadableValue,
    conform,
    export_value,
    import_value,
    our_key,
    spell_ours,
)

# --- SimuHome's format (facts §1.5, §5.1); unknown fields are kept at every level ----------------

DEFAULT_ROOM_STATE = {"temperature": 2500, "humidity": 5000, "illuminance": 1000, "pm10": 35.0}


class SimuHomeRoomState(BaseModel):
    model_config = ConfigDict(extra="allow")

    temperature: int | float = DEFAULT_ROOM_STATE["temperature"]
    humidity: int | float = DEFAULT_ROOM_STATE["humidity"]
    illuminance: int | float = DEFAULT_ROOM_STATE["illuminance"]
    pm10: int | float = DEFAULT_ROOM_STATE["pm10"]


class SimuHomeDevice(BaseModel):
    model_config = ConfigDict(extra="allow")

    device_id: str
    device_type: str
    attributes: dict[str, Any] = Field(default_factory=dict)


class SimuHomeRoom(BaseModel):
    model_config = ConfigDict(extra="allow")

    state: SimuHomeRoomState | None = None  # absent → SimuHome's aggregator defaults
    devices: list[SimuHomeDevice] = Field(default_factory=list)


class SimuHomeConfig(BaseModel):
    model_config = ConfigDict(extra="allow")

    tick_interval: float = Field(default=0.1, gt=0)
    base_time: str
    rooms: dict[str, SimuHomeRoom] = Field(default_factory=dict)
    enable_aggregators: bool = True
    max_ticks: int | None = None
    fast_forward: bool = False


# --- what an import remembers --------------------------------------------------------------------

class SimuHomeDeviceOrigin(BaseModel):
    device_type: str
    attributes: dict[str, Any]  # every original attribute, SimuHome path → value, verbatim and in order
    not_loaded: list[str] = Field(default_factory=list)  # paths we could not express in our format
    normalised: dict[str, list[str]] = Field(default_factory=dict)  # path → normalisations applied on import
    extra: dict[str, Any] = Field(default_factory=dict)  # unknown device fields
    key_order: list[str] = Field(default_factory=list)


class SimuHomeRoomOrigin(BaseModel):
    state: dict[str, Any] | None  # verbatim original state; None when the room had none
    extra: dict[str, Any] = Field(default_factory=dict)  # unknown room fields
    key_order: list[str] = Field(default_factory=list)


class SimuHomeOrigin(BaseModel):
    """Everything needed to write a loaded SimuHome config back unchanged (JSON-serialisable)."""

    top_level: dict[str, Any]  # every top-level field except rooms, verbatim
    key_order: list[str]  # the original top-level key order, rooms included
    room_order: list[str]
    rooms: dict[str, SimuHomeRoomOrigin]
    devices: dict[str, SimuHomeDeviceOrigin]

    def normalisation_counts(self) -> dict[str, int]:
        """How many attribute values each normalisation was applied to (emulator.simuhome.values)."""
        counts: dict[str, int] = {}
        for device in self.devices.values():
            for names in device.normalised.values():
                for name in names:
                    counts[name] = counts.get(name, 0) + 1
        return dict(sorted(counts.items()))


# --- spellings -----------------------------------------------------------------------------------

CHIP_CLUSTER_TO_SIMUHOME = {chip: simu for simu, chip in SIMUHOME_CLUSTER_TO_CHIP.items()}

OUR_KEY_TO_SIMUHOME = {ours: simu for simu, ours in SIMUHOME_KEY_TO_OURS.items()}

# How SimuHome spells struct keys per cluster when no original value shows it (facts §2.2).
KeyStyle = Literal["camel", "pascal", "snake"]
SIMUHOME_KEY_STYLE: dict[str, KeyStyle] = {
    "Channel": "pascal",
    "Descriptor": "pascal",
    "RvcRunMode": "pascal",
    "OperationalState": "snake",
    "RvcOperationalState": "snake",
    "DeviceEnergyManagement": "snake",
}


def simuhome_key(key: str, cluster: str) -> str:
    """Chip field label → SimuHome's spelling for ``cluster`` (used when no original value shows it)."""
    if key in OUR_KEY_TO_SIMUHOME:
        return OUR_KEY_TO_SIMUHOME[key]
    style = SIMUHOME_KEY_STYLE.get(cluster, "camel")
    if style == "pascal":
        return key[:1].upper() + key[1:]
    if style == "snake":
        return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key).lower()
    return key


# Global attributes describe the server implementation, not device state: our cluster servers own them.
GLOBAL_ATTRIBUTES = frozenset({"FeatureMap", "ClusterRevision", "AttributeList", "AcceptedCommandList",
                               "GeneratedCommandList", "EventList"})


def our_path(path: str) -> str | None:
    """SimuHome attribute path → ours (chip cluster names), or None if we do not load it (kept in the origin)."""
    parts = path.split(".")
    if len(parts) != 3 or parts[2] in GLOBAL_ATTRIBUTES:
        return None
    endpoint, cluster, attribute = parts
    candidate = f"{endpoint}.{SIMUHOME_CLUSTER_TO_CHIP.get(cluster, cluster)}.{attribute}"
    return candidate if ATTRIBUTE_PATH_PATTERN.fullmatch(candidate) else None


def simuhome_path(path: str) -> str:
    endpoint, cluster, attribute = path.split(".")
    return f"{endpoint}.{CHIP_CLUSTER_TO_SIMUHOME.get(cluster, cluster)}.{attribute}"


def _cluster_of(path: str) -> str:
    return path.split(".")[1]


def to_our_value(value: Any) -> Any:
    """SimuHome attribute value → ours: struct keys renamed; bare mode-tag ints become ModeTagStruct."""
    return spell_ours(value)


def to_simuhome_value(value: Any, cluster: str, template: Any = None) -> Any:
    """Our value → SimuHome's spelling, following ``template`` (the original value) where it shows one."""
    if isinstance(value, Mapping):
        spelled = {our_key(k): k for k in template} if isinstance(template, Mapping) else {}
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = spelled.get(key) or simuhome_key(key, cluster)
            sub_template = template[name] if isinstance(template, Mapping) and name in template else None
            out[name] = to_simuhome_value(item, cluster, sub_template)
        return out
    if isinstance(value, list):
        templates = template if isinstance(template, list) else []
        out_list = []
        for index, item in enumerate(value):
            item_template = templates[index] if index < len(templates) else (templates[0] if templates else None)
            if _is_number(item_template) and isinstance(item, Mapping) and set(item) <= {"value", "mfgCode"}:
                out_list.append(item.get("value"))  # SimuHome wrote this mode tag as a bare int
            else:
                out_list.append(to_simuhome_value(item, cluster, item_template))
        return out_list
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def equivalent(a: Any, b: Any) -> bool:
    """Same JSON value, numbers compared by value (1 == 1.0) but never bool vs number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(equivalent(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equivalent(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


# --- import --------------------------------------------------------------------------------------

def parse_simuhome(data: Any, source: str = "<simuhome>") -> SimuHomeConfig:
    """Validate SimuHome config data (an ``initial_home_config`` or reset body); HomeConfigError if invalid."""
    try:
        return SimuHomeConfig.model_validate(data)
    except ValidationError as error:
        raise HomeConfigError(source, validation_problems(error)) from None


def from_simuhome(data: Mapping[str, Any], *, name: str = "simuhome-home",
                  source: str = "<simuhome>") -> tuple[HomeConfig, SimuHomeOrigin]:
    """SimuHome config (or a whole episode holding ``initial_home_config``) → our HomeConfig + its origin."""
    if "initial_home_config" in data and "rooms" not in data:
        data = data["initial_home_config"]
    parsed = parse_simuhome(data, source)
    rooms: list[dict[str, Any]] = []
    devices: list[dict[str, Any]] = []
    room_origins: dict[str, SimuHomeRoomOrigin] = {}
    device_origins: dict[str, SimuHomeDeviceOrigin] = {}
    unreadable: list[tuple[str, str]] = []
    raw_rooms: Mapping[str, Any] = data.get("rooms") or {}
    for room_id, room in parsed.rooms.items():
        raw_room = raw_rooms[room_id]
        state = dict(DEFAULT_ROOM_STATE) if room.state is None else room.state.model_dump(
            include=set(DEFAULT_ROOM_STATE))
        rooms.append({"id": room_id, "name": room_display_name(room_id), "type": room_id, "floor": 0,
                      "environment": state, "baseline": state})
        room_origins[room_id] = SimuHomeRoomOrigin(
            state=dict(raw_room["state"]) if raw_room.get("state") is not None else None,
            extra=dict(room.model_extra or {}), key_order=list(raw_room))
        raw_devices = raw_room.get("devices") or []
        for index, (device, raw_device) in enumerate(zip(room.devices, raw_devices, strict=True)):
            attributes, not_loaded, normalised = _import_attributes(
                device.attributes, f"rooms.{room_id}.devices[{index}].attributes", unreadable)
            devices.append({"id": device.device_id, "type": device.device_type, "room": room_id,
                            "attributes": attributes})
            device_origins[device.device_id] = SimuHomeDeviceOrigin(
                device_type=device.device_type, attributes=dict(device.attributes),
                not_loaded=not_loaded, normalised=normalised, extra=dict(device.model_extra or {}),
                key_order=list(raw_device))
    if unreadable:
        raise HomeConfigError(source, unreadable)
    # SimuHome's physics: window coverings do not change a room's light (its qt2 "saturation"
    # episodes assume that), metered power is constant; everything else follows our default rates, which are
    # SimuHome's.
    config = validate_home({"name": name, "tier": "simuhome", "base_time": parsed.base_time,
                            "rooms": rooms, "devices": devices,
                            "extensions": {"physics": {"covering_blocks_daylight": 0.0,
                                                       "power_follows_mode": False}}}, source)
    top_level = {key: value for key, value in data.items() if key != "rooms"}
    origin = SimuHomeOrigin(top_level=top_level, key_order=list(data), room_order=list(parsed.rooms),
                            rooms=room_origins, devices=device_origins)
    return config, origin


def _import_attributes(raw: dict[str, Any], where: str, unreadable: list[tuple[str, str]]
                       ) -> tuple[dict[str, Any], list[str], dict[str, list[str]]]:
    """One device's SimuHome attributes → (our attributes, paths not loaded, normalisations per path)."""
    attributes: dict[str, Any] = {}
    not_loaded: list[str] = []
    normalised: dict[str, list[str]] = {}
    for path, value in raw.items():
        ours = our_path(path)
        if ours is None:
            not_loaded.append(path)
            continue
        _, cluster, attribute = ours.split(".")
        if cluster == "Descriptor" and attribute in DESCRIPTOR_STRUCTURE:
            not_loaded.append(path)  # the fabric derives the endpoint structure; SimuHome's is written back
            normalised[path] = ["descriptor-structure-kept"]
            continue
        applied: set[str] = set()
        try:
            attributes[ours] = import_value(cluster, attribute, value, raw, applied)
        except UnreadableValue as error:
            unreadable.append((f"{where}[{json.dumps(path)}]{error.where}", error.message))
            continue
        if applied:
            normalised[path] = sorted(applied)
    return attributes, not_loaded, normalised


def _imported(path: str, value: Any, raw: Mapping[str, Any]) -> Any:
    """What the import made of an original value (for "unchanged?" comparisons on export)."""
    ours = our_path(path)
    if ours is None:
        return value
    _, cluster, attribute = ours.split(".")
    try:
        return import_value(cluster, attribute, value, raw, set())
    except UnreadableValue:
        return value


# --- export --------------------------------------------------------------------------------------

def to_simuhome(config_or_state: HomeConfig | Mapping[str, Any], origin: SimuHomeOrigin | None = None, *,
                only_original_attributes: bool = False) -> dict:
    """Our home (a HomeConfig or data in our format) → a SimuHome config dict usable as the reset body.

    With the ``origin`` of an import, whatever is unchanged is written exactly as it was loaded.
    ``only_original_attributes`` writes, for devices that came from SimuHome, only the paths SimuHome had:
    a fabric state carries every attribute of our richer device models, and SimuHome refuses clusters its
    devices lack. Floors, parents, names and our extensions have no SimuHome equivalent and are dropped.
    """
    config = config_or_state if isinstance(config_or_state, HomeConfig) else validate_home(config_or_state)
    origin = origin or SimuHomeOrigin(top_level={"tick_interval": 0.1},
                                      key_order=["tick_interval", "base_time", "rooms"],
                                      room_order=[], rooms={}, devices={})
    by_room: dict[str, list[DeviceConfig]] = {room.id: [] for room in config.rooms}
    for device in config.devices:
        by_room[device.room].append(device)
    known = {room.id: room for room in config.rooms}
    room_ids = [r for r in origin.room_order if r in known] + [r for r in known if r not in origin.rooms]
    rooms_out = {room_id: _export_room(known[room_id], by_room[room_id], origin, only_original_attributes)
                 for room_id in room_ids}

    return _in_order({**origin.top_level, "base_time": config.base_time, "rooms": rooms_out}, origin.key_order)


def _in_order(fields: dict[str, Any], key_order: list[str]) -> dict[str, Any]:
    """``fields`` with the original key order first (byte-identical round trips), new keys after."""
    order = [*(key for key in key_order if key in fields), *(key for key in fields if key not in key_order)]
    return {key: fields[key] for key in order}


def _export_room(room: RoomConfig, devices: list[DeviceConfig], origin: SimuHomeOrigin,
                 only_original_attributes: bool) -> dict[str, Any]:
    room_origin = origin.rooms.get(room.id)
    environment = room.environment.model_dump()
    state: dict[str, Any] | None
    if room_origin is not None and room_origin.state is not None:
        original = room_origin.state
        known = {**DEFAULT_ROOM_STATE, **{k: v for k, v in original.items() if k in environment}}
        state = dict(original) if equivalent(known, environment) else \
            {**original, **simuhome_room_state(environment)}
    elif room_origin is not None and equivalent(environment, DEFAULT_ROOM_STATE):
        state = None  # the original room had no state and still sits at SimuHome's defaults
    else:
        state = simuhome_room_state(environment)
    out: dict[str, Any] = {}
    if state is not None:
        out["state"] = state
    exported_devices = [_export_device(device, origin.devices.get(device.id), only_original_attributes)
                        for device in devices]
    if exported_devices or room_origin is None or "devices" in room_origin.key_order:
        out["devices"] = exported_devices
    if room_origin is None:
        return out
    return _in_order({**out, **room_origin.extra}, room_origin.key_order)


def _export_device(device: DeviceConfig, device_origin: SimuHomeDeviceOrigin | None,
                   only_original_attributes: bool) -> dict[str, Any]:
    if device_origin is not None and device_origin.device_type != device.type:
        device_origin = None  # another device under the same id: nothing original applies
    attributes: dict[str, Any] = {}
    written: set[str] = set()
    if device_origin is not None:
        for path, original in device_origin.attributes.items():
            ours = our_path(path)
            if ours is None or ours not in device.attributes:
                attributes[path] = original  # not loaded, or not part of this state: keep as it was
            else:
                current = device.attributes[ours]
                attributes[path] = (original if equivalent(_imported(path, original, device_origin.attributes),
                                                           current)
                                    else _export_value(device, ours, current, original))
                written.add(ours)
    for path, value in device.attributes.items():
        if path not in written and not (only_original_attributes and device_origin is not None):
            attributes[simuhome_path(path)] = _export_value(device, path, value)
    out: dict[str, Any] = {"device_id": device.id, "device_type": device.type, "attributes": attributes}
    if device_origin is None:
        return out
    return _in_order({**out, **device_origin.extra}, device_origin.key_order)


def _export_value(device: DeviceConfig, ours: str, value: Any, original: Any = None) -> Any:
    """A changed or new value in SimuHome's shape for (device type, path) when the inventory knows it, else
    in the original's spelling (or the cluster's usual one)."""
    path = simuhome_path(ours)
    known, shaped = export_value(device.type, path, value, device.attributes)
    return shaped if known else to_simuhome_value(value, _cluster_of(ours), original)


def simuhome_room_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """Room state values in SimuHome's shapes (floats)."""
    shapes = room_state_shapes()
    return {name: conform(value, shapes[name].parsed()[0]) if name in shapes else value
            for name, value in state.items()}
