"""An endpoint: the clusters of one function of a node, and the device types it implements."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from clusters.base import ClusterServer
from clusters.runtime import Runtime
from clusters.status import HomeError, Status

EndpointListener = Callable[[int, str, str, Any, Any], None]


class Endpoint:
    def __init__(
        self, endpoint_id: int, device_types: Iterable[tuple[int, int]], clusters: Iterable[ClusterServer]
    ) -> None:
        self.endpoint_id = endpoint_id
        self.device_types = list(device_types)  # (device type id, revision)
        self.clusters: dict[str, ClusterServer] = {}
        for server in clusters:
            if server.cluster_name in self.clusters:
                raise ValueError(f"endpoint {endpoint_id} has {server.cluster_name} twice")
            self.clusters[server.cluster_name] = server
        self.parts: list[int] = []
        self._watchers: dict[tuple[str, str], list[Callable[[Any, Any], None]]] = {}
        self._sinks: list[EndpointListener] = []
        on_change = self._on_change  # one bound method for every server of the endpoint
        for server in self.clusters.values():
            server.add_listener(on_change)

    def attach(self, runtime: Runtime | None) -> None:
        for server in self.clusters.values():
            server.attach(self, runtime)

    def cluster(self, name: str) -> ClusterServer:
        server = self.clusters.get(name)
        if server is None:
            raise HomeError.refused(
                Status.UNSUPPORTED_CLUSTER,
                f"endpoint {self.endpoint_id} has no cluster {name!r}",
                allowed=sorted(self.clusters),
            )
        return server

    def find(self, name: str) -> ClusterServer | None:
        return self.clusters.get(name)

    def watch(self, cluster: str, attribute: str, callback: Callable[[Any, Any], None]) -> None:
        """Let a sibling cluster react to a change (e.g. OperationalState to OnOff going off)."""
        self._watchers.setdefault((cluster, attribute), []).append(callback)

    def add_sink(self, sink: EndpointListener) -> None:
        self._sinks.append(sink)

    def _on_change(self, server: ClusterServer, attribute: str, old: Any, new: Any) -> None:
        for sink in self._sinks:
            sink(self.endpoint_id, server.cluster_name, attribute, old, new)
        for callback in self._watchers.get((server.cluster_name, attribute), ()):
            callback(old, new)
