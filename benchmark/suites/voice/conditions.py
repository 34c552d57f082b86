"""Acoustic conditions: the SNR × reverberation grid, and mixing speech with noise at an exact SNR.

A condition id is ``<clean|NNdb>-<dry|reverb>`` ("clean-dry", "10db-reverb"). The noise kind is chosen
per run (``NoiseKind``); ``room`` means: the TV's programme when the talker's room has its TV on, else
babble from other rendered speech.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:  # numpy loads only when audio is mixed: a run spec parses conditions without it
    import numpy as np

SNR_GRID = (None, 20.0, 10.0, 5.0, 0.0)  # None = clean
NoiseKind = Literal["room", "white", "pink", "babble", "hum", "tv"]
NOISE_CHOICES = ("room", "white", "pink", "babble", "hum", "tv")
_ID = re.compile(r"^(clean|(-?\d+(?:\.\d+)?)db)-(dry|reverb)$")


class ConditionError(ValueError):
    pass


class Condition(BaseModel):
    model_config = ConfigDict(frozen=True)

    snr_db: float | None = None  # None: no noise added
    reverberant: bool = False

    @property
    def id(self) -> str:
        level = "clean" if self.snr_db is None else f"{self.snr_db:g}db"
        return f"{level}-{'reverb' if self.reverberant else 'dry'}"

    @classmethod
    def parse(cls, text: str) -> Condition:
        match = _ID.match(text.strip().lower())
        if not match:
            raise ConditionError(
                f"unknown condition {text!r}; allowed: clean-dry, clean-reverb, <N>db-dry, "
                f"<N>db-reverb (e.g. 10db-reverb), or grid"
            )
        return cls(
            snr_db=None if match.group(1) == "clean" else float(match.group(2)), reverberant=match.group(3) == "reverb"
        )


GRID: tuple[Condition, ...] = tuple(
    Condition(snr_db=snr, reverberant=reverb) for reverb in (False, True) for snr in SNR_GRID
)


def parse_conditions(text: str | None) -> tuple[Condition, ...]:
    """``grid`` → the 10 conditions; else a comma list of ids; None → clean-dry only."""
    if not text:
        return (Condition(),)
    if text.strip().lower() == "grid":
        return GRID
    conditions = tuple(dict.fromkeys(Condition.parse(part) for part in text.split(",") if part.strip()))
    if not conditions:
        raise ConditionError(f"no condition in {text!r}; allowed: grid or a comma list such as clean-dry,10db-reverb")
    return conditions


def power(audio: np.ndarray) -> float:
    import numpy as np

    return float(np.mean(np.asarray(audio, dtype=np.float64) ** 2)) if audio.size else 0.0


@dataclass(frozen=True)
class Mix:
    audio: np.ndarray  # the mixture, peak-safe
    speech_gain: float  # speech in the mixture = speech_gain × the speech given
    noise: np.ndarray  # the noise in the mixture (after the same gain)


def mix_at_snr(speech: np.ndarray, noise: np.ndarray, snr_db: float, *, peak: float = 0.95) -> Mix:
    """speech + noise scaled so 10·log10(P_speech / P_noise) = snr_db over the whole turn; both scaled
    together afterwards so the mixture never clips (the ratio is unchanged)."""
    import numpy as np

    noise = np.resize(np.asarray(noise, dtype=np.float64), speech.size)
    noise_power = power(noise)
    if noise_power == 0 or power(speech) == 0:
        raise ConditionError("cannot mix at an SNR: the speech or the noise is silent")
    noise = noise * np.sqrt(power(speech) / (noise_power * 10 ** (snr_db / 10)))
    mixture = speech + noise
    top = float(np.max(np.abs(mixture)))
    gain = peak / top if top > peak else 1.0
    return Mix(mixture * gain, gain, noise * gain)


def measured_snr(mixture: np.ndarray, speech: np.ndarray) -> float:
    """The SNR of a mixture given the speech it holds (the residual is the noise, quantisation included)."""
    import numpy as np

    residual = mixture - speech[: mixture.size]
    return float(10 * np.log10(power(speech) / power(residual)))
