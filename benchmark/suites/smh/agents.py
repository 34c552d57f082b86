"""SMH agents. DR agents answer messages with one JSON text; EIA agents drive the smh tools.

- oracle: solves from the instance's gold (reference actions, the clarifying question, answer, rules).
- null: does nothing (DR: an empty execute; EIA: no tool call, empty answer).
- llm (DR, one shot) and react (EIA, a native tool-calling loop) over any OpenAI-compatible endpoint,
  through the existing ``LLMClient`` (backoff, token accounting).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_tools.smh.home_env import HomeEnv
from agent_tools.smh.tools import SmhToolBox
from benchmark.llm.client import LLMClient, LLMError
from benchmark.suites.smh.instance import Instance


@dataclass
class Tokens:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0

    def add(self, usage: dict[str, int]) -> None:
        self.prompt_tokens += usage.get("prompt_tokens", 0)
        self.completion_tokens += usage.get("completion_tokens", 0)
        self.calls += 1

    def as_dict(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
            "calls": self.calls,
        }


class RequestFailed(RuntimeError):
    """The model endpoint failed (after the client's retries): FRF."""


class DrAgent(Protocol):
    name: str

    async def reply(self, instance: Instance, messages: list[dict[str, Any]], stage: int, tokens: Tokens) -> str: ...


@dataclass
class EiaResult:
    response: str | None
    end_reason: str = "finished"
    error: str | None = None
    tokens: Tokens = field(default_factory=Tokens)


class EiaAgent(Protocol):
    name: str

    async def run(self, instance: Instance, tools: SmhToolBox, messages: list[dict[str, Any]]) -> EiaResult: ...


def oracle_question(instance: Instance) -> str:
    clarification = instance.goal.clarification
    cue = clarification.accepts[0] if clarification and clarification.accepts else "detail"
    return f"Before I do that: which {cue} do you mean exactly?"


def _actions(instance: Instance) -> list[dict[str, Any]]:
    return [a.model_dump(mode="json") for a in instance.goal.reference]


class OracleDr:
    name = "oracle"

    async def reply(self, instance: Instance, messages: list[dict[str, Any]], stage: int, tokens: Tokens) -> str:
        goal = instance.goal
        if goal.mode == "clarify" and stage == 1:
            out: dict[str, Any] = {"mode": "clarify", "response": oracle_question(instance)}
        elif goal.mode == "answer":
            out = {"mode": "answer", "response": goal.answer.text if goal.answer else ""}
        elif goal.mode == "automate":
            out = {
                "mode": "automate",
                "response": "Scheduled.",
                "automations": [r.model_dump(mode="json", exclude_none=True) for r in goal.automations],
            }
        else:
            out = {"mode": "execute", "response": "Done.", "actions": _actions(instance)}
        return json.dumps(out)


class NullDr:
    name = "null"

    async def reply(self, instance: Instance, messages: list[dict[str, Any]], stage: int, tokens: Tokens) -> str:
        return json.dumps({"mode": "execute", "response": "", "actions": []})


class OracleEia:
    name = "oracle"

    async def run(self, instance: Instance, tools: SmhToolBox, messages: list[dict[str, Any]]) -> EiaResult:
        goal = instance.goal
        if goal.mode == "clarify":
            tools.call("ask_user", {"question": oracle_question(instance)})
        for action in _actions(instance):
            tools.call("control_device", action)
        for rule in goal.automations:
            tools.call("create_automation", rule.model_dump(mode="json", exclude_none=True))
        return EiaResult(goal.answer.text if goal.answer else "Done.")


class NullEia:
    name = "null"

    async def run(self, instance: Instance, tools: SmhToolBox, messages: list[dict[str, Any]]) -> EiaResult:
        return EiaResult("")


class LlmDr:
    """One JSON reply per stage from an OpenAI-compatible endpoint."""

    name = "llm"

    def __init__(self, client: LLMClient) -> None:
        self.client = client

    async def reply(self, instance: Instance, messages: list[dict[str, Any]], stage: int, tokens: Tokens) -> str:
        try:
            response = await self.client.complete(messages)
        except LLMError as error:
            raise RequestFailed(str(error)) from None
        tokens.add(response.usage)
        return response.content or ""


EIA_SYSTEM = """\
You are the assistant of a smart home. You see the rooms and a device index; read states, schemas and \
component locators with query_device (what = candidates | specs | status) before acting. control_device runs \
a service now ({did, locator, arguments}; multi-function devices use "component.service"). create_automation \
stores a rule for later or for a condition. ask_user asks the user one question when the request cannot be \
done without information only they have. Change only what the request needs. You have a budget of {budget} \
tool calls. When done, reply with a short plain-text answer and no tool call."""


def eia_messages(instance: Instance, env: HomeEnv, budget: int) -> list[dict[str, Any]]:
    """The partial observation: request, history, memory, entrance device, time, rooms, device index."""
    observation = {
        "current_time": instance.current_time,
        "entrance_device": instance.entrance_device,
        "rooms": env.rooms(),
        "devices": env.index(),
        "dialogue_history": [t.model_dump(mode="json", exclude={"prior_values"}) for t in instance.dialogue_history],
        "memory": instance.memory.model_dump(mode="json"),
    }
    return [
        {"role": "system", "content": EIA_SYSTEM.replace("{budget}", str(budget))},
        {
            "role": "user",
            "content": f"HOME: {json.dumps(observation, ensure_ascii=False)}\n\nREQUEST: {instance.user_query}",
        },
    ]


class ReactEia:
    """A native function-calling loop: each observation is appended before the next model turn."""

    name = "react"

    def __init__(self, client: LLMClient, *, max_turns: int = 20) -> None:
        self.client, self.max_turns = client, max_turns

    async def run(self, instance: Instance, tools: SmhToolBox, messages: list[dict[str, Any]]) -> EiaResult:
        tokens = Tokens()
        messages = list(messages)
        schemas = tools.schemas()
        for _ in range(self.max_turns):
            try:
                response = await self.client.complete(messages, tools=schemas, tool_choice="auto")
            except LLMError as error:
                return EiaResult(None, "request_error", str(error), tokens)
            tokens.add(response.usage)
            if not response.tool_calls:
                return EiaResult(response.content or "", "finished", None, tokens)
            messages.append(
                {
                    "role": "assistant",
                    "content": response.content,
                    "tool_calls": [c.to_message() for c in response.tool_calls],
                }
            )
            for call in response.tool_calls:
                try:
                    arguments = json.loads(call.arguments_json) if call.arguments_json.strip() else {}
                except json.JSONDecodeError as error:
                    arguments = None
                    envelope = {
                        "status": {"code": 400, "message": "INVALID_PARAMETERS"},
                        "data": None,
                        "error": {"type": "INVALID_PARAMETERS", "detail": f"arguments are not JSON: {error}"},
                    }
                    tools.log.append(
                        {"tool": call.name, "arguments": call.arguments_json, "code": "INVALID_PARAMETERS"}
                    )
                if arguments is not None:
                    envelope = tools.call(call.name, arguments)
                messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": json.dumps(envelope, ensure_ascii=False)}
                )
            if tools.exhausted:
                return EiaResult(None, "budget", f"budget of {tools.budget} tool calls spent", tokens)
        return EiaResult(None, "max_steps", f"no final answer within {self.max_turns} model turns", tokens)
