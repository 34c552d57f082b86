"""The two ways in (ASR cascade, audio-native) through the real runner: same episodes, same scoring."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import pytest

from benchmark.agents.react import ReactAgent
from benchmark.llm.client import LLMClient
from benchmark.runs.runner import Runner, read_records
from benchmark.runs.spec import SpecError, parse_spec
from benchmark.suites.simuhome.episode import load_episode
from benchmark.suites.voice.audio_input import input_audio_part
from benchmark.suites.voice.wav import encode_wav, sha256
from tests.benchmark.fixture_episodes import EPISODE_DIR
from tests.support.openai_standin import OpenAIStandin, conversation_problem, oracle_script

pytestmark = pytest.mark.requires("espeak-ng")

KINDS = ["qt3_feasible", "qt1_feasible"]


def spec_for(agent: dict, speech: dict | None = None, **extra):
    data = {"episodes": {"path": str(EPISODE_DIR), "kinds": KINDS}, "agent": agent, "concurrency": 2, **extra}
    if speech is not None:
        data["speech"] = speech
    return parse_spec(data)


def run(spec, out: Path, agent=None) -> list[dict]:
    asyncio.run(Runner(spec, out, progress=False, agent=agent).run())
    return sorted(read_records(out / "records.jsonl")[0], key=lambda r: r["episode_id"])


def test_text_asr_and_audio_runs_score_identically_and_say_which_way_in(tmp_path: Path) -> None:
    oracle = {"name": "oracle"}
    text = run(spec_for(oracle), tmp_path / "text")
    asr = run(spec_for(oracle, {"input": "asr", "condition": "10db-reverb"}), tmp_path / "asr")
    audio = run(spec_for(oracle, {"input": "audio", "condition": "10db-reverb"}), tmp_path / "audio")
    assert len(text) == len(asr) == len(audio) == 3
    for t, a, v in zip(text, asr, audio, strict=True):
        assert (t["input"], a["input"], v["input"]) == ("text", "asr", "audio")
        assert t["verdict"] == a["verdict"] == v["verdict"]  # the oracle acts on the gold: scoring unchanged
        assert "speech" not in t
        assert a["speech"]["sha256"] == v["speech"]["sha256"]  # the same rendered turn both ways
        assert a["speech"]["condition"] == "10db-reverb" and a["speech"]["transcript"] == t["query"]
        assert a["speech"]["asr"]["model"] == "whisper-tiny.en"
        assert a["speech"]["asr"]["wer"] >= 0.0 and a["speech"]["asr"]["transcript"]
        assert "asr" not in v["speech"]


def test_the_audio_native_path_sends_valid_input_audio_parts_to_the_standin(tmp_path: Path) -> None:
    episode = load_episode(EPISODE_DIR / "qt3_feasible_seed_7.json")
    ids = {"path": str(EPISODE_DIR), "ids": [episode.episode_id]}
    [gold] = run(spec_for({"name": "oracle"}, episodes=ids), tmp_path / "oracle")
    script = oracle_script([i for i in gold["invocations"] if i["tool"] != "finish"], answer="Done.")
    spec = spec_for(
        {"name": "react", "model": {"base_url": "http://127.0.0.1:1/v1", "model": "standin"}},
        {"input": "audio", "condition": "5db-dry"},
        episodes=ids,
    )

    async def scenario():
        async with OpenAIStandin(script) as server:  # strict: it refuses a malformed audio part with a 400
            async with LLMClient(server.base_url, None, "standin") as client:
                await Runner(spec, tmp_path / "run", progress=False, agent=ReactAgent(client, preflight=False)).run()
            return server.chat_requests

    requests = asyncio.run(scenario())
    [record] = read_records(tmp_path / "run" / "records.jsonl")[0]
    assert record["status"] == "passed" and record["input"] == "audio"
    assert all(r.status == 200 for r in requests)
    user = next(m for m in requests[0].body["messages"] if m["role"] == "user")
    text_part, audio_part = user["content"]
    assert text_part["type"] == "text" and episode.query not in text_part["text"]  # no written request
    assert audio_part["type"] == "input_audio" and audio_part["input_audio"]["format"] == "wav"
    wav = base64.b64decode(audio_part["input_audio"]["data"])
    assert sha256(wav) == record["speech"]["sha256"] and wav[:4] == b"RIFF"


@pytest.mark.parametrize(
    ("part", "problem"),
    [
        ({"type": "input_audio", "input_audio": {"data": "%%%", "format": "wav"}}, "not valid base64"),
        ({"type": "input_audio", "input_audio": {"data": "AAAA", "format": "flac"}}, "format 'flac'; allowed: wav"),
        (
            {"type": "input_audio", "input_audio": {"data": base64.b64encode(b"RIFFjunk").decode(), "format": "wav"}},
            "not a PCM WAV",
        ),
        ({"type": "image_url", "image_url": {"url": "x"}}, "not a text or input_audio part"),
    ],
)
def test_the_standin_refuses_malformed_audio_parts(part: dict, problem: str) -> None:
    assert problem in _problem([{"role": "user", "content": [{"type": "text", "text": "hi"}, part]}])


def test_the_standin_refuses_audio_at_another_rate() -> None:
    import io
    import wave

    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\0\0" * 800)
    part = {
        "type": "input_audio",
        "input_audio": {"data": base64.b64encode(buffer.getvalue()).decode(), "format": "wav"},
    }
    assert "8000 Hz; allowed: 1 channel, 16-bit, 16000 Hz" in _problem([{"role": "user", "content": [part]}])
    import numpy as np

    assert conversation_problem([{"role": "user", "content": [input_audio_part(encode_wav(np.zeros(160)))]}]) is None


def test_a_text_run_keeps_its_spec_hash_and_bad_speech_settings_are_refused() -> None:
    plain = spec_for({"name": "oracle"})
    assert "speech" not in json.loads(plain.canonical_json())
    assert spec_for({"name": "oracle"}, {"input": "asr"}).sha256() != plain.sha256()
    with pytest.raises(SpecError, match=r"speech\.input"):
        spec_for({"name": "oracle"}, {"input": "microphone"})
    with pytest.raises(SpecError, match=r"unknown ASR model 'large-v3'"):
        spec_for({"name": "oracle"}, {"input": "asr", "asr": "large-v3"})


def test_every_user_turn_of_an_episode_is_heard_not_only_the_first(tmp_path: Path) -> None:
    source = json.loads((EPISODE_DIR / "qt3_feasible_seed_7.json").read_text())
    turns = [source["query"], "and that is all for now thank you"]
    (tmp_path / "episodes").mkdir()
    (tmp_path / "episodes" / "qt3_feasible_seed_7.json").write_text(json.dumps({**source, "user_turns": turns}))
    episodes = {"path": str(tmp_path / "episodes")}
    [asr] = run(spec_for({"name": "oracle"}, {"input": "asr", "voices": "us-joe"}, episodes=episodes), tmp_path / "a")
    assert asr["status"] == "passed"
    assert [t["transcript"] for t in asr["speech"]["turns"]] == turns
    assert [t["turn"] for t in asr["speech"]["turns"]] == [0, 1]
    heard = [t["asr"]["transcript"] for t in asr["speech"]["turns"]]
    assert asr["query"] == source["query"] and asr["speech"]["asr"]["transcript"] == "\n".join(heard)
    assert "thank you" in heard[1].lower()
    [audio] = run(
        spec_for({"name": "oracle"}, {"input": "audio", "voices": "us-joe"}, episodes=episodes), tmp_path / "v"
    )
    one_turn = sum(t["duration_s"] for t in audio["speech"]["turns"])
    assert audio["speech"]["duration_s"] > one_turn  # both turns and the pause between them, in one recording


def test_several_conditions_in_one_bench_run(tmp_path: Path) -> None:
    from tests.speech.test_speech_cli import homefabric

    out = tmp_path / "run"
    result = homefabric(
        "bench",
        "run",
        "--agent",
        "oracle",
        "--episodes",
        str(EPISODE_DIR),
        "--kinds",
        "qt3_feasible",
        "--limit",
        "1",
        "--input",
        "asr",
        "--condition",
        "clean-dry",
        "--condition",
        "10db-reverb",
        "--voices",
        "us-joe",
        "--out",
        str(out),
        "--quiet",
    )
    assert result.returncode == 0, result.stderr
    for condition in ("clean-dry", "10db-reverb"):
        [record] = read_records(out / condition / "records.jsonl")[0]
        assert record["status"] == "passed" and record["speech"]["condition"] == condition
    assert "asr    10db-reverb" in result.stdout and "asr    clean-dry" in result.stdout
    text = homefabric(
        "bench",
        "run",
        "--agent",
        "oracle",
        "--episodes",
        str(EPISODE_DIR),
        "--limit",
        "1",
        "--condition",
        "grid",
        "--out",
        str(tmp_path / "text"),
    )
    assert text.returncode == 2 and "need --input asr or audio" in text.stderr
    assert not (tmp_path / "text" / "records.jsonl").exists()


def _problem(messages: list[dict[str, Any]]) -> str:
    """The stand-in's refusal of a conversation that must be refused."""
    problem = conversation_problem(messages)
    assert problem is not None, messages
    return problem
