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
import functools
import json
import threading
from collections.abc import Callable
from typing import Any, Literal, Protocol

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext

from agent_tools.json_text import value_nesting_exceeds
from agent_tools.limits import MAX_ARGUMENT_DEPTH

SERVER_NAME = "homefabric"
INSTRUCTIONS = (
    "Smart-home agent tools (SimuHome-compatible). Every tool returns an envelope "
    "{status:{code,message}, data, error:{type,detail}|null}; a refused call names the offending "
    "value and what is allowed. Start with get_rooms and get_room_devices."
)
MCP_PATH = "/mcp"


class ToolProvider(Protocol):
    def call(self, name: str, arguments: Any = None) -> dict[str, Any]: ...

    def schemas(self, style: Literal["openai", "mcp"] = "openai") -> list[dict[str, Any]]: ...


def envelope_text(envelope: dict[str, Any]) -> str:
    return json.dumps(envelope, ensure_ascii=False, default=str)


def call_result(envelope: dict[str, Any]) -> types.CallToolResult:
    """The envelope as an MCP tool result: JSON text + structured content, ``isError`` for refusals."""
    structured = json.loads(envelope_text(envelope))  # JSON-clean (tuples, enums, …) like the text
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=envelope_text(envelope))],
        structured_content=structured,
        is_error=envelope.get("error") is not None,
    )


def build_server(
    tools: ToolProvider, *, name: str = SERVER_NAME, instructions: str = INSTRUCTIONS, offload: bool = False
) -> Server[Any]:
    """An MCP server over ``tools``.

    ``offload=True`` runs each call in a worker thread (one at a time): for backends whose ``call`` blocks
    on the network (the Matter backend); the in-process fabric is fast and stays on the server's loop.
    """
    limiter = anyio.CapacityLimiter(1)
    lock = asyncio.Lock()

    @functools.cache
    def schemas() -> dict[str, dict[str, Any]]:  # on first need: a DeferredTools may still be loading at start
        return {s["name"]: s for s in tools.schemas(style="mcp")}

    async def ready() -> None:
        if isinstance(tools, DeferredTools):
            try:
                await tools.ready()
            except BaseException:
                await anyio.sleep_forever()  # whoever started the loading reports its error and stops the server

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        await ready()
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=s["name"],
                    description=s["description"],
                    input_schema=s["inputSchema"],
                    annotations=types.ToolAnnotations.model_validate(s["annotations"]) if "annotations" in s else None,
                )
                for s in schemas().values()
            ]
        )

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        await ready()
        arguments = dict(params.arguments) if params.arguments is not None else {}
        if offload:
            envelope = await anyio.to_thread.run_sync(tools.call, params.name, arguments, limiter=limiter)
        else:
            async with lock:  # one tool call at a time, like one agent turn
                envelope = tools.call(params.name, arguments)
        return call_result(envelope)

    def input_schema(name: str) -> dict[str, Any] | None:
        tool = schemas().get(name)
        return tool["inputSchema"] if tool is not None else None

    return Server(
        name,
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=input_schema,
    )


class DeferredTools:
    """A tool provider built in a worker thread from the moment it is created (loading a home imports the cluster
    model: ~1 s), so that an MCP server over it answers ``initialize`` at once; tools wait for it."""

    def __init__(self, build: Callable[[], ToolProvider]) -> None:
        self._done = threading.Event()
        self._tools: ToolProvider | None = None
        self.error: BaseException | None = None

        def load() -> None:
            try:
                self._tools = build()
            except BaseException as error:  # handed to whoever waits (a one-line error, see mcp_cmd)
                self.error = error
            finally:
                self._done.set()

        threading.Thread(target=load, name="homefabric-tools", daemon=True).start()

    async def ready(self) -> ToolProvider:
        """The tools once built (raises what building them raised)."""
        if not self._done.is_set():
            await anyio.to_thread.run_sync(self._done.wait)
        return self._get()

    def _get(self) -> ToolProvider:
        self._done.wait()
        if self.error is not None:
            raise self.error
        assert self._tools is not None
        return self._tools

    def call(self, name: str, arguments: Any = None) -> dict[str, Any]:
        return self._get().call(name, arguments)

    def schemas(self, style: Literal["openai", "mcp"] = "openai") -> list[dict[str, Any]]:
        return self._get().schemas(style)


async def serve_stdio(server: Server[Any], *, answer_before_eof: bool = False) -> None:
    """Serve one client over this process's stdin/stdout until it closes them.

    Every line is screened before the SDK sees it (``screen_line``): a line that is not one JSON-RPC 2.0
    message the SDK can take (garbage, a batch, no method, an object id, nesting past ``MAX_MESSAGE_DEPTH``,
    longer than ``MAX_LINE_CHARS``) is answered at once with a JSON-RPC error object, as the HTTP transport does.

    ``answer_before_eof``: a client that writes its requests and closes stdin (a script, a pipe) still gets every
    answer — the SDK stops at end of input and drops what is in flight, which matters when tools are still
    loading (DeferredTools). End of input is then held until each request read has been answered (≤ 60 s)."""
    import io
    import sys

    from mcp.server.stdio import stdio_server

    unanswered = _Unanswered(wait_at_eof=answer_before_eof)
    stdout = _CountingWriter(anyio.wrap_file(io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8")), unanswered)
    stdin = _ScreenedLines(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"), unanswered, stdout)
    with contextlib.redirect_stdout(sys.stderr):  # stray prints must not reach the wire
        async with stdio_server(stdin=stdin, stdout=stdout) as (read_stream, write_stream):  # type: ignore[arg-type]
            await server.run(read_stream, write_stream, server.create_initialization_options())


MAX_LINE_CHARS = 4 * 1024 * 1024  # one JSON-RPC message on stdio
MAX_MESSAGE_DEPTH = 100  # nesting of one message (the SDK's validator gives up near 200, without an answer)
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602  # JSON-RPC 2.0's error codes


def _error_reply(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def screen_line(line: str) -> tuple[Any, dict[str, Any] | None]:
    """(request id to track or None, JSON-RPC error reply or None) for one stdio line.

    No reply: the line goes on to the SDK. A reply: the line stops here and the reply is written instead."""
    if len(line) > MAX_LINE_CHARS:
        return None, _error_reply(
            None, INVALID_REQUEST, f"message is longer than {MAX_LINE_CHARS} characters (the limit is {MAX_LINE_CHARS})"
        )
    try:
        message = json.loads(line)
    except RecursionError:
        return None, _error_reply(
            None,
            PARSE_ERROR,
            f"Parse error: nested more than {MAX_MESSAGE_DEPTH} levels deep (the limit is {MAX_MESSAGE_DEPTH})",
        )
    except ValueError as error:
        return None, _error_reply(None, PARSE_ERROR, f"Parse error: not JSON ({error})")
    if isinstance(message, list):
        return None, _error_reply(
            None, INVALID_REQUEST, "Invalid Request: batches are not supported; send one JSON-RPC message per line"
        )
    if not isinstance(message, dict):
        return None, _error_reply(None, INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
    request_id = message.get("id")
    if "id" in message and (type(request_id) not in (str, int)):
        return None, _error_reply(
            None,
            INVALID_REQUEST,
            f"Invalid Request: id must be a string or an integer, got {type(request_id).__name__}",
        )
    method = message.get("method")
    if message.get("jsonrpc") != "2.0":
        return None, _error_reply(request_id, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    if method is None and not ("id" in message and ("result" in message or "error" in message)):
        return None, _error_reply(
            request_id,
            INVALID_REQUEST,
            'Invalid Request: no "method" (a request or notification) and no "result"/"error" (a response)',
        )
    if method is not None and not isinstance(method, str):
        return None, _error_reply(request_id, INVALID_REQUEST, 'Invalid Request: "method" must be a string')
    if value_nesting_exceeds(message, MAX_MESSAGE_DEPTH):
        code = INVALID_PARAMS if method is not None else INVALID_REQUEST
        return None, _error_reply(
            request_id,
            code,
            f"Invalid params: nested more than {MAX_MESSAGE_DEPTH} levels "
            f"deep (the limit is {MAX_MESSAGE_DEPTH}; tool arguments: "
            f"{MAX_ARGUMENT_DEPTH})",
        )
    try:
        types.jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValueError as error:
        first = error.errors()[0] if hasattr(error, "errors") else {"msg": str(error)}
        code, label = (INVALID_REQUEST, "Invalid Request") if method is None else (INVALID_PARAMS, "Invalid params")
        return None, _error_reply(request_id, code, f"{label}: {first.get('msg', error)}")
    return (request_id if method is not None and "id" in message else None), None


def _response_id(text: str) -> Any:
    """The id of a JSON-RPC response written on one line, else None."""
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or "method" in message:
        return None
    return message.get("id")


class _Unanswered:
    def __init__(self, *, wait_at_eof: bool) -> None:
        self.wait_at_eof = wait_at_eof
        self.ids: set[str | int] = set()
        self.all_answered = anyio.Event()

    def asked(self, message_id: str | int) -> None:
        self.ids.add(message_id)
        self.all_answered = anyio.Event()

    def answered(self, message_id: Any) -> None:
        if isinstance(message_id, str | int):
            self.ids.discard(message_id)
        if not self.ids:
            self.all_answered.set()


class _ScreenedLines:
    """stdin lines for the SDK, each read with a bounded length and screened (``screen_line``); refused lines are
    answered here. At end of input (``wait_at_eof``), waits until every request read has been answered."""

    def __init__(self, source: Any, unanswered: _Unanswered, replies: _CountingWriter) -> None:
        self._source, self._unanswered, self._replies = source, unanswered, replies

    def __aiter__(self) -> Any:
        return self._lines()

    def _read_line(self) -> str:
        """One line of at most MAX_LINE_CHARS + 1 characters; the rest of a longer line is read and dropped."""
        line: str = self._source.readline(MAX_LINE_CHARS + 1)
        if len(line) > MAX_LINE_CHARS and not line.endswith("\n"):
            while (rest := self._source.readline(MAX_LINE_CHARS)) and not rest.endswith("\n"):
                pass
        return line

    async def _lines(self) -> Any:
        while line := await anyio.to_thread.run_sync(self._read_line):
            if not line.strip():
                continue
            request_id, refusal = screen_line(line)
            if refusal is not None:
                await self._replies.write(json.dumps(refusal, separators=(",", ":")) + "\n")
                continue
            if request_id is not None:
                self._unanswered.asked(request_id)
            yield line
        if self._unanswered.wait_at_eof and self._unanswered.ids:
            with anyio.move_on_after(60):
                await self._unanswered.all_answered.wait()


class _CountingWriter:
    """stdout for the SDK and for refusals; one whole line at a time."""

    def __init__(self, target: Any, unanswered: _Unanswered) -> None:
        self._target, self._unanswered = target, unanswered
        self._lock = anyio.Lock()

    async def write(self, text: str) -> None:
        async with self._lock:
            await self._target.write(text)
            await self._target.flush()
        self._unanswered.answered(_response_id(text))

    async def flush(self) -> None:
        async with self._lock:
            await self._target.flush()


class McpHttpService:
    """Streamable HTTP at ``http://host:port/mcp`` (uvicorn in this loop); ``async with`` starts and stops it.

    Binds 127.0.0.1 by default; DNS-rebinding protection is on for loopback hosts (the SDK's default).
    ``port=0`` picks a free port; ``.url`` is the endpoint once started.
    """

    def __init__(
        self,
        server: Server[Any],
        host: str = "127.0.0.1",
        port: int = 8765,
        *,
        json_response: bool = True,
        stateless: bool = True,
        startup_timeout_s: float = 15,
    ) -> None:
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

        app = self.server.streamable_http_app(
            streamable_http_path=MCP_PATH, json_response=self._json, stateless_http=self._stateless, host=self.host
        )
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
                raise TimeoutError(f"the MCP HTTP server on {self.host}:{self.port} did not start in {self._timeout} s")
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
