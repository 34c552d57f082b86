"""Checking a model endpoint once, before a run starts (or before paraphrasing), instead of per episode.

* :func:`check_endpoint` — one 1-token chat request: the URL answers, the model name and key are accepted.
  A dead or refusing endpoint is a one-line :class:`PreflightError` (no retry storm, nothing written).
* :func:`check_tool_calling` — whether native tool calling reaches the model. A chat template that drops
  ``tools`` (SmolLM2's own, under llama.cpp) looks exactly like a model that chose to answer in prose,
  so two signals are used: the probe request, which asks for a call of a probe tool, must come back with
  that call; and the prompt-token count with the tools must exceed the one without (a template that
  never renders the tools charges nothing for them).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any, Literal

from benchmark.llm.client import LLMClient, LLMError, LLMRequestError

PROBE_TOOL_NAME = "get_probe_value"
PROBE_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": PROBE_TOOL_NAME,
        "description": "Look up the stored value of a key.",
        "parameters": {
            "type": "object",
            "properties": {"key": {"type": "string", "description": "the key"}},
            "required": ["key"],
        },
    },
}
PROBE_MESSAGES: list[dict[str, str]] = [
    {"role": "system", "content": "You are a helpful assistant with access to tools."},
    {"role": "user", "content": f'Call the tool {PROBE_TOOL_NAME} with key "alpha".'},
]
PROBE_MAX_TOKENS = 128  # room for one tool call, not for a runaway
PREFLIGHT_RETRIES = 1  # a dead endpoint fails in seconds, not after the run's full retry schedule

ToolVerdict = Literal["tool_call", "tools_dropped", "no_tool_call", "tools_refused"]


class PreflightError(Exception):
    """The endpoint cannot be used; the message is one line naming the URL and what went wrong."""


@dataclass(frozen=True)
class ToolProbe:
    verdict: ToolVerdict
    prompt_tokens_without_tools: int
    prompt_tokens_with_tools: int
    finish_reason: str | None
    reply: str | None

    @property
    def works(self) -> bool:
        return self.verdict == "tool_call"

    def explain(self) -> str:
        if self.verdict == "tools_dropped":
            return (
                f"the server ignores `tools`: the probe prompt is {self.prompt_tokens_with_tools} tokens with "
                f"them and {self.prompt_tokens_without_tools} without (its chat template does not render "
                f"tools)"
            )
        if self.verdict == "tools_refused":
            return f"the server refused a request with tools: {self.reply}"
        if self.verdict == "no_tool_call":
            return "the probe request asking for a tool call came back without one"
        return "the probe request came back with the tool call"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "explanation": self.explain()}


@contextlib.contextmanager
def _few_retries(client: LLMClient) -> Iterator[None]:
    saved = client.max_retries
    client.max_retries = min(saved, PREFLIGHT_RETRIES)
    try:
        yield
    finally:
        client.max_retries = saved


async def check_endpoint(client: LLMClient, role: str = "agent") -> dict[str, Any]:
    """One 1-token request; ``{"base_url", "model", "prompt_tokens"}`` or a :class:`PreflightError`."""
    try:
        with _few_retries(client):
            response = await client.complete(PROBE_MESSAGES, max_tokens=1)
    except LLMError as error:
        raise PreflightError(
            f"the {role} model endpoint {client.base_url} (model {client.model!r}) cannot be used: {_one_line(error)}"
        ) from None
    return {"base_url": client.base_url, "model": client.model, "prompt_tokens": response.usage.get("prompt_tokens", 0)}


async def check_tool_calling(
    client: LLMClient, *, tool_choice: str | None, prompt_tokens_without_tools: int
) -> ToolProbe:
    try:
        with _few_retries(client):
            response = await client.complete(
                PROBE_MESSAGES, tools=[PROBE_TOOL], tool_choice=tool_choice, max_tokens=PROBE_MAX_TOKENS
            )
    except LLMRequestError as error:  # e.g. llama-server without --jinja: "tools param requires --jinja flag"
        return ToolProbe("tools_refused", prompt_tokens_without_tools, 0, None, _one_line(error)[:300])
    except LLMError as error:
        raise PreflightError(
            f"the agent model endpoint {client.base_url} did not answer a request with tools: {_one_line(error)}"
        ) from None
    with_tools = response.usage.get("prompt_tokens", 0)
    called = any(call.name == PROBE_TOOL_NAME for call in response.tool_calls)
    verdict: ToolVerdict
    if called:
        verdict = "tool_call"
    elif with_tools and prompt_tokens_without_tools and with_tools <= prompt_tokens_without_tools:
        verdict = "tools_dropped"
    else:
        verdict = "no_tool_call"
    return ToolProbe(
        verdict, prompt_tokens_without_tools, with_tools, response.finish_reason, (response.content or "")[:200] or None
    )


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())
