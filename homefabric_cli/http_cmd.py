"""`homefabric http HOME` — the fabric in real-time pacing with only the HTTP API and dashboard.

A thin composition: Fabric + RealtimePacer (emulator) + HttpApi (bridge.http). Mounted by the main app as
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


async def run_http(home_path: Path, *, host: str, port: int, speed: float, token: str | None,
                   runs_dir: Path | None, echo: Any = print, ready: asyncio.Event | None = None,
                   stop: asyncio.Event | None = None) -> None:
    from bridge.http import HttpApi
    from emulator.fabric import Fabric
    from emulator.pacing import RealtimePacer

    fabric = Fabric.from_file(str(home_path))
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread (tests)
            loop.add_signal_handler(sig, stop.set)
    async with RealtimePacer(fabric, speed=speed) as pacer, \
            HttpApi(fabric, host, port, pacer=pacer, token=token, runs_dir=runs_dir) as api:
        fragment = "#token=<your token>" if token else ""
        echo(f"serving {fabric.name}: {len(fabric.devices())} devices in {len(fabric.rooms())} rooms, virtual time "
             f"×{speed:g} from {fabric.now_text()}")
        echo(f"dashboard {api.url}/{fragment}   API docs {api.url}/docs   OpenAPI {api.url}/openapi.json")
        if ready is not None:
            ready.set()
        await stop.wait()


def http_command(
    home: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A home file (homefabric-home/1).")],
    host: Annotated[str, typer.Option(help="Address to listen on (127.0.0.1 keeps it local).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="TCP port (0 picks a free one).")] = 8080,
    speed: Speed = 1.0,
    token: Token = None,
    runs_dir: RunsDir = None,
) -> None:
    """Serve a home over HTTP: the typed API, the event WebSocket and the live dashboard."""
    from emulator.home_config import HomeConfigError

    if warning := public_bind_warning(host, token):
        typer.echo(warning, err=True)
    try:
        asyncio.run(run_http(home, host=host, port=port, speed=speed, token=token, runs_dir=runs_dir,
                             echo=typer.echo))
    except HomeConfigError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    except OSError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(1) from None
