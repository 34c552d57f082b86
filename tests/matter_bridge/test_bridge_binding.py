"""A light switch's Binding list over the Matter bridge (issue 22): a controller writes it with an IM Write (its
fabric stamped on each entry), reads it back fabric-filtered, and a target the home lacks is refused with
CONSTRAINT_ERROR; the written binding then drives the light when the switch is flipped."""

from __future__ import annotations

from bridge.matter.im import im_messages as im
from bridge.matter.im.data_model import AllowAll
from bridge.matter.im.interaction import InteractionModel
from bridge.matter.node.bridge_node import BridgeNode
from clusters import Status
from emulator.scenarios import flip_switch
from tests.emulator.helpers import fabric
from tests.matter_bridge._async import run_async
from tests.matter_bridge.im_fakes import FakeSession, ImClient

P = im.AttributePath
BINDING, ON_OFF = 0x1E, 0x06


@run_async
async def test_binding_written_over_the_bridge_reads_back_and_drives_the_light() -> None:
    home = fabric([("switch", "on_off_light_switch", "hall"), ("lamp", "on_off_light", "hall")])
    node = BridgeNode(home, [])
    client = ImClient(InteractionModel(node, AllowAll()), FakeSession(fabric_index=1))
    switch = node.endpoint_of("switch", 1)
    assert switch is not None
    lamp_node = home.node_id("lamp")
    entry = {1: lamp_node, 3: 1, 4: ON_OFF}  # TargetStruct by tag: Node, Endpoint, Cluster
    (status,) = await client.write([im.AttributeData(P(switch, BINDING, 0), [entry])])
    assert status.status == Status.SUCCESS
    result, _ = await client.read([P(switch, BINDING, 0)])
    assert result.values[(switch, BINDING, 0)] == [{1: lamp_node, 3: 1, 4: ON_OFF, 254: 1}]
    assert home.read("switch", 1, "Binding", "Binding") == [
        {"node": lamp_node, "endpoint": 1, "cluster": ON_OFF, "fabricIndex": 1}
    ]

    (refused,) = await client.write([im.AttributeData(P(switch, BINDING, 0), [{1: lamp_node + 1, 3: 1}])])
    assert refused.status == Status.CONSTRAINT_ERROR
    assert len(home.read("switch", 1, "Binding", "Binding")) == 1

    flip_switch(home, "switch")
    assert home.read("lamp", 1, "OnOff", "OnOff") is True
