"""Policies for ``homefabric/SmartHome-v0`` and the thin adapter for text-in/text-out trainers.

- :class:`OraclePolicy`: the benchmark's oracle, run on its own fresh copy of the episode's home, replayed one
  tool call per step (privileged: it reads the env's episode). It earns the full reward.
- :func:`null_action`: the null agent's answer ("OK."), which earns none.
- :func:`text_policy`: wraps ``fn(messages, tools) -> str`` (a model call that returns the assistant's reply as
  text: a JSON message with ``tool_calls`` or a plain answer) into ``observation text -> action text``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import gymnasium

from benchmark.training.environment import SmartHomeEnv, ascii_json


class OraclePolicy:
    def __init__(self, env: SmartHomeEnv) -> None:
        self.env = env
        self._episode_id: str | None = None
        self._actions: list[str] = []

    def __call__(self, observation: str) -> str:
        episode = self.env.episode
        if episode.episode_id != self._episode_id or not self._actions:
            self._episode_id = episode.episode_id
            self._actions = oracle_actions(self.env)
        return self._actions.pop(0)


def oracle_actions(env: SmartHomeEnv) -> list[str]:
    """The oracle's run of the env's episode, one assistant message (one tool call) per action."""
    from agent_tools.toolbox import ToolBox
    from benchmark.agents.base import AgentTask
    from benchmark.agents.oracle import OracleAgent
    from benchmark.scoring.evaluators.state_comparison import fresh_fabric

    fabric = fresh_fabric(env.episode.initial_home_config)
    task = AgentTask(
        query=env.episode.query,
        user_location=env.episode.user_location,
        current_time=fabric.now_text(),
        episode_id=env.episode.episode_id,
        extras={"episode": env.episode},
    )
    outcome = asyncio.run(OracleAgent().run(task, ToolBox(fabric, profile=env.profile)))
    return [
        ascii_json(
            {
                "content": step.thought,
                "tool_calls": [
                    {
                        "id": f"call_{step.index}",
                        "type": "function",
                        "function": {"name": step.tool, "arguments": json.dumps(step.arguments or {}, sort_keys=True)},
                    }
                ],
            }
        )
        for step in outcome.steps
    ]


def null_action(_observation: str) -> str:
    from benchmark.agents.null import NULL_ANSWER

    return NULL_ANSWER


def text_policy(fn: Callable[[list[dict[str, Any]], list[dict[str, Any]]], str]) -> Callable[[str], str]:
    """``fn(messages, tools) -> reply text`` as an env policy (observation text in, action text out)."""

    def act(observation: str) -> str:
        state = json.loads(observation)
        return fn(state["messages"], state["tools"])

    return act


def rollout(
    env: gymnasium.Env[str, str],
    policy: Callable[[str], str],
    *,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
) -> tuple[float, int]:
    """One episode with ``policy``: (total reward, steps)."""
    observation, _info = env.reset(seed=seed, options=options)
    total, steps = 0.0, 0
    while True:
        observation, reward, terminated, truncated, _info = env.step(policy(observation))
        total += float(reward)
        steps += 1
        if terminated or truncated:
            return total, steps
