"""The emulated home as one Matter bridge node: the ``DataModel`` the Interaction Model serves.

Layout (Matter core spec §9.12 "Bridge for non-Matter devices", and what python-matter-server checks):

* endpoint 0 — Root Node: the commissioning clusters handed in by the node runtime, plus a Descriptor
  whose PartsList is every other endpoint;
* endpoint 1 — Aggregator (device type 14; python-matter-server decides "bridge" from ``1/29/0``),
  PartsList = every bridged endpoint;
* one bridge endpoint per device endpoint other than the device's endpoint 0. The device's first such
  endpoint is the top of the bridged device: DeviceTypeList = [Bridged Node, the device's own types],
  BridgedDeviceBasicInformation (NodeLabel, Reachable, UniqueID, vendor/product from the device's
  BasicInformation), a FixedLabel ``room``; its PartsList lists the device's other endpoints (tree
  pattern), which carry the device's own device types, so controllers group them into one device.

Reads, writes and invokes on a device's clusters go through the EmulatedHome's public API (device rules,
power dependencies and locking apply); the bridge's own servers (Descriptor, BridgedDeviceBasic-
Information, FixedLabel) and the root clusters are called directly. Endpoint numbers are stable:
a persisted map keyed by (device id, device endpoint) hands new devices new numbers and leaves gaps.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import clusters.official as Objects
from bridge.matter.codec.kv_store import KeyValueStore, MemoryStore
from bridge.matter.codec.values_tlv import encode_fields
from bridge.matter.im.data_model import ChangeListener
from bridge.matter.im.event_log import EventLog, Priority
from bridge.matter.node.group_membership import NodeGroups
from clusters import ClusterServer, Endpoint, HomeError, Status
from clusters.base import EventPriority
from clusters.basic_information import USER_SETTABLE, BridgedDeviceBasicInformationServer
from clusters.chip_model import FieldModel, cluster_model
from clusters.descriptor import DescriptorServer
from clusters.device_types import AGGREGATOR, BRIDGED_NODE, ROOT_NODE
from clusters.requester import acting_as
from clusters.runtime import Runtime
from emulator.emulated_home import EmulatedHome
from emulator.events import AttributeEvent

log = logging.getLogger(__name__)

AGGREGATOR_ENDPOINT = 1
FIRST_BRIDGED_ENDPOINT = 2
MAX_ENDPOINT = 0xFFFE
ENDPOINT_MAP_KEY = "bridge_endpoint_map"
UNIQUE_ID_SECRET_KEY = "bridge_unique_id_secret"
ROOT_LABELS_KEY = "bridge_basic_information"  # the bridge's own NodeLabel, Location, LocalConfigDisabled
MAX_LABEL = 32
MAX_FIXED_LABEL = 16

BASIC_INFORMATION_ID = Objects.BasicInformation.id
BRIDGED_INFO_ID = Objects.BridgedDeviceBasicInformation.id


class FixedLabelServer(ClusterServer):
    """Fixed Label (0x0040): read-only labels; the bridge puts the device's room here."""

    cluster_name = "FixedLabel"
    revision = 1
    defaults = {"LabelList": []}

    def __init__(self, labels: dict[str, str] | None = None) -> None:
        super().__init__()
        self.restore(
            "LabelList",
            [{"label": k[:MAX_FIXED_LABEL], "value": v[:MAX_FIXED_LABEL]} for k, v in (labels or {}).items()],
        )


def event_fields(cluster: str, event: str) -> tuple[FieldModel, ...]:
    return cluster_model(cluster).events[event].fields


def serial_number_for(device_id: str) -> str:
    """BridgedDeviceBasicInformation.SerialNumber (≤ 32 chars): the device id, or a stable hash of a long one."""
    if len(device_id) <= MAX_LABEL:
        return device_id
    return "hf-" + hashlib.sha256(device_id.encode()).hexdigest()[: MAX_LABEL - 3]


def unique_id_for(secret: bytes, device_id: str) -> str:
    """BridgedDeviceBasicInformation.UniqueID: opaque, never the SerialNumber (Core §11.1.5.19), the same
    across restarts (a keyed hash under the bridge's persisted secret), different on another bridge."""
    return hmac.new(secret, device_id.encode(), hashlib.sha256).hexdigest()[:MAX_LABEL]


@dataclass
class BridgeEndpoint:
    """One bridge endpoint: duck-types ``clusters.Endpoint`` for the DescriptorServer sitting on it."""

    endpoint_id: int
    device_types: list[tuple[int, int]]
    clusters: dict[str, ClusterServer]
    device_id: str | None = None
    device_endpoint: int | None = None
    own: set[str] = field(default_factory=set)  # cluster names served by the bridge itself
    parts: list[int] = field(default_factory=list)
    runtime: Runtime | None = None  # its own servers' (none: the bridge's servers keep no timers)


class EndpointMap:
    """(device id, device endpoint) → bridge endpoint number, persisted; numbers are never reused."""

    def __init__(self, store: KeyValueStore) -> None:
        self._store = store
        saved = store.get(ENDPOINT_MAP_KEY) or {}
        self._numbers: dict[str, int] = {str(k): int(v) for k, v in dict(saved.get("numbers", {})).items()}
        self._next = int(saved.get("next", FIRST_BRIDGED_ENDPOINT))
        self._next = max([self._next, FIRST_BRIDGED_ENDPOINT, *(n + 1 for n in self._numbers.values())])
        self._dirty = False

    @staticmethod
    def key(device_id: str, device_endpoint: int) -> str:
        return f"{device_id}/{device_endpoint}"

    def number(self, device_id: str, device_endpoint: int) -> int:
        key = self.key(device_id, device_endpoint)
        number = self._numbers.get(key)
        if number is None:
            if self._next > MAX_ENDPOINT:
                raise HomeError.refused(Status.RESOURCE_EXHAUSTED, "no endpoint numbers left")
            number = self._numbers[key] = self._next
            self._next += 1
            self._dirty = True
        return number

    def save(self) -> None:
        if self._dirty:
            self._store.set(ENDPOINT_MAP_KEY, {"numbers": self._numbers, "next": self._next})
            self._dirty = False


class BridgeNode:
    """``DataModel`` of the whole home.

    ``root_clusters``: the endpoint-0 servers (BasicInformation, GeneralCommissioning, …) from the node
    runtime; a Descriptor is added when absent. ``store``: persistent key/value state (endpoint map,
    event numbers). ``root_runtime``: the Runtime the root servers get (their timers); None is fine for
    tests. ``events``: an EventLog to share, else one over ``store`` is made.
    """

    def __init__(
        self,
        home: EmulatedHome,
        root_clusters: Sequence[ClusterServer] = (),
        *,
        store: KeyValueStore | None = None,
        root_runtime: Runtime | None = None,
        events: EventLog | None = None,
        bridged_startup_events: bool = True,
    ) -> None:
        self.home = home  # the emulated home (a Matter "fabric" is something else)
        self._store = store if store is not None else MemoryStore()
        self._events = events if events is not None else EventLog(self._store)
        self._lock = threading.RLock()
        self._listeners: list[ChangeListener] = []
        self._versions: dict[tuple[int, int], int] = {}
        self._endpoint_map = EndpointMap(self._store)
        self._unique_id_secret = self._load_unique_id_secret()
        self._bridged_startup_events = bridged_startup_events
        self._root_runtime = root_runtime

        roots = list(root_clusters)
        if not any(s.cluster_name == "Descriptor" for s in roots):
            roots.insert(0, DescriptorServer())
        self._root = Endpoint(0, [ROOT_NODE], roots)
        self._restore_root_labels()
        self._aggregator = Endpoint(AGGREGATOR_ENDPOINT, [AGGREGATOR], [DescriptorServer()])
        self._event_forwarders: dict[tuple[int, int], Callable[[], None]] = {}
        for endpoint in (self._root, self._aggregator):
            for server in endpoint.clusters.values():
                self._forward_events(endpoint.endpoint_id, server)  # before attach: servers may emit then
            endpoint.attach(root_runtime)
            for server in endpoint.clusters.values():
                server.add_listener(self._own_listener(endpoint.endpoint_id))
        self.groups = NodeGroups(self._store, self._root.find("GroupKeyManagement"))
        self._bridged: dict[int, BridgeEndpoint] = {}
        self._by_device: dict[tuple[str, int], int] = {}
        self._by_id: dict[int, dict[int, ClusterServer]] = {}
        self._build()
        self._emit_startup_events()
        self._unsubscribe_home = home.subscribe(self._on_home_event)

    def _restore_root_labels(self) -> None:
        info = self._root.find("BasicInformation")
        saved = self._store.get(ROOT_LABELS_KEY) or {}
        if info is not None and isinstance(saved, dict):
            for attribute in USER_SETTABLE:
                if attribute in saved:
                    info.restore(attribute, saved[attribute])

    def _save_root_labels(self, info: ClusterServer) -> None:
        """A controller's write to the bridge's own BasicInformation, stored before it is acknowledged."""
        self._store.set(ROOT_LABELS_KEY, {attribute: info.read(attribute) for attribute in USER_SETTABLE})

    # ------------------------------------------------------------------------------ layout
    def _build(self) -> None:
        bridged: dict[int, BridgeEndpoint] = {}
        for device in self.home.devices():
            device_eps = sorted(ep for ep in device.endpoints if ep != 0)
            if not device_eps:
                continue
            numbers = [self._endpoint_map.number(device.device_id, ep) for ep in device_eps]
            for index, (device_ep, number) in enumerate(zip(device_eps, numbers, strict=True)):
                old = self._bridged.get(number)
                if old is not None and old.device_id == device.device_id:
                    bridged[number] = old  # unchanged device: keep its servers (and data versions)
                    continue
                bridged[number] = self._bridge_endpoint(device, device_ep, number, numbers[1:] if index == 0 else [])
        self._endpoint_map.save()
        self.groups.forget(set(self._bridged) - set(bridged))
        self._bridged = bridged
        self._by_device = {(b.device_id, b.device_endpoint): n for n, b in bridged.items()}  # type: ignore[misc]  # bridged endpoints have their device ids
        self._aggregator.parts = sorted(bridged)
        self._root.parts = [AGGREGATOR_ENDPOINT, *sorted(bridged)]
        self._by_id = {
            0: _by_cluster_id(self._root.clusters),
            AGGREGATOR_ENDPOINT: _by_cluster_id(self._aggregator.clusters),
        }
        for number, endpoint in bridged.items():
            self._by_id[number] = _by_cluster_id(endpoint.clusters)

    def _bridge_endpoint(self, device: Any, device_ep: int, number: int, parts: list[int]) -> BridgeEndpoint:
        source = device.endpoints[device_ep]
        is_top = device_ep == min(ep for ep in device.endpoints if ep != 0)
        old_descriptor = source.find("Descriptor")
        tags = (
            old_descriptor.read("TagList")
            if old_descriptor is not None and old_descriptor.has_attribute("TagList")
            else None
        )
        own: dict[str, ClusterServer] = {"Descriptor": DescriptorServer(tags=tags or None)}
        device_types = list(source.device_types)
        if is_top:
            device_types = [BRIDGED_NODE, *device_types]
            own["BridgedDeviceBasicInformation"] = self._bridged_info(device)
            room = self._room_name(device.room_id)
            own["FixedLabel"] = FixedLabelServer({"room": room})
        servers = dict(own)
        for name, server in source.clusters.items():
            if name not in servers:
                servers[name] = server
        endpoint = BridgeEndpoint(number, device_types, servers, device.device_id, device_ep, set(own), list(parts))
        for server in own.values():
            server.attach(endpoint, None)  # type: ignore[arg-type]  # duck-typed Endpoint
            server.add_listener(self._own_listener(number))
        for server in servers.values():
            self._forward_events(number, server)
        self.groups.attach(number, EndpointMap.key(device.device_id, device_ep), servers)
        return endpoint

    def _room_name(self, room_id: str) -> str:
        try:
            return self.home.room(room_id).name
        except HomeError:
            return room_id

    def _load_unique_id_secret(self) -> bytes:
        saved = self._store.get(UNIQUE_ID_SECRET_KEY)
        if isinstance(saved, str) and len(saved) == 64:
            return bytes.fromhex(saved)
        secret = secrets.token_bytes(32)
        self._store.set(UNIQUE_ID_SECRET_KEY, secret.hex())
        return secret

    def _bridged_info(self, device: Any) -> BridgedDeviceBasicInformationServer:
        info = device.find(0, "BasicInformation")

        def value(name: str, default: Any) -> Any:
            return info.read(name) if info is not None and info.has_attribute(name) else default

        label = (device.name or device.device_id)[:MAX_LABEL]
        return BridgedDeviceBasicInformationServer(
            vendor_name=value("VendorName", "HomeFabric"),
            vendor_id=value("VendorID", 0xFFF1),
            product_name=value("ProductName", device.device_type)[:MAX_LABEL],
            product_id=value("ProductID", 0x8000),
            node_label=label,
            serial_number=serial_number_for(device.device_id),
            unique_id=unique_id_for(self._unique_id_secret, device.device_id),
            software_version=value("SoftwareVersion", 1),
            software_version_string=value("SoftwareVersionString", "1.0.0"),
            reachable=True,
        )

    def refresh(self) -> None:
        """Pick up devices added to or removed from the home since construction (new endpoint numbers)."""
        with self._lock:
            before = set(self._bridged)
            self._build()
            added = sorted(set(self._bridged) - before)
        for number in added:
            self._emit_bridged_startup(number)
        self._changed(0, self._descriptor_id, "PartsList")
        self._changed(AGGREGATOR_ENDPOINT, self._descriptor_id, "PartsList")

    def close(self) -> None:
        self._unsubscribe_home()
        for stop in self._event_forwarders.values():
            stop()
        self._event_forwarders.clear()

    _descriptor_id = Objects.Descriptor.id

    # ------------------------------------------------------------------------------ events
    @property
    def events(self) -> EventLog:
        return self._events

    def _forward_events(self, number: int, server: ClusterServer) -> None:
        """Log the events ``server`` emits as events of bridge endpoint ``number`` (once per server)."""
        key = (number, id(server))
        if key in self._event_forwarders:
            return

        def forward(source: ClusterServer, name: str, fields: dict[str, Any], priority: EventPriority) -> None:
            event_id = source.model.events[name].event_id
            schema = event_fields(source.cluster_name, name)
            payload = encode_fields(schema, fields)
            # Fabric-sensitive events carry the global FabricIndex field (tag 254); others merely name one.
            fabric_index = fields.get("fabricIndex") if any(f.tag == 0xFE for f in schema) else None
            self._events.emit(
                number,
                source.cluster_id,
                event_id,
                Priority(int(priority)),
                payload,
                fabric_index=int(fabric_index) if fabric_index else None,
            )

        self._event_forwarders[key] = server.add_event_listener(forward)

    def _emit_startup_events(self) -> None:
        info = self._root.find("BasicInformation")
        if info is not None:
            info.emit_event("StartUp", {"softwareVersion": info.read("SoftwareVersion")}, EventPriority.CRITICAL)
        if self._bridged_startup_events:
            for number in sorted(self._bridged):
                self._emit_bridged_startup(number)

    def _emit_bridged_startup(self, number: int) -> None:
        info = self._bridged[number].clusters.get("BridgedDeviceBasicInformation")
        if info is not None:
            info.emit_event("StartUp", {"softwareVersion": info.read("SoftwareVersion")}, EventPriority.CRITICAL)

    # ------------------------------------------------------------------------------ changes
    def _own_listener(self, endpoint: int) -> Callable[[ClusterServer, str, Any, Any], None]:
        def listener(server: ClusterServer, attribute: str, old: Any, new: Any) -> None:
            self._changed(endpoint, server.cluster_id, attribute)

        return listener

    def _on_home_event(self, event: AttributeEvent) -> None:
        number = self._by_device.get((event.device_id, event.endpoint))
        if number is None:
            return
        endpoint = self._bridged.get(number)
        if endpoint is None or event.cluster in endpoint.own:
            return  # e.g. the device's own Descriptor, which the bridge replaces
        server = endpoint.clusters.get(event.cluster)
        if server is not None:
            self._changed(number, server.cluster_id, event.attribute)

    def _changed(self, endpoint: int, cluster_id: int, attribute: str) -> None:
        with self._lock:
            key = (endpoint, cluster_id)
            if key in self._versions:
                self._versions[key] = (self._versions[key] + 1) & 0xFFFFFFFF
        for listener in list(self._listeners):
            try:
                listener(endpoint, cluster_id, attribute)
            except Exception:  # a broken subscriber must not break the home
                log.exception("change listener failed")

    def add_change_listener(self, listener: ChangeListener) -> Callable[[], None]:
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    def data_version(self, endpoint: int, cluster_id: int) -> int:
        with self._lock:
            key = (endpoint, cluster_id)
            version = self._versions.get(key)
            if version is None:
                # Random start (spec §7.10.3): a controller's cached version from before a restart
                # must not match by accident.
                version = self._versions[key] = secrets.randbits(32)
            return version

    # ------------------------------------------------------------------------------ DataModel
    def endpoints(self) -> list[int]:
        return [0, AGGREGATOR_ENDPOINT, *sorted(self._bridged)]

    def bridged_endpoints(self) -> dict[int, tuple[str, int]]:
        """Bridge endpoint → (device id, device endpoint)."""
        return {n: (b.device_id, b.device_endpoint) for n, b in self._bridged.items()}  # type: ignore[misc]  # bridged endpoints have their device ids

    def group_endpoints(self, fabric_index: int, group_id: int) -> list[int]:
        """The endpoints in a fabric's group (targets of a group-addressed message)."""
        return self.groups.members(fabric_index, group_id)

    def endpoint_of(self, device_id: str, device_endpoint: int) -> int | None:
        return self._by_device.get((device_id, device_endpoint))

    def device_types(self, endpoint: int) -> list[tuple[int, int]]:
        if endpoint in self._bridged:
            return list(self._bridged[endpoint].device_types)
        return list((self._root if endpoint == 0 else self._aggregator).device_types)

    def parts(self, endpoint: int) -> list[int]:
        if endpoint in self._bridged:
            return list(self._bridged[endpoint].parts)
        return list((self._root if endpoint == 0 else self._aggregator).parts)

    def clusters(self, endpoint: int) -> dict[int, ClusterServer]:
        return self._by_id.get(endpoint, {})

    def server(self, endpoint: int, cluster_id: int) -> ClusterServer:
        servers = self._by_id.get(endpoint)
        if servers is None:
            raise HomeError.refused(Status.UNSUPPORTED_ENDPOINT, f"no endpoint {endpoint}")
        server = servers.get(cluster_id)
        if server is None:
            raise HomeError.refused(
                Status.UNSUPPORTED_CLUSTER, f"endpoint {endpoint} has no cluster 0x{cluster_id:04x}"
            )
        return server

    def _device_target(self, endpoint: int, server: ClusterServer) -> tuple[str, int] | None:
        bridged = self._bridged.get(endpoint)
        if bridged is None or server.cluster_name in bridged.own:
            return None
        return bridged.device_id, bridged.device_endpoint  # type: ignore[return-value]  # a bridged endpoint has its device id and endpoint

    def read(self, endpoint: int, cluster_id: int, attribute: str) -> Any:
        server = self.server(endpoint, cluster_id)
        target = self._device_target(endpoint, server)
        if target is None:
            return server.read(attribute)
        return self.home.read(target[0], target[1], server.cluster_name, attribute)

    def write(
        self, endpoint: int, cluster_id: int, attribute: str, value: Any, *, server: ClusterServer | None = None
    ) -> None:
        server = self.server(endpoint, cluster_id) if server is None else server
        target = self._device_target(endpoint, server)
        if target is None:
            server.write(attribute, value)
            if endpoint == 0 and server.cluster_name == "BasicInformation" and attribute in USER_SETTABLE:
                self._save_root_labels(server)
            bridged = self._bridged.get(endpoint)
            if (
                server.cluster_name == "BridgedDeviceBasicInformation"
                and attribute == "NodeLabel"
                and bridged is not None
            ):
                assert bridged.device_id is not None  # an endpoint in _bridged stands for a device
                self.home.rename_device(bridged.device_id, server.read("NodeLabel"))  # kept with the home
            return
        with acting_as(self.groups.requester()):  # fabric-scoped lists (Binding) keep each fabric's entries
            self.home.write(target[0], target[1], server.cluster_name, attribute, value)

    def invoke(
        self, endpoint: int, cluster_id: int, command: str, args: dict[str, Any], *, server: ClusterServer | None = None
    ) -> dict[str, Any] | None:
        """Run a command on ``server`` (the IM's resolved server; looked up from the ids when not given)."""
        server = self.server(endpoint, cluster_id) if server is None else server
        target = self._device_target(endpoint, server)
        with acting_as(self.groups.requester()):  # fabric-scoped clusters (Groups, Scenes) see the fabric
            if target is None:
                return server.invoke(command, args)
            response: dict[str, Any] | None = self.home.invoke(
                target[0], target[1], server.cluster_name, command, args
            ).response
            return response

    def set_reachable(self, device_id: str, reachable: bool) -> None:
        """Scenario hook: the device drops off (or comes back to) the bridge."""
        for endpoint in self._bridged.values():
            info = endpoint.clusters.get("BridgedDeviceBasicInformation")
            if endpoint.device_id == device_id and isinstance(info, BridgedDeviceBasicInformationServer):
                info.set_reachable(reachable)


def _by_cluster_id(servers: dict[str, ClusterServer] | Iterable[ClusterServer]) -> dict[int, ClusterServer]:
    values = servers.values() if isinstance(servers, dict) else servers
    return {server.cluster_id: server for server in values}
