"""``HttpApi``: the API served by uvicorn inside the caller's asyncio loop, as an async context manager."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Generator
from typing import Any

import uvicorn

from bridge.http.app import create_app
from emulator.emulated_home import EmulatedHome
from emulator.pacing import RealtimePacer

START_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 10.0


class _EmbeddedServer(uvicorn.Server):
    """uvicorn without its signal handling: Ctrl-C belongs to the program that embeds the API."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


class HttpApi:
    """``async with HttpApi(fabric, port=0) as api:`` serves the API and dashboard at ``api.url`` until exit.

    Binds 127.0.0.1 by default; port 0 picks a free port. ``pacer`` enables pause/resume/speed,
    ``token`` requires a bearer token on every API route and WebSocket; ``app_options`` go to ``create_app``
    (``routers`` mounts more routes, e.g. the benchmark's episodes and runs).
    """

    def __init__(
        self,
        fabric: EmulatedHome,
        host: str = "127.0.0.1",
        port: int = 8080,
        *,
        pacer: RealtimePacer | None = None,
        token: str | None = None,
        **app_options: Any,
    ) -> None:
        if not 0 <= port <= 65535:
            raise ValueError(f"port must be 0..65535, got {port}")
        self.fabric = fabric
        self.host = host
        self.port = port
        self.app = create_app(fabric, pacer=pacer, token=token, **app_options)
        self._server: _EmbeddedServer | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def ws_url(self) -> str:
        return "ws" + self.url[4:]

    async def __aenter__(self) -> HttpApi:
        # uvicorn binds the port itself (sockets handed over from outside lose TCP_NODELAY: +40 ms a request).
        config = uvicorn.Config(
            self.app,
            host=self.host,
            port=self.port,
            log_level="warning",
            access_log=False,
            lifespan="on",
            ws="websockets-sansio",
            ws_max_size=1 << 20,
            timeout_graceful_shutdown=2,
        )
        self._server = _EmbeddedServer(config)
        self._probe_port()
        self._task = asyncio.create_task(self._serve(), name="homefabric-http")
        deadline = asyncio.get_running_loop().time() + START_TIMEOUT_S
        while not self._server.started:
            if self._task.done() or asyncio.get_running_loop().time() > deadline:
                failed = self._task.done()
                await self._stop()
                raise OSError(
                    f"the HTTP API could not listen on {self.url}"
                    + (" (address in use or not available)" if failed else " (timed out)")
                )
            await asyncio.sleep(0.01)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]  # the real one when port 0 was asked
        return self

    def _probe_port(self) -> None:
        """A busy port is an OSError here, before the app's lifespan starts anything."""
        if self.port == 0:
            return
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((self.host, self.port))

    async def _serve(self) -> None:
        assert self._server is not None
        try:
            await self._server.serve()
        except SystemExit as error:  # uvicorn exits the process when it cannot bind; we report it instead
            raise OSError(f"the HTTP API could not listen on {self.url}") from error

    async def __aexit__(self, *exc: object) -> None:
        await self._stop()

    async def _stop(self) -> None:
        if self._server is None or self._task is None:
            return
        self._server.should_exit = True
        try:
            await asyncio.wait_for(asyncio.shield(self._task), STOP_TIMEOUT_S)
        except TimeoutError:
            self._server.force_exit = True
            self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, SystemExit, Exception):
            await self._task
        self._server = self._task = None
