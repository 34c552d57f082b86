"""Rendering episodes to speech: 16 kHz mono WAVs, seeded voices, byte-identical re-renders, a manifest."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchmark.suites.simuhome.episode import load_episodes
from benchmark.suites.voice.conditions import GRID, Condition, parse_conditions
from benchmark.suites.voice.render import render_episode, render_to_dir, speech, user_turns
from benchmark.suites.voice.voices import VOICES, VoiceError, choose_speaker, parse_voices
from benchmark.suites.voice.wav import decode_wav, sha256

pytestmark = pytest.mark.requires("espeak-ng")

EPISODES = Path(__file__).resolve().parents[1] / "benchmark" / "episodes"


@pytest.fixture(scope="module")
def episodes():
    loaded, problems = load_episodes(EPISODES)
    assert not problems
    return loaded[:4]


def test_same_seed_gives_byte_identical_files(tmp_path: Path, episodes) -> None:
    conditions = parse_conditions("clean-dry,10db-reverb,0db-dry")
    first = render_to_dir(episodes, tmp_path / "a", seed=7, conditions=conditions)
    speech.cache_clear()  # the second render synthesises again, from nothing
    second = render_to_dir(episodes, tmp_path / "b", seed=7, conditions=conditions)
    assert [t.model_dump() for t in first] == [t.model_dump() for t in second]
    for turn in first:
        assert turn.file is not None
        a, b = (tmp_path / "a" / turn.file).read_bytes(), (tmp_path / "b" / turn.file).read_bytes()
        assert a == b and sha256(a) == turn.sha256
    assert (tmp_path / "a" / "manifest.json").read_bytes() == (tmp_path / "b" / "manifest.json").read_bytes()


def test_a_killed_render_resumes_to_the_same_bytes(tmp_path: Path, episodes) -> None:
    from benchmark.suites.voice.render import UNFINISHED, RenderResumeError

    conditions = parse_conditions("clean-dry,5db-dry")
    render_to_dir(episodes, tmp_path / "whole", seed=3, conditions=conditions)

    class Killed(Exception):
        pass

    seen: list[str] = []

    def kill_after_two(episode_id: str, _turns: int) -> None:
        seen.append(episode_id)
        if len(seen) == 2:
            raise Killed

    out = tmp_path / "killed"
    with pytest.raises(Killed):
        render_to_dir(episodes, out, seed=3, conditions=conditions, on_episode=kill_after_two)
    assert not (out / "manifest.json").exists() and len(list((out / UNFINISHED).glob("unit-*.jsonl"))) == 2
    with pytest.raises(RenderResumeError, match="other episodes, seed"):
        render_to_dir(episodes, out, seed=4, conditions=conditions, resume=True)
    resumed: list[str] = []
    render_to_dir(episodes, out, seed=3, conditions=conditions, resume=True, on_episode=lambda e, _n: resumed.append(e))
    assert resumed == [e.episode_id for e in episodes]  # the two kept ones counted first, then the two rendered
    whole = {p.relative_to(tmp_path / "whole"): p.read_bytes() for p in (tmp_path / "whole").rglob("*") if p.is_file()}
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == whole
    with pytest.raises(RenderResumeError, match="no unfinished render"):
        render_to_dir(episodes, out, seed=3, conditions=conditions, resume=True)


def test_another_seed_changes_the_audio(episodes) -> None:
    one = render_episode(episodes[0], seed=1, conditions=[Condition(snr_db=10)])
    other = render_episode(episodes[0], seed=2, conditions=[Condition(snr_db=10)])
    assert one[0][0].sha256 != other[0][0].sha256


def test_every_turn_is_16k_mono_speech_with_its_metadata(tmp_path: Path, episodes) -> None:
    turns = render_to_dir(episodes, tmp_path, seed=0, conditions=GRID)
    assert len(turns) == len(episodes) * len(GRID)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["conditions"] == [c.id for c in GRID] and len(manifest["turns"]) == len(turns)
    for turn in turns:
        assert turn.file is not None
        audio = decode_wav((tmp_path / turn.file).read_bytes())  # refuses anything but 16 kHz mono 16-bit
        assert audio.size / 16000 == pytest.approx(turn.duration_s, abs=1e-3)
        assert turn.duration_s > 1.0 and np.max(np.abs(audio)) > 0.1
        assert turn.voice in VOICES and turn.rate in (140, 160, 180) and turn.transcript
        assert (turn.noise is None) == turn.condition.startswith("clean")
    # One voice per episode (all turns, all conditions), and the pool has variety across episodes.
    by_episode: dict[str, set[tuple[str, int]]] = {}
    for turn in turns:
        by_episode.setdefault(turn.episode_id, set()).add((turn.voice, turn.rate))
    assert all(len(v) == 1 for v in by_episode.values())


def test_speakers_vary_with_the_seed() -> None:
    chosen = {choose_speaker(seed, "episode") for seed in range(40)}
    assert len({voice.id for voice, _ in chosen}) >= 5 and len({rate for _, rate in chosen}) == 3
    assert len({voice.accent for voice, _ in chosen}) >= 4


def test_the_tv_plays_when_the_talkers_room_tv_is_on(episodes) -> None:
    episode = episodes[0].model_copy(deep=True)
    room = episode.initial_home_config["rooms"][episode.user_location]
    tvs = [d for d in room["devices"] if d["device_type"] == "tv"]
    assert tvs, "fixture: the first episode's room has a TV"
    tvs[0]["attributes"]["1.OnOff.OnOff"] = True
    assert render_episode(episode, seed=0, conditions=[Condition(snr_db=5)])[0][0].noise == "tv"
    tvs[0]["attributes"]["1.OnOff.OnOff"] = False
    assert render_episode(episode, seed=0, conditions=[Condition(snr_db=5)])[0][0].noise == "babble"


def test_user_turns_of_a_dialogue_and_of_a_simuhome_episode(episodes) -> None:
    assert user_turns(episodes[0]) == [episodes[0].query]

    class Dialogue:
        user_turns = ("turn on the lamp", "the one by the sofa")

    assert user_turns(Dialogue()) == ["turn on the lamp", "the one by the sofa"]


def test_unknown_voice_is_named() -> None:
    with pytest.raises(VoiceError, match=r"unknown voice.*nope.*allowed"):
        parse_voices("us-m1,nope")
    assert [v.id for v in parse_voices("us-m1, gb-f1")] == ["us-m1", "gb-f1"]


def test_the_neural_voice_is_byte_identical_and_follows_the_rate() -> None:
    from benchmark.suites.voice.tts import _piper_joe, synthesize
    from benchmark.suites.voice.wav import encode_wav

    first = encode_wav(synthesize("turn on the porch light", VOICES["us-joe"], 140))
    _piper_joe.cache_clear()  # a freshly loaded model gives the same bytes
    assert encode_wav(synthesize("turn on the porch light", VOICES["us-joe"], 140)) == first
    assert len(encode_wav(synthesize("turn on the porch light", VOICES["us-joe"], 180))) < len(first)


def test_a_refused_resume_says_why_before_any_work_starts(tmp_path: Path) -> None:
    """`speech render --resume` on a directory it cannot continue: one line, exit 2, no progress line, nothing
    written (the refusal is checked before the executor and the progress start)."""
    from tests.speech.test_speech_cli import homefabric

    out = tmp_path / "spoken"
    out.mkdir()
    result = homefabric("speech", "render", str(EPISODES), "--out", str(out), "--resume")
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"error: --resume: {out} holds no unfinished render (.render/render.json); render without --resume"
    ]
    assert list(out.iterdir()) == []
