"""Devices and rooms from matter-server's node interview (``start_listening`` / ``get_nodes`` node dicts), by
Matter's own semantics — not by any one bridge's conventions.

* **Devices.** A bridge (endpoints whose Descriptor DeviceTypeList holds Bridged Node 0x0013) gives one device per
  bridged top endpoint, its PartsList endpoints being the device's further endpoints; any other node is one
  device: every endpoint but an Aggregator's, endpoint 0 (its BasicInformation) included.
* **Identity** (the device id, :func:`identity_of`): UniqueID (BasicInformation, or BridgedDeviceBasicInformation
  for a bridged device), else VendorID + ProductID + SerialNumber, else (a bridged device serving neither) the
  bridge's identity and the endpoint number. Never the controller's node id: the id is the same when the device
  is commissioned again, or in another order.
* **Name**: NodeLabel, else ProductLabel, else ProductName.
* **Room**: a ``room`` / ``location`` / ``area`` label (FixedLabel or UserLabel) on any endpoint of the device,
  else a Descriptor TagList location tag (Common Area namespace), else ``unassigned``.
* **Type**: the Descriptor's DeviceTypeList decides. A catalogue type whose device types are exactly the device's
  (utility types such as Bridged Node and Power Source aside) — where several catalogue types share those device
  types, the product name picks among them, never beyond them — else the Matter device type's own name.

Endpoint numbering: a device whose type is in the catalogue gets the catalogue's endpoint numbers in order (top
endpoint → the first, PartsList → the rest), which is how homefabric's bridge lays devices out, so
``1.OnOff.OnOff`` paths keep working; other devices number their endpoints 1, 2, … in that order. A plain node
keeps endpoint 0 as 0.

A mapping file (``mapping.HomeMapping``) overrides all of it; ``mapping_from`` writes one from the discovery.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

import clusters.official as Objects
from agent_tools.matter_backend.mapping import DeviceEntry, HomeMapping, MappingError
from clusters.device_types import AGGREGATOR as AGGREGATOR_TYPE
from clusters.device_types import BRIDGED_NODE as BRIDGED_NODE_TYPE
from clusters.device_types import ROOT_NODE as ROOT_NODE_TYPE
from emulator.catalogue import CATALOGUE

BRIDGED_NODE, AGGREGATOR, ROOT_NODE = BRIDGED_NODE_TYPE[0], AGGREGATOR_TYPE[0], ROOT_NODE_TYPE[0]
POWER_SOURCE, OTA_REQUESTOR, OTA_PROVIDER = 0x0011, 0x0012, 0x0014
# Device types that say how a node is built, not what the device is: left out when the type is decided.
UTILITY_TYPES = frozenset({ROOT_NODE, AGGREGATOR, BRIDGED_NODE, POWER_SOURCE, OTA_REQUESTOR, OTA_PROVIDER})
DESCRIPTOR, BASIC_INFO, BRIDGED_INFO = (
    Objects.Descriptor.id,
    Objects.BasicInformation.id,
    Objects.BridgedDeviceBasicInformation.id,
)
FIXED_LABEL, USER_LABEL = Objects.FixedLabel.id, Objects.UserLabel.id
DEVICE_TYPE_LIST, PARTS_LIST, TAG_LIST = 0, 3, 4
# BasicInformation and BridgedDeviceBasicInformation share these attribute ids.
VENDOR_ID, PRODUCT_NAME, PRODUCT_ID, NODE_LABEL, PRODUCT_LABEL, SERIAL_NUMBER, UNIQUE_ID = 2, 3, 4, 5, 14, 15, 18
ROOM_LABEL_KEYS = ("room", "location", "area")  # label keys naming a room, in this order of preference
COMMON_AREA_NAMESPACE = 0x10  # semantic tag namespace of rooms (Matter 1.3 §7, Common Area)
UNASSIGNED_ROOM = "unassigned"


@dataclass(frozen=True)
class Room:
    room_id: str
    name: str


@dataclass
class MatterDevice:
    device_id: str
    device_type: str
    room_id: str
    node_id: int
    endpoints: dict[int, int]  # device endpoint → Matter endpoint
    name: str | None = None
    matter_device_types: dict[int, list[int]] = field(default_factory=dict)  # Matter endpoint → device types
    bridged: bool = False  # behind a bridge: its endpoint-0 BasicInformation is the top's BridgedDeviceBasicInformation
    serial_number: str | None = None
    room_name: str | None = None  # the label or tag the room came from, e.g. "Living Room"

    def matter_endpoint(self, endpoint: int) -> int | None:
        return self.endpoints.get(endpoint)

    @property
    def top_endpoint(self) -> int:
        """The device's first Matter endpoint other than 0 (a bridged device's Bridged Node endpoint)."""
        return min((n for n in self.endpoints.values() if n != 0), default=0)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.casefold()).strip("_") or "device"


def _attr(node: dict[str, Any], endpoint: int, cluster: int, attribute: int) -> Any:
    return node.get("attributes", {}).get(f"{endpoint}/{cluster}/{attribute}")


def _text(value: Any) -> str | None:
    """A string attribute's text, None when absent, empty, or a status in place of a value."""
    if not isinstance(value, str):
        return None
    text = value.replace("\x00", "").strip()
    return text or None


def _device_types(node: dict[str, Any], endpoint: int) -> list[int]:
    entries = _attr(node, endpoint, DESCRIPTOR, DEVICE_TYPE_LIST) or []
    device_types: list[Any] = [e.get("0", e.get("deviceType", 0)) for e in entries if isinstance(e, dict)]
    return [int(device_type) for device_type in device_types]


def _endpoints_of(node: dict[str, Any]) -> list[int]:
    return sorted({int(path.split("/", 1)[0]) for path in node.get("attributes", {})})


# --- rooms ---------------------------------------------------------------------------------------------------


def _label_room(node: dict[str, Any], endpoints: list[int]) -> str | None:
    """The first room label: by key (room, location, area), then endpoint, UserLabel (the user's) before
    FixedLabel (the maker's)."""
    for key in ROOM_LABEL_KEYS:
        for endpoint in endpoints:
            for cluster in (USER_LABEL, FIXED_LABEL):
                for entry in _attr(node, endpoint, cluster, 0) or []:
                    if not isinstance(entry, dict):
                        continue
                    label = str(entry.get("0", entry.get("label", ""))).strip().casefold()
                    value = _text(entry.get("1", entry.get("value")))
                    if label == key and value:
                        return value
    return None


@functools.cache
def _common_area_names() -> dict[int, str]:
    """Common Area namespace tag → its name, e.g. 52 → 'Living Room' (chip's AreaTypeTag, the same list)."""
    return {
        member.value: re.sub(r"(?<=[a-z])(?=[A-Z])", " ", member.name.removeprefix("k"))
        for member in Objects.Globals.Enums.AreaTypeTag
        if member.name != "kUnknownEnumValue"
    }


def _tag_room(node: dict[str, Any], endpoints: list[int]) -> str | None:
    for endpoint in endpoints:
        for entry in _attr(node, endpoint, DESCRIPTOR, TAG_LIST) or []:
            if not isinstance(entry, dict) or entry.get("1", entry.get("namespaceID")) != COMMON_AREA_NAMESPACE:
                continue
            label = _text(entry.get("3", entry.get("label")))
            tag: Any = entry.get("2", entry.get("tag", -1))
            name = label or _common_area_names().get(int(tag))
            if name:
                return name
    return None


def room_of(node: dict[str, Any], endpoints: list[int]) -> str | None:
    """The room's name as the device gives it: a label on any of ``endpoints``, else a location tag."""
    return _label_room(node, endpoints) or _tag_room(node, endpoints)


# --- types ---------------------------------------------------------------------------------------------------


@functools.cache
def _matter_type_names() -> dict[int, str]:
    """Matter device type id → name (``on_off_plug_in_unit``): the constants the catalogue is built from."""
    from emulator.catalogue import build

    return {
        value[0]: name.casefold()
        for name, value in vars(build).items()
        if re.fullmatch(r"[A-Z][A-Z0-9_]+", name)
        and isinstance(value, tuple)
        and len(value) == 2
        and all(isinstance(v, int) for v in value)
    }


def _catalogue_sets() -> dict[str, frozenset[int]]:
    return {
        name: frozenset(t for e in spec.endpoints for t, _ in e.device_types) - UTILITY_TYPES
        for name, spec in CATALOGUE.items()
    }


def catalogue_type(product_name: str | None, device_types: set[int]) -> str | None:
    """The catalogue type whose device types are exactly ``device_types`` (utility types aside); where several
    are, the one the product name names, else the first. None when no catalogue type has those device types."""
    own = frozenset(device_types) - UTILITY_TYPES
    candidates = [name for name, types in _catalogue_sets().items() if types and types == own]
    if not candidates:
        return None
    if product_name:
        key = slug(product_name)
        for name in candidates:
            if key in (name, slug(getattr(CATALOGUE[name], "label", "") or "")):
                return name
    return candidates[0]


def device_type_name(product_name: str | None, types_by_endpoint: list[list[int]]) -> str:
    """The device's type: the catalogue's (``catalogue_type``), else its first endpoint's Matter device type."""
    every = {t for types in types_by_endpoint for t in types}
    found = catalogue_type(product_name, every)
    if found is not None:
        return found
    primary = next((t for types in types_by_endpoint for t in types if t not in UTILITY_TYPES), None)
    if primary is None:
        return "matter_device"
    return _matter_type_names().get(primary, f"matter_device_type_0x{primary:04x}")


def _numbering(device_type: str | None, matter_endpoints: list[int]) -> dict[int, int]:
    spec = CATALOGUE.get(device_type or "")
    own = sorted(e.endpoint_id for e in spec.endpoints if e.endpoint_id != 0) if spec else []
    if len(own) == len(matter_endpoints):
        return dict(zip(own, matter_endpoints, strict=True))
    return {index + 1: number for index, number in enumerate(matter_endpoints)}


# --- identity ------------------------------------------------------------------------------------------------


def identity_of(node: dict[str, Any], endpoint: int, cluster: int, fallback: str | None = None) -> str:
    """The device's stable id from its basic-information cluster at ``endpoint``: UniqueID, else
    VendorID-ProductID-SerialNumber, else ``fallback`` (its bridge's identity and endpoint)."""
    unique = _text(_attr(node, endpoint, cluster, UNIQUE_ID))
    if unique:
        return slug(unique)
    serial = _text(_attr(node, endpoint, cluster, SERIAL_NUMBER))
    vendor, product = _attr(node, endpoint, cluster, VENDOR_ID), _attr(node, endpoint, cluster, PRODUCT_ID)
    if cluster == BRIDGED_INFO:  # a bridged device without its own vendor/product: the bridge's
        vendor = vendor if isinstance(vendor, int) else _attr(node, 0, BASIC_INFO, VENDOR_ID)
        product = product if isinstance(product, int) else _attr(node, 0, BASIC_INFO, PRODUCT_ID)
    if serial and isinstance(vendor, int) and isinstance(product, int):
        return f"{vendor:04x}_{product:04x}_{slug(serial)}"
    if fallback:
        return fallback
    raise MappingError(
        f"node {node.get('node_id')} endpoint {endpoint} serves neither UniqueID nor "
        "VendorID + ProductID + SerialNumber: give it an id in a mapping file"
    )


def _name(node: dict[str, Any], endpoint: int, cluster: int) -> str | None:
    for attribute in (NODE_LABEL, PRODUCT_LABEL, PRODUCT_NAME):
        text = _text(_attr(node, endpoint, cluster, attribute))
        if text:
            return text
    return None


# --- discovery -----------------------------------------------------------------------------------------------


def _device(
    node: dict[str, Any],
    *,
    device_id: str,
    info: tuple[int, int],
    matter_eps: list[int],
    room_eps: list[int],
    bridged: bool,
) -> MatterDevice:
    types = {ep: _device_types(node, ep) for ep in matter_eps}
    endpoint, cluster = info
    product = _text(_attr(node, endpoint, cluster, PRODUCT_NAME))
    device_type = device_type_name(product, [types[ep] for ep in matter_eps])
    room = room_of(node, room_eps)
    endpoints = _numbering(device_type, matter_eps)
    if not bridged:
        endpoints = {0: 0, **endpoints}
    return MatterDevice(
        device_id=device_id,
        device_type=device_type,
        room_id=slug(room) if room else UNASSIGNED_ROOM,
        node_id=int(node["node_id"]),
        endpoints=endpoints,
        name=_name(node, endpoint, cluster),
        matter_device_types=types,
        bridged=bridged,
        serial_number=_text(_attr(node, endpoint, cluster, SERIAL_NUMBER)),
        room_name=room,
    )


def _bridged_devices(node: dict[str, Any]) -> list[MatterDevice]:
    out = []
    bridge_identity: str | None = None
    for top in _endpoints_of(node):
        if BRIDGED_NODE not in _device_types(node, top):
            continue
        if bridge_identity is None:
            bridge_identity = identity_of(node, 0, BASIC_INFO, f"node{node['node_id']}")
        matter_eps = [top, *[int(p) for p in (_attr(node, top, DESCRIPTOR, PARTS_LIST) or [])]]
        device_id = identity_of(node, top, BRIDGED_INFO, f"{bridge_identity}_ep{top}")
        out.append(
            _device(
                node,
                device_id=device_id,
                info=(top, BRIDGED_INFO),
                matter_eps=matter_eps,
                room_eps=matter_eps,
                bridged=True,
            )
        )
    return out


def _plain_device(node: dict[str, Any]) -> MatterDevice | None:
    matter_eps = [ep for ep in _endpoints_of(node) if ep != 0 and AGGREGATOR not in _device_types(node, ep)]
    if not matter_eps:
        return None
    return _device(
        node,
        device_id=identity_of(node, 0, BASIC_INFO),
        info=(0, BASIC_INFO),
        matter_eps=matter_eps,
        room_eps=[0, *matter_eps],
        bridged=False,
    )


def discover(nodes: list[dict[str, Any]]) -> list[MatterDevice]:
    """Devices from the interview, sorted by id. Two devices claiming one identity are both refused."""
    found: list[MatterDevice] = []
    for node in nodes:
        if not node.get("available", True):
            continue
        bridged = _bridged_devices(node)
        if bridged:
            found += bridged
        elif (device := _plain_device(node)) is not None:
            found.append(device)
    by_id: dict[str, list[MatterDevice]] = {}
    for device in found:
        by_id.setdefault(device.device_id, []).append(device)
    twice = {device_id: sorted(d.node_id for d in same) for device_id, same in by_id.items() if len(same) > 1}
    if twice:
        raise MappingError(
            f"devices claiming the same identity (UniqueID / vendor+product+serial): {twice}; "
            "give them ids in a mapping file"
        )
    return sorted(found, key=lambda d: d.device_id)


def from_mapping(mapping: HomeMapping, nodes: list[dict[str, Any]]) -> list[MatterDevice]:
    """The mapped devices (only those). An entry names its device by ``identity`` (as ``discover`` finds it,
    whatever node id it has now) or by ``node_id`` + ``endpoint``; endpoint numbering from the entry, else as
    discovery numbers it."""
    by_id = {int(n["node_id"]): n for n in nodes}
    discovered = (
        {d.device_id: d for d in discover([n for n in nodes if n.get("available", True)])}
        if any(e.identity for e in mapping.devices)
        else {}
    )
    out = []
    for index, entry in enumerate(mapping.devices):
        found = _mapped(entry, index, discovered, by_id)
        endpoints = dict(sorted(entry.endpoints.items())) if entry.endpoints else found.endpoints
        out.append(
            MatterDevice(
                entry.device_id,
                entry.device_type or found.device_type,
                entry.room_id or found.room_id,
                found.node_id,
                endpoints,
                name=entry.name or found.name,
                matter_device_types=found.matter_device_types,
                bridged=found.bridged,
                serial_number=found.serial_number,
                room_name=found.room_name,
            )
        )
    return sorted(out, key=lambda d: d.device_id)


def _mapped(
    entry: DeviceEntry, index: int, discovered: dict[str, MatterDevice], by_id: dict[int, dict[str, Any]]
) -> MatterDevice:
    """The device a mapping entry names, as discovery sees it."""
    if entry.identity:
        found = discovered.get(entry.identity)
        if found is None:
            raise MappingError(
                f"devices[{index}].identity {entry.identity!r}: no commissioned device has it; "
                f"there are {sorted(discovered)}"
            )
        return found
    assert entry.node_id is not None and entry.endpoint is not None  # the entry's validator
    node = by_id.get(entry.node_id, {"node_id": entry.node_id, "attributes": {}})
    matter_eps = [entry.endpoint, *[int(p) for p in (_attr(node, entry.endpoint, DESCRIPTOR, PARTS_LIST) or [])]]
    bridged = BRIDGED_NODE in _device_types(node, entry.endpoint)
    endpoints = _numbering(entry.device_type, matter_eps)
    return MatterDevice(
        entry.device_id,
        entry.device_type or "",
        entry.room_id or UNASSIGNED_ROOM,
        entry.node_id,
        endpoints if bridged else {0: 0, **endpoints},
        matter_device_types={ep: _device_types(node, ep) for ep in matter_eps},
        bridged=bridged,
    )


def rooms_for(devices: list[MatterDevice], mapping: HomeMapping | None = None) -> list[Room]:
    """Mapped rooms plus every room a device is in, sorted by id; display names from the labels."""
    rooms: dict[str, str] = {}
    if mapping is not None:
        for room in mapping.rooms:
            rooms[room.room_id] = room.display_name or room.room_id
    for device in devices:
        rooms.setdefault(device.room_id, device.room_name or device.room_id)
    return [Room(room_id, name) for room_id, name in sorted(rooms.items())]


def mapping_from(devices: list[MatterDevice]) -> HomeMapping:
    """A mapping file's content for the discovered home (``homefabric matter map``): devices by identity, with
    the ids, names, rooms, types and endpoints discovery chose, for the user to edit."""
    return HomeMapping.model_validate(
        {
            "rooms": [{"room_id": r.room_id, "display_name": r.name} for r in rooms_for(devices)],
            "devices": [
                {
                    "identity": d.device_id,
                    "device_id": d.device_id,
                    "name": d.name,
                    "room_id": d.room_id,
                    "device_type": d.device_type,
                    "endpoints": {str(k): v for k, v in d.endpoints.items()},
                }
                for d in devices
            ],
        }
    )
