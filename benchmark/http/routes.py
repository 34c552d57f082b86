"""Episodes (load a directory, upload one) and agent runs (start, list, read records, stream events) as routers
that the composition layer mounts on the home's HTTP app (``create_app(…, routers=EpisodeApi(…).routers)``).

The routers carry their own lifespan: live runs are cancelled, and a temporary runs directory removed, when
the app stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterable
from pathlib import Path as FilePath
from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query, WebSocket

from benchmark.http.agent_runs import RunManager, record_summary
from benchmark.http.episode_library import EpisodeLibrary, episode_summary
from benchmark.http.models import (
    EpisodeLibraryOut,
    EpisodeSummary,
    LoadEpisodesBody,
    LoadEpisodesOut,
    RunOut,
    StartRunBody,
)
from bridge.http.events_ws import encode, until_client_leaves
from bridge.http.models import ID_PATTERN

RunIdPath = Annotated[str, Path(pattern=r"^[A-Za-z0-9_\-.]+$", max_length=100)]
EpisodeIdPath = Annotated[str, Path(pattern=ID_PATTERN, max_length=200)]
MAX_EVENTS_PAGE = 1000


class EpisodeApi:
    """The episode library and run manager of one app, and the routers that serve them.

    Nothing on the server's disk or environment is reachable by default: ``episodes_root`` is where episode
    files may be loaded from, ``runs_dir`` where runs are written and replayed from (a temporary directory,
    removed when the app stops, when not given), ``model_endpoints`` and ``model_key_envs`` the model URLs and
    API-key variables a react run may use.
    """

    def __init__(
        self,
        *,
        runs_dir: str | FilePath | None = None,
        episodes_root: str | FilePath | None = None,
        model_endpoints: Iterable[str] = (),
        model_key_envs: Iterable[str] = (),
    ) -> None:
        self.library = EpisodeLibrary(FilePath(episodes_root) if episodes_root is not None else None)
        self._temporary = runs_dir is None
        self.runs = RunManager(
            self.library,
            FilePath(runs_dir) if runs_dir is not None else FilePath(tempfile.mkdtemp(prefix="hf-runs-")),
            model_endpoints=list(model_endpoints),
            model_key_envs=list(model_key_envs),
        )
        self.routers = [_api_router(self), _socket_router(self)]

    @contextlib.asynccontextmanager
    async def lifespan(self, _: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await self.runs.close()
            if self._temporary:
                shutil.rmtree(self.runs.runs_dir, ignore_errors=True)


def _api_router(api: EpisodeApi) -> APIRouter:
    library, runs = api.library, api.runs
    router = APIRouter(prefix="/api", tags=["episodes"], lifespan=api.lifespan)

    @router.get("/episodes", response_model=list[EpisodeSummary], summary="Episodes the API holds")
    async def list_episodes() -> list[dict[str, Any]]:
        return [episode_summary(e) for _, e in sorted(library.episodes.items())]

    @router.get(
        "/episode-library",
        response_model=EpisodeLibraryOut,
        summary="Where episodes may be loaded from (the dashboard prefills it) and how many are held",
    )
    async def episode_library() -> dict[str, Any]:
        root = library.root.path
        return {"root": str(root) if root is not None else None, "episodes": len(library.episodes)}

    @router.post(
        "/episodes/load",
        response_model=LoadEpisodesOut,
        summary="Load every episode of a directory (or one file) under the server's --episodes-root",
    )
    async def load_episodes(body: LoadEpisodesBody) -> dict[str, Any]:
        loaded, problems = await library.load(body.path)
        return {"loaded": loaded, "problems": problems}

    @router.post(
        "/episodes",
        response_model=EpisodeSummary,
        status_code=201,
        summary="Upload one episode (SimuHome's episode JSON, validated with every problem named)",
    )
    async def upload_episode(
        episode: Annotated[dict[str, Any], Body(description="the episode JSON")],
        episode_id: Annotated[str | None, Query(pattern=ID_PATTERN, max_length=200)] = None,
    ) -> dict[str, Any]:
        return episode_summary(library.add(episode, episode_id))

    @router.get("/episodes/{episode_id}", summary="One episode as JSON")
    async def get_episode(episode_id: EpisodeIdPath) -> dict[str, Any]:
        return library.get(episode_id).to_json_dict()

    @router.post(
        "/runs",
        response_model=RunOut,
        status_code=202,
        summary="Run an agent over episodes in the background, each on a fresh fabric",
    )
    async def start_run(body: StartRunBody) -> dict[str, Any]:
        return (await runs.start(body)).to_dict()

    @router.get("/runs", response_model=list[RunOut], summary="Live runs and the runs stored under the runs directory")
    async def list_runs() -> list[dict[str, Any]]:
        return runs.all_runs()

    @router.get("/runs/{run_id}", response_model=RunOut, summary="One run's status")
    async def get_run(run_id: RunIdPath) -> dict[str, Any]:
        return runs.get(run_id)

    @router.get("/runs/{run_id}/records", summary="Summaries of a run's records (records.jsonl)")
    async def list_records(run_id: RunIdPath) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = runs.records(run_id)
        return [record_summary(i, r) for i, r in enumerate(records)]

    @router.get(
        "/runs/{run_id}/records/{index}", summary="One full record: trajectory, observations, state diff, verdict"
    )
    async def get_record(run_id: RunIdPath, index: Annotated[int, Path(ge=0)]) -> dict[str, Any]:
        return runs.record(run_id, index)

    @router.get("/runs/{run_id}/events", summary="A live run's events after a sequence number (long poll)")
    async def run_events(
        run_id: RunIdPath, after: Annotated[int, Query(ge=-1)] = -1, wait_s: Annotated[float, Query(ge=0, le=30)] = 0
    ) -> dict[str, Any]:
        run = runs.live_run(run_id)
        if wait_s:
            await run.wait_for_more(after + 1, wait_s)
        events = run.events[after + 1 : after + 1 + MAX_EVENTS_PAGE]
        return {"run": run.to_dict(), "events": events}

    return router


def _socket_router(api: EpisodeApi) -> APIRouter:
    runs = api.runs
    router = APIRouter()

    @router.websocket("/ws/runs/{run_id}")
    async def run_socket(websocket: WebSocket, run_id: str) -> None:
        """A live run's events from the first (steps as they happen, then records and the verdicts)."""
        await websocket.accept()
        with until_client_leaves():
            run = runs.live.get(run_id)
            if run is None:
                await websocket.send_text(
                    encode(
                        {
                            "type": "error",
                            "code": "RUN_NOT_FOUND",
                            "message": f"no live run {run_id!r}",
                            "allowed": sorted(runs.live),
                        }
                    )
                )
                await websocket.close(code=1008)
                return
            sent = 0
            while True:
                while sent < len(run.events):
                    await websocket.send_text(encode(run.events[sent]))
                    sent += 1
                if run.status != "running" and sent >= len(run.events):
                    break
                await run.wait_for_more(sent, 1.0)
                await asyncio.sleep(0)
            await websocket.close()

    return router
