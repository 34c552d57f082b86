"""Scenes Management (0x0062): fabric-scoped scenes of the endpoint's own attributes (Core spec §1.4).

A scene holds, per sibling cluster that declares ``scene_attributes`` (OnOff, LevelControl,
ColorControl), the values StoreScene captured or AddScene gave; RecallScene hands them to each sibling's
``apply_scene`` with the scene's (or the command's) transition time. A scene of a group needs this
endpoint to be in the group (sibling Groups server); group 0 is the global scene group. Failures other
than bad paths travel in-band, in the response's status field (HomeError with ``response``).
Recalling makes the scene current and valid; any later change of a scene attribute (other than the
recall's own transition) makes it invalid.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import clusters.official as Objects
from clusters.base import ClusterServer, ListenersMadeOnFirstUse, command
from clusters.requester import LOCAL_FABRIC, current_requester
from clusters.status import HomeError, Status

if TYPE_CHECKING:
    from clusters.groups import GroupsServer

Feature = Objects.ScenesManagement.Bitmaps.Feature
COPY_ALL = int(Objects.ScenesManagement.Bitmaps.CopyModeBitmap.kCopyAllScenes)
GLOBAL_GROUP = 0
GLOBAL_SCENE = 0
MAX_SCENE_ID = 0xFE
MAX_TRANSITION_MS = 60_000_000
MAX_NAME = 16
DEFAULT_TABLE_SIZE = 16
ScenesListener = Callable[["ScenesManagementServer"], None]
VALUE_FIELDS = (
    "valueUnsigned8",
    "valueSigned8",
    "valueUnsigned16",
    "valueSigned16",
    "valueUnsigned32",
    "valueSigned32",
    "valueUnsigned64",
    "valueSigned64",
)


@dataclass
class Scene:
    name: str
    transition_ms: int
    values: dict[str, dict[str, Any]] = field(default_factory=dict)  # cluster name → attribute → value


@dataclass
class FabricScenes:
    scenes: dict[tuple[int, int], Scene] = field(default_factory=dict)  # (group, scene id) → scene
    current: tuple[int, int] = (GLOBAL_GROUP, GLOBAL_SCENE)
    valid: bool = False


class ScenesManagementServer(ClusterServer):
    # Its scene tables (None) and listeners (()) made when first used (a home holds one per light, most never store a
    # scene): immutable until then, so a catalogue entry's servers are copied with them
    __slots__ = ("_fabrics", "_recall_until", "_scenes_listeners")
    cluster_name = "ScenesManagement"
    revision = 1
    default_features = int(Feature.kSceneNames)
    defaults = {"SceneTableSize": DEFAULT_TABLE_SIZE, "FabricSceneInfo": []}

    def __init__(self, *, table_size: int = DEFAULT_TABLE_SIZE, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.restore("SceneTableSize", table_size)
        self._fabrics: dict[int, FabricScenes] | None = None  # fabric index → its scenes (None: none yet)
        self._recall_until = -1.0  # virtual time until which scene-attribute changes are the recall's own
        self._scenes_listeners: Sequence[ScenesListener] = ()

    # FabricSceneInfo is derived from the scene tables on every read (live, like a bound source, but no source and
    # no table of its own per server: a home holds one per light); a stored value of it is not restored.
    live_reads = frozenset({"FabricSceneInfo"})

    def read(self, name: str) -> Any:
        if name == "FabricSceneInfo":
            return self._scene_info()
        return ClusterServer.read(self, name)

    def restore(self, name: str, value: Any) -> None:
        if name != "FabricSceneInfo":
            super().restore(name, value)

    on_scenes = ListenersMadeOnFirstUse[ScenesListener](
        "_scenes_listeners", "Listeners told of every change of its scene tables, in order (append to add one)."
    )

    def on_attach(self) -> None:
        assert self.endpoint is not None
        changed = self._scene_attribute_changed  # one bound method for every attribute watched
        for server in self._scene_clusters().values():
            for name in server.scene_attributes:
                self.endpoint.watch(server.cluster_name, name, changed)

    # ----------------------------------------------------------------------------- state
    def _scene_clusters(self) -> dict[int, ClusterServer]:
        if self.endpoint is None:
            return {}
        return {s.cluster_id: s for s in self.endpoint.clusters.values() if s.scene_attributes and s is not self}

    def _capacity_per_fabric(self) -> int:
        size: int = self.read("SceneTableSize")
        return max(1, (size - 1) // 2 + 1)  # half the table (§1.4.8.2), at least one

    def _scene_info(self) -> list[dict[str, Any]]:
        out = []
        for fabric, state in sorted((self._fabrics or {}).items()):
            if fabric == LOCAL_FABRIC:
                continue  # not a Matter fabric: nothing to report on the wire
            out.append(
                {
                    "sceneCount": len(state.scenes),
                    "currentScene": state.current[1],
                    "currentGroup": state.current[0],
                    "sceneValid": state.valid,
                    "remainingCapacity": max(0, self._capacity_per_fabric() - len(state.scenes)),
                    "fabricIndex": fabric,
                }
            )
        return out

    def _changed(self) -> None:
        self.notify("FabricSceneInfo", None, self._scene_info())
        for listener in list(self._scenes_listeners):
            listener(self)

    def _scene_attribute_changed(self, old: object, new: object) -> None:
        if self.runtime is not None and self.runtime.now() <= self._recall_until:
            return
        invalidated = [state for state in (self._fabrics or {}).values() if state.valid]
        for state in invalidated:
            state.valid = False
        if invalidated:
            self._changed()

    def remove_group_scenes(self, fabric_index: int, group_id: int) -> None:
        state = None if self._fabrics is None else self._fabrics.get(fabric_index)
        if state is None:
            return
        before = len(state.scenes)
        state.scenes = {k: v for k, v in state.scenes.items() if k[0] != group_id}
        if len(state.scenes) != before:
            self._changed()

    def remove_fabric(self, fabric_index: int) -> None:
        if self._fabrics is not None and self._fabrics.pop(fabric_index, None) is not None:
            self._changed()

    def export_scenes(self) -> dict[str, Any]:
        """JSON-style copy of every fabric's scenes (for persistence)."""
        return {
            str(f): [
                {
                    "group": g,
                    "scene": s,
                    "name": sc.name,
                    "transition_ms": sc.transition_ms,
                    "values": copy.deepcopy(sc.values),
                }
                for (g, s), sc in sorted(state.scenes.items())
            ]
            for f, state in (self._fabrics or {}).items()
            if state.scenes
        }

    def import_scenes(self, saved: Mapping[str, Any]) -> None:
        self._fabrics = {}
        for fabric, scenes in saved.items():
            state = self._state(int(fabric))
            for entry in scenes:
                state.scenes[(int(entry["group"]), int(entry["scene"]))] = Scene(
                    str(entry["name"]), int(entry["transition_ms"]), copy.deepcopy(dict(entry["values"]))
                )

    # ----------------------------------------------------------------------------- checks
    @staticmethod
    def _refuse(status: Status, message: str, reply: dict[str, Any]) -> HomeError:
        return HomeError.refused(status, f"ScenesManagement: {message}", response={**reply, "status": int(status)})

    def _check_group(self, group_id: int, reply: dict[str, Any]) -> int:
        fabric = current_requester().fabric_index
        if group_id == GLOBAL_GROUP:
            return fabric
        groups = cast("GroupsServer | None", self.endpoint.find("Groups") if self.endpoint is not None else None)
        if groups is None or not groups.is_member(fabric, group_id):
            raise self._refuse(Status.INVALID_COMMAND, f"this endpoint is not in group 0x{group_id:04x}", reply)
        return fabric

    def _check_scene_id(self, scene_id: int, reply: dict[str, Any]) -> None:
        if scene_id > MAX_SCENE_ID:
            raise self._refuse(Status.CONSTRAINT_ERROR, f"SceneID {scene_id} is above {MAX_SCENE_ID}", reply)

    def _room_for(self, state: FabricScenes, key: tuple[int, int], reply: dict[str, Any]) -> None:
        if key not in state.scenes and len(state.scenes) >= self._capacity_per_fabric():
            raise self._refuse(
                Status.RESOURCE_EXHAUSTED, f"at most {self._capacity_per_fabric()} scenes per fabric", reply
            )

    def _state(self, fabric: int) -> FabricScenes:
        fabrics = self._fabrics
        if fabrics is None:
            fabrics = self._fabrics = {}
        return fabrics.setdefault(fabric, FabricScenes())

    # ----------------------------------------------------------------------------- value sets
    def _values_from_field_sets(
        self, field_sets: list[dict[str, Any]], reply: dict[str, Any]
    ) -> dict[str, dict[str, Any]]:
        clusters = self._scene_clusters()
        out: dict[str, dict[str, Any]] = {}
        for field_set in field_sets:
            server = clusters.get(int(field_set["clusterID"]))
            if server is None:
                continue  # a cluster this endpoint does not have: ignored (§1.4.9.2)
            names = {server.model.attributes[n].attribute_id: n for n in server.scene_attributes}
            values: dict[str, Any] = {}
            for pair in field_set.get("attributeValueList") or []:
                name = names.get(int(pair["attributeID"]))
                given = [pair.get(f) for f in VALUE_FIELDS if pair.get(f) is not None]
                if name is None or len(given) != 1:
                    raise self._refuse(
                        Status.INVALID_COMMAND,
                        f"{server.cluster_name} attribute 0x{int(pair['attributeID']):04x} is not a "
                        "scene attribute or has no single value",
                        reply,
                    )
                values[name] = bool(given[0]) if name == "OnOff" else int(given[0])
            out[server.cluster_name] = values
        return out

    def _field_sets(self, scene: Scene) -> list[dict[str, Any]]:
        out = []
        for server in sorted(self._scene_clusters().values(), key=lambda s: s.cluster_id):
            values = scene.values.get(server.cluster_name)
            if not values:
                continue
            pairs = []
            for name, value in values.items():
                if value is None:
                    continue
                pairs.append(
                    {
                        "attributeID": server.model.attributes[name].attribute_id,
                        server.scene_attributes[name]: int(value),
                    }
                )
            out.append({"clusterID": server.cluster_id, "attributeValueList": pairs})
        return out

    # ----------------------------------------------------------------------------- commands
    @command("AddScene")
    def add_scene(
        self, groupID: int, sceneID: int, transitionTime: int, sceneName: str, extensionFieldSets: list[dict[str, Any]]
    ) -> dict[str, Any]:
        reply = {"groupID": groupID, "sceneID": sceneID}
        fabric = self._check_group(groupID, reply)
        self._check_scene_id(sceneID, reply)
        if transitionTime > MAX_TRANSITION_MS:
            raise self._refuse(Status.CONSTRAINT_ERROR, f"TransitionTime is at most {MAX_TRANSITION_MS} ms", reply)
        if len(sceneName) > MAX_NAME:
            raise self._refuse(Status.CONSTRAINT_ERROR, f"SceneName is at most {MAX_NAME} characters", reply)
        values = self._values_from_field_sets(extensionFieldSets, reply)
        state = self._state(fabric)
        self._room_for(state, (groupID, sceneID), reply)
        name = sceneName if self.has_feature(Feature.kSceneNames) else ""
        state.scenes[(groupID, sceneID)] = Scene(name, transitionTime, values)
        if state.current == (groupID, sceneID):
            state.valid = False
        self._changed()
        return {"status": int(Status.SUCCESS), **reply}

    @command("ViewScene")
    def view_scene(self, groupID: int, sceneID: int) -> dict[str, Any]:
        reply = {"groupID": groupID, "sceneID": sceneID}
        fabric = self._check_group(groupID, reply)
        self._check_scene_id(sceneID, reply)
        scene = self._state(fabric).scenes.get((groupID, sceneID))
        if scene is None:
            raise self._refuse(Status.NOT_FOUND, f"no scene {sceneID} in group 0x{groupID:04x}", reply)
        return {
            "status": int(Status.SUCCESS),
            **reply,
            "transitionTime": scene.transition_ms,
            "sceneName": scene.name,
            "extensionFieldSets": self._field_sets(scene),
        }

    @command("RemoveScene")
    def remove_scene(self, groupID: int, sceneID: int) -> dict[str, Any]:
        reply = {"groupID": groupID, "sceneID": sceneID}
        fabric = self._check_group(groupID, reply)
        self._check_scene_id(sceneID, reply)
        state = self._state(fabric)
        if state.scenes.pop((groupID, sceneID), None) is None:
            raise self._refuse(Status.NOT_FOUND, f"no scene {sceneID} in group 0x{groupID:04x}", reply)
        if state.current == (groupID, sceneID):
            state.valid = False
        self._changed()
        return {"status": int(Status.SUCCESS), **reply}

    @command("RemoveAllScenes")
    def remove_all_scenes(self, groupID: int) -> dict[str, Any]:
        reply = {"groupID": groupID}
        fabric = self._check_group(groupID, reply)
        state = self._state(fabric)
        state.scenes = {k: v for k, v in state.scenes.items() if k[0] != groupID}
        if state.current[0] == groupID:
            state.valid = False
        self._changed()
        return {"status": int(Status.SUCCESS), **reply}

    @command("StoreScene")
    def store_scene(self, groupID: int, sceneID: int) -> dict[str, Any]:
        reply = {"groupID": groupID, "sceneID": sceneID}
        fabric = self._check_group(groupID, reply)
        self._check_scene_id(sceneID, reply)
        state = self._state(fabric)
        self._room_for(state, (groupID, sceneID), reply)
        old = state.scenes.get((groupID, sceneID))
        values = {s.cluster_name: s.scene_values() for s in self._scene_clusters().values()}
        state.scenes[(groupID, sceneID)] = Scene(old.name if old else "", old.transition_ms if old else 0, values)
        state.current, state.valid = (groupID, sceneID), True
        self._changed()
        return {"status": int(Status.SUCCESS), **reply}

    @command("RecallScene")
    def recall_scene(self, groupID: int, sceneID: int, transitionTime: int | None = None) -> None:
        fabric = self._check_group(groupID, {})
        self._check_scene_id(sceneID, {})
        state = self._state(fabric)
        scene = state.scenes.get((groupID, sceneID))
        if scene is None:
            raise HomeError.refused(Status.NOT_FOUND, f"ScenesManagement: no scene {sceneID} in group 0x{groupID:04x}")
        milliseconds = scene.transition_ms if transitionTime is None else min(int(transitionTime), MAX_TRANSITION_MS)
        seconds = milliseconds / 1000
        self._recall_until = (self.runtime.now() + seconds) if self.runtime is not None else -1.0
        clusters = {s.cluster_name: s for s in self._scene_clusters().values()}
        on_off = scene.values.get("OnOff", {}).get("OnOff")
        order = sorted(scene.values, key=lambda name: (name == "OnOff") == (on_off is False))  # off last, on first
        try:
            for name in order:
                server = clusters.get(name)
                if server is not None and scene.values[name]:
                    server.apply_scene(scene.values[name], seconds)
        finally:
            if self.runtime is None:
                self._recall_until = -1.0
        state.current, state.valid = (groupID, sceneID), True
        self._changed()

    @command("GetSceneMembership")
    def get_scene_membership(self, groupID: int) -> dict[str, Any]:
        reply: dict[str, Any] = {"groupID": groupID, "capacity": None}
        fabric = self._check_group(groupID, reply)
        state = self._state(fabric)
        capacity = max(0, self._capacity_per_fabric() - len(state.scenes))
        scenes = sorted(s for g, s in state.scenes if g == groupID)
        return {"status": int(Status.SUCCESS), "capacity": capacity, "groupID": groupID, "sceneList": scenes}

    @command("CopyScene")
    def copy_scene(
        self,
        mode: int,
        groupIdentifierFrom: int,
        sceneIdentifierFrom: int,
        groupIdentifierTo: int,
        sceneIdentifierTo: int,
    ) -> dict[str, Any]:
        reply = {"groupIdentifierFrom": groupIdentifierFrom, "sceneIdentifierFrom": sceneIdentifierFrom}
        fabric = self._check_group(groupIdentifierFrom, reply)
        self._check_group(groupIdentifierTo, reply)
        state = self._state(fabric)
        if mode & COPY_ALL:
            sources = {s: sc for (g, s), sc in state.scenes.items() if g == groupIdentifierFrom}
        else:
            self._check_scene_id(sceneIdentifierFrom, reply)
            self._check_scene_id(sceneIdentifierTo, reply)
            scene = state.scenes.get((groupIdentifierFrom, sceneIdentifierFrom))
            if scene is None:
                raise self._refuse(
                    Status.NOT_FOUND, f"no scene {sceneIdentifierFrom} in group 0x{groupIdentifierFrom:04x}", reply
                )
            sources = {sceneIdentifierTo: scene}
        new = [(groupIdentifierTo, s) for s in sources if (groupIdentifierTo, s) not in state.scenes]
        if len(state.scenes) + len(new) > self._capacity_per_fabric():
            raise self._refuse(Status.RESOURCE_EXHAUSTED, "the copies do not fit the scene table", reply)
        for scene_id, scene in sources.items():
            state.scenes[(groupIdentifierTo, scene_id)] = copy.deepcopy(scene)
        self._changed()
        return {"status": int(Status.SUCCESS), **reply}
