"""A local OpenAI-compatible chat-completions server that plays a script, for tests.

The LLM path must be tested end to end over real HTTP without a network or a model: this server
answers ``POST /v1/chat/completions`` (and ``/chat/completions``) with the next :class:`Turn` of its
script — a tool call (possibly with malformed JSON or an unknown tool), a plain text reply, a text-ReAct
JSON reply, an HTTP error (429 with ``Retry-After``, 500…), a reply slower than the client's timeout
while the server stays up (``delay``: a model generating on and on) or a stall of the whole server
(``hang``: nothing answers, not even ``/models``), a reply cut off at the token cap (``cut_off``,
``runaway``: ``finish_reason: length``) or the reply-format placeholder copied back (``echo_placeholder``)
— and records every request it received so a test can check what the agent sent.

Like a real server it honours ``max_tokens`` (a longer scripted reply is cut off there, with
``finish_reason: length``) and counts the ``tools`` it was sent in ``prompt_tokens``. With
``drop_tools=True`` it plays a server whose chat template drops ``tools``: they are left out of the
prompt-token count, as llama.cpp does with a template that never renders them.

It is built on asyncio streams only (no web framework), so it costs no dependency::

    async with OpenAIStandin([tool_call("get_rooms"), finish("Done.")]) as server:
        client = LLMClient(server.base_url, None, "standin")
        ...
    server.requests[0].body["tools"]

``OpenAIStandin.in_thread()`` runs the same server on its own event loop in a thread, for callers
whose own loop is busy or who are synchronous.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

TurnKind = Literal["reply", "http_error", "delay", "hang", "dynamic", "runaway"]
STANDIN_MODEL = "standin-model"
CHARS_PER_TOKEN = 4  # the stand-in's tokenizer: one token per 4 characters, rounded up
DEFAULT_TOKEN_CAP = 4096  # where a runaway reply stops when the request sets no max_tokens (the context)


@dataclass(frozen=True)
class ScriptedCall:
    name: str
    arguments: str  # sent verbatim as function.arguments, so it may be malformed JSON
    call_id: str | None = None


@dataclass(frozen=True)
class Turn:
    """One scripted answer. Build them with the helpers below rather than by hand."""

    kind: TurnKind
    content: str | None = None
    calls: tuple[ScriptedCall, ...] = ()
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    error_body: str | None = None
    delay_s: float = 0.0
    then: Turn | None = None
    usage: tuple[int, int] | None = None  # (prompt, completion); default derived from the request
    respond: Callable[[dict[str, Any]], Turn] | None = None
    finish_reason: str | None = None  # default: "tool_calls" with calls, else "stop"


# --- script builders -------------------------------------------------------------------------------


def _arguments_text(arguments: Mapping[str, Any] | str | None) -> str:
    if arguments is None:
        return "{}"
    if isinstance(arguments, str):
        return arguments
    return json.dumps(dict(arguments), ensure_ascii=False)


def tool_call(
    name: str,
    arguments: Mapping[str, Any] | str | None = None,
    *,
    content: str | None = None,
    call_id: str | None = None,
    usage: tuple[int, int] | None = None,
) -> Turn:
    """A native tool call. ``arguments`` as a string is sent verbatim (use it for malformed JSON)."""
    return Turn("reply", content=content, calls=(ScriptedCall(name, _arguments_text(arguments), call_id),), usage=usage)


def tool_calls(
    calls: Iterable[tuple[str, Mapping[str, Any] | str | None]],
    *,
    content: str | None = None,
    usage: tuple[int, int] | None = None,
) -> Turn:
    """Several tool calls in one assistant turn (parallel tool calling)."""
    return Turn(
        "reply", content=content, calls=tuple(ScriptedCall(n, _arguments_text(a)) for n, a in calls), usage=usage
    )


def finish(answer: str, *, content: str | None = None) -> Turn:
    return tool_call("finish", {"answer": answer}, content=content)


def text(content: str, *, usage: tuple[int, int] | None = None) -> Turn:
    """A plain assistant message with no tool call."""
    return Turn("reply", content=content, usage=usage)


def react(
    action: str,
    action_input: Mapping[str, Any] | str | None = None,
    *,
    thought: str = "",
    fenced: bool = False,
    input_as_string: bool = True,
    prose: str = "",
) -> Turn:
    """A text-ReAct reply ``{"thought", "action", "action_input"}``; ``action_input`` as a JSON string by
    default (the common format), optionally inside a Markdown code fence and after some prose."""
    value: Any = action_input if action_input is not None else {}
    if input_as_string and not isinstance(value, str):
        value = json.dumps(dict(value), ensure_ascii=False)
    body = json.dumps({"thought": thought, "action": action, "action_input": value}, ensure_ascii=False, indent=1)
    if fenced:
        body = f"```json\n{body}\n```"
    return text(f"{prose}\n{body}" if prose else body)


def http_error(status: int, *, retry_after: float | str | None = None, message: str | None = None) -> Turn:
    headers = (
        (("Retry-After", f"{retry_after:g}" if isinstance(retry_after, int | float) else retry_after),)
        if retry_after is not None
        else ()
    )
    body = json.dumps(
        {"error": {"message": message or f"stand-in scripted HTTP {status}", "type": "standin_error", "code": status}}
    )
    return Turn("http_error", status=status, headers=headers, error_body=body)


def delay(seconds: float, then: Turn | None = None) -> Turn:
    """Answer only after ``seconds`` (longer than the client timeout: a timeout), then play ``then``."""
    return Turn("delay", delay_s=seconds, then=then or text("(a reply nobody waited for)"))


def hang(seconds: float, then: Turn | None = None) -> Turn:
    """The whole server stalls for ``seconds``: this request and every other one (``/models`` included)
    wait, as with a hung or overloaded host. Then ``then`` is played for this request."""
    return Turn("hang", delay_s=seconds, then=then or text("(a reply nobody waited for)"))


def cut_off(content: str) -> Turn:
    """A plain reply the server cut off at the token limit (``finish_reason: length``)."""
    return Turn("reply", content=content, finish_reason="length")


def runaway(unit: str = "and then the lights, ") -> Turn:
    """A model that never stops: ``unit`` repeated until the request's ``max_tokens`` (or the stand-in's
    context, ``DEFAULT_TOKEN_CAP``), ``finish_reason: length``."""
    return Turn("runaway", content=unit)


PLACEHOLDER = re.compile(r"<[^<>\n]{3,80}>")


def echo_placeholder() -> Turn:
    """A weak model copying the reply format's example back: the first ``<…>`` placeholder written after
    ``"answer"`` in the system prompt (else the first one anywhere) becomes its final answer."""

    def respond(body: dict[str, Any]) -> Turn:
        system = next((str(m.get("content")) for m in body["messages"] if m.get("role") == "system"), "")
        after_answer = re.search(r'"answer"\W*(<[^<>\n]{3,80}>)', system)
        anywhere = PLACEHOLDER.search(system)
        placeholder = after_answer.group(1) if after_answer else anywhere.group(0) if anywhere else "<answer>"
        if body.get("tools"):
            return tool_call("finish", {"answer": placeholder})
        return react("finish", {"answer": placeholder}, thought="<your short reasoning>", input_as_string=False)

    return dynamic(respond)


def preflight_turns(*, calls_tools: bool = True) -> list[Turn]:
    """What the react agent's preflight consumes: the 1-token endpoint probe, then the tool probe, which a
    model that sees the tools answers with a call to the probe tool (``calls_tools``) and a model that
    does not see them answers in prose."""

    def tool_probe(body: dict[str, Any]) -> Turn:
        tools = body.get("tools") or []
        if calls_tools and tools:
            function = tools[0].get("function", {})
            required = (function.get("parameters") or {}).get("required") or []
            return tool_call(str(function.get("name")), {name: "alpha" for name in required})
        return text("I cannot call functions, but the value is probably alpha.")

    return [text("ok"), dynamic(tool_probe)]


def dynamic(respond: Callable[[dict[str, Any]], Turn]) -> Turn:
    """Decide the turn from the request body (e.g. echo an id the agent found)."""
    return Turn("dynamic", respond=respond)


def oracle_script(
    actions: Iterable[Mapping[str, Any] | tuple[str, Mapping[str, Any]]],
    *,
    answer: str = "Done.",
    mode: Literal["native", "text"] = "native",
) -> list[Turn]:
    """One turn per action, then ``finish(answer)``: what a perfect model would say.

    ``actions`` are ``(tool, params)`` pairs or ``{"tool", "params"}`` records (the shape of
    ``ToolBox.invocations`` and of SimuHome's required actions).
    """
    turns: list[Turn] = []
    for action in [*actions, ("finish", {"answer": answer})]:
        if isinstance(action, tuple):
            name, params = action
        else:
            name, params = str(action["tool"]), action.get("params") or {}
        turns.append(tool_call(name, params) if mode == "native" else react(name, params, thought=f"Use {name}."))
    return turns


# --- request validation ----------------------------------------------------------------------------


class ChatRequest(BaseModel):
    """The fields the stand-in checks; the rest of the body is recorded as sent."""

    model_config = ConfigDict(extra="allow")

    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    stream: bool = False


def conversation_problem(messages: Sequence[Mapping[str, Any]]) -> str | None:
    """What a real OpenAI server would reject in this message list (roles, tool-call/answer pairing)."""
    open_calls: list[str] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        if role not in ("system", "user", "assistant", "tool", "developer"):
            return f"messages[{index}]: unknown role {role!r}"
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in open_calls:
                return f"messages[{index}]: tool message answers no pending tool call ({call_id!r})"
            open_calls.remove(call_id)
            if not isinstance(message.get("content"), str):
                return f"messages[{index}]: tool message content must be a string"
            continue
        if open_calls:
            return f"messages[{index}]: tool calls {open_calls} were not answered before a {role} message"
        if role == "assistant":
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                if not call.get("id") or not isinstance(function.get("arguments"), str):
                    return f"messages[{index}]: malformed tool_calls entry {call!r}"
                open_calls.append(call["id"])
            if message.get("content") is None and not message.get("tool_calls"):
                return f"messages[{index}]: assistant message with neither content nor tool_calls"
        elif role == "user" and isinstance(message.get("content"), list):
            if problem := _content_parts_problem(message["content"]):
                return f"messages[{index}]: {problem}"
        elif not isinstance(message.get("content"), str):
            return f"messages[{index}]: {role} message content must be a string"
    return None


def _content_parts_problem(parts: list[Any]) -> str | None:
    """User content parts: text, and input_audio (base64 WAV/MP3; a WAV must be 16 kHz mono 16-bit)."""
    from benchmark.suites.voice.audio_input import input_audio_problem

    for position, part in enumerate(parts):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            continue
        if kind == "input_audio":
            if problem := input_audio_problem(part):
                return f"content[{position}]: {problem}"
            continue
        return f"content[{position}]: not a text or input_audio part"
    return None


# --- the server ------------------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # the parsed JSON body (None when it was not JSON)
    turn_index: int | None  # which script turn answered it (None: no turn consumed)
    status: int = 200


@dataclass
class _Reply:
    status: int
    payload: str
    headers: list[tuple[str, str]] = field(default_factory=list)


class OpenAIStandin:
    """Plays ``script`` turn by turn, one turn per chat-completions request, in order.

    When the script is exhausted it answers HTTP 400 ("script exhausted"), which the client does not
    retry, so a test fails loudly instead of hanging. With ``strict`` (default) a request whose message
    list a real server would refuse (an unanswered tool call, a tool message answering nothing) gets
    HTTP 400 too, without consuming a turn.
    """

    def __init__(
        self,
        script: Iterable[Turn] = (),
        *,
        model: str = STANDIN_MODEL,
        strict: bool = True,
        host: str = "127.0.0.1",
        port: int = 0,
        drop_tools: bool = False,
        token_cap: int = DEFAULT_TOKEN_CAP,
    ) -> None:
        self.script: list[Turn] = list(script)
        self.model = model
        self.strict = strict
        self.drop_tools = drop_tools
        self.token_cap = token_cap
        self._unhung: asyncio.Event | None = None
        self.host = host
        self.port = port
        self.requests: list[RecordedRequest] = []
        self._next = 0
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # --- script state ---

    def extend(self, turns: Iterable[Turn]) -> None:
        self.script.extend(turns)

    @property
    def remaining(self) -> int:
        return len(self.script) - self._next

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The requests that reached the chat-completions route with a valid body."""
        return [r for r in self.requests if r.turn_index is not None]

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the stand-in is not running")
        return f"http://{self.host}:{self.port}/v1"

    # --- lifecycle ---

    async def start(self) -> OpenAIStandin:
        self._unhung = asyncio.Event()  # made on the serving loop
        self._unhung.set()
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is None:
            return
        self._server.close()
        for task in list(self._tasks):  # connections parked in a delay turn
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()
        self._server = None

    async def __aenter__(self) -> OpenAIStandin:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @contextlib.contextmanager
    def in_thread(self) -> Iterator[OpenAIStandin]:
        """Serve from a private event loop in a daemon thread (for sync callers or a busy loop)."""
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="openai-standin", daemon=True)
        thread.start()
        try:
            asyncio.run_coroutine_threadsafe(self.start(), loop).result(timeout=10)
            yield self
        finally:
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(self.stop(), loop).result(timeout=10)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=10)
            loop.close()

    # --- HTTP ---

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                method, path, headers = _parse_head(head)
                if headers.get("transfer-encoding", "").lower() == "chunked":
                    reply = _error_reply(411, "chunked request bodies are not supported by the stand-in")
                    body = b""
                else:
                    body = await reader.readexactly(int(headers.get("content-length") or 0))
                    assert self._unhung is not None
                    await self._unhung.wait()  # a hang turn stalls every route
                    if reader.at_eof():
                        return  # the client gave up while the server hung: answer nothing, consume no turn
                    reply = await self._handle(method, path, headers, body)
                payload = reply.payload.encode()
                lines = [
                    f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Status')}",
                    "Content-Type: application/json",
                    f"Content-Length: {len(payload)}",
                    *(f"{k}: {v}" for k, v in reply.headers),
                ]
                writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload)
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return  # the client gave up (its timeout) while we were answering
        except asyncio.CancelledError:
            return  # stop() cancels connections parked in a delay turn; ending quietly is the point
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _handle(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> _Reply:
        path = path.split("?", 1)[0].rstrip("/")
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        record = RecordedRequest(method, path, headers, body, None)
        self.requests.append(record)
        if method == "GET" and path in ("/v1/models", "/models"):
            return _json_reply(200, {"object": "list", "data": [{"id": self.model, "object": "model"}]})
        if path not in ("/v1/chat/completions", "/chat/completions"):
            record.status = 404
            return _error_reply(404, f"no route {method} {path}")
        if method != "POST":
            record.status = 405
            return _error_reply(405, f"{method} not allowed")
        problem = self._request_problem(body)
        if problem:
            record.status = 400
            return _error_reply(400, problem)
        if self._next >= len(self.script):
            record.status = 400
            return _error_reply(400, f"stand-in script exhausted after {len(self.script)} turns")
        assert isinstance(body, dict)  # it passed ChatRequest validation: a JSON object
        record.turn_index = self._next
        turn = self.script[self._next]
        self._next += 1
        reply = await self._play(turn, body, record.turn_index)
        record.status = reply.status
        return reply

    def _request_problem(self, body: Any) -> str | None:
        try:
            request = ChatRequest.model_validate(body)
        except ValidationError as exc:
            return f"invalid chat completions request: {exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}"
        if request.stream:
            return "the stand-in does not stream; send stream=false"
        if self.strict:
            return conversation_problem(request.messages)
        return None

    async def _play(self, turn: Turn, body: dict[str, Any], index: int) -> _Reply:
        if turn.kind == "dynamic":
            assert turn.respond is not None
            turn = turn.respond(body)
        if turn.kind == "delay":
            await asyncio.sleep(turn.delay_s)
            assert turn.then is not None
            turn = turn.then
        if turn.kind == "hang":
            assert self._unhung is not None
            self._unhung.clear()
            try:
                await asyncio.sleep(turn.delay_s)
            finally:
                self._unhung.set()
            assert turn.then is not None
            turn = turn.then
        if turn.kind == "http_error":
            return _Reply(turn.status, turn.error_body or "{}", list(turn.headers))
        return _json_reply(200, self._completion(turn, body, index))

    def _completion(self, turn: Turn, body: dict[str, Any], index: int) -> dict[str, Any]:
        limit = body.get("max_tokens") if isinstance(body.get("max_tokens"), int) else None
        content, finish_reason = turn.content, turn.finish_reason
        if turn.kind == "runaway":  # generate until the cap
            cap = min(limit or self.token_cap, self.token_cap)
            unit = turn.content or "more "
            content = (unit * (cap * CHARS_PER_TOKEN // len(unit) + 1))[: cap * CHARS_PER_TOKEN]
            finish_reason = "length"
        elif limit is not None and content and _tokens(content) > limit:  # honour max_tokens like a server
            content, finish_reason = content[: limit * CHARS_PER_TOKEN], "length"
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if turn.calls:
            message["tool_calls"] = [
                {
                    "id": call.call_id or f"call_{index}_{n}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for n, call in enumerate(turn.calls)
            ]
        if turn.usage is not None:
            prompt, completion = turn.usage
        else:  # deterministic, non-zero, grows with the conversation (so token accounting is testable)
            prompt = sum(len(json.dumps(m, sort_keys=True)) for m in body["messages"]) // 4 + 1
            if body.get("tools") and not self.drop_tools:  # a tool-aware template renders them
                prompt += len(json.dumps(body["tools"], sort_keys=True)) // 4
            completion = len(json.dumps(message, sort_keys=True)) // 4 + 1
            if finish_reason == "length" and limit is not None:
                completion = limit
        return {
            "id": f"chatcmpl-standin-{index}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model") or self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": finish_reason or ("tool_calls" if turn.calls else "stop"),
                }
            ],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        }


def _tokens(content: str) -> int:
    return math.ceil(len(content) / CHARS_PER_TOKEN)


_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    411: "Length Required",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


def _parse_head(head: bytes) -> tuple[str, str, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    method, path = (parts[0], parts[1]) if len(parts) >= 2 else ("GET", "/")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            key, value = line.split(":", 1)
            headers[key.strip().lower()] = value.strip()
    return method, path, headers


def _json_reply(status: int, payload: Any) -> _Reply:
    return _Reply(status, json.dumps(payload, ensure_ascii=False))


def _error_reply(status: int, message: str) -> _Reply:
    return _json_reply(status, {"error": {"message": message, "type": "invalid_request_error", "code": status}})
