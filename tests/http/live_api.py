"""Shared pieces of the HTTP tests: a generated home, a few generated episodes, and a running API."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from benchmark.generation.generate import generate_episodes, write_episodes
from bridge.http import HttpApi
from emulator.emulated_home import EmulatedHome
from emulator.home_generation.generator import generate_home
from emulator.pacing import RealtimePacer
from homefabric_cli.http_app import home_http_api

LIGHT = "bedroom_on_off_light_1"
DIMMER = "bathroom_dimmable_light_1"
DISHWASHER = "kitchen_dishwasher_1"
WASHER = "utility_room_laundry_washer_1"


def home() -> EmulatedHome:
    return EmulatedHome(generate_home("medium", 3))


def write_some_episodes(directory: Path) -> list[str]:
    """One feasible qt3 and one feasible qt4-1 episode (ids as the files' stems)."""
    episodes = [e for e in generate_episodes(["qt3", "qt4-1"], 1, 7) if e["meta"]["case"] == "feasible"]
    return sorted(p.stem for p in write_episodes(episodes, directory))


@contextlib.asynccontextmanager
async def running_api(fabric: EmulatedHome, *, speed: float | None = None, **options: Any) -> AsyncIterator[HttpApi]:
    """The API as the CLI composes it (episode and run routes mounted) on a free 127.0.0.1 port; with
    ``speed`` a RealtimePacer drives the clock."""
    async with contextlib.AsyncExitStack() as stack:
        pacer = await stack.enter_async_context(RealtimePacer(fabric, speed)) if speed is not None else None
        api = await stack.enter_async_context(home_http_api(fabric, port=0, pacer=pacer, **options))
        yield api
