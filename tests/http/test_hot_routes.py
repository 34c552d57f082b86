"""The read/invoke fast path (bridge/http/hot_routes.py) answers exactly as the FastAPI routes do, and leaves every
request it does not fully understand to them. Each request goes to the real server (uvicorn, guards, fast path)
and, with the same fabric state, straight to the FastAPI app (no fast path): status and body must be equal."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from bridge.http.hot_routes import HotRoutes
from tests.http.live_api import DIMMER, LIGHT, home, running_api

CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("GET", f"/api/devices/{LIGHT}/attributes/1/OnOff/OnOff", {}),
    ("GET", f"/api/devices/{LIGHT}/attributes/1/On-Off/OnOff", {}),  # a name FastAPI refuses: its 422
    ("GET", f"/api/devices/{DIMMER}/attributes/1/LevelControl/CurrentLevel", {}),
    ("GET", f"/api/devices/{LIGHT}/attributes/1/OnOff/NoSuchAttribute", {}),  # HomeError → 404 with allowed
    ("GET", "/api/devices/nobody/attributes/1/OnOff/OnOff", {}),
    ("GET", f"/api/devices/{LIGHT}/attributes/99999/OnOff/OnOff", {}),  # over 65534: FastAPI's 422
    ("GET", f"/api/devices/{LIGHT}/attributes/01/OnOff/OnOff", {}),  # not the fast path's form: FastAPI decides
    ("GET", f"/api/devices/{LIGHT}/attributes/1/onOff/OnOff", {}),  # no such cluster: the fabric names the known ones
    ("POST", f"/api/devices/{LIGHT}/commands/1/OnOff/Toggle", {}),
    (
        "POST",
        f"/api/devices/{DIMMER}/commands/1/LevelControl/MoveToLevel",
        {"json": {"args": {"Level": 100, "TransitionTime": 0, "OptionsMask": 0, "OptionsOverride": 0}}},
    ),
    (
        "POST",
        f"/api/devices/{DIMMER}/commands/1/LevelControl/MoveToLevel",
        {"json": {"args": {"Level": 999, "TransitionTime": 0, "OptionsMask": 0, "OptionsOverride": 0}}},
    ),  # refused
    ("POST", f"/api/devices/{LIGHT}/commands/1/OnOff/Toggle", {"json": {"args": [1]}}),  # 422 from FastAPI
    ("POST", f"/api/devices/{LIGHT}/commands/1/OnOff/Toggle", {"json": {"argz": {}}}),  # extra field: 422
    (
        "POST",
        f"/api/devices/{LIGHT}/commands/1/OnOff/Toggle",
        {"content": b"{not json", "headers": {"content-type": "application/json"}},
    ),
    ("POST", f"/api/devices/{LIGHT}/commands/1/OnOff/NoSuchCommand", {}),
    ("PUT", f"/api/devices/{LIGHT}/commands/1/OnOff/Toggle", {}),  # the wrong method: 405 from FastAPI
]


def test_the_fast_path_answers_as_the_fastapi_routes_do(monkeypatch: pytest.MonkeyPatch) -> None:
    answered: list[str] = []
    original = HotRoutes._answer

    async def counting(scope: Any, receive: Any, send: Any, call: Any) -> None:
        answered.append(scope["path"])
        await original(scope, receive, send, call)

    monkeypatch.setattr(HotRoutes, "_answer", staticmethod(counting))

    async def scenario() -> None:
        served, direct = home(), home()  # two identical homes: one behind the server, one behind FastAPI alone
        async with running_api(served) as api, httpx.AsyncClient(base_url=api.url, timeout=10) as client:
            from bridge.http.app import create_app

            fastapi_only = create_app(direct).app  # the FastAPI app without guards or fast path
            transport = httpx.ASGITransport(app=fastapi_only)
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as plain:
                for method, path, options in CASES:
                    ours = await client.request(method, path, **options)
                    theirs = await plain.request(method, path, **options)
                    assert (ours.status_code, _body(ours)) == (theirs.status_code, _body(theirs)), (method, path)
            assert served.snapshot()["devices"] == direct.snapshot()["devices"]  # the same commands took effect
            assert served.read(LIGHT, 1, "OnOff", "OnOff") is not home().read(LIGHT, 1, "OnOff", "OnOff")

    asyncio.run(scenario())
    assert len(answered) == 9, answered  # the well-formed reads and commands; the rest went on to FastAPI


def _body(response: httpx.Response) -> Any:
    return response.json() if response.headers.get("content-type", "").startswith("application/json") else response.text
