"""Access control (spec §6.6): evaluate the AccessControl cluster's ACL for one request.

* PASE sessions are granted Administer: over PASE the only peer is the commissioner holding the
  passcode, and the ACL it will write does not exist yet (spec §6.6.2.9, "implicit commissioning
  privilege").
* CASE: an entry of the accessing fabric grants the request when its auth mode is CASE, its
  privilege implies the requested one, a subject matches (empty subjects = any), and a target
  matches (empty targets = all).
* Unsecured sessions never get access; group auth is not supported (no group messaging).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal

from bridge.matter.context import RequestContext
from bridge.matter.fabric_table import FabricTable

__all__ = ["AclAccessChecker", "Privilege", "privilege_grants", "subject_matches"]

Privilege = Literal["view", "proxy_view", "operate", "manage", "administer"]

# AccessControlEntryPrivilegeEnum / AuthModeEnum values.
PRIVILEGE_VALUES: dict[str, int] = {"view": 1, "proxy_view": 2, "operate": 3, "manage": 4, "administer": 5}
AUTH_PASE, AUTH_CASE, AUTH_GROUP = 1, 2, 3

# What each granted privilege implies (spec §6.6.2.1): Administer ⊇ Manage ⊇ Operate ⊇ View;
# ProxyView implies View; Administer also implies ProxyView.
_IMPLIES: dict[int, set[int]] = {
    1: {1},
    2: {2, 1},
    3: {3, 1},
    4: {4, 3, 1},
    5: {5, 4, 3, 2, 1},
}

_CAT_PREFIX = 0xFFFFFFFD_00000000
_CAT_MASK = 0xFFFFFFFF_00000000


def privilege_grants(granted: int, requested: int) -> bool:
    return requested in _IMPLIES.get(granted, set())


def subject_matches(subject: int, node_id: int | None, cats: Iterable[int]) -> bool:
    """A subject is an operational node id or a CASE Authenticated Tag (0xFFFFFFFD_iiii_vvvv).

    A CAT subject matches a peer CAT with the same identifier and a version at least as high.
    """
    if subject & _CAT_MASK == _CAT_PREFIX:
        wanted_id, wanted_version = (subject >> 16) & 0xFFFF, subject & 0xFFFF
        return any((cat >> 16) == wanted_id and (cat & 0xFFFF) >= wanted_version for cat in cats)
    return node_id is not None and subject == node_id


class AclAccessChecker:
    """Implements the IM's ``AccessChecker`` protocol from the fabric table's ACL."""

    def __init__(self, table: FabricTable, device_types: Callable[[int], Iterable[int]] | None = None) -> None:
        self.table = table
        self.device_types = device_types or (lambda endpoint: ())  # endpoint -> device type ids

    def check(self, ctx: RequestContext, endpoint: int, cluster_id: int, privilege: str) -> bool:
        requested = PRIVILEGE_VALUES.get(privilege)
        if requested is None:
            raise ValueError(f"unknown privilege {privilege!r}")
        if ctx.session_kind == "pase":
            return True
        if ctx.session_kind not in ("case", "group") or ctx.fabric_index is None:
            return False
        auth_mode = AUTH_GROUP if ctx.session_kind == "group" else AUTH_CASE
        for entry in self.table.acl_for(ctx.fabric_index):
            if entry.get("authMode") != auth_mode or not privilege_grants(int(entry.get("privilege", 0)), requested):
                continue
            subjects = entry.get("subjects") or []
            if auth_mode == AUTH_GROUP:
                if subjects and ctx.group_id not in {int(s) for s in subjects}:
                    continue
            elif subjects and not any(subject_matches(int(s), ctx.subject_node_id, ctx.cats) for s in subjects):
                continue
            targets = entry.get("targets") or []
            if targets and not any(self._target_matches(t, endpoint, cluster_id) for t in targets):
                continue
            return True
        return False

    def _target_matches(self, target: dict[str, Any], endpoint: int, cluster_id: int) -> bool:
        if target.get("cluster") is not None and target["cluster"] != cluster_id:
            return False
        if target.get("endpoint") is not None and target["endpoint"] != endpoint:
            return False
        device_type = target.get("deviceType")
        return device_type is None or device_type in set(self.device_types(endpoint))
