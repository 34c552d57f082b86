"""A small client for OpenAI-compatible chat completions (vLLM, llama.cpp, Ollama, OpenRouter, OpenAI…).

Only ``POST {base_url}/chat/completions`` is needed, so this is plain ``httpx`` rather than the OpenAI SDK:
one light dependency, full control over retries (the SDK retries on its own, with wall-clock jitter we
could not seed) and over the exact request body (servers differ in which fields they accept).

Failures are split in two, because the benchmark must score them differently:

* :class:`LLMInfraError` — the endpoint could not answer (429, 5xx, 408, timeouts, connection errors,
  an unreadable body) even after ``max_retries`` retries with exponential backoff. The runner excludes
  such episodes from accuracy and lists them.
* :class:`LLMRequestError` — the endpoint refused *this* request (any other 4xx: bad model name,
  unsupported field, context window exceeded). Retrying would not help.

A third is the model's own failure, not the endpoint's: :class:`LLMRunawayError` — no reply within the
timeout although the server was up (it still answers ``GET /models``): the model was generating on and
on. Sending the same request again would only burn another timeout (a greedy request would run away the
same way), so it is not retried; the agent scores it as the model's failure.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
import os
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from benchmark.llm.endpoint import LLMEndpointSpec, check_base_url

if TYPE_CHECKING:  # httpx (~18 MiB with ssl) loads with the first model call: an oracle run never needs it
    import httpx

Sleep = Callable[[float], Awaitable[None]]

RETRYABLE_STATUS = frozenset({408, 409, 425, 429})  # plus every 5xx
_READ_TIMEOUT = "timeout waiting for the reply"
_CONTEXT_OVERFLOW_HINTS = ("context length", "context_length", "maximum context", "context window", "too many tokens")


class LLMError(Exception):
    """Base class of both client failures."""


class LLMInfraError(LLMError):
    """The endpoint did not answer usably after all retries (rate limits, 5xx, timeouts, connection errors)."""

    def __init__(self, message: str, *, attempts: int, status: int | None = None) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.status = status


class LLMRunawayError(LLMError):
    """The server was up but the reply did not come within the timeout: the model kept generating."""

    def __init__(self, message: str, *, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


class LLMRequestError(LLMError):
    """The endpoint refused the request (a 4xx other than 408/409/425/429); not retried."""

    def __init__(self, message: str, *, status: int, body: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.body = body

    @property
    def context_overflow(self) -> bool:
        """Whether the server said the prompt is too long (reported as its own category by the runner)."""
        text = self.body.lower()
        return any(hint in text for hint in _CONTEXT_OVERFLOW_HINTS)


@dataclass(frozen=True)
class ToolCall:
    """One native tool call of an assistant turn; ``arguments_json`` is kept exactly as the model wrote it."""

    id: str
    name: str
    arguments_json: str

    def to_message(self) -> dict[str, Any]:
        """The ``tool_calls`` entry to echo back in the assistant message of the conversation."""
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments_json}}


@dataclass
class LLMResponse:
    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0})
    raw: dict[str, Any] = field(default_factory=dict)
    finish_reason: str | None = None
    attempts: int = 1  # HTTP requests it took, retries included


class LLMClient:
    """``await client.complete(messages, tools=…)`` → :class:`LLMResponse`.

    Retries use exponential backoff (``backoff_base_s × 2**attempt``, capped at ``backoff_max_s``) with
    jitter drawn from ``random.Random(retry_seed)`` — reproducible, unlike wall-clock jitter — and a
    server's ``Retry-After`` wins when present (capped at ``retry_after_max_s``). ``sleep`` is injectable
    so tests do not wait.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        model: str = "",
        *,
        temperature: float = 0.0,
        timeout_s: float = 60.0,
        max_retries: int = 5,
        seed: int | None = None,
        max_tokens: int | None = None,
        headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 30.0,
        retry_after_max_s: float = 120.0,
        retry_seed: int = 0,
        sleep: Sleep = asyncio.sleep,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if not base_url:
            raise ValueError("base_url is required (e.g. http://127.0.0.1:8000/v1)")
        self.base_url = check_base_url(base_url)
        self.api_key = api_key or None
        self.model = model
        self.temperature = temperature
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.seed = seed
        self.max_tokens = max_tokens
        self.headers = dict(headers or {})
        self.extra_body = dict(extra_body or {})
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.retry_after_max_s = retry_after_max_s
        self._rng = random.Random(retry_seed)
        self._sleep = sleep
        self._transport = transport
        self._http: httpx.AsyncClient | None = None
        self._http_loop: asyncio.AbstractEventLoop | None = None
        self.sleeps: list[float] = []  # every backoff slept, in order (reported and tested)

    @classmethod
    def from_spec(cls, spec: LLMEndpointSpec, *, environ: Mapping[str, str] | None = None, **kwargs: Any) -> LLMClient:
        environ = os.environ if environ is None else environ
        api_key = None
        if spec.api_key_env:
            api_key = environ.get(spec.api_key_env)
            if not api_key:
                raise ValueError(f"environment variable {spec.api_key_env!r} (api_key_env) is not set")
        return cls(
            spec.base_url,
            api_key,
            spec.model,
            temperature=spec.temperature,
            timeout_s=spec.timeout_s,
            max_retries=spec.max_retries,
            seed=spec.seed,
            max_tokens=spec.max_tokens,
            headers=spec.headers,
            extra_body=spec.extra_body,
            **kwargs,
        )

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    # --- HTTP plumbing -----------------------------------------------------------------------------

    def _new_http(self) -> httpx.AsyncClient:
        import httpx

        headers = {"Content-Type": "application/json", **self.headers}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return httpx.AsyncClient(timeout=httpx.Timeout(self.timeout_s), headers=headers, transport=self._transport)

    async def __aenter__(self) -> LLMClient:
        # Inside `async with` the connection pool is kept for every call; outside, each complete() opens
        # and closes its own, so a client used from several asyncio.run() calls (a judge, a paraphraser)
        # never holds a pool bound to a dead event loop.
        await self.aclose()
        self._http = self._new_http()
        self._http_loop = asyncio.get_running_loop()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._http is not None and self._http_loop is asyncio.get_running_loop():
            await self._http.aclose()
        self._http = None
        self._http_loop = None

    def request_body(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        *,
        temperature: float | None = None,
        response_format: Mapping[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(message) for message in messages],
            "temperature": self.temperature if temperature is None else temperature,
        }
        if self.seed is not None:
            body["seed"] = self.seed
        if tools:
            body["tools"] = [dict(tool) for tool in tools]
            if tool_choice is not None:
                body["tool_choice"] = tool_choice
        if response_format is not None:
            body["response_format"] = dict(response_format)
        limit = max_tokens if max_tokens is not None else self.max_tokens
        if limit is not None:
            body["max_tokens"] = limit
        body.update(self.extra_body)
        return body

    async def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        *,
        temperature: float | None = None,
        response_format: Mapping[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> LLMResponse:
        body = self.request_body(
            messages,
            tools,
            tool_choice,
            temperature=temperature,
            response_format=response_format,
            max_tokens=max_tokens,
        )
        pooled = self._http is not None and self._http_loop is asyncio.get_running_loop()
        http = self._http if pooled and self._http is not None else self._new_http()
        try:
            attempts = 0
            while True:
                attempts += 1
                result, retry_after, status = await self._attempt(http, body)
                if isinstance(result, LLMResponse):
                    result.attempts = attempts
                    return result
                if result.startswith(_READ_TIMEOUT) and await self.endpoint_alive():
                    raise LLMRunawayError(
                        f"no reply within {self.timeout_s:g} s although {self.base_url} was up: the model kept "
                        f"generating (runaway output; cap a turn with max_tokens, or raise the timeout if the "
                        f"server is merely slow or busy)",
                        attempts=attempts,
                    )
                if attempts > self.max_retries:
                    raise LLMInfraError(
                        f"{result} (gave up after {attempts} attempts)", attempts=attempts, status=status
                    )
                await self._backoff(attempts, retry_after)
        finally:
            if not pooled:
                await http.aclose()

    async def _attempt(
        self, http: httpx.AsyncClient, body: dict[str, Any]
    ) -> tuple[LLMResponse | str, float | None, int | None]:
        """One HTTP request: a response, or (why it is worth retrying, Retry-After seconds, status)."""
        import httpx

        try:
            reply = await http.post(self.url, json=body)
        except httpx.ReadTimeout:
            return f"{_READ_TIMEOUT} after {self.timeout_s:g} s (ReadTimeout)", None, None
        except httpx.TimeoutException as exc:
            return f"timeout after {self.timeout_s:g} s ({type(exc).__name__})", None, None
        except httpx.TransportError as exc:
            return f"connection error: {type(exc).__name__}: {exc}", None, None
        status = reply.status_code
        if status in RETRYABLE_STATUS or status >= 500:
            return f"HTTP {status}: {_snippet(reply.text)}", _retry_after_seconds(reply.headers), status
        if status >= 400:
            raise LLMRequestError(
                f"HTTP {status} from {self.url}: {_snippet(reply.text)}", status=status, body=reply.text
            )
        try:
            payload = reply.json()
            return parse_completion(payload), None, status
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            # A proxy or a half-started server can answer 200 with junk; treat it like a 5xx.
            return f"unreadable completion body ({exc}): {_snippet(reply.text)}", None, status

    async def endpoint_alive(self, timeout_s: float = 5.0) -> bool:
        """Whether the server answers at all (any HTTP status for ``GET {base_url}/models``)."""
        import httpx

        headers = {**self.headers, **({"Authorization": f"Bearer {self.api_key}"} if self.api_key else {})}
        try:
            async with httpx.AsyncClient(
                timeout=httpx.Timeout(min(timeout_s, self.timeout_s)), headers=headers, transport=self._transport
            ) as http:
                await http.get(f"{self.base_url}/models")
        except httpx.HTTPError:
            return False
        return True

    async def _backoff(self, attempt: int, retry_after: float | None) -> None:
        if retry_after is not None:
            delay = min(retry_after, self.retry_after_max_s)
        else:
            ceiling = min(self.backoff_max_s, self.backoff_base_s * 2 ** (attempt - 1))
            delay = ceiling * (0.5 + 0.5 * self._rng.random())  # "equal jitter": never less than half
        self.sleeps.append(delay)
        await self._sleep(delay)


# --- response parsing ------------------------------------------------------------------------------


def parse_completion(payload: Any) -> LLMResponse:
    """The first choice of a chat-completions body; tolerant of the variations servers produce."""
    if not isinstance(payload, dict):
        raise TypeError(f"completion body is a {type(payload).__name__}, not an object")
    choice = payload["choices"][0]
    message = choice.get("message") or {}
    calls: list[ToolCall] = []
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call.get("function") or {}
        calls.append(
            ToolCall(
                id=str(call.get("id") or f"call_{index}"),
                name=str(function.get("name") or ""),
                arguments_json=_arguments_text(function.get("arguments")),
            )
        )
    legacy = message.get("function_call")  # the pre-"tools" format some servers still emit
    if not calls and isinstance(legacy, dict):
        calls.append(
            ToolCall(
                id="call_0", name=str(legacy.get("name") or ""), arguments_json=_arguments_text(legacy.get("arguments"))
            )
        )
    usage = payload.get("usage") or {}
    return LLMResponse(
        content=_content_text(message.get("content")),
        tool_calls=calls,
        usage={
            "prompt_tokens": _count(usage.get("prompt_tokens")),
            "completion_tokens": _count(usage.get("completion_tokens")),
        },
        raw=payload,
        finish_reason=choice.get("finish_reason"),
    )


def _arguments_text(arguments: Any) -> str:
    # OpenAI sends a JSON string; Ollama and some proxies send the object itself.
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)


def _content_text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _retry_after_seconds(headers: httpx.Headers) -> float | None:
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()  # an HTTP date only means "wait until then"
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _snippet(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"
