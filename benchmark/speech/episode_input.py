"""What the agent is given for one episode under ``--input text|asr|audio``, and what the record keeps.

The episode itself (home, goals, scoring) never changes: only the user's request reaches the agent another
way. asr: the rendered turn is transcribed and the agent reads the transcript (WER recorded); audio: the
agent gets the WAV as an ``input_audio`` part and no text of the request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from benchmark.speech.audio_input import input_audio_part
from benchmark.speech.conditions import Condition
from benchmark.speech.render import render_turn, surroundings_for, user_turns
from benchmark.speech.spec import SpeechSpec
from benchmark.speech.voices import choose_speaker, parse_voices
from benchmark.speech.wav import decode_wav

AUDIO_QUERY = "(spoken: the user's request is the attached audio)"


@dataclass
class SpokenInput:
    query: str  # what the agent reads as the user's request
    extras: dict[str, Any] = field(default_factory=dict)  # task extras (the audio part, for audio)
    record: dict[str, Any] = field(default_factory=dict)  # the record's "speech" block


def spoken_input(episode: Any, spec: SpeechSpec) -> SpokenInput:
    """Render the episode's (first) user turn under the run's condition and turn it into agent input."""
    episode_id = str(episode.episode_id)
    speaker, rate = choose_speaker(spec.seed, episode_id, parse_voices(spec.voices))
    text = user_turns(episode)[0]
    turn, wav = render_turn(text, episode_id=episode_id, turn=0, speaker=speaker, rate=rate,
                            condition=Condition.parse(spec.condition), noise_kind=spec.noise,
                            surroundings=surroundings_for(episode, spec.seed, speaker), seed=spec.seed)
    record = {"input": spec.input, **turn.model_dump(mode="json", exclude={"file", "episode_id"})}
    if spec.input == "audio":
        return SpokenInput(AUDIO_QUERY, {"user_audio_part": input_audio_part(wav)}, record)
    from benchmark.speech.asr import recogniser
    from benchmark.speech.wer import word_error_rate

    heard = recogniser(spec.asr).transcribe(decode_wav(wav))
    record["asr"] = {"model": heard.model, "transcript": heard.text, "wer": round(word_error_rate(text, heard.text), 4)}
    return SpokenInput(heard.text, {}, record)
