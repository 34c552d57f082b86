"""Devices and rooms from matter-server's node interview (``start_listening`` / ``get_nodes`` node dicts).

Without a mapping file:

* a **bridge** (endpoints whose Descriptor DeviceTypeList holds Bridged Node 0x0013) gives one device per
  bridged top endpoint, its PartsList endpoints being the device's further endpoints; device id from
  BridgedDeviceBasicInformation SerialNumber (NodeLabel when it is a hash of a long id), room from
  the FixedLabel ``room`` (our bridge puts the room's name there) or the UserLabel ``room``, device type
  from the ProductName / device types matched against the catalogue;
* any **other node** is one device: every non-root endpoint, NodeLabel / ProductName for the name, the
  root FixedLabel/UserLabel ``room`` for the room (else ``unassigned``).

Endpoint numbering: a device whose type is in the catalogue gets the catalogue's endpoint numbers in
order (top endpoint → the first, PartsList → the rest), which is exactly how our bridge lays devices out,
so ``1.OnOff.OnOff`` paths keep working; other devices number their endpoints 1, 2, … in that order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agent_tools.matter_backend.mapping import HomeMapping
from emulator.catalogue import CATALOGUE

BRIDGED_NODE = 0x0013
AGGREGATOR = 0x000E
ROOT_NODE = 0x0016
DESCRIPTOR, BASIC_INFO, BRIDGED_INFO, FIXED_LABEL, USER_LABEL = 0x1D, 0x28, 0x39, 0x40, 0x41
UNASSIGNED_ROOM = "unassigned"
HASHED_SERIAL = re.compile(r"^hf-[0-9a-f]{29}$")  # our bridge's stand-in for ids longer than 32


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

    def matter_endpoint(self, endpoint: int) -> int | None:
        return self.endpoints.get(endpoint)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.casefold()).strip("_") or "device"


def _attr(node: dict[str, Any], endpoint: int, cluster: int, attribute: int) -> Any:
    return node.get("attributes", {}).get(f"{endpoint}/{cluster}/{attribute}")


def _device_types(node: dict[str, Any], endpoint: int) -> list[int]:
    entries = _attr(node, endpoint, DESCRIPTOR, 0) or []
    return [int(e.get("0", e.get("deviceType", 0))) for e in entries if isinstance(e, dict)]


def _label(node: dict[str, Any], endpoint: int, key: str) -> str | None:
    for cluster in (FIXED_LABEL, USER_LABEL):
        for entry in _attr(node, endpoint, cluster, 0) or []:
            if isinstance(entry, dict) and str(entry.get("0", entry.get("label", ""))).casefold() == key:
                value = entry.get("1", entry.get("value"))
                if value:
                    return str(value)
    return None


def _endpoints_of(node: dict[str, Any]) -> list[int]:
    return sorted({int(path.split("/", 1)[0]) for path in node.get("attributes", {})})


def catalogue_type(product_name: str | None, device_types: set[int]) -> str | None:
    """Our catalogue's device type for a Matter device: by product name, else by its device types."""
    if product_name:
        key = slug(product_name)
        if key in CATALOGUE:
            return key
        for name, spec in CATALOGUE.items():
            if slug(getattr(spec, "label", "") or "") == key:
                return name
    for name, spec in CATALOGUE.items():
        own = {t for e in spec.endpoints for t, _ in e.device_types}
        if own and own == device_types:
            return name
    return None


def _numbering(device_type: str | None, matter_endpoints: list[int]) -> dict[int, int]:
    spec = CATALOGUE.get(device_type or "")
    own = sorted(e.endpoint_id for e in spec.endpoints if e.endpoint_id != 0) if spec else []
    if len(own) == len(matter_endpoints):
        return dict(zip(own, matter_endpoints, strict=True))
    return {index + 1: number for index, number in enumerate(matter_endpoints)}


def _bridged_devices(node: dict[str, Any]) -> list[MatterDevice]:
    out = []
    node_id = int(node["node_id"])
    for top in _endpoints_of(node):
        types = _device_types(node, top)
        if BRIDGED_NODE not in types:
            continue
        parts = [int(p) for p in (_attr(node, top, DESCRIPTOR, 3) or [])]
        matter_eps = [top, *parts]
        all_types = {t for ep in matter_eps for t in _device_types(node, ep)} - {BRIDGED_NODE}
        serial = _attr(node, top, BRIDGED_INFO, 15)  # SerialNumber: the device id (UniqueID is opaque)
        label = _attr(node, top, BRIDGED_INFO, 5)
        product = _attr(node, top, BRIDGED_INFO, 3)
        if serial and not HASHED_SERIAL.match(str(serial)):
            device_id = str(serial)
        else:
            device_id = slug(str(label or product or f"node{node_id}_ep{top}"))
        device_type = catalogue_type(product, all_types)
        room = _label(node, top, "room")
        out.append(MatterDevice(
            device_id=device_id, device_type=device_type or f"matter_{min(all_types, default=0):#06x}",
            room_id=slug(room) if room else UNASSIGNED_ROOM, node_id=node_id,
            endpoints=_numbering(device_type, matter_eps), name=str(label) if label else None,
            matter_device_types={ep: _device_types(node, ep) for ep in matter_eps}, bridged=True))
    return out


def _plain_device(node: dict[str, Any]) -> MatterDevice | None:
    node_id = int(node["node_id"])
    matter_eps = [ep for ep in _endpoints_of(node) if ep != 0 and AGGREGATOR not in _device_types(node, ep)]
    if not matter_eps:
        return None
    label = _attr(node, 0, BASIC_INFO, 5)
    product = _attr(node, 0, BASIC_INFO, 3)
    all_types = {t for ep in matter_eps for t in _device_types(node, ep)}
    device_type = catalogue_type(product, all_types)
    room = _label(node, 0, "room")
    return MatterDevice(
        device_id=slug(str(label or product or "device")) + f"_{node_id}",
        device_type=device_type or f"matter_{min(all_types, default=0):#06x}",
        room_id=slug(room) if room else UNASSIGNED_ROOM, node_id=node_id,
        endpoints=_numbering(device_type, matter_eps), name=str(label) if label else None,
        matter_device_types={ep: _device_types(node, ep) for ep in matter_eps})


def discover(nodes: list[dict[str, Any]]) -> list[MatterDevice]:
    """Devices from the interview, ids made unique (``_2``, ``_3`` … for repeats), sorted by id."""
    found: list[MatterDevice] = []
    for node in sorted(nodes, key=lambda n: int(n["node_id"])):
        if not node.get("available", True):
            continue
        bridged = _bridged_devices(node)
        if bridged:
            found += bridged
        elif (device := _plain_device(node)) is not None:
            found.append(device)
    seen: dict[str, int] = {}
    for device in found:
        count = seen.get(device.device_id, 0) + 1
        seen[device.device_id] = count
        if count > 1:
            device.device_id = f"{device.device_id}_{count}"
    return sorted(found, key=lambda d: d.device_id)


def from_mapping(mapping: HomeMapping, nodes: list[dict[str, Any]]) -> list[MatterDevice]:
    """The mapped devices (only those), endpoint numbering from the entry or the top endpoint's parts."""
    by_id = {int(n["node_id"]): n for n in nodes}
    out = []
    for entry in mapping.devices:
        node = by_id.get(entry.node_id, {"node_id": entry.node_id, "attributes": {}})
        if entry.endpoints:
            endpoints = dict(sorted(entry.endpoints.items()))
        else:
            parts = [int(p) for p in (_attr(node, entry.endpoint, DESCRIPTOR, 3) or [])]
            endpoints = _numbering(entry.device_type, [entry.endpoint, *parts])
        top_types = _device_types(node, entry.endpoint)
        out.append(MatterDevice(entry.device_id, entry.device_type, entry.room_id, entry.node_id, endpoints,
                                matter_device_types={ep: _device_types(node, ep) for ep in endpoints.values()},
                                bridged=BRIDGED_NODE in top_types))
    return sorted(out, key=lambda d: d.device_id)


def rooms_for(devices: list[MatterDevice], mapping: HomeMapping | None = None,
              names: dict[str, str] | None = None) -> list[Room]:
    """Mapped rooms plus every room a device is in, sorted by id; display names from the labels."""
    rooms: dict[str, str] = {}
    if mapping is not None:
        for room in mapping.rooms:
            rooms[room.room_id] = room.display_name or room.room_id
    for device in devices:
        rooms.setdefault(device.room_id, (names or {}).get(device.room_id) or device.room_id)
    return [Room(room_id, name) for room_id, name in sorted(rooms.items())]


def room_names(nodes: list[dict[str, Any]]) -> dict[str, str]:
    """room id (slug) → the label text it came from, e.g. living_room → 'Living Room'."""
    out: dict[str, str] = {}
    for node in nodes:
        for endpoint in _endpoints_of(node):
            text = _label(node, endpoint, "room")
            if text:
                out.setdefault(slug(text), text)
    return out
