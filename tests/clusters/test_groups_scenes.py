"""Groups and Scenes Management on a light: fabric-scoped groups (key check, capacity, names), scenes that
store the light's real attributes and recall them with a transition in virtual time."""

from __future__ import annotations

from typing import Any

import pytest

from clusters import HomeError, Status
from clusters.color_control import ColorControlServer
from clusters.groups import GroupsServer
from clusters.identify import IdentifyServer
from clusters.level_control import LevelControlServer
from clusters.on_off import OnOffServer
from clusters.requester import Requester, acting_as
from clusters.scenes_management import ScenesManagementServer

FABRIC_A, FABRIC_B = 1, 2
KEYED = {0x0101, 0x0102}


def _as(fabric: int) -> Any:
    return acting_as(Requester(fabric, lambda group: group in KEYED))


@pytest.fixture
def light(mount: Any) -> Any:
    on_off = OnOffServer(features=1)
    level = LevelControlServer(values={"CurrentLevel": 10, "MinLevel": 1})
    color = ColorControlServer(features=0x10)
    return mount(IdentifyServer(), GroupsServer(), ScenesManagementServer(), on_off, level, color)


def _refused(call: Any) -> HomeError:
    with pytest.raises(HomeError) as err:
        call()
    return err.value


def test_groups_are_fabric_scoped_and_need_a_key(light: Any) -> None:
    groups = light.clusters["Groups"]
    with _as(FABRIC_A):
        assert groups.invoke("AddGroup", {"groupID": 0x0101, "groupName": "Kitchen"}) == {
            "status": 0,
            "groupID": 0x0101,
        }
        error = _refused(lambda: groups.invoke("AddGroup", {"groupID": 0x0999, "groupName": "No key"}))
        assert error.status == Status.UNSUPPORTED_ACCESS and error.response == {"status": 0x7E, "groupID": 0x0999}
        assert (
            _refused(lambda: groups.invoke("AddGroup", {"groupID": 0, "groupName": ""})).status
            == Status.CONSTRAINT_ERROR
        )
        assert groups.invoke("ViewGroup", {"groupID": 0x0101}) == {
            "status": 0,
            "groupID": 0x0101,
            "groupName": "Kitchen",
        }
        assert groups.invoke("GetGroupMembership", {"groupList": []}) == {"capacity": 3, "groupList": [0x0101]}
    with _as(FABRIC_B):
        assert _refused(lambda: groups.invoke("ViewGroup", {"groupID": 0x0101})).response["status"] == Status.NOT_FOUND
        assert groups.invoke("GetGroupMembership", {"groupList": []})["groupList"] == []
    assert groups.is_member(FABRIC_A, 0x0101) and not groups.is_member(FABRIC_B, 0x0101)
    with _as(FABRIC_A):
        assert groups.invoke("RemoveGroup", {"groupID": 0x0101})["status"] == 0
        assert (
            _refused(lambda: groups.invoke("RemoveGroup", {"groupID": 0x0101})).response["status"] == Status.NOT_FOUND
        )


def test_add_group_if_identifying(light: Any) -> None:
    groups, identify = light.clusters["Groups"], light.clusters["Identify"]
    with _as(FABRIC_A):
        groups.invoke("AddGroupIfIdentifying", {"groupID": 0x0102, "groupName": "x"})
        assert not groups.is_member(FABRIC_A, 0x0102)
        identify.invoke("Identify", {"identifyTime": 10})
        groups.invoke("AddGroupIfIdentifying", {"groupID": 0x0102, "groupName": "x"})
        assert groups.is_member(FABRIC_A, 0x0102)


def test_group_capacity(light: Any) -> None:
    groups = light.clusters["Groups"]
    with acting_as(Requester(FABRIC_A)):  # no key check
        for group in range(1, 5):
            groups.invoke("AddGroup", {"groupID": group, "groupName": ""})
        assert (
            _refused(lambda: groups.invoke("AddGroup", {"groupID": 9, "groupName": ""})).status
            == Status.RESOURCE_EXHAUSTED
        )


def test_store_and_recall_a_scene_with_a_transition(light: Any, clock: Any) -> None:
    scenes, on_off, level, color = (
        light.clusters[n] for n in ("ScenesManagement", "OnOff", "LevelControl", "ColorControl")
    )
    with _as(FABRIC_A):
        light.clusters["Groups"].invoke("AddGroup", {"groupID": 0x0101, "groupName": "Evening"})
        on_off.invoke("On")
        level.invoke("MoveToLevel", {"level": 200, "transitionTime": 0})
        color.invoke("MoveToColorTemperature", {"colorTemperatureMireds": 400, "transitionTime": 0})
        assert scenes.invoke("StoreScene", {"groupID": 0x0101, "sceneID": 3}) == {
            "status": 0,
            "groupID": 0x0101,
            "sceneID": 3,
        }
        (info,) = [i for i in scenes.read("FabricSceneInfo") if i["fabricIndex"] == FABRIC_A]
        assert info["sceneCount"] == 1 and info["currentScene"] == 3 and info["sceneValid"] is True
        view = scenes.invoke("ViewScene", {"groupID": 0x0101, "sceneID": 3})
        stored = {
            s["clusterID"]: {p["attributeID"]: p for p in s["attributeValueList"]} for s in view["extensionFieldSets"]
        }
        assert stored[0x0006][0x0000]["valueUnsigned8"] == 1 and stored[0x0008][0x0000]["valueUnsigned8"] == 200
        assert stored[0x0300][0x0007]["valueUnsigned16"] == 400
        # change everything, which invalidates the scene …
        level.invoke("MoveToLevel", {"level": 20, "transitionTime": 0})
        color.invoke("MoveToColorTemperature", {"colorTemperatureMireds": 200, "transitionTime": 0})
        on_off.invoke("Off")
        assert not next(i for i in scenes.read("FabricSceneInfo") if i["fabricIndex"] == FABRIC_A)["sceneValid"]
        # … then recall it over 2 s
        scenes.invoke("RecallScene", {"groupID": 0x0101, "sceneID": 3, "transitionTime": 2000})
        assert on_off.read("OnOff") is True
        start = clock.tick
        clock.advance_to(start + 10)  # 1 s of 2 (ticks are tenths)
        assert 20 < level.read("CurrentLevel") < 200 and 200 < color.read("ColorTemperatureMireds") < 400
        clock.advance_to(start + 21)
        assert level.read("CurrentLevel") == 200 and color.read("ColorTemperatureMireds") == 400
        assert next(i for i in scenes.read("FabricSceneInfo") if i["fabricIndex"] == FABRIC_A)["sceneValid"]
    with _as(FABRIC_B):  # another fabric sees none of it
        assert _refused(lambda: scenes.invoke("RecallScene", {"groupID": 0, "sceneID": 3})).status == Status.NOT_FOUND


def test_add_view_copy_remove_scenes(light: Any) -> None:
    scenes, level = light.clusters["ScenesManagement"], light.clusters["LevelControl"]
    field_sets = [
        {"clusterID": 0x0008, "attributeValueList": [{"attributeID": 0, "valueUnsigned8": 77}]},
        {"clusterID": 0x0006, "attributeValueList": [{"attributeID": 0, "valueUnsigned8": 1}]},
        {"clusterID": 0x0201, "attributeValueList": [{"attributeID": 0x12, "valueSigned16": 2000}]},
    ]
    with _as(FABRIC_A):
        assert (
            scenes.invoke(
                "AddScene",
                {
                    "groupID": 0,
                    "sceneID": 1,
                    "transitionTime": 0,
                    "sceneName": "Read",
                    "extensionFieldSets": field_sets,
                },
            )["status"]
            == 0
        )
        error = _refused(
            lambda: scenes.invoke(
                "AddScene",
                {"groupID": 0x0101, "sceneID": 1, "transitionTime": 0, "sceneName": "", "extensionFieldSets": []},
            )
        )
        assert error.response["status"] == Status.INVALID_COMMAND  # not in group 0x0101
        view = scenes.invoke("ViewScene", {"groupID": 0, "sceneID": 1})
        assert view["sceneName"] == "Read" and {s["clusterID"] for s in view["extensionFieldSets"]} == {6, 8}
        assert (
            scenes.invoke(
                "CopyScene",
                {
                    "mode": 0,
                    "groupIdentifierFrom": 0,
                    "sceneIdentifierFrom": 1,
                    "groupIdentifierTo": 0,
                    "sceneIdentifierTo": 2,
                },
            )["status"]
            == 0
        )
        assert scenes.invoke("GetSceneMembership", {"groupID": 0})["sceneList"] == [1, 2]
        scenes.invoke("RecallScene", {"groupID": 0, "sceneID": 2})
        assert level.read("CurrentLevel") == 77 and light.clusters["OnOff"].read("OnOff") is True
        assert scenes.invoke("RemoveScene", {"groupID": 0, "sceneID": 1})["status"] == 0
        assert scenes.invoke("RemoveAllScenes", {"groupID": 0}) == {"status": 0, "groupID": 0}
        assert scenes.invoke("GetSceneMembership", {"groupID": 0})["sceneList"] == []


def test_removing_a_group_removes_its_scenes(light: Any) -> None:
    groups, scenes = light.clusters["Groups"], light.clusters["ScenesManagement"]
    with _as(FABRIC_A):
        groups.invoke("AddGroup", {"groupID": 0x0101, "groupName": ""})
        scenes.invoke("StoreScene", {"groupID": 0x0101, "sceneID": 1})
        groups.invoke("RemoveGroup", {"groupID": 0x0101})
        groups.invoke("AddGroup", {"groupID": 0x0101, "groupName": ""})
        assert scenes.invoke("GetSceneMembership", {"groupID": 0x0101})["sceneList"] == []
        scenes.invoke("StoreScene", {"groupID": 0x0101, "sceneID": 2})
        groups.invoke("AddGroup", {"groupID": 0x0102, "groupName": ""})
    with _as(FABRIC_B):
        groups.invoke("AddGroup", {"groupID": 0x0101, "groupName": ""})
    with _as(FABRIC_A):
        groups.invoke("RemoveAllGroups")
        assert groups.groups(FABRIC_A) == {} and groups.is_member(FABRIC_B, 0x0101)  # only this fabric's
        assert (
            _refused(lambda: scenes.invoke("GetSceneMembership", {"groupID": 0x0101})).response["status"]
            == Status.INVALID_COMMAND
        )
