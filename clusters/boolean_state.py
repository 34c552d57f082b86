"""Boolean State cluster (0x0045): one read-only boolean (contact sensor, leak detector, …)."""

from __future__ import annotations

from clusters.base import ClusterServer


class BooleanStateServer(ClusterServer):
    __slots__ = ()
    cluster_name = "BooleanState"
    revision = 1
    defaults = {"StateValue": False}

    def set_state(self, value: bool) -> None:
        self.set("StateValue", bool(value))
