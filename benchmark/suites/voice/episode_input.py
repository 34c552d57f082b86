"""What the agent is given for one episode under ``--input text|asr|audio``, and what the record keeps.

The episode itself (home, goals, scoring) never changes: only the user's request reaches the agent another
way. Every user turn of the episode is rendered (a dialogue's ``user_turns``, else the one query).
asr: each turn is transcribed and the agent reads the transcripts, one line per turn (WER recorded per turn
and over the whole); audio: the agent gets the turns as one WAV (in order, with a pause between them) as an
``input_audio`` part and no text of the request. A one-turn episode's record is as it always was; several
turns add ``turns`` (each rendered turn) to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from benchmark.suites.voice.asr import recogniser
from benchmark.suites.voice.audio_input import input_audio_part
from benchmark.suites.voice.conditions import Condition
from benchmark.suites.voice.render import render_turn, surroundings_for, user_turns
from benchmark.suites.voice.spec import SpeechSpec
from benchmark.suites.voice.voices import choose_speaker, parse_voices
from benchmark.suites.voice.wav import SAMPLE_RATE, decode_wav, encode_wav, sha256
from benchmark.suites.voice.wer import word_error_rate

AUDIO_QUERY = "(spoken: the user's request is the attached audio)"
PAUSE_S = 0.6  # between the turns of a dialogue sent as one recording


@dataclass
class SpokenInput:
    query: str  # what the agent reads as the user's request
    extras: dict[str, Any] = field(default_factory=dict)  # task extras (the audio part, for audio)
    record: dict[str, Any] = field(default_factory=dict)  # the record's "speech" block


def spoken_input(episode: Any, spec: SpeechSpec) -> SpokenInput:
    """Render every user turn of the episode under the run's condition and turn them into agent input."""
    episode_id = str(episode.episode_id)
    speaker, rate = choose_speaker(spec.seed, episode_id, parse_voices(spec.voices))
    surroundings = surroundings_for(episode, spec.seed, speaker)
    texts = user_turns(episode)
    rendered = [
        render_turn(
            text,
            episode_id=episode_id,
            turn=index,
            speaker=speaker,
            rate=rate,
            condition=Condition.parse(spec.condition),
            noise_kind=spec.noise,
            surroundings=surroundings,
            seed=spec.seed,
        )
        for index, text in enumerate(texts)
    ]
    turns = [
        {"input": spec.input, **turn.model_dump(mode="json", exclude={"file", "episode_id"})} for turn, _wav in rendered
    ]
    record = dict(turns[0])
    if len(turns) > 1:
        record["turns"] = turns
    if spec.input == "audio":
        wav = rendered[0][1]
        if len(rendered) > 1:
            pause = np.zeros(int(PAUSE_S * SAMPLE_RATE))
            audio = np.concatenate([part for _turn, data in rendered for part in (decode_wav(data), pause)][:-1])
            wav = encode_wav(audio)
            record.update(sha256=sha256(wav), duration_s=round(audio.size / SAMPLE_RATE, 4))
        return SpokenInput(AUDIO_QUERY, {"user_audio_part": input_audio_part(wav)}, record)
    model = recogniser(spec.asr)
    heard = [model.transcribe(decode_wav(wav)) for _turn, wav in rendered]
    for turn, text, result in zip(turns, texts, heard, strict=True):
        turn["asr"] = {
            "model": result.model,
            "transcript": result.text,
            "wer": round(word_error_rate(text, result.text), 4),
        }
    transcript = "\n".join(result.text for result in heard)
    record["asr"] = {
        "model": heard[0].model,
        "transcript": transcript,
        "wer": round(word_error_rate(" ".join(texts), " ".join(r.text for r in heard)), 4),
    }
    return SpokenInput(transcript, {}, record)
