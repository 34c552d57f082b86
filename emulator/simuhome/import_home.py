"""SimuHome config (or a whole episode) → our HomeConfig plus the origin record that makes export lossless.

SimuHome rooms are a flat map ``room_id → {state, devices}``; attribute values are stored raw, with
SimuHome's own spellings of struct keys (``ModeTags``, ``operational_state_id``, PascalCase channel
objects) and of a few cluster ids (``RVCRunMode``, ``RTCCMode``). We load them into our spellings (chip
field labels in lowerCamel, chip cluster names) and keep everything original in a ``SimuHomeOrigin``
(``emulator.simuhome.export_home`` writes it back).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from emulator.home_config import HomeConfig, HomeConfigError, room_display_name, validate_home
from emulator.simuhome.config import DEFAULT_ROOM_STATE, parse_simuhome
from emulator.simuhome.origin import SimuHomeDeviceOrigin, SimuHomeOrigin, SimuHomeRoomOrigin
from emulator.simuhome.paths import our_path
from emulator.simuhome.values import (
    DESCRIPTOR_STRUCTURE,
    UnreadableValue,
    import_list_or_struct,
    import_value,
    keeps_scalars,
    kept_as_it_is,
)


def from_simuhome(
    data: Mapping[str, Any], *, name: str = "simuhome-home", source: str = "<simuhome>"
) -> tuple[HomeConfig, SimuHomeOrigin]:
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
        state = (
            dict(DEFAULT_ROOM_STATE) if room.state is None else room.state.model_dump(include=set(DEFAULT_ROOM_STATE))
        )
        rooms.append(
            {
                "id": room_id,
                "name": room_display_name(room_id),
                "type": room_id,
                "floor": 0,
                "environment": state,
                "baseline": state,
            }
        )
        room_origins[room_id] = SimuHomeRoomOrigin(
            state=dict(raw_room["state"]) if raw_room.get("state") is not None else None,
            extra=dict(room.model_extra or {}),
            key_order=list(raw_room),
        )
        raw_devices = raw_room.get("devices") or []
        for index, (device, raw_device) in enumerate(zip(room.devices, raw_devices, strict=True)):
            attributes, not_loaded, normalised = _import_attributes(
                device.attributes, f"rooms.{room_id}.devices[{index}].attributes", unreadable
            )
            devices.append(
                {"id": device.device_id, "type": device.device_type, "room": room_id, "attributes": attributes}
            )
            device_origins[device.device_id] = SimuHomeDeviceOrigin(
                device_type=device.device_type,
                attributes=dict(device.attributes),
                not_loaded=not_loaded,
                normalised=normalised,
                extra=dict(device.model_extra or {}),
                key_order=list(raw_device),
            )
    if unreadable:
        raise HomeConfigError(source, unreadable)
    # SimuHome's physics: window coverings do not change a room's light (its qt2 "saturation"
    # episodes assume that), metered power is constant; everything else follows our default rates, which are
    # SimuHome's.
    config = validate_home(
        {
            "name": name,
            "tier": "simuhome",
            "base_time": parsed.base_time,
            "rooms": rooms,
            "devices": devices,
            "extensions": {"physics": {"covering_blocks_daylight": 0.0, "power_follows_mode": False}},
        },
        source,
    )
    top_level = {key: value for key, value in data.items() if key != "rooms"}
    origin = SimuHomeOrigin(
        top_level=top_level,
        key_order=list(data),
        room_order=list(parsed.rooms),
        rooms=room_origins,
        devices=device_origins,
    )
    return config, origin


def _import_attributes(
    raw: dict[str, Any], where: str, unreadable: list[tuple[str, str]]
) -> tuple[dict[str, Any], list[str], dict[str, list[str]]]:
    """One device's SimuHome attributes → (our attributes, paths not loaded, normalisations per path)."""
    attributes: dict[str, Any] = {}
    not_loaded: list[str] = []
    normalised: dict[str, list[str]] = {}
    for path, value in raw.items():
        plan = _import_plan(path)
        if plan is None:
            not_loaded.append(path)
            continue
        ours, cluster, attribute, keeps = plan
        if keeps and kept_as_it_is(value):
            attributes[ours] = value  # import_value's answer, without the call (most of a home's values)
            continue
        if cluster == "Descriptor" and attribute in DESCRIPTOR_STRUCTURE:
            not_loaded.append(path)  # the home derives the endpoint structure; SimuHome's is written back
            normalised[path] = ["descriptor-structure-kept"]
            continue
        applied: set[str] = set()
        try:
            if keeps and type(value) in (list, dict):
                attributes[ours] = import_list_or_struct(cluster, attribute, value, applied)
            else:
                attributes[ours] = import_value(cluster, attribute, value, raw, applied)
        except UnreadableValue as error:
            unreadable.append((f"{where}[{json.dumps(path)}]{error.where}", error.message))
            continue
        if applied:
            normalised[path] = sorted(applied)
    return attributes, not_loaded, normalised


@functools.lru_cache(maxsize=16384)  # the same paths recur in every home of a process
def _import_plan(path: str) -> tuple[str, str, str, bool] | None:
    """A SimuHome path's import, worked out once: (our path, cluster, attribute, whether its scalar values are
    imported as they are — not for the endpoint structure the home derives), None when it is not loaded."""
    ours = our_path(path)
    if ours is None:
        return None
    _, cluster, attribute = ours.split(".")
    structure = cluster == "Descriptor" and attribute in DESCRIPTOR_STRUCTURE
    return ours, cluster, attribute, not structure and keeps_scalars(cluster, attribute)


def imported_value(path: str, value: Any, raw: Mapping[str, Any]) -> Any:
    """What the import made of an original value (for "unchanged?" comparisons on export)."""
    ours = our_path(path)
    if ours is None:
        return value
    _, cluster, attribute = ours.split(".")
    try:
        return import_value(cluster, attribute, value, raw, set())
    except UnreadableValue:
        return value
