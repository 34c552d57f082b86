"""Binding (0x001E): the list of targets a client device (a light switch, a dimmer) sends its commands to.

Each entry is a ``TargetStruct``: a unicast target ``{node, endpoint, cluster?}`` or a group ``{group, cluster?}``,
stamped with the writer's fabric whatever FabricIndex it carries (Core spec §9.6, §7.13.5). A write replaces the
writing fabric's entries and keeps the other fabrics'. Entries are checked as the spec says (Node and Endpoint
together, or Group alone; a group id of 0 is not a group) and, where the server's host says which targets exist
(:class:`BindingTargets`, set by the home), every unicast target must exist and serve the named cluster: otherwise
the write is refused with CONSTRAINT_ERROR and nothing changes.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

from clusters.base import ClusterServer
from clusters.requester import current_requester
from clusters.status import HomeError, Status


class BindingTargets(Protocol):
    """What a Binding server may ask of its home: why a unicast target cannot be bound (None: it can)."""

    def binding_problem(self, node: int, endpoint: int, cluster_id: int | None) -> str | None: ...


class BindingServer(ClusterServer):
    """The Binding list (fabric-scoped, persisted). ``targets``: the home's check of unicast targets."""

    __slots__ = ("targets",)

    cluster_name = "Binding"
    revision = 1
    defaults: ClassVar[dict[str, Any]] = {"Binding": []}

    def __init__(self, *, features: int | None = None, values: dict[str, Any] | None = None) -> None:
        super().__init__(features=features, values=values)
        self.targets: BindingTargets | None = None

    def validate_write(self, name: str, value: Any) -> Any:
        if name == "Binding" and isinstance(value, list):  # each entry is the writer's: its FabricIndex is ignored
            fabric = current_requester().fabric_index
            value = [
                {**{k: v for k, v in entry.items() if k not in ("fabricIndex", "FabricIndex")}, "fabricIndex": fabric}
                if isinstance(entry, dict)
                else entry
                for entry in value
            ]
        return super().validate_write(name, value)

    def check_write(self, name: str, value: Any) -> None:
        if name != "Binding":
            return
        for index, entry in enumerate(value):
            what = f"Binding.Binding[{index}]"
            unicast, group = entry.get("endpoint") is not None, entry.get("group") is not None
            if unicast == group:
                raise HomeError.refused(
                    Status.CONSTRAINT_ERROR,
                    f"{what} needs either node and endpoint (a device) or group (a group), not {sorted(entry)}",
                    allowed=["{node, endpoint, cluster?}", "{group, cluster?}"],
                )
            if unicast and entry.get("node") is None:
                raise HomeError.refused(Status.CONSTRAINT_ERROR, f"{what} names an endpoint without its node")
            if group and (entry.get("node") is not None or entry["group"] < 1):
                raise HomeError.refused(
                    Status.CONSTRAINT_ERROR, f"{what}: a group target has a group id ≥ 1 and no node"
                )
            if unicast and self.targets is not None:
                problem = self.targets.binding_problem(entry["node"], entry["endpoint"], entry.get("cluster"))
                if problem is not None:
                    raise HomeError.refused(Status.CONSTRAINT_ERROR, f"{what}: {problem}")

    def apply_write(self, name: str, value: Any) -> None:
        if name != "Binding":
            super().apply_write(name, value)
            return
        fabric = current_requester().fabric_index
        kept = [entry for entry in self.read("Binding") if entry.get("fabricIndex") != fabric]
        self.set("Binding", kept + list(value))

    def unicast_targets(self, cluster_id: int) -> list[tuple[int, int]]:
        """(node, endpoint) of every device entry for ``cluster_id`` (or for any cluster), in list order."""
        return [
            (entry["node"], entry["endpoint"])
            for entry in self.read("Binding")
            if entry.get("endpoint") is not None and entry.get("cluster") in (None, cluster_id)
        ]
