"""Seeded noise sources: white, pink, babble (other rendered speech), appliance hum and a TV (the home's media).

Every source is a pure function of (kind, length, rng, context): the same seed gives the same samples.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchmark.suites.voice.wav import SAMPLE_RATE

NOISE_KINDS = ("white", "pink", "babble", "hum", "tv")

# Sentences the babble talkers and the TV say: invented household chatter, never a benchmark turn.
BABBLE_LINES = (
    "did you remember to buy milk on the way home",
    "the meeting moved to thursday afternoon so we have more time",
    "I think the train leaves at quarter past eight tomorrow",
    "can you pass me the blue folder from the shelf",
    "we should call your sister about the weekend plans",
    "the garden needs watering again after this heat",
)
TV_LINES = (
    "and now the weather for the coming week, with sunshine in the south and showers in the north",
    "stay with us, after the break we visit a small bakery that has been open for a hundred years",
)


def white(length: int, rng: np.random.Generator) -> np.ndarray:
    return rng.standard_normal(length)


def pink(length: int, rng: np.random.Generator) -> np.ndarray:
    """1/f power: white noise shaped in the frequency domain (amplitude ∝ 1/sqrt(f))."""
    spectrum = np.fft.rfft(rng.standard_normal(length))
    freqs = np.fft.rfftfreq(length, 1 / SAMPLE_RATE)
    freqs[0] = freqs[1] if length > 1 else 1.0
    return np.fft.irfft(spectrum / np.sqrt(freqs), n=length)


def hum(length: int, rng: np.random.Generator) -> np.ndarray:
    """A fridge/extractor: 50 Hz mains and harmonics with a little broadband motor noise."""
    t = np.arange(length) / SAMPLE_RATE
    phases = rng.uniform(0, 2 * np.pi, 6)
    tone = sum((1.0 / k) * np.sin(2 * np.pi * 50 * k * t + phases[k - 1]) for k in range(1, 7))
    hum: np.ndarray = tone + 0.05 * pink(length, rng)
    return hum


def _looped(audio: np.ndarray, length: int, offset: int) -> np.ndarray:
    if audio.size == 0:
        return np.zeros(length)
    return np.resize(np.roll(audio, -offset), length)


def speech_bed(length: int, rng: np.random.Generator, talkers: Sequence[np.ndarray]) -> np.ndarray:
    """Several talkers at once, each looped from a seeded offset (babble, or the TV's voice track)."""
    bed = np.zeros(length)
    for audio in talkers:
        bed += _looped(audio, length, int(rng.integers(0, max(1, audio.size))))
    return bed


def tv(length: int, rng: np.random.Generator, programme: np.ndarray) -> np.ndarray:
    """The TV: the programme's speech band-limited like a small speaker, over a soft music bed."""
    voice = _looped(programme, length, int(rng.integers(0, max(1, programme.size))))
    spectrum = np.fft.rfft(voice)
    freqs = np.fft.rfftfreq(length, 1 / SAMPLE_RATE)
    spectrum[(freqs < 150) | (freqs > 6000)] = 0  # a TV speaker's band
    voice = np.fft.irfft(spectrum, n=length)
    t = np.arange(length) / SAMPLE_RATE
    music = sum(np.sin(2 * np.pi * f * t) for f in (220.0, 277.2, 329.6)) * (0.5 + 0.5 * np.sin(2 * np.pi * 0.5 * t))
    return voice / (np.std(voice) or 1.0) + 0.2 * music / (np.std(music) or 1.0)
