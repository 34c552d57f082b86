"""Episodes (load a directory, upload one) and agent runs (start, list, read records, stream events)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query, Request, WebSocket

from bridge.http.context import ApiContext
from bridge.http.episodes import episode_summary, record_summary
from bridge.http.events_ws import encode
from bridge.http.models import (
    ID_PATTERN,
    EpisodeSummary,
    LoadEpisodesBody,
    LoadEpisodesOut,
    RunOut,
    StartRunBody,
)

router = APIRouter(prefix="/api", tags=["episodes"])
socket_router = APIRouter()

RunIdPath = Annotated[str, Path(pattern=r"^[A-Za-z0-9_\-.]+$", max_length=100)]
EpisodeIdPath = Annotated[str, Path(pattern=ID_PATTERN, max_length=200)]
MAX_EVENTS_PAGE = 1000


def ctx(request: Request) -> ApiContext:
    return request.app.state.ctx


@router.get("/episodes", response_model=list[EpisodeSummary], summary="Episodes the API holds")
async def list_episodes(request: Request) -> list[dict[str, Any]]:
    return [episode_summary(e) for _, e in sorted(ctx(request).library.episodes.items())]


@router.post("/episodes/load", response_model=LoadEpisodesOut,
             summary="Load every episode of a directory (or one file) under the server's --episodes-root")
async def load_episodes(request: Request, body: LoadEpisodesBody) -> dict[str, Any]:
    loaded, problems = await ctx(request).library.load(body.path)
    return {"loaded": loaded, "problems": problems}


@router.post("/episodes", response_model=EpisodeSummary, status_code=201,
             summary="Upload one episode (SimuHome's episode JSON, validated with every problem named)")
async def upload_episode(request: Request, episode: Annotated[dict[str, Any], Body(description="the episode JSON")],
                         episode_id: Annotated[str | None, Query(pattern=ID_PATTERN, max_length=200)] = None
                         ) -> dict[str, Any]:
    return episode_summary(ctx(request).library.add(episode, episode_id))


@router.get("/episodes/{episode_id}", summary="One episode as JSON")
async def get_episode(request: Request, episode_id: EpisodeIdPath) -> dict[str, Any]:
    return ctx(request).library.get(episode_id).to_json_dict()


@router.post("/runs", response_model=RunOut, status_code=202,
             summary="Run an agent over episodes in the background, each on a fresh fabric")
async def start_run(request: Request, body: StartRunBody) -> dict[str, Any]:
    return (await ctx(request).runs.start(body)).to_dict()


@router.get("/runs", response_model=list[RunOut], summary="Live runs and the runs stored under the runs directory")
async def list_runs(request: Request) -> list[dict[str, Any]]:
    return ctx(request).runs.list()


@router.get("/runs/{run_id}", response_model=RunOut, summary="One run's status")
async def get_run(request: Request, run_id: RunIdPath) -> dict[str, Any]:
    return ctx(request).runs.get(run_id)


@router.get("/runs/{run_id}/records", summary="Summaries of a run's records (records.jsonl)")
async def list_records(request: Request, run_id: RunIdPath) -> list[dict[str, Any]]:
    return [record_summary(i, r) for i, r in enumerate(ctx(request).runs.records(run_id))]


@router.get("/runs/{run_id}/records/{index}", summary="One full record: trajectory, observations, state diff, verdict")
async def get_record(request: Request, run_id: RunIdPath, index: Annotated[int, Path(ge=0)]) -> dict[str, Any]:
    return ctx(request).runs.record(run_id, index)


@router.get("/runs/{run_id}/events", summary="A live run's events after a sequence number (long poll)")
async def run_events(request: Request, run_id: RunIdPath, after: Annotated[int, Query(ge=-1)] = -1,
                     wait_s: Annotated[float, Query(ge=0, le=30)] = 0) -> dict[str, Any]:
    run = ctx(request).runs.live_run(run_id)
    if wait_s:
        await run.wait_for_more(after + 1, wait_s)
    events = run.events[after + 1: after + 1 + MAX_EVENTS_PAGE]
    return {"run": run.to_dict(), "events": events}


@socket_router.websocket("/ws/runs/{run_id}")
async def run_socket(websocket: WebSocket, run_id: str) -> None:
    """A live run's events from the first (steps as they happen, then records and the verdicts)."""
    runs = websocket.app.state.ctx.runs
    await websocket.accept()
    run = runs.live.get(run_id)
    if run is None:
        await websocket.send_text(encode({"type": "error", "code": "RUN_NOT_FOUND",
                                          "message": f"no live run {run_id!r}", "allowed": sorted(runs.live)}))
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
