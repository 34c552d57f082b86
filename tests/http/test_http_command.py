"""`homefabric http`'s composition (fabric + pacer + API from a home file) and a busy port."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import httpx
import pytest

from bridge.http import HttpApi
from homefabric_cli.http_cmd import run_http
from tests.http.live_api import LIGHT, home


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_run_http_serves_a_home_file_with_a_token(tmp_path: Path) -> None:
    async def scenario() -> None:
        path = tmp_path / "home.json"
        home().save(str(path))
        port = _free_port()
        lines: list[str] = []
        ready, stop = asyncio.Event(), asyncio.Event()
        task = asyncio.create_task(
            run_http(
                path,
                host="127.0.0.1",
                port=port,
                speed=30,
                token="t0k",
                runs_dir=tmp_path / "runs",
                echo=lines.append,
                ready=ready,
                stop=stop,
            )
        )
        await asyncio.wait_for(ready.wait(), 20)
        try:
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{port}", timeout=10, headers={"Authorization": "Bearer t0k"}
            ) as client:
                clock = (await client.get("/api/clock")).json()
                assert clock["paced"] and clock["running"] and clock["speed"] == 30
                response = await client.post(f"/api/devices/{LIGHT}/commands/1/OnOff/On")
                assert response.status_code == 200
                assert (await client.get(f"/api/devices/{LIGHT}")).json()["state"]["1.OnOff.OnOff"] is True
        finally:
            stop.set()
            await asyncio.wait_for(task, 20)
        assert any(f"http://127.0.0.1:{port}/#token=" in line for line in lines)

    asyncio.run(scenario())


def test_a_busy_port_is_an_os_error() -> None:
    async def scenario() -> None:
        with socket.socket() as busy:
            busy.bind(("127.0.0.1", 0))
            busy.listen()
            with pytest.raises(OSError):
                async with HttpApi(home(), port=busy.getsockname()[1]):
                    pass

    asyncio.run(scenario())
