"""Groups and scenes on the served bridge: AddGroup needs a key from GroupKeyManagement, the GroupTable
lists the member endpoints, memberships and scenes survive a restart, a removed fabric's share goes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from chip.tlv import uint

from bridge.matter.codec.kv_store import JsonFileStore
from bridge.matter.crypto.crypto import generate_private_key, private_key_bytes, public_key_bytes
from bridge.matter.im import im_messages as im
from bridge.matter.im.data_model import AllowAll
from bridge.matter.im.interaction import InteractionModel
from bridge.matter.node.bridge_node import BridgeNode
from bridge.matter.node.node import MatterNode
from bridge.matter.session.context import current_request
from bridge.matter.session.fabric_table import FabricRecord
from clusters import Status
from tests.emulator.helpers import fabric
from tests.matter_bridge.controller import EPOCH_KEY, FabricAuthority
from tests.matter_bridge.im_fakes import ImClient, case_context

GROUPS, SCENES, GROUP_KEYS = 0x0004, 0x0062, 0x003F
ADD_GROUP, STORE_SCENE, RECALL_SCENE = 0x00, 0x04, 0x05
GROUP = 0x0101


def _node(tmp_path: Path) -> MatterNode:
    home = fabric([("lamp", "dimmable_light", "r"), ("plug", "smart_plug", "r")])
    node = MatterNode(
        lambda roots: BridgeNode(home, roots, store=JsonFileStore(tmp_path / "bridge.json")),
        tmp_path / "state",
        mdns=False,
    )
    if 1 not in node.table.fabrics:
        authority, key = FabricAuthority.create(), generate_private_key()
        node.table.add(
            FabricRecord(
                1,
                authority.fabric_id,
                0x55,
                0xFFF1,
                authority.rcac.hex(),
                authority.noc_for(public_key_bytes(key), 0x55).hex(),
                None,
                private_key_bytes(key).hex(),
                EPOCH_KEY.hex(),
            )
        )
        node.table.save()
    return node


def _map_group_key(node: MatterNode) -> None:
    token = current_request.set(case_context())
    try:
        model = node.data_model
        model.invoke(
            0,
            GROUP_KEYS,
            "KeySetWrite",
            {
                "groupKeySet": {
                    "groupKeySetID": 42,
                    "groupKeySecurityPolicy": 0,
                    "epochKey0": "a0" * 16,
                    "epochStartTime0": 1,
                    "epochKey1": None,
                    "epochStartTime1": None,
                    "epochKey2": None,
                    "epochStartTime2": None,
                }
            },
        )
        model.write(0, GROUP_KEYS, "GroupKeyMap", [{"groupId": GROUP, "groupKeySetID": 42, "fabricIndex": 1}])
    finally:
        current_request.reset(token)


def test_groups_on_the_wire_group_table_persistence_and_fabric_removal(tmp_path: Path) -> None:
    node = _node(tmp_path)
    model = node.data_model
    lamp, plug = model.endpoint_of("lamp", 1), model.endpoint_of("plug", 1)
    client = ImClient(InteractionModel(model, AllowAll()))
    add = {0: uint(GROUP), 1: "Evening"}

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {"no_key": await client.invoke(lamp, GROUPS, ADD_GROUP, add)}
        _map_group_key(node)
        out["lamp"] = await client.invoke(lamp, GROUPS, ADD_GROUP, add)
        out["plug"] = await client.invoke(plug, GROUPS, ADD_GROUP, add)
        await client.invoke(lamp, 0x0006, 0x01, {})  # On
        out["store"] = await client.invoke(lamp, SCENES, STORE_SCENE, {0: uint(GROUP), 1: uint(7)})
        result, _ = await client.read([im.AttributePath(0, GROUP_KEYS, 0x0001)])
        out["table"] = result.values[(0, GROUP_KEYS, 0x0001)]
        return out

    out = asyncio.run(scenario())
    assert out["no_key"].fields == {0: Status.UNSUPPORTED_ACCESS, 1: GROUP}  # in-band AddGroupResponse
    assert out["lamp"].fields == {0: 0, 1: GROUP} and out["plug"].fields == {0: 0, 1: GROUP}
    assert out["store"].fields == {0: 0, 1: GROUP, 2: 7}
    assert out["table"] == [{1: GROUP, 2: [lamp, plug], 3: "Evening", 254: 1}]  # GroupInfoMapStruct
    assert model.groups.members(1, GROUP) == [lamp, plug]

    again = _node(tmp_path).data_model  # a restart: new home objects, same state
    assert again.groups.members(1, GROUP) == [lamp, plug]
    token = current_request.set(case_context())
    try:
        assert again.invoke(lamp, SCENES, "GetSceneMembership", {"groupID": GROUP})["sceneList"] == [7]
    finally:
        current_request.reset(token)

    restarted = _node(tmp_path)
    restarted.table.remove(1)
    restarted.table.save()  # RemoveFabric: the fabric's groups and scenes go with it
    assert restarted.data_model.groups.members(1, GROUP) == []
    assert restarted.data_model.read(0, GROUP_KEYS, "GroupTable") == []
