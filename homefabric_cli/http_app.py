"""The HTTP API that `homefabric http` and `serve --http` run: the home's app (``bridge.http``) with the
benchmark's episode and run routes (``benchmark.http``) mounted beside it — the one place the two meet."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchmark.http import EpisodeApi
from bridge.http import HttpApi
from emulator.emulated_home import EmulatedHome


def home_http_api(
    fabric: EmulatedHome,
    host: str = "127.0.0.1",
    port: int = 8080,
    *,
    runs_dir: str | Path | None = None,
    episodes_root: str | Path | None = None,
    model_endpoints: Iterable[str] = (),
    model_key_envs: Iterable[str] = (),
    **options: Any,
) -> HttpApi:
    """``HttpApi`` over ``fabric`` with episodes and agent runs mounted; ``options`` go to ``HttpApi`` (pacer,
    token, allowed_origins, …). See ``EpisodeApi`` for what the episode options open up."""
    episodes = EpisodeApi(
        runs_dir=runs_dir, episodes_root=episodes_root, model_endpoints=model_endpoints, model_key_envs=model_key_envs
    )
    return HttpApi(fabric, host, port, routers=episodes.routers, **options)
