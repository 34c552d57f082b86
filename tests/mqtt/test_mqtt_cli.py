"""`homefabric mqtt`: broker parsing, bad options, and a home served on a real broker."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from emulator.files import write_atomically
from emulator.home_config import dump_home
from homefabric_cli.mqtt_cmd import mqtt_command, parse_broker, run_mqtt
from tests.emulator.helpers import home
from tests.mqtt.broker import Mosquitto, Recorder, on_topic


def test_parse_broker() -> None:
    assert parse_broker("127.0.0.1:1884") == ("127.0.0.1", 1884)
    assert parse_broker("broker") == ("broker", 1883)
    assert parse_broker("[::1]:1885") == ("::1", 1885)
    for bad in (":1883", "host:0", "host:http", "[::1", "host:99999"):
        with pytest.raises(ValueError):
            parse_broker(bad)


def test_bad_broker_option_is_refused_with_its_name(tmp_path: Path) -> None:
    path = tmp_path / "home.json"
    write_atomically(str(path), dump_home(home([("lamp", "on_off_light", "hall")])))
    app = typer.Typer()
    app.command()(mqtt_command)
    result = CliRunner().invoke(app, [str(path), "--broker", "localhost:70000"])
    assert result.exit_code == 2
    assert "--broker" in result.output and "70000" in result.output


def test_serves_a_home_file_on_the_broker(tmp_path: Path, broker: Mosquitto) -> None:
    path = tmp_path / "home.json"
    write_atomically(str(path), dump_home(home([("lamp", "on_off_light", "hall")])))
    lines: list[str] = []

    async def scenario() -> None:
        stop = asyncio.Event()
        server = asyncio.create_task(
            run_mqtt(
                path,
                "127.0.0.1",
                broker.port,
                speed=10,
                base="hf",
                home_id="flat",
                discovery_prefix="ha",
                echo=lines.append,
                stop=stop,
            )
        )
        try:
            async with Recorder(broker.port, "ha/#", "hf/#") as rec:
                config = await rec.wait_for(on_topic("ha/device/hf_flat_lamp/config"), timeout=10)
                assert config[0].json()["cmps"]["light_1"]["command_topic"] == "hf/flat/lamp/light_1/set"
                await rec.publish("hf/flat/lamp/light_1/set", '{"state": "ON"}')
                await rec.wait_for(on_topic("hf/flat/lamp/light_1/state", lambda s: s["state"] == "ON"))
        finally:
            stop.set()
            await asyncio.wait_for(server, 10)
        assert "hf/flat/" in lines[0]

    asyncio.run(asyncio.wait_for(scenario(), 30))
