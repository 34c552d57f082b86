"""How a device type is described: endpoints, their official device types and cluster servers,
device-level rules (power dependencies) and the roles the physics engine gives it."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from clusters import ClusterServer, server_class
from clusters.base import CopyPlan


@dataclass(frozen=True)
class ClusterSpec:
    cluster: str  # official cluster name (chip.clusters.Objects)
    features: int | None = None
    values: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)  # server constructor keywords
    # The first server built from this entry, never attached: later builds copy it when it can be copied (its
    # values table is then shared by every server of the entry, one per process, not one per home).
    # Its copy plan (ClusterServer.copy_plan, None when it cannot be copied) is taken once: it never changes.
    _prepared: dict[str, ClusterServer] = field(default_factory=dict, init=False, repr=False, compare=False)
    _plan: list[CopyPlan | None] = field(default_factory=list, init=False, repr=False, compare=False)

    def build(self) -> ClusterServer:
        prepared = self._prepared.get("server")
        if prepared is None:
            prepared = self._prepared["server"] = self._construct()
            prepared.share_values(None)
            self._plan.append(prepared.copy_plan())
        plan = self._plan[0]
        server = None if plan is None else prepared.copy_by(plan)
        if server is None:  # a server with state of its own beyond its values: built again, sharing its values
            server = self._construct()
            server.share_values(prepared.share_values(None))
        return server

    def _construct(self) -> ClusterServer:
        return server_class(self.cluster)(features=self.features, values=dict(self.values), **dict(self.options))


@dataclass(frozen=True)
class EndpointSpec:
    endpoint_id: int
    device_types: tuple[tuple[int, int], ...]  # (official device type id, revision)
    clusters: tuple[ClusterSpec, ...]
    # Clusters that the official device-type definitions do not list for these device types but
    # that SimuHome's device has on this endpoint (e.g. OnOff on a Fan): kept for compatibility.
    compat_clusters: frozenset[str] = frozenset()
    tags: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class PowerDependency:
    """Operations that a device refuses while its On/Off (on ``power_endpoint``) is off."""

    clusters: frozenset[str]  # every command of these clusters …
    except_commands: frozenset[str] = frozenset()  # … but these
    writes: frozenset[str] = frozenset()  # "Cluster.Attribute" writes
    power_endpoint: int = 1
    endpoints: frozenset[int] | None = None  # None: any endpoint


@dataclass(frozen=True)
class PowerDraw:
    """A metered device's draw follows its mode: ``standby_mW`` while the mode attribute holds one of
    ``off_values``, ``running_mW`` otherwise (emulator/power_draw.py applies it on load and on each change)."""

    meter_endpoint: int  # the endpoint with ElectricalPowerMeasurement
    mode: tuple[int, str, str]  # (endpoint, cluster, attribute) that switches the draw
    off_values: frozenset[Any]
    running_mW: int | None  # None: unknown while running (a plug's load is whatever is plugged in)
    standby_mW: int


@dataclass(frozen=True)
class DeviceTypeSpec:
    name: str  # catalogue name, e.g. "air_conditioner" (SimuHome's names where it has the type)
    label: str
    description: str
    vendor_name: str
    product_name: str
    product_id: int
    endpoints: tuple[EndpointSpec, ...]
    power_rules: tuple[PowerDependency, ...] = ()
    # Physics roles and the endpoint that plays each: ("light", 1), ("fan", 2), ("ac", 1) … (emulator/physics.py)
    roles: tuple[tuple[str, int], ...] = ()
    origin: str = "homefabric"  # "simuhome" for SimuHome's 17 types
    power_draw: PowerDraw | None = None
    vendor_id: int = 0xFFF1  # CSA test vendor id: these are emulated, uncertified products
    # Servers prepared once per device type and copied into each device (emulator/device.py): not part of the spec.
    prepared: dict[str, ClusterServer] = field(default_factory=dict, init=False, repr=False, compare=False)

    def endpoint(self, endpoint_id: int) -> EndpointSpec:
        return next(e for e in self.endpoints if e.endpoint_id == endpoint_id)

    @functools.cached_property
    def device_endpoint_ids(self) -> tuple[int, ...]:
        """A device's endpoint ids in the order it builds them: its root node's 0, then these endpoints' (one tuple
        for every device of this type: emulator/device.py's EndpointMap)."""
        return (0, *(e.endpoint_id for e in self.endpoints))

    @property
    def primary_device_type(self) -> int:
        return next(e for e in self.endpoints if e.endpoint_id != 0).device_types[0][0]
