"""Descriptor cluster (0x001D): what an endpoint is — device types, server/client clusters, parts.

DeviceTypeList, ServerList and PartsList are computed from the endpoint this server sits on, so
they are always consistent with it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import clusters.official as Objects
from clusters.attribute_values import AttributeValues, WriteMark
from clusters.base import ChangeListener, ClusterServer, EventListener, HostingEndpoint, _SharedValues
from clusters.values import coerce

if TYPE_CHECKING:
    from clusters.endpoint import Endpoint
    from clusters.runtime import Runtime

Feature = Objects.Descriptor.Bitmaps.Feature


class DescriptorServer(ClusterServer):
    """Constructor options: ``client_clusters`` (ClientList cluster ids), ``tags`` (TagList:
    SemanticTagStruct dicts {mfgCode, namespaceID, tag, label}; giving tags turns on the TagList
    feature), plus ``features`` and ``values``.
    """

    __slots__ = ()

    cluster_name = "Descriptor"
    revision = 2
    defaults = {"DeviceTypeList": [], "ServerList": [], "ClientList": [], "PartsList": [], "TagList": []}

    def __init__(
        self,
        *,
        client_clusters: list[int] | None = None,
        tags: list[Mapping[str, Any]] | None = None,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        if features is None:
            features = int(Feature.kTagList) if tags else 0
        super().__init__(features=features)
        self.restore("ClientList", client_clusters or [])
        if self.has_feature(Feature.kTagList):
            tag_type = self.model.attributes["TagList"].type
            self.restore(
                "TagList",
                coerce([{"mfgCode": None, "label": None, **t} for t in tags or []], tag_type, "Descriptor.TagList"),
            )
        for name, value in (values or {}).items():
            self.restore(name, value)

    def initial_values(self) -> dict[str, Any]:
        out = {k: v for k, v in self.defaults.items() if k != "TagList"}
        if self.has_feature(Feature.kTagList):
            out["TagList"] = []
        return out

    # Once attached, these are read from the endpoint (live, like a bound source, but one table for every
    # Descriptor rather than three bound sources each: a home holds one Descriptor per endpoint); before, the
    # stored empty lists.
    def read(self, name: str) -> Any:
        derive = FROM_ENDPOINT.get(name)
        if derive is not None and self.endpoint is not None:
            return derive(self)
        return ClusterServer.read(self, name)

    def watch_writes(self, mark: WriteMark) -> bool:
        """Not read live between two writes: the lists derived from the endpoint change only with its device types,
        servers and parts, fixed once it is attached (its device is built)."""
        super().watch_writes(mark)
        return False

    def restore(self, name: str, value: Any) -> None:
        if self.endpoint is not None and name in FROM_ENDPOINT:
            return  # live values are owned by the endpoint
        super().restore(name, value)

    def _device_types(self) -> list[dict[str, int]]:
        assert self.endpoint is not None
        return [{"deviceType": kind, "revision": revision} for kind, revision in self.endpoint.device_types]

    def _servers(self) -> list[int]:
        assert self.endpoint is not None
        return sorted(server.cluster_id for server in self.endpoint.clusters.values())

    def _parts(self) -> list[int]:
        assert self.endpoint is not None
        return list(self.endpoint.parts)


FROM_ENDPOINT: dict[str, Callable[[DescriptorServer], Any]] = {
    "DeviceTypeList": DescriptorServer._device_types,
    "ServerList": DescriptorServer._servers,
    "PartsList": DescriptorServer._parts,
}
DescriptorServer.live_reads = frozenset(FROM_ENDPOINT)  # read_all asks read() for these alone


class FixedDescriptorServer(DescriptorServer):
    """The Descriptor of every endpoint of one fixed shape — the same device types, servers, parts, client list and
    tags —, one per shape in a process (:func:`share_fixed_descriptor`): its lists are stored values, read from the
    endpoint it was made from. It sits on no endpoint and never changes (a change through it would change every
    endpoint's): a different value restored, a listener, an event listener or a source is refused (AssertionError);
    writes are refused as on any Descriptor (read-only) and the lists from the endpoint stay as they were."""

    __slots__ = ()

    read = ClusterServer.read  # stored values only: read_all reads them in one pass
    live_reads = frozenset()

    def __init__(self, built: DescriptorServer) -> None:
        ClusterServer.__init__(self, features=built.feature_map)  # not DescriptorServer's: nothing to restore
        self._held = _SharedValues({name: built.read(name) for name in built._held})

    @property
    def _values(self) -> AttributeValues:
        raise AssertionError("a Descriptor shared by endpoints of one shape never changes")

    def restore(self, name: str, value: Any) -> None:
        if name in FROM_ENDPOINT:
            return  # owned by the endpoints, as on an attached Descriptor
        super().restore(name, value)  # the value it holds already, else refused (``_values``)

    def watch_writes(self, mark: WriteMark) -> bool:
        return False  # never written: nothing to raise the mark, and the mark of no one home is kept

    def attach(self, endpoint: HostingEndpoint, runtime: Runtime | None) -> None:
        raise AssertionError("a Descriptor shared by endpoints of one shape sits on none of them")

    def add_listeners(self, listeners: tuple[ChangeListener, ...]) -> None:
        raise AssertionError("a Descriptor shared by endpoints of one shape never changes: nothing to listen to")

    def add_listener(self, listener: ChangeListener) -> None:
        self.add_listeners((listener,))

    def add_event_listener(self, listener: EventListener) -> Callable[[], None]:
        raise AssertionError("a Descriptor emits no events")

    def bind_source(self, name: str, source: Callable[[], Any]) -> None:
        raise AssertionError("a Descriptor shared by endpoints of one shape never changes")


# (its values as copied, features, device types, parts, server names…) → the Descriptor of endpoints of that shape
_FIXED: dict[tuple[Any, ...], FixedDescriptorServer] = {}


def share_fixed_descriptor(endpoint: Endpoint) -> None:
    """Give ``endpoint`` — attached, and fixed from now on (its device types, servers and parts: a device's) — the
    Descriptor every endpoint of its shape shares, when its own is still as copied from its catalogue entry (nothing
    restored, listened to or bound): a home holds one Descriptor per endpoint, and they are the same for every home
    built from one catalogue. Its reads give the same values (new objects no longer: stored values are never changed
    in place by a reader, as for any server)."""
    built = endpoint.clusters.get("Descriptor")
    if type(built) is not DescriptorServer or not built.as_copied_on(endpoint):
        return
    parts = endpoint.parts
    if type(parts) is not tuple:  # a list: it may change (a device's endpoints have a tuple)
        return
    key = (built._held, built.feature_map, endpoint.device_types, parts, *endpoint.clusters)
    shared = _FIXED.get(key)
    if shared is None:
        shared = _FIXED[key] = FixedDescriptorServer(built)
    endpoint.clusters["Descriptor"] = shared
