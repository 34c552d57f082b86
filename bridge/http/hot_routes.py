"""The two calls an agent makes most — read one attribute, invoke one command — answered without FastAPI's routing.

FastAPI matches a request against every route in turn and solves each route's parameters per request: ~0.3 ms
of CPU, more than the fabric call itself (perf/http_latency.py). This ASGI layer sits behind the origin and
token guards and in front of the FastAPI app. It answers only *well-formed* requests to

    GET  /api/devices/{device_id}/attributes/{endpoint}/{cluster}/{attribute}
    POST /api/devices/{device_id}/commands/{endpoint}/{cluster}/{command}

with exactly the FastAPI routes' responses (routes_home.py: same body, same error mapping). Anything else — a
path parameter FastAPI would refuse, a body that is not a plain ``{"args": {...}}``, another route — goes on to
the FastAPI app untouched, which then gives its usual answer (422 naming the field, 404, the docs).
"""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi.encoders import jsonable_encoder
from pydantic import ValidationError
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bridge.http.errors import fabric_status, internal_error_body
from bridge.http.models import (
    ID_PATTERN,
    MAX_ENDPOINT,
    MAX_ID_LENGTH,
    MAX_NAME_LENGTH,
    NAME_PATTERN,
    InvokeBody,
)
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError

_ID = ID_PATTERN.strip("^$")
_NAME = NAME_PATTERN.strip("^$")
# the routes' own path constraints (bridge/http/models.py, as routes_home.py applies them)
_PATH = re.compile(
    rf"/api/devices/(?P<device>{_ID})/(?P<kind>attributes|commands)/(?P<endpoint>0|[1-9][0-9]{{0,4}})"
    rf"/(?P<cluster>{_NAME})/(?P<name>{_NAME})"
)
_METHOD = {"attributes": "GET", "commands": "POST"}


class HotRoutes:
    def __init__(self, app: ASGIApp, fabric: EmulatedHome) -> None:
        self.app = app
        self.fabric = fabric

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        match = _PATH.fullmatch(scope["path"]) if scope["type"] == "http" else None
        if match is None or scope["method"] != _METHOD[match["kind"]] or not _within_limits(match):
            await self.app(scope, receive, send)
            return
        if match["kind"] == "attributes":
            await self._read(match, scope, receive, send)
            return
        body, replay = await _read_body(receive)
        args = _plain_args(scope, body) if body is not None else None
        if args is None:  # FastAPI parses it and names what is wrong (or sees the client gone)
            await self.app(scope, replay, send)
            return
        await self._answer(
            scope,
            receive,
            send,
            lambda: self.fabric.invoke(
                match["device"], int(match["endpoint"]), match["cluster"], match["name"], args
            ).to_dict(),
        )

    async def _read(self, match: re.Match[str], scope: Scope, receive: Receive, send: Send) -> None:
        device, endpoint, cluster, attribute = match["device"], int(match["endpoint"]), match["cluster"], match["name"]

        def read() -> dict[str, Any]:
            fabric = self.fabric
            value = fabric.read(device, endpoint, cluster, attribute)
            return {
                "device_id": device,
                "endpoint": endpoint,
                "cluster": cluster,
                "attribute": attribute,
                "value": value,
                "time": fabric.now_text(),
                "tick": fabric.tick,
            }

        await self._answer(scope, receive, send, read)

    @staticmethod
    async def _answer(scope: Scope, receive: Receive, send: Send, call: Any) -> None:
        try:
            result = call()
            response = JSONResponse(result if _plain_json(result) else jsonable_encoder(result))
        except HomeError as error:  # the FastAPI app's handler (errors.py), byte for byte
            response = JSONResponse(jsonable_encoder(error.to_dict()), status_code=fabric_status(error.code))
        except Exception as error:
            response = JSONResponse(internal_error_body(error), status_code=500)
        await response(scope, receive, send)


def _plain_json(value: Any, depth: int = 0) -> bool:
    """True when ``value`` is JSON data already (jsonable_encoder would return it unchanged): skip that walk."""
    if value is None or type(value) in (str, int, float, bool):
        return True
    if depth > 32:
        return False
    if type(value) is dict:
        return all(type(key) is str and _plain_json(item, depth + 1) for key, item in value.items())
    if type(value) is list:
        return all(_plain_json(item, depth + 1) for item in value)
    return False


def _within_limits(match: re.Match[str]) -> bool:
    return (
        len(match["device"]) <= MAX_ID_LENGTH
        and len(match["cluster"]) <= MAX_NAME_LENGTH
        and len(match["name"]) <= MAX_NAME_LENGTH
        and int(match["endpoint"]) <= MAX_ENDPOINT
    )


async def _read_body(receive: Receive) -> tuple[bytes | None, Receive]:
    """The whole request body (the origin guard has bounded its size; None: the client went away), and a
    ``receive`` that gives the same messages again."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away: let the app see it as it would
            first: list[Message] = [message]
            chunks = []
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            first = [{"type": "http.request", "body": b"".join(chunks), "more_body": False}]
            break

    async def replay() -> Message:
        return first.pop() if first else await receive()

    return (b"".join(chunks) if first[0]["type"] == "http.request" else None), replay


def _plain_args(scope: Scope, body: bytes) -> dict[str, Any] | None:
    """A command's arguments when the body is empty or a JSON ``{"args": {...}}`` (None: let FastAPI decide)."""
    if not body:
        return {}
    if _content_type(scope) != "application/json":
        return None
    try:
        return InvokeBody.model_validate_json(body).args
    except (ValidationError, ValueError, json.JSONDecodeError):
        return None


def _content_type(scope: Scope) -> str:
    headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
    for name, value in headers:
        if name == b"content-type":
            return value.decode("latin-1").split(";", 1)[0].strip().lower()
    return ""
