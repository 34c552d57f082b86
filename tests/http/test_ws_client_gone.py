"""A client that has gone ends a socket handler quietly: no "Exception in ASGI application" traceback.

uvicorn (the websockets-sansio protocol `serve` uses) answers a send with ``RuntimeError("Unexpected ASGI message
'websocket.send', after sending 'websocket.close'.")`` once it has closed the socket itself — a keepalive ping the
browser no longer answers — and with ``ClientDisconnected`` (an ``OSError``) once the peer is gone, which
Starlette turns into ``WebSocketDisconnect``. Whatever the app lets escape but ``ClientDisconnected`` itself,
uvicorn logs as a traceback. The ASGI server is played here by hand so that both moments are
exact; the app is the real one.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from uvicorn.protocols.utils import ClientDisconnected

from bridge.http.app import create_app
from homefabric_cli.http_app import home_http_api
from tests.http.live_api import home

AFTER_CLOSE = RuntimeError("Unexpected ASGI message 'websocket.send', after sending 'websocket.close'.")


def _scope(path: str) -> dict[str, Any]:
    return {
        "type": "websocket",
        "asgi": {"version": "3.0"},
        "scheme": "ws",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8080")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8080),
        "subprotocols": [],
    }


async def _socket(app: Any, path: str, failure: BaseException, *, sends_before_failure: int = 0) -> list[dict]:
    """Run the app's socket: accept, then let sends fail as uvicorn does; the frames that got out."""
    sent: list[dict] = []
    incoming: asyncio.Queue[dict] = asyncio.Queue()
    incoming.put_nowait({"type": "websocket.connect"})

    async def receive() -> dict:
        return await incoming.get()

    async def send(message: dict) -> None:
        if message["type"] == "websocket.send" and len(sent) >= sends_before_failure + 1:
            raise failure
        sent.append(message)

    await asyncio.wait_for(app(_scope(path), receive, send), 10)
    return sent


@pytest.mark.parametrize("failure", [AFTER_CLOSE, ClientDisconnected()], ids=["closed-by-server", "peer-gone"])
def test_the_events_socket_ends_quietly_when_its_client_has_gone(failure: BaseException) -> None:
    app = create_app(home()).app
    sent = asyncio.run(_socket(app, "/ws/events", failure))
    assert [m["type"] for m in sent] == ["websocket.accept"]  # the hello could not go out, and nothing was raised


def test_a_run_socket_ends_quietly_when_its_client_has_gone() -> None:
    app = home_http_api(home(), port=0).app.app  # the composed app: the benchmark's run sockets mounted
    sent = asyncio.run(_socket(app, "/ws/runs/nope", AFTER_CLOSE))
    assert [m["type"] for m in sent] == ["websocket.accept"]


def test_other_runtime_errors_still_surface() -> None:
    app = create_app(home()).app
    with pytest.raises(RuntimeError, match="something else"):
        asyncio.run(_socket(app, "/ws/events", RuntimeError("something else")))
