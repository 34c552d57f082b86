"""Access Control (0x001F): the fabric-scoped ACL, served from and written to the fabric table.

A write replaces the *accessing fabric's* entries only (entries of other fabrics are neither
visible to nor replaceable by it); each entry gets the accessing fabric index. The checker that
enforces the ACL is :class:`bridge.matter.im.access.AclAccessChecker`.
"""

from __future__ import annotations

from typing import Any

import clusters.official as Objects
from bridge.matter.im.access import AUTH_CASE, AUTH_GROUP
from bridge.matter.node.root.services import RootServices, request_context
from bridge.matter.session.fabric_table import MAX_ACL_ENTRIES_PER_FABRIC
from clusters.base import ClusterServer
from clusters.status import HomeError, Status

__all__ = ["AccessControlServer"]

SUBJECTS_PER_ENTRY = 4
TARGETS_PER_ENTRY = 3


ChangeType = Objects.AccessControl.Enums.ChangeTypeEnum


class AccessControlServer(ClusterServer):
    cluster_name = "AccessControl"
    revision = 1
    events = ("AccessControlEntryChanged",)
    defaults = {
        "Acl": [],  # no Extension: its feature bit (EXTS) is clear, so the attribute is not served
        "SubjectsPerAccessControlEntry": SUBJECTS_PER_ENTRY,
        "TargetsPerAccessControlEntry": TARGETS_PER_ENTRY,
        "AccessControlEntriesPerFabric": MAX_ACL_ENTRIES_PER_FABRIC,
    }

    def __init__(self, services: RootServices) -> None:
        super().__init__()
        self.services = services
        self.bind_source("Acl", lambda: [dict(e) for e in services.table.acl])
        services.table.listeners.append(lambda: self.notify("Acl", None, self.read("Acl")))

    def check_write(self, name: str, value: Any) -> None:
        if name != "Acl":
            return
        ctx = request_context()
        if ctx.fabric_index is None:
            raise HomeError.refused(Status.UNSUPPORTED_ACCESS, "ACL writes need an accessing fabric")
        mine = self._own_entries(value, ctx.fabric_index)
        if len(mine) > MAX_ACL_ENTRIES_PER_FABRIC:
            raise HomeError.refused(
                Status.RESOURCE_EXHAUSTED, f"at most {MAX_ACL_ENTRIES_PER_FABRIC} entries per fabric"
            )
        for entry in mine:
            if entry.get("authMode") not in (AUTH_CASE, AUTH_GROUP):
                raise HomeError.refused(
                    Status.CONSTRAINT_ERROR, "ACL entries use CASE or Group auth (PASE is implicit)"
                )
            if not 1 <= int(entry.get("privilege", 0)) <= 5:
                raise HomeError.refused(Status.CONSTRAINT_ERROR, "unknown privilege")
            if entry.get("authMode") == AUTH_GROUP and entry.get("privilege") == 5:
                raise HomeError.refused(Status.CONSTRAINT_ERROR, "groups cannot be granted Administer")
            if len(entry.get("subjects") or []) > SUBJECTS_PER_ENTRY:
                raise HomeError.refused(Status.RESOURCE_EXHAUSTED, "too many subjects")
            targets = entry.get("targets") or []
            if len(targets) > TARGETS_PER_ENTRY:
                raise HomeError.refused(Status.RESOURCE_EXHAUSTED, "too many targets")
            for target in targets:
                if all(target.get(k) is None for k in ("cluster", "endpoint", "deviceType")):
                    raise HomeError.refused(Status.CONSTRAINT_ERROR, "an empty ACL target")
                if target.get("endpoint") is not None and target.get("deviceType") is not None:
                    raise HomeError.refused(Status.CONSTRAINT_ERROR, "a target names an endpoint or a device type")

    @staticmethod
    def _own_entries(value: list[dict[str, Any]], fabric_index: int) -> list[dict[str, Any]]:
        # Entries echoed back from another fabric (a read-modify-write by the IM) are not ours to set.
        return [e for e in value if e.get("fabricIndex") in (None, 0, fabric_index)]

    def apply_write(self, name: str, value: Any) -> None:
        if name != "Acl":
            super().apply_write(name, value)
            return
        ctx = request_context()
        assert ctx.fabric_index is not None
        table = self.services.table
        before = [dict(e) for e in table.acl_for(ctx.fabric_index)]
        table.set_acl_for(
            ctx.fabric_index,
            [{k: v for k, v in e.items() if k != "fabricIndex"} for e in self._own_entries(value, ctx.fabric_index)],
        )
        table.save()
        self._report_changes(ctx, before, [dict(e) for e in table.acl_for(ctx.fabric_index)])

    def _report_changes(self, ctx: Any, before: list[dict[str, Any]], after: list[dict[str, Any]]) -> None:
        """AccessControlEntryChanged per entry (spec §9.10.7.1): changed in place, added, or removed."""
        admin = {
            "adminNodeID": ctx.subject_node_id if ctx.session_kind == "case" else None,
            "adminPasscodeID": 0 if ctx.session_kind == "pase" else None,
            "fabricIndex": ctx.fabric_index,
        }
        for index in range(max(len(before), len(after))):
            old = before[index] if index < len(before) else None
            new = after[index] if index < len(after) else None
            if old == new:
                continue
            change = ChangeType.kChanged if old and new else (ChangeType.kAdded if new else ChangeType.kRemoved)
            self.emit_event(
                "AccessControlEntryChanged", {**admin, "changeType": int(change), "latestValue": new or old}
            )
