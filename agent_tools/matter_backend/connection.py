"""A blocking client for python-matter-server's websocket API, for the synchronous tool layer.

The agent tools are synchronous (``ToolBox.call``) and agents call them from inside their own event
loop, so the websocket lives on a private event loop in a daemon thread; ``call`` submits a command
there and waits (bounded) for its answer. Messages are the server's plain JSON (``{"message_id",
"command", "args"}`` → ``{"message_id", "result"}`` or ``{"message_id", "error_code", "details"}``).

``connect_context``: a context manager factory entered around the socket's creation, e.g. to create it
inside a network namespace (the live tests).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

DEFAULT_TIMEOUT_S = 30.0


class MatterServerError(RuntimeError):
    """matter-server refused a command (``error_code``, ``details``) or could not be reached."""

    def __init__(self, command: str, details: str, error_code: int | None = None) -> None:
        super().__init__(f"{command}: {details}" + (f" (error_code {error_code})" if error_code is not None else ""))
        self.command, self.details, self.error_code = command, details, error_code


class MatterServerConnection:
    def __init__(self, url: str, *, connect_context: Callable[[], AbstractContextManager[Any]] | None = None,
                 timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self.url = url
        self.timeout_s = timeout_s
        self.server_info: dict[str, Any] = {}
        self._connect_context = connect_context
        self._ids = itertools.count(1)
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="matter-server-client", daemon=True)
        self._http: Any = None
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._closed = False

    # ------------------------------------------------------------------------------ lifecycle
    def open(self) -> list[dict[str, Any]]:
        """Connect and start listening; returns every node matter-server knows (with its attributes)."""
        self._thread.start()
        try:
            self._submit(self._open(), self.timeout_s + 5)
            return self.call("start_listening")
        except BaseException:
            self.close()
            raise

    async def _open(self) -> None:
        import aiohttp

        self._http = aiohttp.ClientSession()
        context = self._connect_context() if self._connect_context else contextlib.nullcontext()
        try:
            with context:
                self._ws = await asyncio.wait_for(self._http.ws_connect(self.url, max_msg_size=0), self.timeout_s)
        except (OSError, aiohttp.ClientError, TimeoutError) as error:
            raise MatterServerError("connect", f"cannot reach matter-server at {self.url}: {error}") from None
        self.server_info = await self._ws.receive_json(timeout=self.timeout_s)
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        import aiohttp

        async for message in self._ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                continue
            data = json.loads(message.data)
            future = self._pending.pop(str(data.get("message_id")), None) if "message_id" in data else None
            if future is not None and not future.done():
                future.set_result(data)
        for future in self._pending.values():
            if not future.done():
                future.set_exception(MatterServerError("connection", "matter-server closed the websocket"))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._thread.is_alive():
            with contextlib.suppress(Exception):
                self._submit(self._close(), 10)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
        if not self._loop.is_running():
            self._loop.close()

    async def _close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)
        if self._http is not None:
            await self._http.close()

    def __enter__(self) -> MatterServerConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------ commands
    def _submit(self, coro: Any, timeout_s: float) -> Any:
        if threading.current_thread() is self._thread:
            raise RuntimeError("MatterServerConnection.call must not run on its own loop thread")
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout_s)
        except TimeoutError:
            future.cancel()
            raise

    def call(self, command: str, *, timeout_s: float | None = None, **args: Any) -> Any:
        """Send one command and return its ``result``; MatterServerError for a refusal or a timeout."""
        if self._closed or self._ws is None:
            raise MatterServerError(command, "not connected to matter-server")
        limit = timeout_s or self.timeout_s
        try:
            reply = self._submit(self._call(command, args, limit), limit + 5)
        except TimeoutError:
            raise MatterServerError(command, f"no answer from matter-server within {limit:g} s") from None
        if "error_code" in reply:
            raise MatterServerError(command, str(reply.get("details") or ""), reply.get("error_code"))
        return reply.get("result")

    async def _call(self, command: str, args: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        message_id = str(next(self._ids))
        future: asyncio.Future[dict[str, Any]] = self._loop.create_future()
        self._pending[message_id] = future
        try:
            await self._ws.send_json({"message_id": message_id, "command": command, "args": args})
            return await asyncio.wait_for(future, timeout_s)
        finally:
            self._pending.pop(message_id, None)
