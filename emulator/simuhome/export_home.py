"""Our home → SimuHome's config format, usable as its reset body.

With the origin record of an import, whatever is unchanged is written exactly as it was loaded: equivalent
values verbatim, changed ones in SimuHome's spelling, and whatever we did not load as it was.

``to_simuhome`` writes every device (our importer reads our own types back); ``export_for_simuhome`` is for
SimuHome itself, whose factory refuses a device type it does not have: it leaves those devices out and says which.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from emulator.clock import TICK_S
from emulator.home_config import DeviceConfig, HomeConfig, RoomConfig, validate_home
from emulator.home_generation.device_types import SIMUHOME_DEVICE_TYPES, SIMUHOME_FACTORY_ONLY_TYPES
from emulator.simuhome.config import DEFAULT_ROOM_STATE
from emulator.simuhome.import_home import imported_value
from emulator.simuhome.origin import SimuHomeDeviceOrigin, SimuHomeOrigin
from emulator.simuhome.paths import our_path, simuhome_path
from emulator.simuhome.shapes import room_state_shapes
from emulator.simuhome.spelling import to_simuhome_value
from emulator.simuhome.values import conform, export_value, is_number


def to_simuhome(
    config_or_state: HomeConfig | Mapping[str, Any],
    origin: SimuHomeOrigin | None = None,
    *,
    only_original_attributes: bool = False,
) -> dict[str, Any]:
    """Our home (a HomeConfig or data in our format) → a SimuHome config dict usable as the reset body.

    With the ``origin`` of an import, whatever is unchanged is written exactly as it was loaded.
    ``only_original_attributes`` writes, for devices that came from SimuHome, only the paths SimuHome had:
    a home state carries every attribute of our richer device models, and SimuHome refuses clusters its
    devices lack. Floors, parents, names and our extensions have no SimuHome equivalent and are dropped.
    """
    config = config_or_state if isinstance(config_or_state, HomeConfig) else validate_home(config_or_state)
    origin = origin or SimuHomeOrigin(
        top_level={"tick_interval": TICK_S},
        key_order=["tick_interval", "base_time", "rooms"],
        room_order=[],
        rooms={},
        devices={},
    )
    by_room: dict[str, list[DeviceConfig]] = {room.id: [] for room in config.rooms}
    for device in config.devices:
        by_room[device.room].append(device)
    known = {room.id: room for room in config.rooms}
    room_ids = [r for r in origin.room_order if r in known] + [r for r in known if r not in origin.rooms]
    rooms_out = {
        room_id: _export_room(known[room_id], by_room[room_id], origin, only_original_attributes)
        for room_id in room_ids
    }

    return _in_order({**origin.top_level, "base_time": config.base_time, "rooms": rooms_out}, origin.key_order)


SIMUHOME_KNOWN_TYPES = frozenset(SIMUHOME_DEVICE_TYPES + SIMUHOME_FACTORY_ONLY_TYPES)


@dataclass(frozen=True)
class SkippedDevice:
    """A device left out of an export to SimuHome: SimuHome has no device of its type."""

    device_id: str
    device_type: str
    room: str


@dataclass(frozen=True)
class SimuHomeExport:
    """A home in SimuHome's config format, and the devices SimuHome could not load that were left out."""

    config: dict[str, Any]
    skipped: tuple[SkippedDevice, ...]

    def note(self) -> str:
        """One line saying what was left out (empty when nothing was)."""
        if not self.skipped:
            return ""
        types = sorted({d.device_type for d in self.skipped})
        return (
            f"left out {len(self.skipped)} device(s) of {len(types)} type(s) SimuHome does not know: {', '.join(types)}"
        )


def export_for_simuhome(
    config_or_state: HomeConfig | Mapping[str, Any],
    origin: SimuHomeOrigin | None = None,
    *,
    only_original_attributes: bool = False,
) -> SimuHomeExport:
    """Like :func:`to_simuhome`, for SimuHome itself: devices of a type SimuHome's factory lacks (our catalogue's
    solar panels, chargers, valves, buttons, …) are left out, each listed in ``skipped``; the rooms stay."""
    config = config_or_state if isinstance(config_or_state, HomeConfig) else validate_home(config_or_state)
    kept = [d for d in config.devices if d.type in SIMUHOME_KNOWN_TYPES]
    skipped = tuple(SkippedDevice(d.id, d.type, d.room) for d in config.devices if d.type not in SIMUHOME_KNOWN_TYPES)
    exported = to_simuhome(
        config.model_copy(update={"devices": kept}), origin, only_original_attributes=only_original_attributes
    )
    return SimuHomeExport(exported, skipped)


def _in_order(fields: dict[str, Any], key_order: list[str]) -> dict[str, Any]:
    """``fields`` with the original key order first (byte-identical round trips), new keys after."""
    order = [*(key for key in key_order if key in fields), *(key for key in fields if key not in key_order)]
    return {key: fields[key] for key in order}


def _export_room(
    room: RoomConfig, devices: list[DeviceConfig], origin: SimuHomeOrigin, only_original_attributes: bool
) -> dict[str, Any]:
    room_origin = origin.rooms.get(room.id)
    environment = room.environment.model_dump()
    state: dict[str, Any] | None
    if room_origin is not None and room_origin.state is not None:
        original = room_origin.state
        known = {**DEFAULT_ROOM_STATE, **{k: v for k, v in original.items() if k in environment}}
        state = dict(original) if equivalent(known, environment) else {**original, **simuhome_room_state(environment)}
    elif room_origin is not None and equivalent(environment, DEFAULT_ROOM_STATE):
        state = None  # the original room had no state and still sits at SimuHome's defaults
    else:
        state = simuhome_room_state(environment)
    out: dict[str, Any] = {}
    if state is not None:
        out["state"] = state
    exported_devices = [
        _export_device(device, origin.devices.get(device.id), only_original_attributes) for device in devices
    ]
    if exported_devices or room_origin is None or "devices" in room_origin.key_order:
        out["devices"] = exported_devices
    if room_origin is None:
        return out
    return _in_order({**out, **room_origin.extra}, room_origin.key_order)


def _export_device(
    device: DeviceConfig, device_origin: SimuHomeDeviceOrigin | None, only_original_attributes: bool
) -> dict[str, Any]:
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
                attributes[path] = (
                    original
                    if equivalent(imported_value(path, original, device_origin.attributes), current)
                    else _export_value(device, ours, current, original)
                )
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
    return shaped if known else to_simuhome_value(value, ours.split(".")[1], original)


def simuhome_room_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """Room state values in SimuHome's shapes (floats)."""
    shapes = room_state_shapes()
    return {
        name: conform(value, shapes[name].parsed()[0]) if name in shapes else value for name, value in state.items()
    }


def equivalent(a: Any, b: Any) -> bool:
    """Same JSON value, numbers compared by value (1 == 1.0) but never bool vs number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(equivalent(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equivalent(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b
