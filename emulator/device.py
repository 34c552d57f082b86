"""A device: one emulated Matter node (endpoints → clusters) placed in a room."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar, overload

from clusters import ClusterServer, Endpoint, HomeError, server_class
from clusters.basic_information import BasicInformationServer, DeviceIdentity
from clusters.descriptor import share_fixed_descriptor
from clusters.device_types import ROOT_NODE
from clusters.runtime import Runtime
from emulator.catalogue.spec import ClusterSpec, DeviceTypeSpec
from emulator.clock import VirtualClock
from emulator.role_behaviour import RoleBehaviour, attach_role_behaviour

ChangeSink = Callable[["Device", int, str, str, Any, Any], None]
# The Descriptor every endpoint without one of its own gets: one spec, so its servers share one table of values.
DEFAULT_DESCRIPTOR = ClusterSpec("Descriptor")


def initial_node_label(device_id: str, name: str | None) -> str:
    """A device's BasicInformation.NodeLabel when it is made: its name, else its id (Matter allows 32 chars)."""
    return (name or device_id)[:32]


@functools.lru_cache(maxsize=4096)  # generated homes (and homes built from one config) repeat their devices
def device_identity(device_id: str, name: str | None) -> DeviceIdentity:
    """A device's identity as made: one object for every home's device of this id and name (it never changes; a
    write of NodeLabel is kept by the device's server, not here)."""
    return DeviceIdentity(device_id, initial_node_label(device_id, name))


def _product_information(spec: DeviceTypeSpec, identity: DeviceIdentity) -> ClusterServer:
    """A BasicInformation server with the device type's vendor and product and the device's ``identity``: a copy of
    one prepared per device type (its values shared), reading the identity's values from it."""
    prepared = spec.prepared.get("BasicInformation")
    if prepared is None:
        prepared = spec.prepared["BasicInformation"] = server_class("BasicInformation")(
            values={
                "VendorName": spec.vendor_name,
                "VendorID": spec.vendor_id,
                "ProductName": spec.product_name,
                "ProductID": spec.product_id,
            }
        )
        prepared.share_values(None)
    basic = prepared.copy_as_built()
    if not isinstance(basic, BasicInformationServer):
        raise AssertionError("a prepared BasicInformation server holds only immutable values: it can be copied")
    basic.read_identity(identity)
    return basic


# Endpoint 0's device types, one tuple for every device (an endpoint keeps the tuple it is given)
_ROOT_DEVICE_TYPES = (ROOT_NODE,)

_T = TypeVar("_T")


class EndpointMap(Mapping[int, Endpoint]):
    """A device's endpoints by id, read-only, in the order they were built (0, then its catalogue entry's): a view
    of ``endpoints`` (a tuple) under ``ids`` (its device type's tuple, in the same order), made when asked.

    A device holds only the tuple (a home holds dozens of devices: a dict each took some 230 bytes). Its endpoints
    are fixed once built; a device whose endpoints change is a new Device."""

    __slots__ = ("_endpoints", "_ids")

    def __init__(self, ids: tuple[int, ...], endpoints: tuple[Endpoint, ...]) -> None:
        self._ids = ids
        self._endpoints = endpoints

    def __getitem__(self, endpoint_id: int) -> Endpoint:
        ids = self._ids
        if endpoint_id in ids:
            return self._endpoints[ids.index(endpoint_id)]
        raise KeyError(endpoint_id)

    @overload
    def get(self, endpoint_id: int, /) -> Endpoint | None: ...
    @overload
    def get(self, endpoint_id: int, /, default: Endpoint | _T) -> Endpoint | _T: ...
    def get(self, endpoint_id: int, /, default: object = None) -> object:  # as dict.get: no KeyError on a miss
        ids = self._ids
        return self._endpoints[ids.index(endpoint_id)] if endpoint_id in ids else default

    def __contains__(self, endpoint_id: object) -> bool:
        return endpoint_id in self._ids

    def __iter__(self) -> Iterator[int]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def __repr__(self) -> str:
        return f"EndpointMap({dict(zip(self._ids, self._endpoints, strict=True))!r})"


class Device:
    """One node; it is itself its endpoints' change sink (callable as one: no bound method per device), and hands
    each change on to its own sinks (the home's)."""

    # A home holds dozens of devices: slots; what a device type shares (its spec, its parts) is not copied.
    __slots__ = ("_endpoints", "_sinks", "_view", "behaviour", "device_id", "name", "room_id", "spec")

    def __init__(self, device_id: str, spec: DeviceTypeSpec, room_id: str, name: str | None = None) -> None:
        self.device_id = device_id
        self.spec = spec
        self.room_id = room_id
        self.name = name
        self._sinks: tuple[ChangeSink, ...] = ()
        self._view: DeviceView | None = None
        # What its roles start once attached (emulator/role_behaviour.py): none for most devices.
        self.behaviour: tuple[RoleBehaviour, ...] = ()
        if any(e.endpoint_id == 0 for e in spec.endpoints):
            raise ValueError(f"{spec.name}: endpoint 0 is the root node, built here; the catalogue starts at 1")
        ids = spec.device_endpoint_ids
        if len(set(ids)) != len(ids):
            raise ValueError(f"{spec.name}: endpoint ids repeat: {ids}")
        basic = _product_information(spec, device_identity(device_id, name))
        root = Endpoint(0, _ROOT_DEVICE_TYPES, [basic, DEFAULT_DESCRIPTOR.build()])
        built = [root]
        for endpoint_spec in spec.endpoints:
            servers = [c.build() for c in endpoint_spec.clusters]
            if not any(s.cluster_name == "Descriptor" for s in servers):
                servers.insert(0, DEFAULT_DESCRIPTOR.build())
            built.append(Endpoint(endpoint_spec.endpoint_id, endpoint_spec.device_types, servers))
        self._endpoints = tuple(built)  # in the order of spec.device_endpoint_ids
        root.parts = tuple(sorted(ids[1:]))  # a tuple: shared (Endpoint)
        for endpoint in built:
            endpoint.add_sink(self)  # the device itself, no tuple: a home holds dozens of devices

    @property
    def view(self) -> DeviceView:
        """What the home hands out: one view per device (made when first asked for)."""
        if self._view is None:
            self._view = DeviceView(self)
        return self._view

    @property
    def device_type(self) -> str:
        return self.spec.name

    @property
    def endpoints(self) -> EndpointMap:
        """Its endpoints by id, read-only, in build order: a view made when asked (the device holds the tuple)."""
        return EndpointMap(self.spec.device_endpoint_ids, self._endpoints)

    def find_endpoint(self, endpoint_id: int) -> Endpoint | None:
        """``endpoints.get(endpoint_id)`` without making the view (every read, write and invoke asks)."""
        ids = self.spec.device_endpoint_ids
        return self._endpoints[ids.index(endpoint_id)] if endpoint_id in ids else None

    def attach(self, runtime: Runtime) -> None:
        """Attach its endpoints to ``runtime``; from now on they are fixed (a device whose endpoints change is a new
        Device), so each takes the Descriptor every endpoint of its shape shares."""
        for endpoint in self._endpoints:
            endpoint.attach(runtime)
            share_fixed_descriptor(endpoint)
        if isinstance(runtime, VirtualClock):
            self.behaviour = tuple(attach_role_behaviour(self.spec.name, self.spec.roles, self.endpoints, runtime))

    def add_sink(self, sink: ChangeSink) -> None:
        self.add_sinks((sink,))

    def add_sinks(self, sinks: tuple[ChangeSink, ...]) -> None:
        """Tell each of ``sinks`` of every change: a device with none yet keeps the tuple itself (a home hands one
        tuple to all its devices)."""
        self._sinks = (*self._sinks, *sinks) if self._sinks else sinks

    def clear_sinks(self) -> None:
        """Stop reporting changes (the device left its home)."""
        self._sinks = ()

    def __call__(self, endpoint_id: int, cluster: str, attribute: str, old: Any, new: Any) -> None:
        """A change on one of its endpoints (the device is their sink)."""
        for sink in self._sinks:
            sink(self, endpoint_id, cluster, attribute, old, new)

    # ------------------------------------------------------------------------------ addressing
    def endpoint(self, endpoint_id: int) -> Endpoint:
        endpoint = self.find_endpoint(endpoint_id) if isinstance(endpoint_id, int) else None
        if endpoint is None:
            raise HomeError(
                "ENDPOINT_NOT_FOUND",
                f"device {self.device_id!r} has no endpoint {endpoint_id!r}",
                allowed=sorted(self.endpoints),
            )
        return endpoint

    def cluster(self, endpoint_id: int, cluster: str) -> ClusterServer:
        endpoint = self.endpoint(endpoint_id)
        try:
            return endpoint.cluster(cluster)
        except HomeError as error:
            raise HomeError(
                "CLUSTER_NOT_FOUND",
                f"device {self.device_id!r} endpoint {endpoint_id} has no cluster {cluster!r}",
                status=error.status,
                allowed=error.allowed,
            ) from None

    def find(self, endpoint_id: int, cluster: str) -> ClusterServer | None:
        endpoint = self.find_endpoint(endpoint_id)
        return endpoint.find(cluster) if endpoint else None

    def value(self, endpoint_id: int, cluster: str, attribute: str, default: Any = None) -> Any:
        """Internal read for physics and rules: the default if the path does not exist."""
        server = self.find(endpoint_id, cluster)
        if server is None or not server.has_attribute(attribute):
            return default
        return server.read(attribute)

    def paths(self) -> list[tuple[int, str, str]]:
        return [
            (ep_id, name, attr)
            for ep_id, ep in sorted(self.endpoints.items())
            for name, server in ep.clusters.items()
            for attr in server.attribute_names()
        ]

    # ------------------------------------------------------------------------------ device rules
    def check_power(
        self, endpoint_id: int, cluster: str, *, command: str | None = None, attribute: str | None = None
    ) -> None:
        """Raise DEPENDENCY_VIOLATION when a power-dependent operation is asked while off."""
        for rule in self.spec.power_rules:
            if rule.endpoints is not None and endpoint_id not in rule.endpoints:
                continue
            if command is not None:
                hit = cluster in rule.clusters and command not in rule.except_commands
            else:
                hit = f"{cluster}.{attribute}" in rule.writes
            if hit and not self.value(rule.power_endpoint, "OnOff", "OnOff", default=True):
                what = f"command {cluster}.{command}" if command else f"write to {cluster}.{attribute}"
                raise HomeError(
                    "DEPENDENCY_VIOLATION",
                    f"{self.spec.name} {self.device_id!r} is off: {what} needs it on "
                    f"(invoke {rule.power_endpoint}.OnOff.On first)",
                    allowed={"required": f"{rule.power_endpoint}.OnOff.OnOff == true"},
                )


class DeviceView:
    """A device as the home hands it out: identity, room, endpoints and reads, with no setters and no hooks
    (renaming, placing and change sinks stay the home's). One view per device, so identity comparisons hold."""

    __slots__ = ("_device",)

    def __init__(self, device: Device) -> None:
        self._device = device

    @property
    def device_id(self) -> str:
        return self._device.device_id

    @property
    def device_type(self) -> str:
        return self._device.device_type

    @property
    def room_id(self) -> str:
        return self._device.room_id

    @property
    def name(self) -> str | None:
        return self._device.name

    @property
    def spec(self) -> DeviceTypeSpec:
        return self._device.spec

    @property
    def endpoints(self) -> Mapping[int, Endpoint]:
        return self._device.endpoints  # read-only itself

    def endpoint(self, endpoint_id: int) -> Endpoint:
        return self._device.endpoint(endpoint_id)

    def cluster(self, endpoint_id: int, cluster: str) -> ClusterServer:
        return self._device.cluster(endpoint_id, cluster)

    def find(self, endpoint_id: int, cluster: str) -> ClusterServer | None:
        return self._device.find(endpoint_id, cluster)

    def value(self, endpoint_id: int, cluster: str, attribute: str, default: Any = None) -> Any:
        return self._device.value(endpoint_id, cluster, attribute, default)

    def paths(self) -> list[tuple[int, str, str]]:
        return self._device.paths()

    def __repr__(self) -> str:
        return f"DeviceView({self.device_id!r}, {self.device_type!r}, room={self.room_id!r})"
