"""`homefabric http HOME` — the fabric in real-time pacing with only the HTTP API and dashboard.

A thin composition: EmulatedHome + RealtimePacer (emulator) + the home's HTTP API with the benchmark's episode
routes (``homefabric_cli.http_app``). Mounted by the main app as
``app.command("http")(http_command)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path
from typing import Annotated, Any

import typer

from homefabric_cli.options import RunsDir, Speed, Token, public_bind_warning


async def run_http(
    home_path: Path,
    *,
    host: str,
    port: int,
    speed: float,
    token: str | None,
    runs_dir: Path | None,
    echo: Any = print,
    ready: asyncio.Event | None = None,
    stop: asyncio.Event | None = None,
    **access: Any,
) -> None:
    """``access``: the API's ``episodes_root``, ``model_endpoints``, ``model_key_envs``, ``allowed_origins``."""
    from emulator.emulated_home import EmulatedHome
    from emulator.pacing import RealtimePacer
    from homefabric_cli.http_app import home_http_api

    fabric = EmulatedHome.from_file(str(home_path))
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread (tests)
            loop.add_signal_handler(sig, stop.set)
    async with (
        RealtimePacer(fabric, speed=speed) as pacer,
        home_http_api(fabric, host, port, pacer=pacer, token=token, runs_dir=runs_dir, **access) as api,
    ):
        fragment = "#token=<your token>" if token else ""
        echo(
            f"serving {fabric.name}: {len(fabric.devices())} devices in {len(fabric.rooms())} rooms, virtual time "
            f"×{speed:g} from {fabric.now_text()}"
        )
        echo(f"dashboard {api.url}/{fragment}   API docs {api.url}/docs   OpenAPI {api.url}/openapi.json")
        if ready is not None:
            ready.set()
        await stop.wait()


EPISODES_ROOT = typer.Option(help="Clients may load episode files under this directory (default: none).")
ALLOW_MODEL_ENDPOINT = typer.Option(help="A model base URL agent runs may call (repeatable; default: none).")
MODEL_KEY_ENV = typer.Option(
    help="An environment variable agent runs may send as the model's API key (repeatable; default: none)."
)
ALLOW_ORIGIN = typer.Option(
    help="Another web origin, http[s]://host[:port], whose pages may use the API "
    "(repeatable; default: only the API's own)."
)


def access_options(
    episodes_root: Path | None, endpoints: list[str] | None, key_envs: list[str] | None, origins: list[str] | None
) -> dict[str, Any]:
    """The API's access options from the command line; a bad origin is a one-line error (exit 2)."""
    import os

    from bridge.http.origin_guard import normalise_origin

    for origin in origins or ():
        try:
            normalise_origin(origin)
        except ValueError as error:
            typer.echo(f"error: --allow-origin: {error}", err=True)
            raise typer.Exit(2) from None
    if episodes_root is not None and not episodes_root.is_dir():
        typer.echo(f"error: --episodes-root {episodes_root} is not a directory", err=True)
        raise typer.Exit(2)
    for name in key_envs or ():
        if name not in os.environ:
            typer.echo(f"warning: --model-key-env {name} is not set in this environment", err=True)
    return {
        "episodes_root": episodes_root,
        "model_endpoints": list(endpoints or ()),
        "model_key_envs": list(key_envs or ()),
        "allowed_origins": list(origins or ()),
    }


def http_command(
    home: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A home file (homefabric-home/1).")],
    host: Annotated[str, typer.Option(help="Address to listen on (127.0.0.1 keeps it local).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="TCP port (0 picks a free one).")] = 8080,
    speed: Speed = 1.0,
    token: Token = None,
    runs_dir: RunsDir = None,
    episodes_root: Annotated[Path | None, EPISODES_ROOT] = None,
    allow_model_endpoint: Annotated[list[str] | None, ALLOW_MODEL_ENDPOINT] = None,
    model_key_env: Annotated[list[str] | None, MODEL_KEY_ENV] = None,
    allow_origin: Annotated[list[str] | None, ALLOW_ORIGIN] = None,
) -> None:
    """Serve a home over HTTP: the typed API, the event WebSocket and the live dashboard."""
    from emulator.home_config import HomeConfigError

    access = access_options(episodes_root, allow_model_endpoint, model_key_env, allow_origin)

    if warning := public_bind_warning(host, token):
        typer.echo(warning, err=True)
    try:
        asyncio.run(
            run_http(home, host=host, port=port, speed=speed, token=token, runs_dir=runs_dir, echo=typer.echo, **access)
        )
    except HomeConfigError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    except OSError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(1) from None
