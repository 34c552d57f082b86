"""How the assistant hears one spoken turn of a voice episode: as text, through the ASR cascade, or as audio.

Every turn (requests and clarification replies) is rendered in the episode's seeded voice, in the room where
the user stands (its reverberation; its TV as noise when on), under the run's condition — replies on the fly,
the same way as requests. The record of a turn holds the rendered turn (voice, rate, sha256) and, for asr,
the transcript and its WER.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from benchmark.suites.voice import noise as sources
from benchmark.suites.voice.acoustics import Surroundings
from benchmark.suites.voice.asr import recogniser
from benchmark.suites.voice.audio_input import input_audio_part
from benchmark.suites.voice.conditions import Condition
from benchmark.suites.voice.render import TV_VOICE, RenderedTurn, render_turn, speech
from benchmark.suites.voice.voice_episode import VoiceEpisode
from benchmark.suites.voice.voices import RATES, VOICES, Voice, choose_speaker, parse_voices, seeded_rng
from benchmark.suites.voice.wav import decode_wav
from benchmark.suites.voice.wer import word_error_rate

AUDIO_TURN = "(spoken: what the user said is the attached audio)"


@dataclass(frozen=True)
class Hearing:
    """A run's way in: ``input`` text|asr|audio, one condition, the ASR model, the voice pool and the seed."""

    input: str = "text"
    condition: Condition = field(default_factory=Condition)
    asr: str = "whisper-tiny.en"
    noise: str = "room"
    seed: int = 0
    voices: str = "all"

    @property
    def condition_id(self) -> str:
        return "text" if self.input == "text" else self.condition.id


@dataclass
class Heard:
    text: str  # what the agent reads as the user's words
    audio_part: dict[str, Any] | None = None
    record: dict[str, Any] = field(default_factory=dict)


def surroundings(episode: VoiceEpisode, room: str, seed: int, speaker: Voice) -> Surroundings:
    tv = [d for d in episode.home.devices_in_room(room) if d.type == "tv"]
    tv_on = bool(tv and tv[0].attributes.get("1.OnOff.OnOff"))
    programme = np.concatenate([speech(line, TV_VOICE.id, 170) for line in sources.TV_LINES]) if tv_on else None
    rng = seeded_rng("babble", seed, episode.episode_id)
    others = [v for v in VOICES.values() if v.id != speaker.id]
    talkers = tuple(
        speech(line, rng.choice(others).id, rng.choice(RATES)) for line in rng.sample(sources.BABBLE_LINES, 3)
    )
    return Surroundings(room_id=room, tv_on=tv_on, tv_programme=programme, babble_talkers=talkers)


def render_voice_episode(
    episode: VoiceEpisode,
    *,
    seed: int,
    conditions: Sequence[Condition],
    noise_kind: str = "room",
    pool: Sequence[Voice] = tuple(VOICES.values()),
) -> list[tuple[RenderedTurn, bytes]]:
    """Every turn a run may hear (requests and replies, in spoken order), each in the room where it is said,
    rendered exactly as :func:`hear` renders it (``speech render`` of a voice episode directory)."""
    speaker, rate = choose_speaker(seed, episode.episode_id, tuple(pool))
    spoken = [(text, turn.position.room) for turn in episode.turns for text in (turn.text, turn.reply) if text]
    return [
        render_turn(
            text,
            episode_id=episode.episode_id,
            turn=index,
            speaker=speaker,
            rate=rate,
            condition=condition,
            noise_kind=noise_kind,
            surroundings=surroundings(episode, room, seed, speaker),
            seed=seed,
        )
        for index, (text, room) in enumerate(spoken)
        for condition in conditions
    ]


def hear(hearing: Hearing, episode: VoiceEpisode, index: int, text: str, room: str) -> Heard:
    """Turn ``index`` (requests and replies counted in the order spoken) as the agent gets it."""
    if hearing.input == "text":
        return Heard(text, None, {"input": "text"})
    speaker, rate = choose_speaker(hearing.seed, episode.episode_id, parse_voices(hearing.voices))
    turn, wav = render_turn(
        text,
        episode_id=episode.episode_id,
        turn=index,
        speaker=speaker,
        rate=rate,
        condition=hearing.condition,
        noise_kind=hearing.noise,
        surroundings=surroundings(episode, room, hearing.seed, speaker),
        seed=hearing.seed,
    )
    record = {"input": hearing.input, **turn.model_dump(mode="json", exclude={"file", "episode_id"})}
    if hearing.input == "audio":
        return Heard(AUDIO_TURN, input_audio_part(wav), record)
    result = recogniser(hearing.asr).transcribe(decode_wav(wav))
    record["asr"] = {
        "model": result.model,
        "transcript": result.text,
        "wer": round(word_error_rate(text, result.text), 4),
    }
    return Heard(result.text, None, record)
