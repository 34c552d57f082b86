"""The `homefabric serve` control socket's operations (used by the live end-to-end test and the bench)."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from bridge.matter.node.bridge_node import BridgeNode
from emulator.pacing import RealtimePacer
from homefabric_cli.serve import _control, _start_control
from tests.emulator.helpers import fabric


def test_control_operations_go_through_the_fabric() -> None:
    home = fabric([("lamp", "dimmable_light", "living_room"), ("sensor", "climate_sensor", "living_room")])
    bridge = BridgeNode(home)

    def control(op: str, **fields: object) -> Any:  # the JSON answer of one op
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


def test_control_socket_is_owner_only_whatever_the_umask(tmp_path: Path) -> None:
    home = fabric([("lamp", "on_off_light", "hall")])
    path = tmp_path / "control.sock"

    async def scenario() -> dict[str, object]:
        previous = os.umask(0)  # the most permissive umask: the socket must still be 0600
        try:
            server = await _start_control(path, home, BridgeNode(home), RealtimePacer(home))
        finally:
            os.umask(previous)
        try:
            assert stat.S_ISSOCK(os.stat(path).st_mode)
            assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
            reader, writer = await asyncio.open_unix_connection(str(path))
            writer.write(b'{"op": "now"}\n')
            answer = json.loads(await reader.readline())
            writer.close()
            return answer
        finally:
            server.close()
            await server.wait_closed()

    answer = asyncio.run(scenario())
    assert answer["ok"] is True and answer["result"]["tick"] == home.tick


def test_control_socket_is_a_hidden_serve_option() -> None:
    from typer.testing import CliRunner

    from homefabric_cli.main import app

    result = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "--state-dir" in result.output
    assert "--control-socket" not in result.output
    import homefabric_cli.serve as serve_module

    assert "HOMEFABRIC_CONTROL_SOCKET" not in Path(serve_module.__file__).read_text()  # no env-var back door
