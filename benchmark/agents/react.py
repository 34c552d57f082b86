"""The ReAct agent: any OpenAI-compatible chat model driving the agent tools.

``mode="native"`` uses function calling: the ToolCaller's schemas go out as ``tools``; every tool call
of an assistant turn is executed in order and answered with a ``tool`` message holding the envelope.
``mode="text"`` is the fallback for models without function calling: the prompt describes the tools,
the model writes ``{"thought", "action", "action_input"}`` and observations come back as user
messages.

What ends an episode (``AgentOutcome.end_reason``):

* ``finished`` — the model called ``finish`` (or, in native mode, answered in plain text while
  ``plain_answer_finishes`` is on);
* ``max_steps`` — ``max_steps`` model turns passed without a finish (no answer; a failure, not an
  infrastructure problem);
* ``aborted`` — ``max_consecutive_failures`` unusable calls in a row (unreadable output, bad JSON
  arguments, unknown tools, finish without an answer, a reply cut off at the token limit, the reply
  format's placeholder copied back as the answer), the model generating until the client's timeout, or
  the endpoint refused the request (4xx). ``AgentOutcome.failure`` names which: ``runaway_output`` (the
  timeout, or every failure of the final streak a reply cut off at the token limit), ``unusable_output``,
  ``llm_request_error`` or ``context_overflow`` — all the model's failures, scored as such;
* ``infra_error`` — the endpoint did not answer after the client's retries (429/5xx, a server that did
  not answer at all).

``mode="auto"`` asks :meth:`ReactAgent.preflight` to decide: native when the probe request comes back
with a tool call, text otherwise. The preflight runs once before a run; every outcome names the mode
that ran.

Tool errors from the home (a constraint violated, a device that is off) are ordinary observations:
the model is expected to read them and adapt, so they neither count as failures nor reset anything.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from agent_tools.json_text import matching_brace
from benchmark.agents import prompts
from benchmark.agents.base import (
    AgentBase,
    AgentOutcome,
    AgentStep,
    AgentTask,
    EndReason,
    TokenUsage,
    ToolCaller,
    transcript,
)
from benchmark.llm.client import LLMClient, LLMInfraError, LLMRequestError, LLMResponse, LLMRunawayError
from benchmark.llm.preflight import check_endpoint, check_tool_calling

Mode = Literal["native", "text"]
RequestedMode = Literal["native", "text", "auto"]
FINISH = "finish"
LENGTH = "length"  # the finish_reason of a reply cut off at max_tokens / the context
ECHO_LIMIT = 400  # characters of a cut-off reply echoed back into the conversation

# Asks for the text format through structured outputs, for servers that support it (opt-in).
REACT_JSON_SCHEMA: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {
        "name": "react_step",
        "schema": {
            "type": "object",
            "properties": {
                "thought": {"type": "string"},
                "action": {"type": "string"},
                "action_input": {"type": "object"},
            },
            "required": ["thought", "action", "action_input"],
        },
    },
}


class ChatClient(Protocol):
    """What the agent needs from :class:`benchmark.llm.client.LLMClient` (tests may pass a fake)."""

    async def complete(
        self,
        messages: Any,
        tools: Any = None,
        tool_choice: Any = None,
        *,
        temperature: float | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> LLMResponse: ...


# --- text-mode replies -----------------------------------------------------------------------------


class ReplyFormatError(ValueError):
    """A text-mode reply the agent cannot use; the message is shown to the model."""


_KEY_ALIASES = {
    "thought": "thought",
    "thoughts": "thought",
    "reasoning": "thought",
    "action": "action",
    "tool": "action",
    "tool_name": "action",
    "action_input": "action_input",
    "actioninput": "action_input",
    "input": "action_input",
    "arguments": "action_input",
    "args": "action_input",
    "parameters": "action_input",
}


class ReactReply(BaseModel):
    """One text-mode turn. ``action_input`` may arrive as an object or as a JSON string of one."""

    model_config = ConfigDict(extra="ignore")

    thought: str | None = None
    action: str
    action_input: dict[str, Any]

    @model_validator(mode="before")
    @classmethod
    def _normalise_keys(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        out: dict[str, Any] = {}
        for key, value in data.items():
            canonical = _KEY_ALIASES.get(re.sub(r"[\s\-]+", "_", str(key).strip().lower()))
            if canonical and canonical not in out:
                out[canonical] = value
        if "action" not in out and ("answer" in data or "final_answer" in data):
            out = {
                "thought": out.get("thought"),
                "action": FINISH,
                "action_input": {"answer": data.get("answer", data.get("final_answer"))},
            }
        if isinstance(out.get("action"), str) and out["action"].strip().lower() == FINISH:
            out["action"] = FINISH
            raw = out.get("action_input")
            if isinstance(raw, str) and not _looks_like_object(raw):
                out["action_input"] = {"answer": raw}  # finish("it is 23 °C") instead of {"answer": …}
        out.setdefault("action_input", {})
        return out

    @field_validator("action")
    @classmethod
    def _action_named(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("'action' is empty")
        return value

    @field_validator("action_input", mode="before")
    @classmethod
    def _input_object(cls, value: Any) -> Any:
        if value is None or (isinstance(value, str) and not value.strip()):
            return {}
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError as exc:
                raise ValueError(f"'action_input' is not valid JSON ({exc})") from None
        if not isinstance(value, dict):
            raise ValueError(f"'action_input' must be a JSON object, got {type(value).__name__}")
        return value


def _looks_like_object(text: str) -> bool:
    return text.strip().startswith("{")


def first_json_object(text: str) -> dict[str, Any] | None:
    """The first balanced ``{…}`` in ``text`` that parses as a JSON object (fences and prose are skipped).

    An object that is never closed ends the search: every later ``{`` is inside it, and taking one of those
    inner objects for the reply (``{"action_input": {}}`` of a cut-off reply) would be wrong."""
    start = text.find("{")
    while start != -1:
        end = matching_brace(text, start)
        if end is None:
            return None
        try:
            value = json.loads(text[start : end + 1])
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None


def parse_react_reply(text: str | None) -> ReactReply:
    if not text or not text.strip():
        raise ReplyFormatError("the reply was empty")
    obj = first_json_object(text)
    if obj is None:
        start = _unclosed_brace(text)
        if start is not None:
            raise ReplyFormatError(f"the JSON object at character {start} is never closed (the reply looks cut off)")
        raise ReplyFormatError("no JSON object found in the reply")
    try:
        return ReactReply.model_validate(obj)
    except ValidationError as exc:
        problems = "; ".join(_pydantic_message(error) for error in exc.errors())
        raise ReplyFormatError(problems) from None


def _unclosed_brace(text: str) -> int | None:
    start = text.find("{")
    while start != -1:
        end = matching_brace(text, start)
        if end is None:
            return start
        start = text.find("{", end + 1)
    return None


def _pydantic_message(error: Mapping[str, Any]) -> str:
    where = ".".join(str(part) for part in error.get("loc", ()))
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


# --- the agent -------------------------------------------------------------------------------------


@dataclass
class _Episode:
    """Mutable state of one run."""

    tools: ToolCaller
    known_tools: frozenset[str]
    messages: list[dict[str, Any]]
    schemas: list[dict[str, Any]]
    steps: list[AgentStep] = field(default_factory=list)
    tokens: TokenUsage = field(default_factory=TokenUsage)
    mode: Mode = "native"
    failures: int = 0
    truncations: int = 0  # of the current streak of failures, how many were replies cut off at the limit
    answer: str | None = None
    finished: bool = False

    def outcome(self, end_reason: EndReason, error: str | None = None, failure: str | None = None) -> AgentOutcome:
        return AgentOutcome(
            final_answer=self.answer if end_reason == "finished" else None,
            steps=self.steps,
            end_reason=end_reason,
            tokens=self.tokens,
            error=error,
            failure=failure,
            mode=self.mode,
            transcript=transcript(self.messages, self.schemas),
        )

    def fail(self, *, truncated: bool = False) -> None:
        self.failures += 1
        self.truncations = self.truncations + 1 if truncated else 0


class ReactAgent(AgentBase):
    """A ReAct loop over any OpenAI-compatible endpoint. ``max_steps`` counts model turns."""

    name = "react"
    needs_episode = False

    def __init__(
        self,
        client: ChatClient,
        *,
        max_steps: int = 20,
        mode: RequestedMode = "native",
        temperature: float = 0.0,
        max_consecutive_failures: int = 3,
        plain_answer_finishes: bool = True,
        tool_choice: str | None = "auto",
        text_response_format: Mapping[str, Any] | None = None,
        preflight: bool = True,
    ) -> None:
        if mode not in ("native", "text", "auto"):
            raise ValueError(f"mode must be 'native', 'text' or 'auto', not {mode!r}")
        if max_steps < 1 or max_consecutive_failures < 1:
            raise ValueError("max_steps and max_consecutive_failures must be at least 1")
        self.client = client
        self.max_steps = max_steps
        self.requested_mode: RequestedMode = mode
        self.mode: Mode = "native" if mode == "auto" else mode  # auto: the preflight decides
        self.run_preflight = preflight
        tool_choice = None if tool_choice == "omit" else tool_choice
        self.temperature = temperature
        self.max_consecutive_failures = max_consecutive_failures
        self.plain_answer_finishes = plain_answer_finishes
        self.tool_choice = tool_choice
        self.text_response_format = dict(text_response_format) if text_response_format else None

    async def preflight(self) -> dict[str, Any]:
        """Once before a run: the endpoint answers (else :class:`PreflightError`), and — for native and auto
        mode — whether tool calling reaches the model. ``auto`` settles on native or text here; native with
        a failing probe stays native but says so in ``warning``."""
        result: dict[str, Any] = {"mode_requested": self.requested_mode}
        if not self.run_preflight or not isinstance(self.client, LLMClient):
            return {**result, "skipped": True, "mode": self.mode}
        endpoint = await check_endpoint(self.client)
        result["endpoint"] = endpoint
        if self.requested_mode != "text":
            probe = await check_tool_calling(
                self.client, tool_choice=self.tool_choice, prompt_tokens_without_tools=endpoint["prompt_tokens"]
            )
            result["tool_calling"] = probe.to_dict()
            if not probe.works and self.requested_mode == "auto":
                self.mode = "text"
                result["warning"] = f"native tool calling does not work ({probe.explain()}); using text-ReAct"
            elif not probe.works:
                result["warning"] = (
                    f"native tool calling looks broken: {probe.explain()}; episodes will likely end "
                    f"on turn 1 (use --mode auto or --mode text)"
                )
        result["mode"] = self.mode
        return result

    async def run(self, task: AgentTask, tools: ToolCaller) -> AgentOutcome:
        schemas = tools.schemas()
        episode = _Episode(
            tools=tools,
            known_tools=frozenset(tools.names()),
            messages=prompts.first_messages(task, self.mode, schemas),
            schemas=schemas,
            mode=self.mode,
        )
        for turn in range(self.max_steps):
            try:
                response = await self._ask(episode, schemas)
            except LLMInfraError as exc:
                return episode.outcome("infra_error", f"llm_infra_error: {exc}")
            except LLMRunawayError as exc:
                return episode.outcome("aborted", f"runaway_output: {exc}", "runaway_output")
            except LLMRequestError as exc:
                kind = "context_overflow" if exc.context_overflow else "llm_request_error"
                return episode.outcome("aborted", f"{kind}: {exc}", kind)
            episode.tokens.add(response.usage.get("prompt_tokens", 0), response.usage.get("completion_tokens", 0))
            first_step = len(episode.steps)
            if response.finish_reason == LENGTH and not self._complete_despite_cut(response):
                self._cut_off_turn(episode, response, turn)
            elif self.mode == "native":
                self._native_turn(episode, response, turn)
            else:
                self._text_turn(episode, response, turn)
            if response.finish_reason == LENGTH:  # the record says so even when the reply was usable
                for step in episode.steps[first_step:]:
                    if isinstance(step.raw, dict):
                        step.raw.setdefault("finish_reason", LENGTH)
            if episode.finished:
                return episode.outcome("finished")
            if episode.failures >= self.max_consecutive_failures:
                if episode.truncations >= episode.failures:
                    return episode.outcome(
                        "aborted",
                        f"runaway_output: {episode.failures} replies in a row cut off at the token limit",
                        "runaway_output",
                    )
                return episode.outcome(
                    "aborted", f"{episode.failures} unusable model outputs in a row", "unusable_output"
                )
        return episode.outcome("max_steps", f"no finish within {self.max_steps} model turns")

    # --- a reply cut off at the token limit ---

    def _complete_despite_cut(self, response: LLMResponse) -> bool:
        """A reply cut off only after what the agent uses was complete (a whole JSON object, then rambling;
        tool calls whose arguments all parse) is used as usual; anything else of it is not."""
        if self.mode == "text":
            return first_json_object(response.content or "") is not None
        return bool(response.tool_calls) and all(
            not call.arguments_json.strip() or _object_or_none(call.arguments_json) is not None
            for call in response.tool_calls
        )

    def _cut_off_turn(self, episode: _Episode, response: LLMResponse, turn: int) -> None:
        """Nothing of a cut-off reply is used (its JSON is incomplete; an inner object is not the reply);
        the model is told, and the step records it."""
        completion = response.usage.get("completion_tokens", 0)
        raw: dict[str, Any] = {
            "llm_turn": turn,
            "content": response.content,
            "usage": dict(response.usage),
            "finish_reason": LENGTH,
            "truncated": True,
        }
        if response.tool_calls:
            raw["tool_calls"] = [call.to_message() for call in response.tool_calls]
        episode.fail(truncated=True)
        problem = prompts.cut_off_problem(completion)
        episode.steps.append(
            AgentStep(
                index=len(episode.steps),
                thought=None,
                tool=None,
                arguments=None,
                observation={"error": f"unusable reply: {problem}"},
                raw=raw,
            )
        )
        shown = (response.content or "")[:ECHO_LIMIT] + ("…" if len(response.content or "") > ECHO_LIMIT else "")
        episode.messages.append({"role": "assistant", "content": shown or "(cut off)"})
        episode.messages.append({"role": "user", "content": prompts.cut_off_correction(self.mode, problem)})

    async def _ask(self, episode: _Episode, schemas: list[dict[str, Any]]) -> LLMResponse:
        if self.mode == "native":
            return await self.client.complete(
                episode.messages, tools=schemas, tool_choice=self.tool_choice, temperature=self.temperature
            )
        return await self.client.complete(
            episode.messages, temperature=self.temperature, response_format=self.text_response_format
        )

    # --- native function calling ---

    def _native_turn(self, episode: _Episode, response: LLMResponse, turn: int) -> None:
        usage = dict(response.usage)
        if not response.tool_calls:
            self._plain_reply(episode, response, turn, usage)
            return
        episode.messages.append(
            {
                "role": "assistant",
                "content": response.content,
                "tool_calls": [call.to_message() for call in response.tool_calls],
            }
        )
        for position, call in enumerate(response.tool_calls):
            raw = {
                "llm_turn": turn,
                "tool_call": call.to_message(),
                "content": response.content,
                "usage": usage if position == 0 else None,
            }
            envelope, _ = self._execute(
                episode, call.name, call.arguments_json, raw, thought=response.content if position == 0 else None
            )
            if episode.finished:
                skipped = [c.to_message() for c in response.tool_calls[position + 1 :]]
                if skipped:  # nothing after finish runs; keep them visible in the trajectory
                    raw["skipped_after_finish"] = skipped
                return
            episode.messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": prompts.observation_text(envelope)}
            )

    def _plain_reply(self, episode: _Episode, response: LLMResponse, turn: int, usage: dict[str, int]) -> None:
        content = (response.content or "").strip()
        raw = {"llm_turn": turn, "content": response.content, "usage": usage}
        if content and self.plain_answer_finishes:
            # A model that answers in prose is done; route it through finish so the toolbox agrees.
            raw["implicit_finish"] = True
            self._execute(episode, FINISH, json.dumps({"answer": content}, ensure_ascii=False), raw, thought=None)
            if episode.finished:
                return
        else:
            episode.fail()
            episode.steps.append(
                AgentStep(
                    index=len(episode.steps),
                    thought=response.content,
                    tool=None,
                    arguments=None,
                    observation={"error": prompts.NATIVE_NUDGE},
                    raw=raw,
                )
            )
        if response.content:
            episode.messages.append({"role": "assistant", "content": response.content})
        episode.messages.append({"role": "user", "content": prompts.NATIVE_NUDGE})

    # --- text ReAct ---

    def _text_turn(self, episode: _Episode, response: LLMResponse, turn: int) -> None:
        usage = dict(response.usage)
        raw: dict[str, Any] = {"llm_turn": turn, "content": response.content, "usage": usage}
        text = response.content
        if not (text and text.strip()) and response.tool_calls:
            # Some servers turn JSON-looking output into a tool call even when none were offered.
            call = response.tool_calls[0]
            text = json.dumps({"action": call.name, "action_input": call.arguments_json})
        episode.messages.append({"role": "assistant", "content": response.content or text or ""})
        try:
            reply = parse_react_reply(text)
        except ReplyFormatError as exc:
            episode.fail()
            correction = prompts.text_correction(str(exc))
            episode.messages.append({"role": "user", "content": correction})
            episode.steps.append(
                AgentStep(
                    index=len(episode.steps),
                    thought=None,
                    tool=None,
                    arguments=None,
                    observation={"error": f"unusable reply: {exc}"},
                    raw=raw,
                )
            )
            return
        envelope, _ = self._execute(
            episode, reply.action, json.dumps(reply.action_input, ensure_ascii=False), raw, thought=reply.thought
        )
        if not episode.finished:
            episode.messages.append({"role": "user", "content": prompts.text_observation(envelope)})

    # --- running one tool call ---

    def _execute(
        self, episode: _Episode, name: str, arguments_json: str, raw: dict[str, Any], *, thought: str | None
    ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """Run one call through the toolbox and record the step; updates failures and finish state."""
        is_finish = name.strip().lower() == FINISH
        tool = FINISH if is_finish else name
        text = arguments_json if arguments_json.strip() else "{}"  # "" is how some servers say "no arguments"
        arguments = _object_or_none(text)
        before = len(getattr(episode.tools, "invocations", ()) or ())
        placeholder = prompts.placeholder_in(arguments.get("answer")) if is_finish and arguments else None
        if placeholder is not None:
            # The reply format's example copied back is no answer; the toolbox never sees it (it would
            # become the episode's final answer there).
            envelope = _refusal(
                f"the answer {placeholder!r} is the reply format's placeholder, not an answer; "
                f"call finish with your actual answer for the user"
            )
        else:
            envelope = _safe_call(episode.tools, tool, text)
        usable = arguments is not None and (is_finish or tool in episode.known_tools) and placeholder is None
        if is_finish and usable and _ok(envelope):
            answer = (envelope.get("data") or {}).get("answer") if isinstance(envelope.get("data"), dict) else None
            episode.answer = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
            episode.finished = True
        elif is_finish:
            usable = False  # finish without a usable answer
        if usable:
            episode.failures = episode.truncations = 0
        else:
            episode.fail()
        episode.steps.append(
            AgentStep(
                index=len(episode.steps),
                thought=thought,
                tool=tool,
                arguments=arguments,
                observation=envelope,
                virtual_time=_virtual_time(episode.tools, before),
                raw=raw,
            )
        )
        return envelope, arguments


def _object_or_none(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _safe_call(tools: ToolCaller, name: str, arguments: str) -> dict[str, Any]:
    # ToolCaller.call never raises by contract; if one does anyway, the model sees it and the run goes on.
    try:
        envelope = tools.call(name, arguments)
    except Exception as exc:
        return {
            "status": {"code": 500, "message": "INTERNAL_ERROR"},
            "data": None,
            "error": {"type": "INTERNAL_ERROR", "detail": f"{type(exc).__name__}: {exc}"},
        }
    return (
        envelope
        if isinstance(envelope, dict)
        else {"status": {"code": 200, "message": "OK"}, "data": envelope, "error": None}
    )


def _refusal(detail: str) -> dict[str, Any]:
    return {
        "status": {"code": 400, "message": "VALIDATION_ERROR"},
        "data": None,
        "error": {"type": "INVALID_PARAMETERS", "detail": detail},
    }


def _ok(envelope: Mapping[str, Any]) -> bool:
    status = envelope.get("status")
    return isinstance(status, Mapping) and status.get("code") == 200 and not envelope.get("error")


def _virtual_time(tools: ToolCaller, before: int) -> str | None:
    records = getattr(tools, "invocations", None)
    if isinstance(records, list) and len(records) > before and isinstance(records[-1], Mapping):
        value = records[-1].get("virtual_time")
        return value if isinstance(value, str) else None
    return None
