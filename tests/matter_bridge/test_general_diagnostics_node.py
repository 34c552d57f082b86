"""The node's General Diagnostics on endpoint 0: RebootCount counts restarts of the same state directory,
BootReason is logged as an event, NetworkInterfaces and UpTime read over the IM."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bridge.matter import im_messages as im
from bridge.matter.bridge_node import BridgeNode
from bridge.matter.data_model import AllowAll
from bridge.matter.interaction import InteractionModel
from bridge.matter.node import MatterNode
from tests.emulator.helpers import fabric
from tests.matter_bridge.im_fakes import ImClient

GENERAL_DIAGNOSTICS = 0x0033


def _node(state: Path) -> MatterNode:
    home = fabric([("lamp", "on_off_light", "r")])
    return MatterNode(lambda roots: BridgeNode(home, roots), state, mdns=False)


def test_reboot_count_counts_restarts_and_survives_them(tmp_path: Path) -> None:
    counts = [_node(tmp_path).data_model.read(0, GENERAL_DIAGNOSTICS, "RebootCount") for _ in range(3)]
    assert counts == [1, 2, 3]
    assert _node(tmp_path / "other").data_model.read(0, GENERAL_DIAGNOSTICS, "RebootCount") == 1


def test_boot_reason_event_and_wire_reads(tmp_path: Path) -> None:
    node = _node(tmp_path)
    client = ImClient(InteractionModel(node.data_model, AllowAll()))

    async def scenario() -> tuple[object, object]:
        attrs, _ = await client.read([im.AttributePath(0, GENERAL_DIAGNOSTICS)])
        events, _ = await client.read([], [im.EventPath(0, GENERAL_DIAGNOSTICS, 3)])
        return attrs, events

    attrs, events = asyncio.run(scenario())
    values = attrs.values  # type: ignore[attr-defined]
    assert values[(0, GENERAL_DIAGNOSTICS, 1)] == 1  # RebootCount
    assert values[(0, GENERAL_DIAGNOSTICS, 2)] >= 0  # UpTime
    assert values[(0, GENERAL_DIAGNOSTICS, 4)] == 1  # BootReason PowerOnReboot
    assert values[(0, GENERAL_DIAGNOSTICS, 8)] is False  # TestEventTriggersEnabled
    interfaces = values[(0, GENERAL_DIAGNOSTICS, 0)]
    assert isinstance(interfaces, list) and all(isinstance(i[0], str) and i[7] in (1, 2) for i in interfaces)
    (boot,) = events.events  # type: ignore[attr-defined]
    assert boot.priority == 2 and boot.data == {0: 1}
