"""The agent interface every agent implements and the runner calls.

An agent gets an :class:`AgentTask` (what the user said, where, when, plus optional context that
later benchmarks add: dialogue history, memory) and a :class:`ToolCaller` (the agent tools bound to
one episode's fabric). It returns an :class:`AgentOutcome`: the final answer, every step, token
usage, and how it ended. Agents never touch the fabric directly.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol

EndReason = Literal["finished", "max_steps", "aborted", "infra_error"]


@dataclass(frozen=True)
class AgentTask:
    query: str
    user_location: str
    current_time: str  # "YYYY-MM-DD HH:MM:SS", virtual
    episode_id: str = ""
    # Open for the capabilities that come next (SMH-Bench / MIST): prior turns with executed
    # actions, short/long-term memory, clarification answers. Agents that do not use them ignore them.
    dialogue_history: tuple[dict[str, Any], ...] = ()
    memory: dict[str, Any] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass
class TokenUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0

    def add(self, prompt: int, completion: int) -> None:
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.calls += 1

    def to_dict(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
            "calls": self.calls,
        }


@dataclass
class AgentStep:
    """One turn: what the agent thought and did, and what it observed (the tool envelope)."""

    index: int
    thought: str | None
    tool: str | None
    arguments: dict[str, Any] | None
    observation: Any
    virtual_time: str | None = None
    raw: Any = None  # the raw model output for this turn, when there is one

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "thought": self.thought,
            "tool": self.tool,
            "arguments": self.arguments,
            "observation": self.observation,
            "virtual_time": self.virtual_time,
            "raw": self.raw,
        }


@dataclass
class AgentOutcome:
    final_answer: str | None
    steps: list[AgentStep]
    end_reason: EndReason
    tokens: TokenUsage = field(default_factory=TokenUsage)
    error: str | None = None  # for aborted / infra_error: what happened
    # For aborted: the model's failure in one word (runaway_output, unusable_output, llm_request_error,
    # context_overflow); scored as the model's failure, never as an infrastructure error.
    failure: str | None = None
    mode: str | None = None  # how an LLM agent talked to its model (react: native or text)
    # For LLM agents: the conversation as the model saw it (see :func:`transcript`); None for the others.
    transcript: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        result = {
            "final_answer": self.final_answer,
            "end_reason": self.end_reason,
            "error": self.error,
            "failure": self.failure,
            "mode": self.mode,
            "tokens": self.tokens.to_dict(),
            "steps": [s.to_dict() for s in self.steps],
        }
        if self.transcript is not None:  # absent, not null, for agents without one: their records stay as they were
            result["transcript"] = self.transcript
        return result


TRANSCRIPT_SCHEMA = "homefabric-transcript/1"


def tool_schema_sha256(schemas: Any) -> str:
    """A stable hash of the tool definitions offered (key order and whitespace do not change it), so runs
    can be told apart by the exact tool interface their model saw."""
    canonical = json.dumps(schemas, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def transcript(messages: list[dict[str, Any]], schemas: list[dict[str, Any]]) -> dict[str, Any]:
    """The full conversation of an episode: the system prompt, every message after it (in order, as sent
    or received) and which tools were offered (names and the schema hash)."""
    system = [m.get("content") for m in messages[:1] if m.get("role") == "system"]
    return {
        "schema": TRANSCRIPT_SCHEMA,
        "system_prompt": system[0] if system else None,
        "messages": [dict(m) for m in messages[len(system) :]],
        "tool_names": [(s.get("function") or s).get("name") for s in schemas],
        "tool_schema_sha256": tool_schema_sha256(schemas),
    }


class ToolCaller(Protocol):
    """The agent tools of one episode (implemented by agent_tools.ToolBox)."""

    def call(self, name: str, arguments: Any) -> dict[str, Any]:
        """Run one tool; always returns the envelope {status:{code,message}, data, error}."""
        ...

    def schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-calling tool definitions (type "function") of the tools offered."""
        ...

    def names(self) -> list[str]: ...


class Agent(Protocol):
    # Read-only (what the runner reads): AgentBase's subclasses declare them as class variables.
    @property
    def name(self) -> str: ...
    @property
    def needs_episode(self) -> bool: ...  # privileged: handed the episode (its ground truth) in task.extras

    async def run(self, task: AgentTask, tools: ToolCaller) -> AgentOutcome: ...


class AgentBase:
    """The base of the benchmark's agents. Each one declares in its class, checked when the class is made, its
    ``name`` and whether it is privileged (``needs_episode``: the runner hands it the episode, ground truth
    included — the oracle). Access to the answers is a declaration, never inferred from a missing attribute."""

    name: ClassVar[str]
    needs_episode: ClassVar[bool]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name, privileged = getattr(cls, "name", None), getattr(cls, "needs_episode", None)
        if not isinstance(name, str) or not name:
            raise TypeError(f"{cls.__name__}: an agent declares its name, a non-empty string (got {name!r})")
        if not isinstance(privileged, bool):
            raise TypeError(
                f"{cls.__name__}: an agent declares needs_episode = True (privileged: it is handed the "
                f"episode with its ground truth) or False (got {privileged!r})"
            )
