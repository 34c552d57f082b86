"""The home's rooms and devices (Matter nodes with their endpoints): placing, finding, describing, removing."""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from clusters import ClusterServer, HomeError
from clusters.basic_information import USER_SETTABLE, BasicInformationServer
from clusters.chip_model import GLOBAL_ATTRIBUTE_IDS
from clusters.values import enum_members
from emulator.catalogue import device_type_spec
from emulator.catalogue.spec import DeviceTypeSpec
from emulator.clock import VirtualClock
from emulator.device import Device, initial_node_label
from emulator.home_config import DeviceConfig, RoomConfig

PATH_PARTS = 3


@dataclass(frozen=True)
class Room:
    room_id: str
    name: str
    type: str
    floor: int
    parent: str | None


def parse_path(path: str) -> tuple[int, str, str]:
    """ "1.OnOff.OnOff" → (1, "OnOff", "OnOff"), with a clear error for anything else."""
    return _parse_text_path(path) if isinstance(path, str) else _parse_any_path(path)


@functools.lru_cache(maxsize=16384)  # the same paths recur in every home and every snapshot
def _parse_text_path(path: str) -> tuple[int, str, str]:
    return _parse_any_path(path)


def _parse_any_path(path: object) -> tuple[int, str, str]:
    parts = path.split(".") if isinstance(path, str) else []
    if len(parts) != PATH_PARTS or not parts[0].lstrip("-").isdigit():
        raise HomeError(
            "INVALID_ARGUMENT",
            f"attribute path {path!r} is not '<endpoint>.<Cluster>.<Attribute>'",
            allowed="e.g. '1.OnOff.OnOff'",
        )
    return int(parts[0]), parts[1], parts[2]


class HomeDevices:
    """Owns the rooms and the devices in them; every lookup by id refuses with what exists nearby."""

    __slots__ = ("by_room", "devices", "rooms")  # one per home: no instance dict

    def __init__(self) -> None:
        self.rooms: dict[str, Room] = {}
        self.devices: dict[str, Device] = {}
        self.by_room: dict[str, list[Device]] = {}

    # ------------------------------------------------------------------------------ rooms
    def add_room(self, config: RoomConfig) -> Room:
        room = self.rooms[config.id] = Room(config.id, config.name, config.type, config.floor, config.parent)
        self.by_room[config.id] = []
        return room

    def room(self, room_id: str) -> Room:
        room = self.rooms.get(room_id)
        if room is None:
            raise HomeError("ROOM_NOT_FOUND", f"no room {room_id!r}", allowed=sorted(self.rooms))
        return room

    def sorted_rooms(self) -> list[Room]:
        return sorted(self.rooms.values(), key=lambda r: r.room_id)

    def devices_in(self, room_id: str) -> list[Device]:
        return self.by_room.get(room_id, [])

    # ------------------------------------------------------------------------------ devices
    def device(self, device_id: str) -> Device:
        device = self.devices.get(device_id) if isinstance(device_id, str) else None
        if device is None:
            raise HomeError("DEVICE_NOT_FOUND", f"no device {device_id!r}", allowed=_nearby(device_id, self.devices))
        return device

    def server(self, device_id: str, endpoint: int, cluster: str) -> tuple[Device, ClusterServer]:
        """The device and its cluster server: one dict step per level when all exist (every read, write and
        invoke comes here), else the refusal that names what does exist."""
        device = self.devices.get(device_id) if isinstance(device_id, str) else None
        if device is not None:
            found = device.find_endpoint(endpoint) if isinstance(endpoint, int) else None
            server = found.clusters.get(cluster) if found is not None and isinstance(cluster, str) else None
            if server is not None:
                return device, server
        device = self.device(device_id)
        return device, device.cluster(endpoint, cluster)

    def sorted_devices(self, room_id: str | None = None) -> list[Device]:
        if room_id is not None:
            self.room(room_id)
            return sorted(self.by_room[room_id], key=lambda d: d.device_id)
        return sorted(self.devices.values(), key=lambda d: d.device_id)

    def place(self, config: DeviceConfig, clock: VirtualClock) -> Device:
        """Build a catalogue device with its stored attributes and put it in its room (not yet reporting)."""
        try:
            spec = device_type_spec(config.type)
        except KeyError as error:
            raise HomeError("UNKNOWN_DEVICE_TYPE", str(error.args[0])) from None
        device = Device(config.id, spec, config.room, config.name)
        attributes = config.attributes
        held_as_built = _held_as_built(spec)
        for path in sorted(attributes):
            value = attributes[path]
            held = held_as_built.get(path, _NOT_HELD)
            if (type(held) is type(value) and held == value) or (type(held) is _HeldList and held.alike(value)):
                continue  # what it holds already: its restore would change nothing (most of a home file's values)
            endpoint_id, cluster, attribute = parse_path(path)
            found = device.find_endpoint(endpoint_id)  # one step per level (a home file names some 400 attributes) …
            server = found.clusters.get(cluster) if found is not None else None
            if server is None:
                server = device.cluster(endpoint_id, cluster)  # … else the refusal naming what exists
            try:
                server.restore(attribute, value)
            except HomeError as error:
                raise error.at(f"device {config.id!r} attribute {path}") from None
        device.attach(clock)
        self.devices[device.device_id] = device
        self.by_room[device.room_id].append(device)
        return device

    def check_new(self, config: DeviceConfig) -> None:
        if config.id in self.devices:
            raise HomeError("DEVICE_ALREADY_EXISTS", f"device {config.id!r} already exists")
        self.room(config.room)

    def remove(self, device_id: str) -> Device:
        device = self.device(device_id)
        del self.devices[device_id]
        self.by_room[device.room_id].remove(device)
        device.clear_sinks()
        return device

    def rename(self, device_id: str, name: str) -> None:
        device = self.device(device_id)
        if not isinstance(name, str):
            raise HomeError("INVALID_ARGUMENT", f"a device name must be text, got {type(name).__name__}")
        device.name = name

    # ------------------------------------------------------------------------------ views
    def read_all(self, device_id: str) -> dict[str, Any]:
        """Every attribute of the device by path ``ep.Cluster.Attribute``, in ``Device.paths`` order."""
        return read_device(self.device(device_id))

    def describe(self, device_id: str) -> dict[str, Any]:
        device = self.device(device_id)
        endpoints: dict[str, Any] = {}
        for ep_id, endpoint in sorted(device.endpoints.items()):
            clusters = {name: _describe_cluster(server) for name, server in endpoint.clusters.items()}
            endpoints[str(ep_id)] = {
                "device_types": [{"device_type": d, "revision": r} for d, r in endpoint.device_types],
                "clusters": clusters,
            }
        return {
            "device_id": device.device_id,
            "device_type": device.device_type,
            "room_id": device.room_id,
            "name": device.name,
            "endpoints": endpoints,
        }


class _NotHeld:
    """What ``_held_as_built`` gives for a path it does not name (no attribute value is of this type)."""


_NOT_HELD = _NotHeld()
_CANONICAL_JSON = json.JSONEncoder(sort_keys=True).encode


class _HeldList:
    """A list or struct a device holds as built, with its JSON text (sorted keys): ClusterServer.restore changes
    nothing for an equal value of its type whose text is the same (the same types all the way down), and tells it
    by writing both texts; ``place`` writes only the file's."""

    __slots__ = ("text", "value")

    def __init__(self, value: list[Any] | dict[str, Any], text: str) -> None:
        self.value, self.text = value, text

    def alike(self, value: Any) -> bool:
        if type(value) is not type(self.value) or value != self.value:
            return False
        try:
            return bool(_CANONICAL_JSON(value) == self.text)
        except (TypeError, ValueError):  # not JSON data: restored (coerced) as any other value
            return False


# The restores that change nothing for a plain value a server holds already (ClusterServer.restore returns early;
# BasicInformation's checks the length of its texts first, as held ones passed it): servers of other classes may
# restore with side effects (a cycle resynchronised, an alarm expressed, a cover's axis halted) and are never skipped.
_PLAIN_RESTORES = (ClusterServer.restore, BasicInformationServer.restore)
_PLAIN_VALUES = (bool, int, str)  # ClusterServer.restore's no-op: equal values of exactly these types, and None
# where the attribute is nullable (set then finds the None it holds; null for an optional, non-nullable one drops it),
# and lists and structs written alike (_HeldList)
_LISTS = (list, dict)
# Device type name → (its spec, its table): built once per type, from the spec it was built from.
_HELD_AS_BUILT: dict[str, tuple[DeviceTypeSpec, dict[str, Any]]] = {}


def _held_as_built(spec: DeviceTypeSpec) -> dict[str, Any]:
    """Path → the plain value (bool, int, str; None where nullable; a list or struct as a ``_HeldList``) every
    device of type ``spec`` holds there as built, where restoring that value changes nothing: ``place`` skips those
    restores instead of finding the server and calling it (a home file lists every attribute, most at their initial
    values). Read from two devices built with different ids and names, so a value that follows the device (its
    identity: NodeLabel, SerialNumber, UniqueID) is never named; only servers whose restore and read are the plain
    ones (``_PLAIN_RESTORES``, ``ClusterServer.read``), whose values no restore of another attribute changes before
    the device is attached."""
    kept = _HELD_AS_BUILT.get(spec.name)
    if kept is not None and kept[0] is spec:
        return kept[1]
    first, second = Device("as-built-1", spec, "", "first"), Device("as-built-2", spec, "", None)
    table: dict[str, Any] = {}
    for endpoint_id, endpoint in first.endpoints.items():
        for cluster, server in endpoint.clusters.items():
            kind = type(server)
            if kind.restore not in _PLAIN_RESTORES or kind.read is not ClusterServer.read:
                continue
            twin = second.endpoints[endpoint_id].clusters[cluster]
            for name in server.attribute_names():
                if name in GLOBAL_ATTRIBUTE_IDS:
                    continue  # refused by restore
                value, other = server.read(name), twin.read(name)
                if type(other) is not type(value) or other != value:
                    continue
                path = f"{endpoint_id}.{cluster}.{name}"
                if type(value) in _PLAIN_VALUES or (value is None and server.model.attributes[name].type.nullable):
                    table[path] = value
                elif type(value) in _LISTS:
                    try:
                        text = _CANONICAL_JSON(value)
                    except (TypeError, ValueError):
                        continue
                    if text == _CANONICAL_JSON(other):
                        table[path] = _HeldList(value, text)
                else:
                    continue
                server.restore(name, value)  # refused (HomeError) if it ever were not what it takes
    _HELD_AS_BUILT[spec.name] = (spec, table)
    return table


def read_device(device: Device, *, shared_lists: bool = False) -> dict[str, Any]:
    """Every attribute of ``device`` by path ``ep.Cluster.Attribute``, in ``Device.paths`` order (one walk of the
    servers; snapshots read every device, so the hot path skips the per-path endpoint/cluster lookups).
    ``shared_lists``: as ``ClusterServer.read_all`` takes it."""
    values: dict[str, Any] = {}
    for endpoint_id, endpoint in sorted(device.endpoints.items()):
        for cluster_name, server in endpoint.clusters.items():
            server.read_all(f"{endpoint_id}.{cluster_name}.", into=values, shared_lists=shared_lists)
    return values


def _describe_cluster(server: ClusterServer) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    for name in server.attribute_names():
        model = server.model.attributes[name]
        entry: dict[str, Any] = {
            "value": server.read(name),
            "type": model.type.describe(),
            "writable": server.is_writable(name),
        }
        if model.type.is_enum:
            entry["enum_values"] = enum_members(model.type.base)
        constraint = server.constraints.get(name)
        if constraint is not None:
            entry["constraint"] = constraint.describe()
        attributes[name] = entry
    commands = {name: {"arguments": server.command_spec(name).describe_args()} for name in server.command_names()}
    return {"cluster_id": server.cluster_id, "attributes": attributes, "commands": commands}


def persistent_attributes(device: Device, physics_sensors: set[tuple[int, str]]) -> dict[str, Any]:
    """Attribute values a saved home needs to come back the same: not the globals, not sensor
    readings derived from room physics (the room state is saved instead)."""
    out: dict[str, Any] = {}
    for ep, cluster, attribute in device.paths():
        server = device.endpoints[ep].clusters[cluster]
        if attribute in GLOBAL_ATTRIBUTE_IDS or (id(server), attribute) in physics_sensors:
            continue
        if cluster == "Descriptor" or (cluster == "BasicInformation" and attribute not in USER_SETTABLE):
            continue
        if cluster == "BasicInformation":  # kept only once a controller changed it (home files stay as they were)
            initial = (
                initial_node_label(device.device_id, device.name)
                if attribute == "NodeLabel"
                else server.defaults[attribute]
            )
            if server.read(attribute) == initial:
                continue
        out[f"{ep}.{cluster}.{attribute}"] = server.read(attribute)
    return out


def _nearby(name: Any, known: Mapping[str, Any]) -> list[str]:
    if not isinstance(name, str):
        return sorted(known)[:20]
    close = difflib.get_close_matches(name, list(known), n=5, cutoff=0.5)
    return close or sorted(known)[:20]
