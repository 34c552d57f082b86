"""Switch bindings: which device a light switch's Binding entry names, and whether it can be bound.

In the emulated home every device is one Matter node; its operational node id (:func:`node_id_of`) is derived from
its device id, so it is stable across saves and loads and needs no storage. A Binding entry ``{node, endpoint,
cluster}`` names a device by that node id. :class:`SwitchBindings` answers the Binding servers' check of a target
(it exists, has the endpoint, serves the cluster) and turns a switch's entries back into devices for the acts that
press it (emulator/scenarios.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from clusters.binding import BindingServer
from clusters.chip_model import cluster_model
from emulator.device import Device

NODE_ID_BYTES = 4  # 32-bit ids, well inside Matter's operational node-id range (1 … 0xFFFF_FFEF_FFFF_FFFF)
NODE_ID_SPAN = 0xFFFF_FFFF


def node_id_of(device_id: str) -> int:
    """The node id of a device of the emulated home: a stable number from its id (never 0)."""
    digest = hashlib.sha256(f"homefabric-node/{device_id}".encode()).digest()
    return int.from_bytes(digest[:NODE_ID_BYTES], "big") % NODE_ID_SPAN + 1


class SwitchBindings:
    """Resolves Binding targets against the home's devices (``devices``: the live device table itself, never
    replaced: no closure per home to reach it)."""

    __slots__ = ("_devices",)  # one per home, as the other owners below: no instance dict

    def __init__(self, devices: Mapping[str, Device]) -> None:
        self._devices = devices

    def attach(self, device: Device) -> None:
        """Let the device's Binding servers check their targets against this home."""
        for endpoint in device.endpoints.values():
            server = endpoint.clusters.get("Binding")
            if isinstance(server, BindingServer):
                server.targets = self

    def device_of(self, node: int) -> Device | None:
        return next((d for d in self._devices.values() if node_id_of(d.device_id) == node), None)

    def binding_problem(self, node: int, endpoint: int, cluster_id: int | None) -> str | None:
        device = self.device_of(node)
        if device is None:
            return f"no device of this home has node id {node}"
        found = device.endpoints.get(endpoint)
        if found is None:
            endpoints = sorted(device.endpoints)
            return f"device {device.device_id!r} (node {node}) has no endpoint {endpoint}; it has {endpoints}"
        if cluster_id is not None and all(server.cluster_id != cluster_id for server in found.clusters.values()):
            served = sorted(server.cluster_name for server in found.clusters.values())
            return f"device {device.device_id!r} endpoint {endpoint} serves no cluster {cluster_id}; it serves {served}"
        return None

    def targets(self, switch: Device, cluster: str) -> list[tuple[str, int]]:
        """(device id, endpoint) of every device the switch is bound to for ``cluster``, in Binding order."""
        cluster_id = cluster_model(cluster).cluster_id
        out: list[tuple[str, int]] = []
        for endpoint in sorted(switch.endpoints):
            server = switch.endpoints[endpoint].clusters.get("Binding")
            if not isinstance(server, BindingServer):
                continue
            for node, target_endpoint in server.unicast_targets(cluster_id):
                device = self.device_of(node)
                if device is not None:
                    out.append((device.device_id, target_endpoint))
        return out
