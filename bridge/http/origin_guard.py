"""The API's front door against browsers on other sites: Host and Origin checks, simple-request refusal, body size.

A home API on 127.0.0.1 is still reachable from any web page the operator opens: a page can send "simple"
cross-site requests (a form POST, ``fetch`` with ``text/plain``), open WebSockets, and — by DNS rebinding —
make its own name resolve to 127.0.0.1. So, before any route (and before the token guard) runs:

* **Host**: an IP literal, ``localhost``, or a host name of an allowed origin. A rebinding page's requests
  carry its own name in Host and are refused.
* **Origin** (browsers send it on every WebSocket and every POST): the API's own origin or an allowed one.
  ``null`` (sandboxed frames, files) is refused. Requests without Origin (curl, httpx, scripts) pass.
* **Simple requests**: a POST with a body must say ``Content-Type: application/json``; a form or
  ``text/plain`` body is refused even from an allowed origin and with no token configured. (PUT, PATCH and
  DELETE are never "simple": a browser asks first, and this API answers no CORS preflight.)
* **Size**: a request body over ``max_body_bytes`` is refused with 413 without being read in full.

Refusals are JSON ``{code, message}`` like every other error of the API; a refused WebSocket is closed
with 1008 before it is accepted.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

DEFAULT_MAX_BODY_BYTES = 1 << 20  # an episode upload is a few kB; nothing the API takes needs more
_DRAIN_FACTOR = 4  # how much of a refused streamed body is read and dropped before the connection is closed
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def normalise_origin(origin: str) -> str:
    """``scheme://host[:port]`` in lower case, the default port left out; ValueError for anything else."""
    parts = urlsplit(origin.strip())
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username
        or parts.password
    ):
        raise ValueError(f"origin {origin!r} is not 'http[s]://host[:port]'")
    port = parts.port
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}" + (f":{port}" if port and port != _DEFAULT_PORTS[parts.scheme] else "")


def _host_name(host_header: str) -> str:
    """The name part of a Host header ("[::1]:8080" → "::1", "Example.org:80" → "example.org")."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class OriginGuard:
    def __init__(
        self, app: ASGIApp, *, allowed_origins: Iterable[str] = (), max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    ) -> None:
        self.app = app
        self.allowed_origins = frozenset(normalise_origin(o) for o in allowed_origins)
        self.allowed_hosts = frozenset(
            {"localhost"} | {(urlsplit(o).hostname or "").lower() for o in self.allowed_origins}
        )
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await _refuse(scope, receive, send, *refusal)
            return
        if scope["type"] == "http" and scope["method"] in _BODY_METHODS:
            await self._with_bounded_body(scope, receive, send, headers)
            return
        await self.app(scope, receive, send)

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str, str] | None:
        host = headers.get("host", "")
        name = _host_name(host)
        if not name or not (_is_ip(name) or name in self.allowed_hosts):
            return (
                421,
                "HOST_NOT_ALLOWED",
                (
                    f"Host {host!r} is not this API's: use an IP address or localhost, or start the API with "
                    "--allow-origin http://NAME:PORT for a host name (this refuses DNS-rebinding pages)"
                ),
            )
        origin = headers.get("origin")
        if origin is not None and not self._origin_ok(origin, scope, host):
            return (
                403,
                "ORIGIN_NOT_ALLOWED",
                (
                    f"requests from origin {origin[:200]!r} are refused: only this API's own origin and origins "
                    "allowed with --allow-origin may use it"
                ),
            )
        if scope["type"] == "http" and scope["method"] == "POST":
            content_type = headers.get("content-type", "").split(";", 1)[0].strip().lower()
            has_body = headers.get("content-length", "0") != "0" or "transfer-encoding" in headers
            is_json = content_type == "application/json" or content_type.endswith("+json")
            if (content_type or has_body) and not is_json:
                return (
                    415,
                    "UNSUPPORTED_MEDIA_TYPE",
                    (
                        f"Content-Type {content_type or '(none)'!r} is refused on a state-changing request: send "
                        "'Content-Type: application/json' (forms and text/plain bodies are how other sites forge "
                        "requests)"
                    ),
                )
        return None

    def _origin_ok(self, origin: str, scope: Scope, host: str) -> bool:
        try:
            normalised = normalise_origin(origin)
        except ValueError:
            return False  # "null", or not an origin at all
        if normalised in self.allowed_origins:
            return True
        scheme = {"ws": "http", "wss": "https"}.get(scope.get("scheme", "http"), scope.get("scheme", "http"))
        try:
            return normalised == normalise_origin(f"{scheme}://{host}")
        except ValueError:
            return False

    async def _with_bounded_body(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str]) -> None:
        limit = self.max_body_bytes
        declared = headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await _refuse(
                scope,
                receive,
                send,
                413,
                "REQUEST_TOO_LARGE",
                f"the request body is {declared} bytes; the limit is {limit}",
            )
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await _drain(receive, more=message.get("more_body", False), budget=_DRAIN_FACTOR * limit)
                await _refuse(
                    scope,
                    receive,
                    send,
                    413,
                    "REQUEST_TOO_LARGE",
                    f"the request body is over {limit} bytes (the limit)",
                )
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _drain(receive: Receive, *, more: bool, budget: int) -> None:
    """Read (and drop) the rest of a refused body, up to ``budget`` bytes, so the client sees the 413 instead
    of a reset connection; a longer body is cut off by closing the connection."""
    while more and budget > 0:
        message = await receive()
        if message["type"] != "http.request":
            return
        budget -= len(message.get("body", b""))
        more = message.get("more_body", False)


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, code: str, message: str) -> None:
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.close", "code": 1008, "reason": f"{code}: {message}"[:120]})
        return
    body: dict[str, Any] = {"code": code, "message": message}
    data = json.dumps(body).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})
