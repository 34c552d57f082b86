"""Issue #21 item E at the bridge: a controller's write to the bridge's own BasicInformation (NodeLabel,
Location, LocalConfigDisabled) is stored before it is acknowledged and comes back after a restart."""

from __future__ import annotations

from pathlib import Path

from bridge.matter.codec.kv_store import JsonFileStore
from bridge.matter.node.bridge_node import BASIC_INFORMATION_ID, BridgeNode
from clusters.basic_information import BasicInformationServer
from tests.emulator.helpers import fabric


def _node(store_path: Path) -> BridgeNode:
    home = fabric([("lamp", "on_off_light", "kitchen")])
    return BridgeNode(
        home,
        [BasicInformationServer(product_name="Bridge")],
        store=JsonFileStore(store_path),
    )


def test_bridge_labels_written_by_a_controller_survive_a_restart(tmp_path: Path) -> None:
    store_path = tmp_path / "state.json"
    first = _node(store_path)
    first.write(0, BASIC_INFORMATION_ID, "NodeLabel", "Hall bridge")
    first.write(0, BASIC_INFORMATION_ID, "LocalConfigDisabled", True)
    first.write(0, BASIC_INFORMATION_ID, "Location", "KR")
    # no close(): the store must already hold the write (a kill -9 gives no chance to save)
    again = _node(store_path)
    assert [again.read(0, BASIC_INFORMATION_ID, a) for a in ("NodeLabel", "LocalConfigDisabled", "Location")] == [
        "Hall bridge",
        True,
        "KR",
    ]
    again.close()
