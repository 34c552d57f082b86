"""`homefabric mcp` — the agent tools over the Model Context Protocol (stdio or streamable HTTP).

A thin composition: a home (an in-process EmulatedHome from HOME, or commissioned Matter nodes through
python-matter-server with ``--matter-server``) + ``agent_tools.ToolBox`` + ``agent_tools.mcp_server``.
Mount with ``app.command("mcp")(mcp_command)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import typer


def _fail(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    raise typer.Exit(2)


def _home(home: Path | None, matter_server: str | None, mapping: Path | None) -> tuple[Any, bool]:
    """(fabric-like home, whether calls block on the network)."""
    if matter_server:
        from agent_tools.matter_backend import MappingError, MatterHome, MatterServerError, load_mapping

        try:
            return MatterHome.connect(matter_server, mapping=load_mapping(mapping) if mapping else None), True
        except (MappingError, MatterServerError) as error:
            _fail(str(error))
    if home is None:
        _fail("give a HOME file, or --matter-server ws://HOST:5580/ws to drive commissioned Matter nodes")
    from emulator.emulated_home import EmulatedHome
    from emulator.home_config import HomeConfigError

    try:
        return EmulatedHome.from_file(str(home)), False
    except (HomeConfigError, OSError) as error:
        _fail(str(error))
    raise AssertionError("unreachable")


class _ToolsError(ValueError):
    """A bad home or tool option, found while loading (a one-line error)."""


def _tools(fabric: Any, blocking: bool, profile: str, admin: bool, realtime: bool) -> Any:
    from agent_tools.profiles import make_toolbox

    try:
        # smh: SMH-Bench's tools over the HomeEnv view, with no interaction budget when served
        return make_toolbox(
            fabric,
            profile,
            admin=admin,
            realtime=realtime and not blocking,
            **({"budget": sys.maxsize} if profile == "smh" else {}),
        )
    except ValueError as error:
        raise _ToolsError(str(error)) from None


def _serve_stdio_while_loading(server: Any, deferred: Any, serve_stdio: Any) -> None:
    """Serve stdio at once; if loading the home fails, stop with its one-line error (exit 2)."""

    async def run() -> None:
        serving = asyncio.create_task(serve_stdio(server, answer_before_eof=True))
        loading = asyncio.create_task(deferred.ready())
        await asyncio.wait({serving, loading}, return_when=asyncio.FIRST_COMPLETED)
        if serving.done() and not loading.done():  # input ended first: a bad home still fails the command
            await asyncio.wait({loading})
        if loading.done() and loading.exception() is not None:
            error = loading.exception()
            if not isinstance(error, typer.Exit):  # _home printed its own line already
                print(f"error: {error}", file=sys.stderr)
            sys.stderr.flush()
            # the stdio reader blocks in a thread on the host's open pipe: nothing to serve, leave now
            os._exit(2)
        loading.cancel()
        await serving

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())


def mcp_command(
    home: Annotated[Path | None, typer.Argument(help="Home config (JSON) to serve in process.")] = None,
    transport: Annotated[
        str, typer.Option(help="stdio (desktop hosts, subprocess clients) or http (streamable HTTP at /mcp).")
    ] = "stdio",
    host: Annotated[str, typer.Option(help="HTTP bind address (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="HTTP port.")] = 8765,
    profile: Annotated[str, typer.Option(help="Tool profile: simuhome, paper13, simuhome_ext, smh.")] = "simuhome",
    admin: Annotated[bool, typer.Option(help="Also offer the admin tools (in-process homes only).")] = False,
    realtime: Annotated[
        bool,
        typer.Option(
            help="Advance virtual time with the wall clock between calls "
            "(in-process homes; otherwise time moves only when asked)."
        ),
    ] = False,
    matter_server: Annotated[
        str | None,
        typer.Option(
            help="Drive commissioned Matter nodes through this python-matter-server, e.g. ws://127.0.0.1:5580/ws."
        ),
    ] = None,
    mapping: Annotated[
        Path | None,
        typer.Option(
            help="Mapping file (node/endpoint → device id, room, type) for --matter-server; default: the nodes' labels."
        ),
    ] = None,
) -> None:
    """Serve the agent tools over MCP: same schemas and envelope as function calling."""
    from agent_tools.mcp_server import DeferredTools, McpHttpService, build_server, serve_stdio

    if transport not in ("stdio", "http"):
        _fail(f"--transport must be stdio or http, got {transport!r}")
    if not 0 < port < 65536:
        _fail(f"--port must be 1..65535, got {port}")
    if admin and matter_server:
        _fail("--admin needs an in-process home (add/remove devices cannot be done over Matter)")
    if profile == "smh" and (matter_server or admin):
        _fail("--profile smh serves an in-process home's HomeEnv view (no --matter-server, no --admin)")
    mode: Literal["stdio", "http"] = transport  # type: ignore[assignment]
    if home is not None and not matter_server and not home.is_file():
        _fail(f"{home}: no such home file (make one with `homefabric home generate --out {home}`)")
    if mode == "stdio" and not matter_server and home is not None:
        # loading the home imports the cluster model (~1 s): a host's `initialize` is answered meanwhile
        deferred = DeferredTools(lambda: _tools(*_home(home, None, None), profile, admin, realtime))
        _serve_stdio_while_loading(build_server(deferred), deferred, serve_stdio)
        return
    fabric, blocking = _home(home, matter_server, mapping)
    try:
        tools = _tools(fabric, blocking, profile, admin, realtime)
    except _ToolsError as error:
        _fail(str(error))
    server = build_server(tools, offload=blocking)

    async def run() -> None:
        if mode == "stdio":
            await serve_stdio(server)
            return
        async with McpHttpService(server, host, port) as service:
            print(f"MCP (streamable HTTP) at {service.url}", file=sys.stderr)
            await service.serve_forever()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        pass
    finally:
        if blocking:
            fabric.close()
