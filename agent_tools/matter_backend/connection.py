"""A blocking facade over the websocket client (``ws_client``), for the synchronous tool layer.

The agent tools are synchronous (``ToolBox.call``) and agents call them from inside their own event
loop, so the client lives on a private event loop in a daemon thread; ``call`` submits a command
there and waits (bounded) for its answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine
from contextlib import AbstractContextManager
from typing import Any

from agent_tools.matter_backend.ws_client import (
    DEFAULT_TIMEOUT_S,
    MatterServerClient,
    MatterServerError,
    MatterServerTimeout,
)


class MatterServerConnection:
    def __init__(
        self,
        url: str,
        *,
        connect_context: Callable[[], AbstractContextManager[Any]] | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.url = url
        self.timeout_s = timeout_s
        self._client = MatterServerClient(url, connect_context=connect_context, timeout_s=timeout_s)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="matter-server-client", daemon=True)
        self._closed = False

    @property
    def server_info(self) -> dict[str, Any]:
        return self._client.server_info

    # ------------------------------------------------------------------------------ lifecycle
    def open(self) -> list[dict[str, Any]]:
        """Connect and start listening; returns every node matter-server knows (with its attributes)."""
        self._thread.start()
        try:
            self._submit(self._client.connect(), self.timeout_s + 5)
            nodes: list[dict[str, Any]] = self.call("start_listening")
            return nodes
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._thread.is_alive():
            with contextlib.suppress(Exception):
                self._submit(self._client.close(), 10)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
        if not self._loop.is_running():
            self._loop.close()

    def __enter__(self) -> MatterServerConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------ commands
    def _submit(self, coro: Coroutine[Any, Any, Any], timeout_s: float) -> Any:
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("MatterServerConnection.call must not run on its own loop thread")
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout_s)
        except TimeoutError:
            future.cancel()
            raise

    def call(self, command: str, *, timeout_s: float | None = None, **args: Any) -> Any:
        """Send one command and return its ``result``; MatterServerError for a refusal or a timeout."""
        if self._closed or not self._thread.is_alive():
            raise MatterServerError(command, "not connected to matter-server")
        limit = timeout_s or self.timeout_s
        try:
            return self._submit(self._client.call(command, timeout_s=limit, **args), limit + 5)
        except MatterServerTimeout:
            raise
        except TimeoutError:  # the loop thread itself did not answer
            raise MatterServerTimeout(command, f"no answer from matter-server within {limit:g} s") from None
