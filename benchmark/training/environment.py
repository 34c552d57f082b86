"""``homefabric/SmartHome-v0``: the benchmark's episodes as a Gymnasium environment with verifiable rewards.

- ``reset(seed=s, options=...)`` generates the episode for ``s`` (its kind drawn from ``kinds``, its episode seed
  from the env's seeded generator; ``options={"episode": <episode dict>}`` or ``{"kind": "qt3_feasible"}`` picks
  one) on a fresh home. The observation is JSON text (ASCII, ``\\u`` escapes) ``{"messages": [...], "tools":
  [...]}``: the conversation so far in the chat format of the training data (system prompt, the user's request,
  the assistant's tool calls and each tool's result) and the tool schemas of the profile.
- ``step(action)``: the action is the assistant's next message as text: JSON ``{"content": ..., "tool_calls":
  [{"id", "type": "function", "function": {"name", "arguments"}}]}`` runs those tools on the home; anything else
  (JSON with no tool calls, or plain text) is the final answer. A ``finish`` call or a final answer ends the
  episode (``terminated``); the ``max_steps``-th message without one ends it ``truncated``.
- Reward (``reward_shaping="none"``, the default: sparse): 1.0 when the episode's verifier (the benchmark's
  evaluator, rules judge) passes it, else 0.0, given on the last step; every other step gives 0.0.
- ``reward_shaping="progress"``: potential-based shaping (Ng, Harada & Russell 1999, undiscounted). The episode's
  progress items are its required actions (a call of that tool with those parameters, as the verifier matches
  them) and, for final-state episodes (qt3 feasible), each target device's final-state check; the potential is
  ``PROGRESS_WEIGHT`` (0.5) × the share of items satisfied now that were not at ``reset``. A step's reward is the
  change of the potential, so each newly satisfied item earns a small reward (and one undone costs it back); the
  last step adds the sparse reward minus the potential reached. An episode's rewards therefore always sum to its
  sparse reward (up to float rounding): 1.0 for a passing episode, 0.0 otherwise; shaping only moves credit to the
  steps that made progress. Episodes with no items (qt1, the judge-scored kinds) are sparse either way.

Same seed and same actions → the same observations and rewards. ``gymnasium.make_vec(..., vectorization_mode=
"sync")`` vectorises it. Gymnasium 1.x no longer loads the ``gymnasium.envs`` entry points (0.26–0.29 did), so
import this module (or use the id ``"benchmark.training.environment:homefabric/SmartHome-v0"``) before ``make``.
"""

from __future__ import annotations

import asyncio
import json
import string
from typing import Any, SupportsFloat

import gymnasium
from gymnasium import spaces

ENV_ID = "homefabric/SmartHome-v0"
OBSERVATION_MAX_CHARS = 2_000_000
ACTION_MAX_CHARS = 200_000
CHARSET = frozenset(string.printable)
DEFAULT_MAX_STEPS = 50
REWARD_SHAPINGS = ("none", "progress")
PROGRESS_WEIGHT = 0.5  # the most the shaped steps before the last can earn together
EPISODE_SEEDS = 999  # episode n of a kind, n in 1..999 (seed·1000 + n, as `episodes generate` numbers them)


def ascii_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)


class SmartHomeEnv(gymnasium.Env[str, str]):
    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        kinds: str = "all",
        max_steps: int = DEFAULT_MAX_STEPS,
        profile: str = "simuhome",
        base_seed: int = 1,
        render_mode: str | None = None,
        reward_shaping: str = "none",
    ) -> None:
        from benchmark.generation.generate import parse_kinds

        if max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, got {max_steps}")
        if reward_shaping not in REWARD_SHAPINGS:
            raise ValueError(f"reward_shaping {reward_shaping!r} is not known; allowed: {', '.join(REWARD_SHAPINGS)}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r} is not known; allowed: None, 'ansi'")
        self.kinds = [f"{qt}_{case}" for qt, case in parse_kinds(kinds)]
        self.max_steps = max_steps
        self.profile = profile
        self.base_seed = base_seed
        self.render_mode = render_mode
        self.reward_shaping = reward_shaping
        self.observation_space = spaces.Text(OBSERVATION_MAX_CHARS, min_length=0, charset=CHARSET)
        self.action_space = spaces.Text(ACTION_MAX_CHARS, min_length=0, charset=CHARSET)
        self.episode: Any = None
        self._episode_dict: dict[str, Any] = {}
        self._fabric: Any = None
        self._toolbox: Any = None
        self._before: dict[str, Any] = {}
        self._messages: list[dict[str, Any]] = []
        self._tools: list[dict[str, Any]] = []
        self._steps: list[Any] = []
        self._turns = 0
        self._done = True
        self._satisfied_at_reset: list[bool] = []
        self._potential = 0.0

    # --- gymnasium ------------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        from agent_tools.toolbox import ToolBox
        from benchmark.agents.base import AgentTask
        from benchmark.agents.prompts import first_messages
        from benchmark.scoring.evaluators.state_comparison import fresh_fabric
        from benchmark.suites.simuhome.episode import parse_episode
        from benchmark.training.examples import profile_schemas

        super().reset(seed=seed)
        options = options or {}
        raw = options.get("episode")
        if raw is None:
            raw = self._generate(options.get("kind"))
        self._episode_dict = raw
        self.episode = parse_episode(raw, check_home=False)
        self._fabric = fresh_fabric(self.episode.initial_home_config)
        self._toolbox = ToolBox(self._fabric, profile=self.profile)
        self._before = self._fabric.snapshot()
        task = AgentTask(
            query=self.episode.query,
            user_location=self.episode.user_location,
            current_time=self._fabric.now_text(),
            episode_id=self.episode.episode_id,
        )
        self._tools = profile_schemas(self.profile)
        self._messages = first_messages(task, "native", self._tools)
        self._steps = []
        self._turns = 0
        self._done = False
        self._satisfied_at_reset = self._progress_items() if self.reward_shaping == "progress" else []
        self._potential = 0.0
        return self._observation(), {"episode_id": self.episode.episode_id, "kind": self.episode.kind}

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("the episode has ended; call reset() before step()")
        self._turns += 1
        message = parse_action(action)
        finished = False
        if message.get("tool_calls"):
            self._messages.append(message)
            for call in message["tool_calls"]:
                finished = self._run_call(call) or finished
        else:
            answer = str(message.get("content") or "")
            self._messages.append({"role": "assistant", "content": answer})
            self._call("finish", {"answer": answer}, None)
            finished = True
        truncated = not finished and self._turns >= self.max_steps
        reward = self._shaped_step() if self.reward_shaping == "progress" else 0.0
        info: dict[str, Any] = {"episode_id": self.episode.episode_id, "steps": self._turns}
        if finished or truncated:
            self._done = True
            verdict = self._verdict("finished" if finished else "max_steps")
            reward += (1.0 if verdict.passed else 0.0) - self._potential  # the potential ends at 0
            info["verdict"] = verdict.model_dump(mode="json")
        return self._observation(), reward, finished, truncated, info

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return "\n".join(
            f"{m['role']}: {m.get('content') or ''} {ascii_json(m.get('tool_calls') or [])}" for m in self._messages[1:]
        )

    # --- inside ---------------------------------------------------------------------------------------------
    def _generate(self, kind: str | None) -> dict[str, Any]:
        from benchmark.generation.generate import episode_seed, generate_episode

        if kind is None:
            kind = self.kinds[int(self.np_random.integers(len(self.kinds)))]
        elif kind not in self.kinds:
            raise ValueError(f"options kind {kind!r} is not one of this env's kinds: {', '.join(self.kinds)}")
        index = int(self.np_random.integers(1, EPISODE_SEEDS + 1))
        qt, case = kind.rsplit("_", 1)
        return generate_episode(qt, case, episode_seed(self.base_seed, index), base_seed=self.base_seed)

    def _run_call(self, call: Any) -> bool:
        """Run one tool call of the assistant's message; True when it was ``finish``."""
        from benchmark.agents.prompts import observation_text

        function = call.get("function") if isinstance(call, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        call_id = str(call.get("id") or f"call_{len(self._steps)}") if isinstance(call, dict) else "call_?"
        try:
            arguments = json.loads(function.get("arguments") or "{}") if isinstance(function, dict) else None
        except (TypeError, ValueError):
            arguments = None
        envelope = self._call(str(name), arguments, None)
        self._messages.append({"role": "tool", "tool_call_id": call_id, "content": observation_text(envelope)})
        return name == "finish"

    def _call(self, name: str, arguments: Any, thought: str | None) -> dict[str, Any]:
        from benchmark.agents.base import AgentStep

        envelope: dict[str, Any] = self._toolbox.call(name, arguments)
        self._steps.append(
            AgentStep(len(self._steps), thought, name, arguments, envelope, virtual_time=self._fabric.now_text())
        )
        return envelope

    def _progress_items(self) -> list[bool]:
        """Whether each progress item holds now: each required action invoked, then (final-state episodes) each
        target's final-state check — as the verifier matches them, without advancing the home."""
        from benchmark.scoring.evaluators.checks import final_state_checks
        from benchmark.scoring.evaluators.evaluate import method_for
        from benchmark.scoring.evaluators.state_comparison import match_required_actions

        items = [r["invoked"] for r in match_required_actions(self.episode.required_actions, self._toolbox.invocations)]
        if method_for(self.episode) == "final_state":
            items += [check["ok"] for check in final_state_checks(self._fabric, self.episode.goals)[1]]
        return items

    def _shaped_step(self) -> float:
        """The change of the potential: PROGRESS_WEIGHT × the share of items newly satisfied since reset."""
        now = self._progress_items()
        if not now:
            return 0.0
        gained = sum(1 for held, was in zip(now, self._satisfied_at_reset, strict=True) if held and not was)
        potential = PROGRESS_WEIGHT * gained / len(now)
        change, self._potential = potential - self._potential, potential
        return change

    def _verdict(self, end_reason: str) -> Any:
        from benchmark.scoring.evaluators.evaluate import EvaluationInput, evaluate_episode
        from benchmark.scoring.judges.rules import RulesJudge

        after = self._fabric.snapshot()
        data = EvaluationInput(
            self.episode,
            self._fabric,
            self._before,
            after,
            self._toolbox.invocations,
            self._toolbox.final_answer,
            [s.to_dict() for s in self._steps],
            end_reason,
        )
        return asyncio.run(evaluate_episode(data, RulesJudge()))

    def _observation(self) -> str:
        return ascii_json({"messages": self._messages, "tools": self._tools})


def parse_action(action: str) -> dict[str, Any]:
    """The assistant message an action stands for: JSON with ``tool_calls`` as given; other JSON objects by their
    ``content``; anything else is the text of a final answer."""
    try:
        value = json.loads(action)
    except (TypeError, ValueError):
        return {"role": "assistant", "content": str(action)}
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list) and value["tool_calls"]:
        return {"role": "assistant", "content": value.get("content"), "tool_calls": value["tool_calls"]}
    if isinstance(value, dict):
        return {"role": "assistant", "content": value.get("content")}
    return {"role": "assistant", "content": str(action)}


def register_environments() -> None:
    """Register ``homefabric/SmartHome-v0`` (idempotent; also the ``gymnasium.envs`` entry point)."""
    if ENV_ID not in gymnasium.envs.registry:
        gymnasium.register(ENV_ID, entry_point="benchmark.training.environment:SmartHomeEnv")


register_environments()
