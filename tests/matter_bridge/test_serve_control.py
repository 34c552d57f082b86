"""The `homefabric serve` control socket's operations (used by the live end-to-end test and the bench)."""

from __future__ import annotations

import pytest

from bridge.matter.node.bridge_node import BridgeNode
from homefabric_cli.serve import _control
from tests.emulator.helpers import fabric


def test_control_operations_go_through_the_fabric() -> None:
    home = fabric([("lamp", "dimmable_light", "living_room"), ("sensor", "climate_sensor", "living_room")])
    bridge = BridgeNode(home)

    def control(op: str, **fields: object) -> object:
        return _control({"op": op, **fields}, home, bridge)

    assert control("read", device="lamp", endpoint=1, cluster="OnOff", attribute="OnOff") is False
    control("invoke", device="lamp", endpoint=1, cluster="OnOff", command="On")
    assert home.read("lamp", 1, "OnOff", "OnOff") is True
    control("write", device="lamp", endpoint=1, cluster="LevelControl", attribute="OnLevel", value=77)
    assert home.read("lamp", 1, "LevelControl", "OnLevel") == 77
    layout = control("endpoints")
    assert set(layout) == {"lamp", "sensor"}
    assert set(layout["sensor"]["endpoints"]) == {"1", "2"}  # a two-endpoint device keeps both
    top = layout["lamp"]["endpoints"]["1"]
    assert layout["lamp"]["device_types"][str(top)] == [0x13, 0x0101]  # Bridged Node + Dimmable Light
    assert bridge.endpoint_of("lamp", 1) == top
    assert control("now")["tick"] == home.tick
    assert control("room_state", room="living_room")["temperature"] == pytest.approx(2800, abs=100)  # 0.01 °C
    with pytest.raises(ValueError, match="unknown op"):
        control("explode")
