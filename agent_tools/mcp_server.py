"""The agent tools over the Model Context Protocol (official SDK ``mcp`` 2.x, low-level ``Server``).

``build_server(tools)`` exposes one ``ToolBox`` (fabric or Matter backend): ``tools/list`` gives exactly
``tools.schemas(style="mcp")`` (the schemas function calling uses, not ones re-derived by the SDK) and
``tools/call`` runs ``tools.call`` and answers with the tool envelope ``{status, data, error}`` twice, as
structured content and as its JSON text; a refused call (bad arguments, unknown device, …) is the same
envelope with ``isError: true``, never a protocol error, so an agent can read why and correct itself.

Transports: ``serve_stdio(server)`` for desktop hosts and subprocess clients; ``McpHttpService(server,
host, port)`` (an async context manager running uvicorn) for streamable HTTP at ``/mcp``. In-memory tests
use ``mcp.Client(server)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, Protocol

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext

SERVER_NAME = "homefabric"
INSTRUCTIONS = ("Smart-home agent tools (SimuHome-compatible). Every tool returns an envelope "
                "{status:{code,message}, data, error:{type,detail}|null}; a refused call names the offending "
                "value and what is allowed. Start with get_rooms and get_room_devices.")
MCP_PATH = "/mcp"


class ToolProvider(Protocol):
    def call(self, name: str, arguments: Any = None) -> dict[str, Any]: ...

    def schemas(self, style: str = "openai") -> list[dict[str, Any]]: ...


def envelope_text(envelope: dict[str, Any]) -> str:
    return json.dumps(envelope, ensure_ascii=False, default=str)


def call_result(envelope: dict[str, Any]) -> types.CallToolResult:
    """The envelope as an MCP tool result: JSON text + structured content, ``isError`` for refusals."""
    structured = json.loads(envelope_text(envelope))  # JSON-clean (tuples, enums, …) like the text
    return types.CallToolResult(content=[types.TextContent(type="text", text=envelope_text(envelope))],
                                structured_content=structured, is_error=envelope.get("error") is not None)


def build_server(tools: ToolProvider, *, name: str = SERVER_NAME, instructions: str = INSTRUCTIONS,
                 offload: bool = False) -> Server[Any]:
    """An MCP server over ``tools``.

    ``offload=True`` runs each call in a worker thread (one at a time): for backends whose ``call`` blocks
    on the network (the Matter backend); the in-process fabric is fast and stays on the server's loop.
    """
    listing = [types.Tool(name=s["name"], description=s["description"], input_schema=s["inputSchema"],
                          annotations=types.ToolAnnotations.model_validate(s["annotations"]) if "annotations" in s
                          else None)
               for s in tools.schemas(style="mcp")]
    schemas = {s["name"]: s["inputSchema"] for s in tools.schemas(style="mcp")}
    limiter = anyio.CapacityLimiter(1)
    lock = asyncio.Lock()

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listing)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = dict(params.arguments) if params.arguments is not None else {}
        if offload:
            envelope = await anyio.to_thread.run_sync(tools.call, params.name, arguments, limiter=limiter)
        else:
            async with lock:  # one tool call at a time, like one agent turn
                envelope = tools.call(params.name, arguments)
        return call_result(envelope)

    return Server(name, instructions=instructions, on_list_tools=list_tools, on_call_tool=call_tool,
                  get_tool_input_schema=schemas.get)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one client over this process's stdin/stdout until it closes them."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


class McpHttpService:
    """Streamable HTTP at ``http://host:port/mcp`` (uvicorn in this loop); ``async with`` starts and stops it.

    Binds 127.0.0.1 by default; DNS-rebinding protection is on for loopback hosts (the SDK's default).
    ``port=0`` picks a free port; ``.url`` is the endpoint once started.
    """

    def __init__(self, server: Server[Any], host: str = "127.0.0.1", port: int = 8765, *,
                 json_response: bool = True, stateless: bool = True, startup_timeout_s: float = 15) -> None:
        self.server, self.host, self.port = server, host, port
        self._json, self._stateless, self._timeout = json_response, stateless, startup_timeout_s
        self._uvicorn: Any = None
        self._task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{MCP_PATH}"

    async def __aenter__(self) -> McpHttpService:
        import uvicorn

        app = self.server.streamable_http_app(streamable_http_path=MCP_PATH, json_response=self._json,
                                              stateless_http=self._stateless, host=self.host)
        config = uvicorn.Config(app, host=self.host, port=self.port, log_level="warning", lifespan="on")
        self._uvicorn = uvicorn.Server(config)
        self._task = asyncio.create_task(self._uvicorn.serve())
        deadline = asyncio.get_running_loop().time() + self._timeout
        while not self._uvicorn.started:
            if self._task.done():
                await self._task  # raises the startup error
                raise RuntimeError(f"the MCP HTTP server on {self.host}:{self.port} stopped during startup")
            if asyncio.get_running_loop().time() > deadline:
                await self.__aexit__(None, None, None)
                raise TimeoutError(f"the MCP HTTP server on {self.host}:{self.port} did not start in "
                                   f"{self._timeout} s")
            await asyncio.sleep(0.02)
        if self.port == 0:
            sockets = [s for server in self._uvicorn.servers for s in server.sockets]
            self.port = sockets[0].getsockname()[1]
        return self

    async def serve_forever(self) -> None:
        assert self._task is not None
        await asyncio.shield(self._task)

    async def __aexit__(self, *exc: object) -> None:
        if self._uvicorn is not None:
            self._uvicorn.should_exit = True
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                try:
                    await asyncio.wait_for(self._task, 10)
                except TimeoutError:
                    self._task.cancel()
                    await asyncio.gather(self._task, return_exceptions=True)
