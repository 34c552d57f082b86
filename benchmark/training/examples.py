"""One training example: a generated episode solved by the oracle through the agent tools.

An example holds the home, the dialogue turns, the oracle's tool calls with what they returned (the gold
trajectory), the final-state checks (the episode's ``eval`` block), the templates the query was expanded from
(for the split rule) and the conversation in the chat format the ReAct agent sees in native mode (system prompt,
the user's request, one assistant message per tool call, each tool's result). It is plain JSON-ready data, so a
unit of examples travels between processes (Ray) and back unchanged.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass, field
from typing import Any

from benchmark.training.canonical import canonical_json, sha256_of
from benchmark.training.spec import DatasetSpec


@dataclass(frozen=True)
class GoldToolCall:
    """One tool call of the oracle's run, its arguments and the envelope it got back."""

    index: int
    turn: int  # the user turn it answers (0: the only turn of a SimuHome episode)
    tool: str
    arguments: dict[str, Any]
    result: dict[str, Any]
    thought: str | None


@dataclass(frozen=True)
class TrainingExample:
    example_id: str
    suite: str
    kind: str
    episode_seed: int
    home: dict[str, Any]
    user_location: str
    current_time: str
    turns: list[dict[str, Any]]  # {"role": "user"|"assistant", "text": ...} (+ condition, voice, audio: voice)
    gold_tool_calls: list[GoldToolCall]
    final_state_checks: dict[str, Any]
    oracle_passed: bool
    templates: list[str]
    messages: list[dict[str, Any]]  # OpenAI chat format, tool calls included
    tools: list[dict[str, Any]]  # the profile's function schemas
    voices: list[str] = field(default_factory=list)  # spoken examples: the speakers heard

    @property
    def home_sha256(self) -> str:
        return sha256_of(self.home)

    @property
    def template_key(self) -> str:
        """The query's template: the ordered grammar templates it was expanded from (see benchmark.training.splits)."""
        return sha256_of(self.templates)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainingExample:
        calls = [GoldToolCall(**call) for call in data["gold_tool_calls"]]
        return cls(**{**data, "gold_tool_calls": calls})


class RecordingTools:
    """An oracle's tool caller seen through a recorder: each call and the envelope it got, as gold tool calls of
    ``turn``, appended to ``calls`` (shared across the turns of a dialogue)."""

    def __init__(self, tools: Any, calls: list[GoldToolCall], turn: int = 0) -> None:
        self.tools, self.calls, self.turn = tools, calls, turn

    def call(self, name: str, arguments: Any = None) -> dict[str, Any]:
        envelope: dict[str, Any] = self.tools.call(name, arguments)
        self.calls.append(
            GoldToolCall(
                index=len(self.calls),
                turn=self.turn,
                tool=name,
                arguments=dict(arguments or {}),
                result=envelope,
                thought=None,
            )
        )
        return envelope

    def schemas(self) -> list[dict[str, Any]]:
        schemas: list[dict[str, Any]] = self.tools.schemas()
        return schemas

    def names(self) -> list[str]:
        names: list[str] = self.tools.names()
        return names


def chat_messages(system_and_user: list[dict[str, Any]], calls: list[GoldToolCall]) -> list[dict[str, Any]]:
    """The conversation as OpenAI's fine-tuning format writes it: each oracle step an assistant message with one
    tool call (its thought as content), each result a ``tool`` message; ``finish`` ends it (no result after)."""
    from benchmark.agents.prompts import observation_text

    messages = [dict(message) for message in system_and_user]
    for call in calls:
        call_id = f"call_{call.index}"
        function = {"name": call.tool, "arguments": canonical_json(call.arguments)}
        messages.append(
            {
                "role": "assistant",
                "content": call.thought,
                "tool_calls": [{"id": call_id, "type": "function", "function": function}],
            }
        )
        if call.tool != "finish":
            messages.append({"role": "tool", "tool_call_id": call_id, "content": observation_text(call.result)})
    return messages


def simuhome_example(spec: DatasetSpec, kind: str, index: int) -> TrainingExample:
    """Episode ``index`` of ``kind`` (seed = spec.seed·1000 + index, as ``episodes generate`` numbers them), solved
    by the oracle on a fresh home; its templates recorded while it is generated."""
    from benchmark.agents.base import AgentTask
    from benchmark.agents.oracle import OracleAgent
    from benchmark.agents.prompts import first_messages
    from benchmark.generation.generate import episode_seed, generate_episode
    from benchmark.generation.grammar import PICKED_TEMPLATES
    from benchmark.runs.runner import run_episode
    from benchmark.runs.spec import RunSpec
    from benchmark.scoring.judges.rules import RulesJudge
    from benchmark.suites.simuhome.episode import parse_episode

    qt, case = kind.rsplit("_", 1)
    seed = episode_seed(spec.seed, index)
    picked: list[str] = []
    token = PICKED_TEMPLATES.set(picked)
    try:
        raw = generate_episode(qt, case, seed, base_seed=spec.seed)
    finally:
        PICKED_TEMPLATES.reset(token)
    episode = parse_episode(raw, check_home=False)
    run_spec = RunSpec.model_validate(
        {"episodes": {"path": "."}, "agent": {"name": "oracle"}, "tools": {"profile": spec.profile}}
    )
    record = asyncio.run(run_episode(episode, 0, OracleAgent(), RulesJudge(), run_spec)).to_dict()
    steps = record["outcome"]["steps"]
    calls = [
        GoldToolCall(
            index=step["index"],
            turn=0,
            tool=step["tool"],
            arguments=step["arguments"] or {},
            result=step["observation"],
            thought=step["thought"],
        )
        for step in steps
    ]
    start_time = steps[0]["virtual_time"] if steps and steps[0].get("virtual_time") else episode.base_time
    schemas = profile_schemas(spec.profile)
    task = AgentTask(
        query=episode.query, user_location=episode.user_location, current_time=start_time, episode_id=episode.episode_id
    )
    answer = record.get("final_answer") or ""
    return TrainingExample(
        example_id=f"simuhome/{episode.episode_id}",
        suite="simuhome",
        kind=kind,
        episode_seed=seed,
        home=episode.initial_home_config,
        user_location=episode.user_location,
        current_time=start_time,
        turns=[{"role": "user", "text": episode.query}, {"role": "assistant", "text": answer}],
        gold_tool_calls=calls,
        final_state_checks=raw["eval"],
        oracle_passed=record["status"] == "passed",
        templates=picked,
        messages=chat_messages(first_messages(task, "native", schemas), calls),
        tools=schemas,
    )


def profile_schemas(profile: str) -> list[dict[str, Any]]:
    """The OpenAI function schemas of a tool profile (they do not depend on the home)."""
    from agent_tools.toolbox import TOOL_PROFILES, ToolBox

    return [ToolBox.tools[name].schema("openai") for name in TOOL_PROFILES[profile]]
