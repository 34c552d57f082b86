"""The node's groups and scenes: who is in which group, persisted, and the GroupTable built from it.

The Groups and ScenesManagement servers on the bridged endpoints own their fabric-scoped state; this
object restores it at start (keyed by device id and device endpoint, like the endpoint map), saves it
after every change, drops a removed fabric's share, serves GroupKeyManagement.GroupTable as the union
of the endpoints' memberships, and tells the group-message receiver which endpoints are in a group.
It also makes the requester (accessing fabric + its group keys) known to the clusters for a request.
"""

from __future__ import annotations

import logging
from typing import Any

from bridge.matter.codec.kv_store import KeyValueStore
from bridge.matter.session.context import current_request
from clusters.base import ClusterServer
from clusters.groups import GroupsServer
from clusters.requester import LOCAL_FABRIC, Requester
from clusters.scenes_management import ScenesManagementServer

log = logging.getLogger(__name__)

GROUPS_KEY = "bridge_groups"
SCENES_KEY = "bridge_scenes"


class NodeGroups:
    def __init__(self, store: KeyValueStore, group_keys: ClusterServer | None) -> None:
        self._store = store
        self._group_keys = group_keys  # the root's GroupKeyManagement server (None in bare test nodes)
        self._saved_groups: dict[str, Any] = dict(store.get(GROUPS_KEY) or {})
        self._saved_scenes: dict[str, Any] = dict(store.get(SCENES_KEY) or {})
        self._groups: dict[int, tuple[str, GroupsServer]] = {}  # bridge endpoint → (key, server)
        self._scenes: dict[int, tuple[str, ScenesManagementServer]] = {}
        table = self._table()
        if group_keys is not None:
            group_keys.bind_source("GroupTable", self.group_table)
        if table is not None:
            table.listeners.append(self._prune_removed_fabrics)

    def _table(self) -> Any:
        services = getattr(self._group_keys, "services", None)
        return getattr(services, "table", None)

    # ------------------------------------------------------------------------------ endpoints
    def attach(self, number: int, key: str, servers: dict[str, ClusterServer]) -> None:
        groups = servers.get("Groups")
        if isinstance(groups, GroupsServer):
            saved = self._saved_groups.get(key)
            if saved:
                groups.restore_memberships({int(f): {int(g): n for g, n in m.items()} for f, m in saved.items()})
            self._groups[number] = (key, groups)
            if self._on_groups not in groups.on_membership:
                groups.on_membership.append(self._on_groups)
        scenes = servers.get("ScenesManagement")
        if isinstance(scenes, ScenesManagementServer):
            if self._saved_scenes.get(key):
                scenes.import_scenes(self._saved_scenes[key])
            self._scenes[number] = (key, scenes)
            if self._on_scenes not in scenes.on_scenes:
                scenes.on_scenes.append(self._on_scenes)

    def forget(self, numbers: set[int]) -> None:
        """Endpoints that left the node (their devices were removed)."""
        for number in numbers:
            self._groups.pop(number, None)
            self._scenes.pop(number, None)

    # ------------------------------------------------------------------------------ requests
    def requester(self) -> Requester:
        try:
            ctx = current_request.get()
        except LookupError:
            return Requester()
        fabric = ctx.fabric_index or LOCAL_FABRIC
        has_key = getattr(self._group_keys, "has_group_key", None)
        if fabric == LOCAL_FABRIC or has_key is None:
            return Requester(fabric)
        return Requester(fabric, lambda group_id: bool(has_key(fabric, group_id)))

    def members(self, fabric_index: int, group_id: int) -> list[int]:
        """Bridge endpoints in the fabric's group, ascending."""
        return sorted(n for n, (_, server) in self._groups.items() if server.is_member(fabric_index, group_id))

    def group_table(self) -> list[dict[str, Any]]:
        entries: dict[tuple[int, int], dict[str, Any]] = {}
        for number, (_, server) in sorted(self._groups.items()):
            for fabric, groups in server.memberships().items():
                if fabric == LOCAL_FABRIC:
                    continue
                for group_id, name in groups.items():
                    entry = entries.setdefault(
                        (fabric, group_id),
                        {"groupId": group_id, "endpoints": [], "groupName": name, "fabricIndex": fabric},
                    )
                    entry["endpoints"].append(number)
                    entry["groupName"] = entry["groupName"] or name
        return [entries[k] for k in sorted(entries)]

    # ------------------------------------------------------------------------------ changes
    def _on_groups(self, _server: GroupsServer) -> None:
        self._saved_groups = {
            key: {str(f): {str(g): n for g, n in m.items()} for f, m in server.memberships().items()}
            for key, server in self._groups.values()
            if server.memberships()
        }
        self._store.set(GROUPS_KEY, self._saved_groups)
        if self._group_keys is not None:
            self._group_keys.notify("GroupTable", None, self.group_table())

    def _on_scenes(self, _server: ScenesManagementServer) -> None:
        self._saved_scenes = {
            key: server.export_scenes() for key, server in self._scenes.values() if server.export_scenes()
        }
        self._store.set(SCENES_KEY, self._saved_scenes)

    def _prune_removed_fabrics(self) -> None:
        table = self._table()
        if table is None:
            return
        live = set(table.fabrics)
        for _, server in list(self._groups.values()):
            for fabric in set(server.memberships()) - live - {LOCAL_FABRIC}:
                log.info("fabric %d removed: its groups leave the node", fabric)
                server.remove_fabric(fabric)
        for _, scenes in list(self._scenes.values()):
            for fabric in {int(f) for f in scenes.export_scenes()} - live - {LOCAL_FABRIC}:
                scenes.remove_fabric(fabric)
