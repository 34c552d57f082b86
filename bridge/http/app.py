"""The FastAPI application over one fabric: routes, error mapping, the token guard, the dashboard files and
an offline API docs page (FastAPI's own docs pages load their scripts from a CDN, so they are off)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from bridge.http import events_ws, routes_automations, routes_clock, routes_home
from bridge.http.auth import BearerTokenGuard
from bridge.http.context import ApiContext
from bridge.http.errors import install_error_handlers
from bridge.http.events_ws import EventHub
from bridge.http.history import DEFAULT_CAPACITY, DEFAULT_INTERVAL_S, EnvironmentHistory
from bridge.http.hot_routes import HotRoutes
from bridge.http.models import ErrorBody
from bridge.http.origin_guard import DEFAULT_MAX_BODY_BYTES, OriginGuard
from emulator.emulated_home import EmulatedHome
from emulator.pacing import RealtimePacer

STATIC_DIR = Path(__file__).resolve().parent / "static"
API_VERSION = "1"


def create_app(
    fabric: EmulatedHome,
    *,
    pacer: RealtimePacer | None = None,
    token: str | None = None,
    history_interval_s: float = DEFAULT_INTERVAL_S,
    history_capacity: int = DEFAULT_CAPACITY,
    allowed_origins: Iterable[str] = (),
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    routers: Iterable[APIRouter] = (),
) -> Any:
    """The ASGI app: the FastAPI app behind the origin guard (and the token guard when ``token`` is given).

    ``allowed_origins`` are other web origins (``http://host:port``) whose pages may use the API besides its
    own. ``routers`` are more routes the composition layer mounts beside the home's (the benchmark's episodes
    and runs): they sit behind the same guards and error mapping, and a router's own lifespan runs with the
    app's.

    The event hub and the history sampler start and stop with the app's lifespan, so the app works under
    any ASGI server that runs lifespan events (uvicorn does by default).
    """
    hub = EventHub(fabric)
    history = EnvironmentHistory(fabric, hub.publish, interval_s=history_interval_s, capacity=history_capacity)
    origins = list(allowed_origins)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        hub.start()
        history.start()
        try:
            yield
        finally:
            history.stop()
            hub.stop()

    app = FastAPI(
        title="homefabric home API",
        version=API_VERSION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json",
        description="Rooms, devices, attributes, commands, the virtual clock and workflows of one "
        "emulated home (and whatever the composition mounts beside it: episodes and agent "
        "runs under `homefabric http` and `serve`). Events: WebSocket /ws/events.",
    )
    app.state.ctx = ApiContext(fabric, pacer, hub, history)
    install_error_handlers(app)
    errors: dict[int | str, dict[str, Any]] = {
        status: {"model": ErrorBody, "description": text}
        for status, text in (
            (400, "refused: invalid value (the fabric's code, message and allowed values)"),
            (404, "not found"),
            (409, "refused in the current state"),
            (422, "invalid request: every field named"),
        )
    }
    for router in (
        routes_home.router,
        routes_clock.clock_router,
        routes_clock.workflow_router,
        events_ws.router,
        routes_automations.router,
        *routers,
    ):
        app.include_router(router, responses=errors if router.routes and not _only_sockets(router) else None)
    _mount_dashboard(app)
    served = HotRoutes(app, fabric)  # read/invoke without FastAPI's per-request routing (same answers)
    if token:
        _document_bearer(app)
        return _Guarded(
            OriginGuard(BearerTokenGuard(served, token), allowed_origins=origins, max_body_bytes=max_body_bytes), app
        )
    return _Guarded(OriginGuard(served, allowed_origins=origins, max_body_bytes=max_body_bytes), app)


class _Guarded:
    """The guards as the ASGI entry point, still giving access to the FastAPI app (``.app``, ``.state``)."""

    def __init__(self, guard: Any, app: FastAPI) -> None:
        self._guard = guard
        self.app = app
        self.state = app.state

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self._guard(scope, receive, send)


def _only_sockets(router: Any) -> bool:
    return all(type(route).__name__ == "APIWebSocketRoute" for route in router.routes)


def _mount_dashboard(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/", include_in_schema=False)
    async def dashboard() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html")

    @app.get("/index.html", include_in_schema=False)
    async def dashboard_index() -> RedirectResponse:
        return RedirectResponse("/")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> FileResponse:
        return FileResponse(STATIC_DIR / "docs.html")


def _document_bearer(app: FastAPI) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            schema.setdefault("components", {})["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
            schema["security"] = [{"bearer": []}]
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to extend the schema
