"""Issue #15 cases 1, 2, 3 and the HTTP part of 7: the API reached by a careless operator's browser or by an
attacker who can reach the port. Every test drives a real API over real sockets (uvicorn, httpx, websockets)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from websockets.typing import Origin

from tests.http.live_api import LIGHT, home, running_api, write_some_episodes

SECRET_ENV = "HF_SECURITY_TEST_SECRET"
SECRET = "s3cr3t-value-that-must-not-leave"


class _Listener:
    """A local HTTP listener that records what reaches it (stands for an attacker's server)."""

    def __init__(self) -> None:
        self.requests: list[bytes] = []
        self.url = ""

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            self.requests.append(await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5))
            writer.write(b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            await writer.drain()
        writer.close()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[_Listener]:
        server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"
        async with server:
            yield self


def _react(base_url: str, key_env: str | None = SECRET_ENV) -> dict[str, Any]:
    return {"name": "react", "base_url": base_url, "model": "m", "api_key_env": key_env, "max_steps": 1}


async def _upload_episode(client: httpx.AsyncClient, tmp_path: Path) -> str:
    directory = tmp_path / "generated"
    episode_id = write_some_episodes(directory)[0]
    data = json.loads((directory / f"{episode_id}.json").read_text())
    response = await client.post("/api/episodes", json=data, params={"episode_id": episode_id})
    assert response.status_code == 201, response.text
    return episode_id


# --- case 1: a run must not send a server secret to a URL of the client's choosing ---------------------------


def test_runs_use_only_endpoints_and_key_variables_the_operator_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET_ENV, SECRET)

    async def scenario() -> None:
        async with _Listener().running() as listener:
            async with running_api(home()) as api, httpx.AsyncClient(base_url=api.url, timeout=10) as client:
                episode_id = await _upload_episode(client, tmp_path)
                response = await client.post(
                    "/api/runs", json={"episode_ids": [episode_id], "agent": _react(listener.url)}
                )
                assert response.status_code == 403, response.text
                assert response.json()["code"] == "MODEL_ENDPOINT_NOT_ALLOWED"
                assert "--allow-model-endpoint" in response.json()["message"]
            async with (
                running_api(home(), model_endpoints=[listener.url]) as api,
                httpx.AsyncClient(base_url=api.url, timeout=10) as client,
            ):
                episode_id = await _upload_episode(client, tmp_path)
                response = await client.post(
                    "/api/runs", json={"episode_ids": [episode_id], "agent": _react(listener.url)}
                )
                assert response.status_code == 403 and response.json()["code"] == "KEY_ENV_NOT_ALLOWED"
                assert SECRET not in response.text
            await asyncio.sleep(0.2)
            assert listener.requests == []  # nothing left the server
            # What the operator allowed does work: the key goes to the allowed endpoint.
            async with (
                running_api(home(), model_endpoints=[listener.url + "/"], model_key_envs=[SECRET_ENV]) as api,
                httpx.AsyncClient(base_url=api.url, timeout=10) as client,
            ):
                episode_id = await _upload_episode(client, tmp_path)
                response = await client.post(
                    "/api/runs", json={"episode_ids": [episode_id], "agent": _react(listener.url)}
                )
                assert response.status_code == 202, response.text
                for _ in range(200):
                    if listener.requests:
                        break
                    await asyncio.sleep(0.05)
            assert listener.requests and f"Bearer {SECRET}".encode() in listener.requests[0]

    asyncio.run(scenario())


# --- case 2: CSRF and DNS rebinding ------------------------------------------------------------------------


def test_a_cross_site_simple_post_changes_nothing() -> None:
    async def scenario() -> None:
        fabric = home()
        before = fabric.read(LIGHT, 1, "OnOff", "OnOff")
        async with running_api(fabric, speed=1) as api, httpx.AsyncClient(base_url=api.url, timeout=10) as client:
            forged = await client.post(
                f"/api/devices/{LIGHT}/commands/1/OnOff/Toggle",
                content='{"args": {}}',
                headers={"Content-Type": "text/plain", "Origin": "http://evil.example"},
            )
            assert forged.status_code == 403 and forged.json()["code"] == "ORIGIN_NOT_ALLOWED"
            paused = await client.post("/api/clock/pause", headers={"Origin": "http://evil.example"})
            assert paused.status_code == 403
            # Even from no origin at all (e.g. a form on a file:// page says "null") or the API's own
            # origin, a text/plain or form body is refused: JSON only.
            for origin in ("null", api.url):
                simple = await client.post(
                    f"/api/devices/{LIGHT}/commands/1/OnOff/Toggle",
                    content="args=1",
                    headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": origin},
                )
                assert simple.status_code in (403, 415), simple.text
            plain = await client.post(
                f"/api/devices/{LIGHT}/commands/1/OnOff/Toggle",
                content='{"args": {}}',
                headers={"Content-Type": "text/plain"},
            )
            assert plain.status_code == 415 and "application/json" in plain.json()["message"]
            assert fabric.read(LIGHT, 1, "OnOff", "OnOff") is before
            assert (await client.get("/api/clock")).json()["running"] is True
            # The API's own page (same origin, JSON) still works.
            own = await client.post(
                f"/api/devices/{LIGHT}/commands/1/OnOff/Toggle", json={"args": {}}, headers={"Origin": api.url}
            )
            assert own.status_code == 200 and fabric.read(LIGHT, 1, "OnOff", "OnOff") is not before

    asyncio.run(scenario())


def test_a_rebinding_host_name_is_refused_and_allowed_origins_pass() -> None:
    async def scenario() -> None:
        async with (
            running_api(home(), allowed_origins=["http://dash.example:3000"]) as api,
            httpx.AsyncClient(base_url=api.url, timeout=10) as client,
        ):
            rebound = await client.get("/api/home", headers={"Host": f"evil.example:{api.port}"})
            assert rebound.status_code == 421 and rebound.json()["code"] == "HOST_NOT_ALLOWED"
            assert (await client.get("/api/home", headers={"Host": f"localhost:{api.port}"})).status_code == 200
            allowed = await client.get("/api/home", headers={"Origin": "http://dash.example:3000"})
            assert allowed.status_code == 200
            other = await client.get("/api/home", headers={"Origin": "http://dash.example:3001"})
            assert other.status_code == 403

    asyncio.run(scenario())


@pytest.mark.parametrize("token", [None, "tok"])
def test_a_foreign_origin_websocket_is_refused_with_or_without_a_token(token: str | None) -> None:
    async def scenario() -> None:
        async with running_api(home(), token=token) as api:
            query = f"?token={token}" if token else ""
            with pytest.raises(websockets.exceptions.InvalidStatus):
                async with websockets.connect(
                    api.ws_url + "/ws/events" + query, open_timeout=5, origin=Origin("http://evil.example")
                ):
                    pass
            with pytest.raises(websockets.exceptions.InvalidStatus):
                async with websockets.connect(
                    api.ws_url + "/ws/events" + query, open_timeout=5, additional_headers={"Host": "evil.example"}
                ):
                    pass
            async with websockets.connect(
                api.ws_url + "/ws/events" + query, open_timeout=5, origin=Origin(api.url)
            ) as ws:
                assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "hello"

    asyncio.run(scenario())


# --- case 3: server paths ----------------------------------------------------------------------------------


def test_episode_loading_is_off_without_an_episodes_root(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running_api(home()) as api, httpx.AsyncClient(base_url=api.url, timeout=10) as client:
            response = await client.post("/api/episodes/load", json={"path": "/etc"})
            assert response.status_code == 403 and "--episodes-root" in response.json()["message"]

    asyncio.run(scenario())


def test_episode_paths_stay_under_the_root_and_files_must_be_regular(tmp_path: Path) -> None:
    root = tmp_path / "root"
    ids = write_some_episodes(root / "set")
    os.mkfifo(root / "blocking.json")
    (root / "escape").symlink_to("/etc")
    (root / "set" / "link.json").symlink_to("/etc/hostname")

    async def scenario() -> None:
        async with (
            running_api(home(), episodes_root=root) as api,
            httpx.AsyncClient(base_url=api.url, timeout=10) as client,
        ):
            for outside in ("/etc", "/usr/share", "../", "escape", str(tmp_path), "/nonexistent/x"):
                response = await client.post("/api/episodes/load", json={"path": outside})
                assert response.status_code == 403 and response.json()["code"] == "PATH_OUTSIDE_ROOT", outside
                assert "hostname" not in response.text
            # A FIFO is refused at once (it would block a reader), and the API keeps answering.
            fifo = await client.post("/api/episodes/load", json={"path": "blocking.json"})
            assert fifo.status_code == 400 and fifo.json()["code"] == "NOT_A_REGULAR_FILE"
            # A directory: its regular files only (the symlink to /etc/hostname is not followed).
            loaded = (await client.post("/api/episodes/load", json={"path": "set"})).json()
            assert loaded["loaded"] == ids and loaded["problems"] == []
            missing = await client.post("/api/episodes/load", json={"path": "nope"})
            assert missing.status_code == 404 and str(root) not in missing.text
            long = await client.post("/api/episodes/load", json={"path": "a" * 300})
            assert long.status_code == 400 and long.json()["code"] == "INVALID_ARGUMENT"  # not a 500
            longer = await client.post("/api/episodes/load", json={"path": "a/" * 2000})
            assert longer.status_code == 422
            # The whole walk of the named directory happens off the event loop: the root itself loads too.
            assert (await client.post("/api/episodes/load", json={"path": str(root)})).status_code == 200

    asyncio.run(scenario())


def test_replay_reads_only_run_records_under_the_runs_dir(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with (
            running_api(home(), runs_dir=tmp_path / "runs") as api,
            httpx.AsyncClient(base_url=api.url, timeout=10) as client,
        ):
            episode_id = await _upload_episode(client, tmp_path)
            for source in ("/etc/passwd", "../", str(tmp_path)):
                response = await client.post(
                    "/api/runs", json={"episode_ids": [episode_id], "agent": {"name": "replay", "replay_from": source}}
                )
                assert response.status_code == 403 and response.json()["code"] == "PATH_OUTSIDE_ROOT", source

    asyncio.run(scenario())


# --- case 7 (HTTP): body size --------------------------------------------------------------------------------


def test_a_huge_body_is_refused_before_it_is_parsed() -> None:
    async def scenario() -> None:
        async with (
            running_api(home(), max_body_bytes=4096) as api,
            httpx.AsyncClient(base_url=api.url, timeout=10) as client,
        ):
            body = json.dumps({"args": {"x": "y" * 10_000}})
            response = await client.post(
                f"/api/devices/{LIGHT}/commands/1/OnOff/On", content=body, headers={"Content-Type": "application/json"}
            )
            assert response.status_code == 413 and "4096" in response.json()["message"]

            async def chunks() -> AsyncIterator[bytes]:
                for _ in range(10):
                    yield b" " * 1000

            streamed = await client.post(
                f"/api/devices/{LIGHT}/commands/1/OnOff/On",
                content=chunks(),
                headers={"Content-Type": "application/json"},
            )
            assert streamed.status_code == 413
            assert (await client.get("/api/clock")).status_code == 200

    asyncio.run(scenario())


def test_a_directory_with_too_many_files_is_refused_not_walked_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchmark.http import confined_files

    monkeypatch.setattr(confined_files, "MAX_FILES", 3)
    many = tmp_path / "many"
    many.mkdir()
    for index in range(5):
        (many / f"e{index}.json").write_text("{}")

    async def scenario() -> None:
        async with (
            running_api(home(), episodes_root=tmp_path) as api,
            httpx.AsyncClient(base_url=api.url, timeout=10) as client,
        ):
            response = await client.post("/api/episodes/load", json={"path": "many"})
            assert response.status_code == 400 and response.json()["code"] == "TOO_MANY_FILES"
            assert "e4.json" not in response.text

    asyncio.run(scenario())


def test_an_unexpected_failure_is_a_typed_error_without_a_traceback() -> None:
    fabric = home()

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("/secret/path/in/a/message")

    async def scenario() -> None:
        async with running_api(fabric) as api, httpx.AsyncClient(base_url=api.url, timeout=10) as client:
            fabric.rooms = broken  # type: ignore[method-assign]
            response = await client.get("/api/rooms")
            assert response.status_code == 500
            assert response.json()["code"] == "INTERNAL_ERROR" and "RuntimeError" in response.json()["message"]
            assert "/secret/path" not in response.text and "Traceback" not in response.text

    asyncio.run(scenario())
