"""Group Key Management (0x003F): the IPK key set from AddNOC, key-set commands, the fabric-scoped
GroupKeyMap; the GroupTable is bound by the node to the Groups servers of its endpoints."""

from __future__ import annotations

from typing import Any

from bridge.matter.node.root.services import RootServices, request_context
from bridge.matter.session.fabric_table import MAX_GROUP_KEYS_PER_FABRIC, MAX_GROUPS_PER_FABRIC
from clusters.base import ClusterServer, command
from clusters.status import HomeError, Status

__all__ = ["GroupKeyManagementServer"]

_EPOCH_KEYS = ("epochKey0", "epochKey1", "epochKey2")


class GroupKeyManagementServer(ClusterServer):
    cluster_name = "GroupKeyManagement"
    revision = 1
    defaults = {
        "GroupKeyMap": [],
        "GroupTable": [],
        "MaxGroupsPerFabric": MAX_GROUPS_PER_FABRIC,
        "MaxGroupKeysPerFabric": MAX_GROUP_KEYS_PER_FABRIC,
    }

    def __init__(self, services: RootServices) -> None:
        super().__init__()
        self.services = services
        self.bind_source("GroupKeyMap", lambda: [dict(e) for e in services.table.group_key_map])

    def has_group_key(self, fabric_index: int, group_id: int) -> bool:
        """Whether the fabric's GroupKeyMap maps a key set to ``group_id`` (Groups.AddGroup needs one)."""
        return any(
            e.get("fabricIndex") == fabric_index and e.get("groupId") == group_id
            for e in self.services.table.group_key_map
        )

    def _fabric(self) -> int:
        ctx = request_context()
        if ctx.fabric_index is None:
            raise HomeError.refused(Status.UNSUPPORTED_ACCESS, "group keys need an accessing fabric")
        return ctx.fabric_index

    def apply_write(self, name: str, value: Any) -> None:
        if name != "GroupKeyMap":
            super().apply_write(name, value)
            return
        fabric = self._fabric()
        table = self.services.table
        known = {s["groupKeySetID"] for s in table.group_key_sets.get(fabric, [])}
        mine = [e for e in value if e.get("fabricIndex") in (None, 0, fabric)]
        for entry in mine:
            if entry["groupKeySetID"] == 0 or entry["groupKeySetID"] not in known:
                raise HomeError.refused(Status.CONSTRAINT_ERROR, f"unknown group key set {entry['groupKeySetID']}")
        table.group_key_map = [e for e in table.group_key_map if e.get("fabricIndex") != fabric] + [
            {**e, "fabricIndex": fabric} for e in mine
        ]
        table.save()

    @command("KeySetWrite")
    def key_set_write(self, groupKeySet: dict[str, Any]) -> None:
        fabric = self._fabric()
        if groupKeySet.get("epochKey0") is None or groupKeySet.get("epochStartTime0") is None:
            raise HomeError.refused(Status.INVALID_COMMAND, "EpochKey0 and EpochStartTime0 are required")
        for key in _EPOCH_KEYS:
            if groupKeySet.get(key) is not None and len(bytes.fromhex(groupKeySet[key])) != 16:
                raise HomeError.refused(Status.CONSTRAINT_ERROR, f"{key} must be 16 bytes")
        table = self.services.table
        sets = [s for s in table.group_key_sets.get(fabric, []) if s["groupKeySetID"] != groupKeySet["groupKeySetID"]]
        if len(sets) >= MAX_GROUP_KEYS_PER_FABRIC:
            raise HomeError.refused(Status.RESOURCE_EXHAUSTED, "too many group key sets")
        table.group_key_sets[fabric] = [*sets, dict(groupKeySet)]
        table.save()

    @command("KeySetRead")
    def key_set_read(self, groupKeySetID: int) -> dict[str, Any]:
        fabric = self._fabric()
        for key_set in self.services.table.group_key_sets.get(fabric, []):
            if key_set["groupKeySetID"] == groupKeySetID:
                return {"groupKeySet": {**key_set, **dict.fromkeys(_EPOCH_KEYS)}}  # keys are never readable
        raise HomeError.refused(Status.NOT_FOUND, f"no group key set {groupKeySetID}")

    @command("KeySetRemove")
    def key_set_remove(self, groupKeySetID: int) -> None:
        fabric = self._fabric()
        if groupKeySetID == 0:
            raise HomeError.refused(Status.INVALID_COMMAND, "the IPK key set cannot be removed")
        table = self.services.table
        sets = table.group_key_sets.get(fabric, [])
        if not any(s["groupKeySetID"] == groupKeySetID for s in sets):
            raise HomeError.refused(Status.NOT_FOUND, f"no group key set {groupKeySetID}")
        table.group_key_sets[fabric] = [s for s in sets if s["groupKeySetID"] != groupKeySetID]
        table.group_key_map = [
            e
            for e in table.group_key_map
            if not (e.get("fabricIndex") == fabric and e["groupKeySetID"] == groupKeySetID)
        ]
        table.save()

    @command("KeySetReadAllIndices")
    def key_set_read_all_indices(self) -> dict[str, Any]:
        fabric = self._fabric()
        return {"groupKeySetIDs": [s["groupKeySetID"] for s in self.services.table.group_key_sets.get(fabric, [])]}
