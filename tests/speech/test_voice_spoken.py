"""The voice suite heard: every turn rendered and recognised, clarifying questions answered by voice (ASR and
audio-native through the OpenAI stand-in), several conditions in one run."""

from __future__ import annotations

import asyncio
import base64
import json
import re
from pathlib import Path

import pytest

from benchmark.agents.base import AgentOutcome, AgentStep, AgentTask, ToolCaller
from benchmark.agents.react import ReactAgent
from benchmark.llm.client import LLMClient
from benchmark.suites.voice.conditions import Condition
from benchmark.suites.voice.voice_episode import VoiceEpisode
from benchmark.suites.voice.voice_generate import NUMBERS, generate_voice_episode, lights, percent_level
from benchmark.suites.voice.voice_hearing import Hearing
from benchmark.suites.voice.voice_run import run_voice_episode
from benchmark.suites.voice.wav import sha256
from tests.speech.test_speech_cli import homefabric
from tests.support.openai_standin import OpenAIStandin, finish, oracle_script

pytestmark = pytest.mark.requires("espeak-ng")

CLEAN_ASR = Hearing(input="asr", condition=Condition(), voices="us-joe", seed=1)  # the neural voice: WER 0 clean
WORDS = {word: value for value, word in NUMBERS.items()}


def _episode(task_type: str, variant: str) -> VoiceEpisode:
    return next(e for e in (generate_voice_episode(task_type, seed) for seed in range(1, 300)) if e.variant == variant)


class ListeningAgent:
    """Acts only on what it heard: asks when the words name no device or level, then acts on the spoken reply."""

    name = "listening"
    needs_episode = False  # handed its episode in the constructor, not by the runner

    def __init__(self, episode: VoiceEpisode) -> None:
        self.episode = episode

    async def run(self, task: AgentTask, tools: ToolCaller) -> AgentOutcome:
        heard = re.sub(r"[^a-z0-9% ]", "", task.query.lower())
        here = [p for p in lights(self.episode.home) if p.room == task.user_location]
        named = [p for p in here if p.where.anchor is not None and p.where.anchor in heard]
        level = re.search(r"(\d+)\s*(%|percent)", heard) or next(
            (m for m in (re.search(rf"\b{w}\b", heard) for w in WORDS) if m), None
        )
        gold = task.extras["voice_gold"]["calls"]
        if not gold or (not named and not level):
            tools.call("finish", {"answer": "Which light, and how bright?"})
            return AgentOutcome("Which light, and how bright?", [], "finished")
        call = json.loads(json.dumps(gold[0]))
        if named:
            call["args"]["device_id"] = named[0].device_id  # the device the user's words name
        if level:
            value = level.group(1)
            call["args"]["args"]["level"] = percent_level(int(value) if value.isdigit() else WORDS[value])
        envelope = tools.call(call["tool"], call["args"])
        return AgentOutcome("Done.", [AgentStep(0, None, call["tool"], call["args"], envelope)], "finished")


@pytest.mark.parametrize("variant", ["which_device", "missing_level"])
def test_a_clarifying_question_is_answered_by_voice_through_asr(variant: str) -> None:
    episode = _episode("clarify", variant)
    record = asyncio.run(run_voice_episode(episode, ListeningAgent(episode), CLEAN_ASR))
    assert record["passed"], record
    request, reply = record["turns"]
    assert (request["act"], reply["act"]) == ("clarify", "execute")
    assert reply["said"] == episode.turns[0].reply  # the reply was spoken, rendered and recognised
    assert reply["heard"]["voice"] == request["heard"]["voice"] == "us-joe"  # in the same voice
    assert reply["heard"]["turn"] == 1 and reply["heard"]["sha256"] != request["heard"]["sha256"]
    assert reply["heard"]["asr"]["transcript"] and reply["heard"]["asr"]["wer"] == 0.0
    # the same agent without hearing the answer (no reply spoken) cannot act: the reply decided it
    silent = episode.model_copy(update={"turns": [episode.turns[0].model_copy(update={"reply": None})]})
    assert not asyncio.run(run_voice_episode(silent, ListeningAgent(episode), CLEAN_ASR))["passed"]


def test_every_turn_of_a_dialogue_is_heard() -> None:
    episode = _episode("spatial", "two_requests")
    from benchmark.suites.voice.voice_oracle import VoiceOracleAgent

    record = asyncio.run(run_voice_episode(episode, VoiceOracleAgent(), CLEAN_ASR))
    assert record["passed"] and len(record["turns"]) == 2
    assert [t["heard"]["transcript"] for t in record["turns"]] == [t.text for t in episode.turns]
    assert all(t["heard"]["asr"]["transcript"] for t in record["turns"])
    assert [t["heard"]["room_id"] for t in record["turns"]] == [t.position.room for t in episode.turns]


def test_audio_native_clarification_sends_the_spoken_reply_as_input_audio(tmp_path: Path) -> None:
    episode = _episode("clarify", "which_device")
    question = "Which light do you mean?"
    gold = [(c.tool, c.args) for c in episode.turns[0].gold]
    hearing = Hearing(input="audio", condition=Condition(snr_db=10, reverberant=True), seed=2)

    async def scenario():
        async with OpenAIStandin([finish(question), *oracle_script(gold)]) as server:  # strict about audio parts
            async with LLMClient(server.base_url, None, "standin") as client:
                record = await run_voice_episode(episode, ReactAgent(client, preflight=False), hearing)
            return record, server.chat_requests

    record, requests = asyncio.run(scenario())
    assert record["passed"] and [t["act"] for t in record["turns"]] == ["clarify", "execute"]
    assert all(r.status == 200 for r in requests)
    second = requests[1].body["messages"]  # the reply turn: the dialogue so far, then the spoken reply
    assert [m["role"] for m in second[1:]] == ["user", "assistant", "user"] and second[2]["content"] == question
    text_part, audio_part = second[-1]["content"]
    assert episode.turns[0].reply not in text_part["text"]  # no written reply: only its audio
    wav = base64.b64decode(audio_part["input_audio"]["data"])
    assert (
        sha256(wav) == record["turns"][1]["heard"]["sha256"]
        and record["turns"][1]["heard"]["condition"] == "10db-reverb"
    )


def test_several_conditions_in_one_run_through_the_cli(tmp_path: Path) -> None:
    episodes = tmp_path / "episodes"
    assert (
        homefabric(
            "episodes",
            "generate",
            "--suite",
            "voice",
            "--qt",
            "clarify",
            "--per-type",
            "1",
            "--seed",
            "2",
            "--out",
            str(episodes),
        ).returncode
        == 0
    )
    result = homefabric(
        "bench",
        "run",
        "--suite",
        "voice",
        "--episodes",
        str(episodes),
        "--agent",
        "oracle",
        "--input",
        "asr",
        "--condition",
        "clean-dry",
        "--condition",
        "5db-reverb",
        "--voices",
        "us-joe",
        "--out",
        str(tmp_path / "run"),
        "--json",
    )
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in (tmp_path / "run" / "records.jsonl").read_text().splitlines()]
    assert [r["condition"] for r in records] == ["clean-dry", "5db-reverb"]
    assert all(r["passed"] and r["input"] == "asr" and r["wer"] is not None for r in records)
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert set(report["conditions"]) == {"clean-dry", "5db-reverb"} and report["overall"]["success"] == 1.0
    assert json.loads(result.stdout) == report
    again = homefabric("bench", "report", str(tmp_path / "run"), "--json")
    assert again.returncode == 0 and json.loads(again.stdout) == report
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["conditions"] == ["clean-dry", "5db-reverb"] and manifest["spec"]["input"] == "asr"
    bad = homefabric(
        "bench",
        "run",
        "--suite",
        "voice",
        "--episodes",
        str(episodes),
        "--input",
        "asr",
        "--condition",
        "loud",
        "--out",
        str(tmp_path / "bad"),
    )
    assert bad.returncode == 2 and "unknown condition 'loud'" in bad.stderr and not (tmp_path / "bad").exists()
    again = homefabric(
        "bench",
        "run",
        "--suite",
        "voice",
        "--episodes",
        str(episodes),
        "--resume",
        "--out",
        str(tmp_path / "run"),
        "--json",
    )  # the rest of the spec from the manifest
    assert again.returncode == 0 and "ran 0 episode run(s), kept 2 from before" in again.stderr, again.stderr
    assert json.loads(again.stdout) == report


def test_speech_render_of_voice_episodes_gives_the_bytes_a_run_hears(tmp_path: Path) -> None:
    from benchmark.suites.voice.voice_episode import write_voice_episodes
    from benchmark.suites.voice.voice_oracle import VoiceOracleAgent

    episode = _episode("clarify", "which_device")
    write_voice_episodes([episode], tmp_path / "episodes")
    result = homefabric(
        "speech",
        "render",
        str(tmp_path / "episodes"),
        "--conditions",
        "5db-reverb",
        "--seed",
        "3",
        "--out",
        str(tmp_path / "spoken"),
        "--quiet",
    )
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "spoken" / "manifest.json").read_text())
    assert [t["transcript"] for t in manifest["turns"]] == [episode.turns[0].text, episode.turns[0].reply]
    hearing = Hearing(input="audio", condition=Condition(snr_db=5, reverberant=True), seed=3)
    record = asyncio.run(run_voice_episode(episode, VoiceOracleAgent(), hearing))
    assert [t["heard"]["sha256"] for t in record["turns"]] == [t["sha256"] for t in manifest["turns"]]


def test_a_voice_run_whose_model_is_unreachable_exits_non_zero(tmp_path: Path) -> None:
    episodes = tmp_path / "episodes"
    assert (
        homefabric(
            "episodes", "generate", "--suite", "voice", "--qt", "spatial", "--per-type", "1", "--out", str(episodes)
        ).returncode
        == 0
    )
    result = homefabric(
        "bench",
        "run",
        "--suite",
        "voice",
        "--episodes",
        str(episodes),
        "--agent",
        "react",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "nothing-listens",
        "--out",
        str(tmp_path / "r"),
    )
    assert result.returncode == 1 and "every assistant turn ended in an error" in result.stderr, result.stderr
