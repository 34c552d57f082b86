"""Optional bearer token for every API route and WebSocket (an ASGI guard in front of the app).

HTTP requests send ``Authorization: Bearer <token>``; WebSockets may send ``?token=<token>`` instead, because
browsers cannot set headers on them. The static dashboard shell (HTML/JS/CSS, no home data) stays public
so that a browser can load it and then ask for the token.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Receive, Scope, Send

PUBLIC_PATHS = frozenset({"/", "/index.html", "/docs", "/favicon.ico"})
PUBLIC_PREFIXES = ("/static/",)


class BearerTokenGuard:
    def __init__(
        self,
        app: ASGIApp,
        token: str,
        *,
        public_paths: Iterable[str] = PUBLIC_PATHS,
        public_prefixes: tuple[str, ...] = PUBLIC_PREFIXES,
    ) -> None:
        if not token:
            raise ValueError("the API token must not be empty")
        self.app = app
        self._token = token.encode("utf-8")
        self._public = frozenset(public_paths)
        self._prefixes = public_prefixes

    def _is_public(self, path: str) -> bool:
        return path in self._public or path.startswith(self._prefixes)

    def _supplied(self, scope: Scope) -> str | None:
        headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
        for name, value in headers:
            if name == b"authorization":
                scheme, _, credentials = value.decode("latin-1").partition(" ")
                if scheme.lower() == "bearer":
                    return credentials.strip()
        if scope["type"] == "websocket":
            values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
            return values[0] if values else None
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self._is_public(scope["path"]):
            await self.app(scope, receive, send)
            return
        supplied = self._supplied(scope)
        if supplied is not None and hmac.compare_digest(supplied.encode("utf-8"), self._token):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": "missing or wrong token"})
            return
        await _unauthorized(send, "missing token" if supplied is None else "wrong token")


async def _unauthorized(send: Send, why: str) -> None:
    body: dict[str, Any] = {
        "code": "UNAUTHORIZED",
        "message": f"{why}: send the header 'Authorization: Bearer <token>'",
    }
    data = json.dumps(body).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                (b"www-authenticate", b'Bearer realm="homefabric"'),
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})
