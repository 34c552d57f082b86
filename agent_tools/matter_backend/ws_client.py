"""The one client of python-matter-server's websocket API (the Matter tool backend, `homefabric commission`
and the live tests use it), asyncio on the caller's loop.

The protocol is plain JSON: on connect the server sends its info; a command is ``{"message_id", "command",
"args"}``, answered by ``{"message_id", "result"}`` or ``{"message_id", "error_code", "details"}``; events
(``{"event", "data"}``) arrive in between once ``start_listening`` was sent. python-matter-server's own
``MatterClient`` is not used: it is not installed in the emulator image (it is a test dependency here), and
it turns every node into its own models while the backend and ``commission`` work on the raw interview dump.

``connect_context``: a context manager factory entered around the socket's creation, e.g. to create it
inside a network namespace (the live tests).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

DEFAULT_TIMEOUT_S = 30.0
RETRY_INTERVAL_S = 0.3
# matter_server.common.errors: error_code → name (that package is not installed in the emulator image;
# tests/agent_tools/test_ws_client.py checks this copy against it).
SERVER_ERRORS = {
    0: "UnknownError",
    1: "NodeCommissionFailed",
    2: "NodeInterviewFailed",
    3: "NodeNotReady",
    4: "NodeNotResolving",
    5: "NodeNotExists",
    6: "VersionMismatch",
    7: "SDKStackError",
    8: "InvalidArguments",
    9: "InvalidCommand",
    10: "UpdateCheckError",
    11: "UpdateError",
}


class MatterServerError(RuntimeError):
    """matter-server refused a command (``error_code``, ``details``) or could not be reached."""

    def __init__(self, command: str, details: str, error_code: int | None = None) -> None:
        super().__init__(f"{command}: {details}" + (f" (error_code {error_code})" if error_code is not None else ""))
        self.command, self.details, self.error_code = command, details, error_code

    @property
    def error_name(self) -> str | None:
        """The server's name for ``error_code`` (e.g. ``NodeCommissionFailed``)."""
        return None if self.error_code is None else SERVER_ERRORS.get(self.error_code, str(self.error_code))


class MatterServerTimeout(MatterServerError, TimeoutError):
    """No answer to a command (or no connection) within the time allowed."""


class MatterServerClient:
    """``async with MatterServerClient(url) as client: await client.call("get_nodes")``."""

    def __init__(
        self,
        url: str,
        *,
        connect_context: Callable[[], AbstractContextManager[Any]] | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.url = url
        self.timeout_s = timeout_s
        self.server_info: dict[str, Any] = {}
        self._connect_context = connect_context
        self._ids = itertools.count(1)
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._http: Any = None
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None

    async def __aenter__(self) -> MatterServerClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self, timeout_s: float | None = None, *, retry_for_s: float = 0.0) -> dict[str, Any]:
        """Open the websocket and read the server info (each within ``timeout_s``, by default the client's),
        trying again for ``retry_for_s`` seconds (a server still starting); MatterServerError when the server
        cannot be reached."""
        deadline = time.monotonic() + retry_for_s
        while True:
            try:
                return await self._connect_once(timeout_s or self.timeout_s)
            except MatterServerError:
                if time.monotonic() >= deadline:
                    raise
            await asyncio.sleep(RETRY_INTERVAL_S)

    async def _connect_once(self, timeout_s: float) -> dict[str, Any]:
        import aiohttp

        self._http = aiohttp.ClientSession()
        context = self._connect_context() if self._connect_context else contextlib.nullcontext()
        try:
            with context:
                self._ws = await asyncio.wait_for(self._http.ws_connect(self.url, max_msg_size=0), timeout_s)
            self.server_info = await self._ws.receive_json(timeout=timeout_s)
        except (OSError, aiohttp.ClientError, TimeoutError, ValueError) as error:
            await self.close()
            raise MatterServerError(
                "connect", f"cannot reach matter-server at {self.url}: {type(error).__name__}: {error}"
            ) from None
        self._reader = asyncio.create_task(self._read())
        return self.server_info

    async def _read(self) -> None:
        import aiohttp

        async for message in self._ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                continue
            data = json.loads(message.data)
            future = self._pending.pop(str(data.get("message_id")), None) if "message_id" in data else None
            if future is not None and not future.done():
                future.set_result(data)
            elif "event" in data:
                await self.on_event(data)
        for future in self._pending.values():
            if not future.done():
                future.set_exception(MatterServerError("connection", "matter-server closed the websocket"))

    async def on_event(self, event: dict[str, Any]) -> None:
        """Called for every event the server sends (after ``start_listening``); ignored unless overridden."""

    async def call(self, command: str, *, timeout_s: float | None = None, **args: Any) -> Any:
        """Send one command and return its ``result``; MatterServerError for a refusal, MatterServerTimeout."""
        if self._ws is None or self._ws.closed:
            raise MatterServerError(command, "not connected to matter-server")
        limit = timeout_s or self.timeout_s
        message_id = str(next(self._ids))
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[message_id] = future
        try:
            await self._ws.send_json({"message_id": message_id, "command": command, "args": args})
            reply = await asyncio.wait_for(future, limit)
        except TimeoutError:
            raise MatterServerTimeout(command, f"no answer from matter-server within {limit:g} s") from None
        finally:
            self._pending.pop(message_id, None)
        if "error_code" in reply:
            raise MatterServerError(command, str(reply.get("details") or ""), reply.get("error_code"))
        return reply.get("result")

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)
        if self._http is not None:
            await self._http.close()
        self._ws = self._reader = self._http = None
