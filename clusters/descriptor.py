"""Descriptor cluster (0x001D): what an endpoint is — device types, server/client clusters, parts.

DeviceTypeList, ServerList and PartsList are computed from the endpoint this server sits on, so
they are always consistent with it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import clusters.official as Objects
from clusters.attribute_values import WriteMark
from clusters.base import ClusterServer
from clusters.values import coerce

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
