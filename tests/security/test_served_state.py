"""Issue #15 cases 9 and 10 (serve's state files): the served home survives a restart of ``serve`` — attribute
values, device names (a bridged NodeLabel), workflows and the virtual clock — unless ``--fresh``; corrupt state
files are a one-line error naming the file and the fix."""

from __future__ import annotations

import asyncio
import contextlib
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import chip.clusters.Objects as Objects
from typer.testing import CliRunner

from bridge.matter.node.bridge_node import BridgeNode
from emulator.emulated_home import EmulatedHome
from emulator.home_config import dump_home
from emulator.home_generation.generator import generate_home
from emulator.workflows import WorkflowStep
from homefabric_cli.home_state import HOME_STATE_FILE, HomeSaver
from homefabric_cli.main import app
from homefabric_cli.serve import serve

LIGHT = "bedroom_on_off_light_1"


def _home_file(tmp_path: Path) -> Path:
    path = tmp_path / "home.json"
    path.write_text(dump_home(generate_home("medium", 3)))
    return path


async def _control(socket: Path, **request: Any) -> Any:
    reader, writer = await asyncio.open_unix_connection(str(socket))
    writer.write(json.dumps(request).encode() + b"\n")
    await writer.drain()
    answer = json.loads(await reader.readline())
    writer.close()
    assert answer["ok"], answer
    return answer["result"]


@contextlib.asynccontextmanager
async def _serving(home: Path, state: Path, socket: Path, *, fresh: bool = False) -> Any:
    ready, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(
        serve(
            home,
            state,
            speed=600,
            port=0,
            discriminator=3840,
            passcode=20202021,
            interfaces=["lo"],
            echo=lambda *_: None,
            ready=ready,
            stop=stop,
            control=socket,
            fresh=fresh,
        )
    )
    await asyncio.wait_for(ready.wait(), 30)
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)


def test_serve_resumes_the_home_where_it_was_left_and_fresh_starts_over(tmp_path: Path) -> None:
    home, state, socket = _home_file(tmp_path), tmp_path / "state", tmp_path / "ctl.sock"

    async def scenario() -> None:
        async with _serving(home, state, socket):
            started = (await _control(socket, op="now"))["time"]
            assert (
                await _control(socket, op="read", device=LIGHT, endpoint=1, cluster="OnOff", attribute="OnOff") is False
            )
            await _control(socket, op="invoke", device=LIGHT, endpoint=1, cluster="OnOff", command="On")
            saved = state / HOME_STATE_FILE
            for _ in range(100):  # written on change (debounced) while serve runs: a kill -9 keeps it
                data = json.loads(saved.read_text())
                if next(d for d in data["devices"] if d["id"] == LIGHT)["attributes"]["1.OnOff.OnOff"] is True:
                    break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("the change never reached home.json")
            await asyncio.sleep(0.5)  # virtual time moves at ×600
            left_at = (await _control(socket, op="now"))["time"]
            assert left_at > _at(datetime.strptime(started, "%Y-%m-%d %H:%M:%S"), 0.05)
        async with _serving(home, state, socket):
            assert (
                await _control(socket, op="read", device=LIGHT, endpoint=1, cluster="OnOff", attribute="OnOff") is True
            )
            resumed = await _control(socket, op="now")
            assert resumed["time"] >= left_at  # the clock goes on from where it was (to the second)
        async with _serving(home, state, socket, fresh=True):
            assert (
                await _control(socket, op="read", device=LIGHT, endpoint=1, cluster="OnOff", attribute="OnOff") is False
            )
            assert (await _control(socket, op="now"))["time"] < left_at

    asyncio.run(asyncio.wait_for(scenario(), 120))


def _at(start: datetime, hours: float) -> str:
    return (start + timedelta(hours=hours)).strftime("%Y-%m-%d %H:%M:%S")


def test_the_saved_home_keeps_workflows_and_a_written_node_label(tmp_path: Path) -> None:
    fabric = EmulatedHome(generate_home("medium", 3))
    bridge = BridgeNode(fabric)
    number = bridge.endpoint_of(LIGHT, 1)
    assert number is not None
    bridge.write(number, Objects.BridgedDeviceBasicInformation.id, "NodeLabel", "Desk lamp")
    start = fabric.now()
    pending = fabric.schedule(_at(start, 3), [WorkflowStep("invoke", LIGHT, 1, "OnOff", "On")], "later")
    done = fabric.schedule(_at(start, 0.5), [WorkflowStep("invoke", LIGHT, 1, "OnOff", "Toggle")])
    fabric.advance(3600)

    async def save() -> None:
        async with HomeSaver(fabric, tmp_path):
            pass

    asyncio.run(save())
    resumed = EmulatedHome.from_file(str(tmp_path / HOME_STATE_FILE))
    assert resumed.now_text() == fabric.now_text()
    assert resumed.workflow(done.workflow_id).status == "completed"
    assert resumed.workflow(pending.workflow_id).status == "pending"
    assert resumed.read(LIGHT, 1, "OnOff", "OnOff") is True  # toggled half an hour in
    resumed.invoke(LIGHT, 1, "OnOff", "Off")
    resumed.run_until(_at(start, 3.01))
    assert resumed.workflow(pending.workflow_id).status == "completed"
    assert resumed.read(LIGHT, 1, "OnOff", "OnOff") is True
    assert resumed.schedule(_at(start, 4), [WorkflowStep("invoke", LIGHT, 1, "OnOff", "Off")]).workflow_id not in (
        pending.workflow_id,
        done.workflow_id,
    )
    label = BridgeNode(resumed).read(number, Objects.BridgedDeviceBasicInformation.id, "NodeLabel")
    assert label == "Desk lamp"


def test_corrupt_serve_state_files_are_one_line_errors_naming_the_file_and_the_fix(tmp_path: Path) -> None:
    home = _home_file(tmp_path)
    runner = CliRunner()
    for name, content, fix in (
        ("fabrics.json", b'{"fabrics": [', "commissioned again"),
        ("attestation.json", b'{"a": 1}\xff', "delete it"),
        (HOME_STATE_FILE, b"{not json", "--fresh"),
    ):
        state = tmp_path / f"state-{name}"
        state.mkdir()
        (state / name).write_bytes(content)
        result = runner.invoke(app, ["serve", str(home), "--state-dir", str(state), "--port", "0", "--interface", "lo"])
        output = " ".join(result.output.split())  # the console may wrap a long line
        assert result.exit_code == 2, result.output
        assert name in output and fix in output, output
        assert "Traceback" not in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
