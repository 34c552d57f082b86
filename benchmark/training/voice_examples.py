"""Voice examples: MIST-style spoken dialogues, each user turn rendered as audio in every asked condition.

Episode n of a task type (seed·1000 + n, as ``episodes generate --suite voice`` numbers them) is run by the voice
suite's oracle (text input) with each tool call and its result recorded per turn; then every spoken user turn
(requests and clarification replies, in spoken order) is rendered as the suite renders it, once per condition.
One example per (episode, condition).

Voices are held out by split: the pool is partitioned once per seed (one voice for test, one for validation, the
rest for training; :func:`voice_split`), an episode's split is planned from its home before the speaker is drawn
(:func:`planned_split`), and the speaker comes from that split's part of the pool. The split rule then sees the
voice as a key pinned to its split (benchmark.training.splits), so no voice is heard in two splits.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
from typing import Any

from benchmark.agents.base import AgentOutcome, AgentTask
from benchmark.training.canonical import sha256_of
from benchmark.training.examples import GoldToolCall, RecordingTools, TrainingExample, chat_messages
from benchmark.training.spec import SPLITS


class RecordingVoiceOracle:
    """The voice oracle, each turn's task and tool calls recorded."""

    name = "oracle"
    needs_episode = True

    def __init__(self) -> None:
        self.calls: list[GoldToolCall] = []
        self.tasks: list[AgentTask] = []

    async def run(self, task: AgentTask, tools: Any) -> AgentOutcome:
        from benchmark.suites.voice.voice_oracle import VoiceOracleAgent

        self.tasks.append(task)
        recorder = RecordingTools(tools, self.calls, turn=len(self.tasks) - 1)
        return await VoiceOracleAgent().run(task, recorder)


def _point(*parts: object) -> float:
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def voice_split(seed: int) -> dict[str, str]:
    """Voice id → split: the voices ordered by a seeded hash; the first is test's, the second validation's."""
    from benchmark.suites.voice.voices import VOICES

    ordered = sorted(VOICES, key=lambda voice: _point("homefabric-voice-split/1", seed, voice))
    return {
        voice: "test" if rank == 0 else "validation" if rank == 1 else "train" for rank, voice in enumerate(ordered)
    }


def planned_split(seed: int, home_key: str, shares: dict[str, float]) -> str:
    point, cumulative = _point("homefabric-voice-plan/1", seed, home_key), 0.0
    for split in SPLITS:
        cumulative += shares[split]
        if point < cumulative:
            return split
    return SPLITS[-1]


def voice_examples(
    seed: int, task_type: str, index: int, conditions: str, shares: dict[str, float]
) -> list[TrainingExample]:
    from benchmark.agents.prompts import first_messages
    from benchmark.suites.voice.conditions import parse_conditions
    from benchmark.suites.voice.voice_generate import generate_voice_episode
    from benchmark.suites.voice.voice_hearing import Hearing, render_voice_episode
    from benchmark.suites.voice.voice_run import TOOL_PROFILE, run_voice_episode
    from benchmark.suites.voice.voices import VOICES
    from benchmark.training.examples import profile_schemas

    episode = generate_voice_episode(task_type, seed * 1000 + index)
    home = episode.home.model_dump(mode="json", by_alias=True, exclude_none=True)
    split = planned_split(seed, f"home:{sha256_of(home)}", shares)
    voices = voice_split(seed)
    pool = tuple(VOICES[v] for v in sorted(VOICES) if voices[v] == split)
    oracle = RecordingVoiceOracle()
    record = asyncio.run(run_voice_episode(episode, oracle, Hearing(input="text")))
    schemas = profile_schemas(TOOL_PROFILE)
    messages = first_messages(oracle.tasks[0], "native", schemas)
    for turn, task in enumerate(oracle.tasks):
        if turn:
            messages.append({"role": "user", "content": task.query})
        messages = chat_messages(messages, [c for c in oracle.calls if c.turn == turn])
    examples = []
    for condition in parse_conditions(conditions):
        rendered = render_voice_episode(episode, seed=seed, conditions=[condition], pool=pool)
        turns: list[dict[str, Any]] = []
        for (meta, wav), task, said in zip(rendered, oracle.tasks, record["turns"], strict=True):
            turns.append(
                {
                    "role": "user",
                    "text": task.query,
                    "condition": meta.condition,
                    "voice": meta.voice,
                    "audio": {
                        "path": f"{episode.episode_id}_{meta.turn}_{meta.condition}.wav",
                        "base64": base64.b64encode(wav).decode("ascii"),
                    },
                    "duration_s": meta.duration_s,
                }
            )
            turns.append(
                {
                    "role": "assistant",
                    "text": said["answer"],
                    "condition": None,
                    "voice": None,
                    "audio": None,
                    "duration_s": None,
                }
            )
        examples.append(
            TrainingExample(
                example_id=f"voice/{episode.episode_id}/{condition.id}",
                suite="voice",
                kind=task_type,
                episode_seed=episode.seed,
                home=home,
                user_location=episode.turns[0].position.room,
                current_time=oracle.tasks[0].current_time,
                turns=turns,
                gold_tool_calls=list(oracle.calls),
                final_state_checks={
                    "checks": [c.model_dump(mode="json") for c in episode.checks],
                    "preserve": [c.model_dump(mode="json") for c in episode.preserve],
                },
                oracle_passed=bool(record["passed"]),
                templates=[],
                messages=messages,
                tools=schemas,
                voices=sorted({t["voice"] for t in turns if t["voice"]}),
            )
        )
    return examples
