"""AccessControlEntryChanged on ACL writes: one event per added/changed/removed entry, readable by the
writing fabric only and with Administer."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bridge.matter import im_messages as im
from bridge.matter.bridge_node import BridgeNode
from bridge.matter.data_model import AllowAll
from bridge.matter.interaction import InteractionModel
from bridge.matter.node import MatterNode
from tests.emulator.helpers import fabric
from tests.matter_bridge.im_fakes import FakeSession, ImClient

ACL, EVENT = 0x001F, 0x0000


def test_acl_writes_log_entry_changes_for_their_fabric(tmp_path: Path) -> None:
    node = MatterNode(lambda roots: BridgeNode(fabric([("lamp", "on_off_light", "r")]), roots), tmp_path, mdns=False)
    writer = ImClient(InteractionModel(node.data_model, AllowAll()), FakeSession(fabric_index=1, node_id=0x1122))
    other = ImClient(writer.model, FakeSession(fabric_index=2, node_id=0x3344))
    admin = {1: 5, 2: 2, 3: [0x1122], 4: None}
    operate = {1: 3, 2: 2, 3: [0x99], 4: None}

    async def scenario() -> tuple[list[im.EventData], list[im.EventData]]:
        path = im.AttributePath(0, ACL, 0)
        assert (await writer.write([im.AttributeData(path, [admin])]))[0].status == 0
        assert (await writer.write([im.AttributeData(path, [admin, operate])]))[0].status == 0
        assert (await writer.write([im.AttributeData(path, [admin])]))[0].status == 0
        mine, _ = await writer.read([], [im.EventPath(0, ACL, EVENT)])
        theirs, _ = await other.read([], [im.EventPath(0, ACL, EVENT)])
        return mine.events, theirs.events

    mine, theirs = asyncio.run(scenario())
    assert [(e.data[3], e.data[4][1], e.data[1]) for e in mine] == [(1, 5, 0x1122), (1, 3, 0x1122), (2, 3, 0x1122)]
    assert all(e.data[254] == 1 for e in mine)  # Added, Added, Removed; the writer's fabric
    assert theirs == []  # fabric-scoped: another fabric does not see them
