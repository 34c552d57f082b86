"""Apply a condition to a rendered turn: the room's reverberation, then the run's noise at the SNR."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from benchmark.suites.voice import noise as sources
from benchmark.suites.voice.conditions import Condition, ConditionError, mix_at_snr
from benchmark.suites.voice.room_acoustics import reverberate, room_impulse_response, room_shape


@dataclass(frozen=True)
class Surroundings:
    """What the talker's room sounds like: its id, whether its TV is on, and the audio to build noise from."""

    room_id: str
    tv_on: bool = False
    tv_programme: np.ndarray | None = None  # rendered speech of what the TV is showing
    babble_talkers: tuple[np.ndarray, ...] = field(default=())


def noise_kind_for(kind: str, surroundings: Surroundings) -> str:
    if kind == "room":
        return "tv" if surroundings.tv_on and surroundings.tv_programme is not None else "babble"
    return kind


def make_noise(kind: str, length: int, rng: np.random.Generator, surroundings: Surroundings) -> np.ndarray:
    kind = noise_kind_for(kind, surroundings)
    if kind == "white":
        return sources.white(length, rng)
    if kind == "pink":
        return sources.pink(length, rng)
    if kind == "hum":
        return sources.hum(length, rng)
    if kind == "babble":
        if not surroundings.babble_talkers:
            raise ConditionError("babble noise needs rendered talkers")
        return sources.speech_bed(length, rng, surroundings.babble_talkers)
    if kind == "tv":
        if surroundings.tv_programme is None:
            raise ConditionError("tv noise needs the TV's programme rendered")
        return sources.tv(length, rng, surroundings.tv_programme)
    raise ConditionError(f"unknown noise kind {kind!r}; allowed: room, {', '.join(sources.NOISE_KINDS)}")


def apply_condition(
    speech: np.ndarray,
    condition: Condition,
    noise_kind: str,
    surroundings: Surroundings,
    rng: np.random.Generator,
    room_rng: np.random.Generator | None = None,
) -> np.ndarray:
    """``room_rng`` places talker and microphone (the same for every SNR of one turn); ``rng`` draws the noise."""
    audio = speech
    if condition.reverberant:
        audio = reverberate(audio, room_impulse_response(room_shape(surroundings.room_id), room_rng or rng))
    if condition.snr_db is None:
        return audio
    return mix_at_snr(audio, make_noise(noise_kind, audio.size, rng, surroundings), condition.snr_db).audio
