"""Groups (0x0004): the endpoint's fabric-scoped group memberships (Core spec §1.3).

A failed AddGroup/ViewGroup/RemoveGroup is, on the wire, a successful invoke whose response carries the
status (HomeError with ``response``). Adding needs a group key for the group (UNSUPPORTED_ACCESS
otherwise); removing a group removes its scenes from the sibling ScenesManagement. ``on_membership``
listeners hear every change (the bridge keeps the node's GroupTable and persistence from it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer, ListenersMadeOnFirstUse, command
from clusters.requester import current_requester
from clusters.status import HomeError, Status

Feature = Objects.Groups.Bitmaps.Feature
NAME_SUPPORT = int(Objects.Groups.Bitmaps.NameSupportBitmap.kGroupNames)
MAX_NAME = 16
DEFAULT_CAPACITY = 4  # groups per fabric on this endpoint
MembershipListener = Callable[["GroupsServer"], None]


class GroupsServer(ClusterServer):
    # Its table (None) and listeners (()) made when first used (a home holds one per light, most never in a group):
    # immutable until then, so a catalogue entry's servers are copied with them
    __slots__ = ("_groups", "_membership_listeners", "capacity")
    cluster_name = "Groups"
    revision = 4
    default_features = int(Feature.kGroupNames)
    defaults = {"NameSupport": NAME_SUPPORT}

    def __init__(self, *, capacity: int = DEFAULT_CAPACITY, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.capacity = capacity
        self._groups: dict[int, dict[int, str]] | None = None  # fabric index → group id → name (None: none yet)
        self._membership_listeners: Sequence[MembershipListener] = ()
        if not self.has_feature(Feature.kGroupNames):
            self.restore("NameSupport", 0)

    # ----------------------------------------------------------------------------- state
    on_membership = ListenersMadeOnFirstUse[MembershipListener](
        "_membership_listeners", "Listeners told of every change of its memberships, in order (append to add one)."
    )

    def _own_groups(self) -> dict[int, dict[int, str]]:
        groups = self._groups
        if groups is None:
            groups = self._groups = {}
        return groups

    def _of_fabric(self, fabric_index: int) -> dict[int, str]:
        """Its groups on a fabric: its own dict, or a new empty one when none (changing that changes nothing)."""
        groups = self._groups
        return {} if groups is None else groups.get(fabric_index, {})

    def groups(self, fabric_index: int) -> dict[int, str]:
        return dict(self._of_fabric(fabric_index))

    def memberships(self) -> dict[int, dict[int, str]]:
        return {f: dict(g) for f, g in (self._groups or {}).items() if g}

    def restore_memberships(self, saved: Mapping[int, Mapping[int, str]]) -> None:
        self._groups = {int(f): {int(g): str(n) for g, n in groups.items()} for f, groups in saved.items()}

    def is_member(self, fabric_index: int, group_id: int) -> bool:
        return group_id in self._of_fabric(fabric_index)

    def remove_fabric(self, fabric_index: int) -> None:
        if self._groups is not None and self._groups.pop(fabric_index, {}):
            self._changed()

    def _changed(self) -> None:
        for listener in list(self._membership_listeners):
            listener(self)

    def _scenes(self) -> Any:
        return self.endpoint.find("ScenesManagement") if self.endpoint is not None else None

    # ----------------------------------------------------------------------------- commands
    @staticmethod
    def _refuse(status: Status, message: str, response: dict[str, Any]) -> HomeError:
        return HomeError.refused(status, message, response={**response, "status": int(status)})

    def _add(self, group_id: int, name: str, response: str) -> None:
        requester = current_requester()
        reply = {"groupID": group_id} if response else {}
        if group_id == 0:
            raise self._refuse(Status.CONSTRAINT_ERROR, "Groups: GroupID 0 is not a group", reply)
        if len(name) > MAX_NAME:
            raise self._refuse(Status.CONSTRAINT_ERROR, f"Groups: GroupName is at most {MAX_NAME} characters", reply)
        if not requester.may_use_group(group_id):
            raise self._refuse(
                Status.UNSUPPORTED_ACCESS,
                f"Groups: no group key is mapped to group 0x{group_id:04x} (GroupKeyMap)",
                reply,
            )
        mine = self._own_groups().setdefault(requester.fabric_index, {})
        if group_id not in mine and len(mine) >= self.capacity:
            raise self._refuse(Status.RESOURCE_EXHAUSTED, f"Groups: at most {self.capacity} groups per fabric", reply)
        mine[group_id] = name if self.has_feature(Feature.kGroupNames) else ""
        self._changed()

    @command("AddGroup")
    def add_group(self, groupID: int, groupName: str) -> dict[str, Any]:
        self._add(groupID, groupName, "AddGroupResponse")
        return {"status": int(Status.SUCCESS), "groupID": groupID}

    @command("ViewGroup")
    def view_group(self, groupID: int) -> dict[str, Any]:
        reply = {"groupID": groupID, "groupName": ""}
        if groupID == 0:
            raise self._refuse(Status.CONSTRAINT_ERROR, "Groups: GroupID 0 is not a group", reply)
        name = self._of_fabric(current_requester().fabric_index).get(groupID)
        if name is None:
            raise self._refuse(Status.NOT_FOUND, f"Groups: this endpoint is not in group 0x{groupID:04x}", reply)
        return {"status": int(Status.SUCCESS), "groupID": groupID, "groupName": name}

    @command("GetGroupMembership")
    def get_group_membership(self, groupList: list[int]) -> dict[str, Any]:
        mine = self._of_fabric(current_requester().fabric_index)
        members = sorted(mine) if not groupList else [g for g in groupList if g in mine]
        return {"capacity": max(0, self.capacity - len(mine)), "groupList": members}

    @command("RemoveGroup")
    def remove_group(self, groupID: int) -> dict[str, Any]:
        reply = {"groupID": groupID}
        if groupID == 0:
            raise self._refuse(Status.CONSTRAINT_ERROR, "Groups: GroupID 0 is not a group", reply)
        fabric = current_requester().fabric_index
        if self._of_fabric(fabric).pop(groupID, None) is None:
            raise self._refuse(Status.NOT_FOUND, f"Groups: this endpoint is not in group 0x{groupID:04x}", reply)
        scenes = self._scenes()
        if scenes is not None:
            scenes.remove_group_scenes(fabric, groupID)
        self._changed()
        return {"status": int(Status.SUCCESS), "groupID": groupID}

    @command("RemoveAllGroups")
    def remove_all_groups(self) -> None:
        fabric = current_requester().fabric_index
        removed = {} if self._groups is None else self._groups.pop(fabric, {})
        scenes = self._scenes()
        if scenes is not None:
            for group_id in removed:
                scenes.remove_group_scenes(fabric, group_id)
        if removed:
            self._changed()

    @command("AddGroupIfIdentifying")
    def add_group_if_identifying(self, groupID: int, groupName: str) -> None:
        identify = self.endpoint.find("Identify") if self.endpoint is not None else None
        if identify is None or not identify.read("IdentifyTime"):
            return  # not identifying: nothing to do (§1.3.7.6)
        try:
            self._add(groupID, groupName, "")
        except HomeError as error:
            raise HomeError.refused(error.wire_status, error.message) from None
