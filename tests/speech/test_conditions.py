"""Acoustic conditions: the SNR of a mixed file measured back, the grid, the room's reverberation."""

from __future__ import annotations

import numpy as np
import pytest

from benchmark.suites.voice.acoustics import Surroundings, make_noise
from benchmark.suites.voice.conditions import (
    GRID,
    Condition,
    ConditionError,
    measured_snr,
    mix_at_snr,
    parse_conditions,
)
from benchmark.suites.voice.render import speech
from benchmark.suites.voice.room_acoustics import reverberate, room_impulse_response, room_shape
from benchmark.suites.voice.wav import decode_wav, encode_wav

pytestmark = pytest.mark.requires("espeak-ng")

SENTENCE = "close the living room blinds halfway and turn off the kitchen light"


@pytest.fixture(scope="module")
def surroundings() -> Surroundings:
    return Surroundings(
        room_id="kitchen",
        tv_on=True,
        tv_programme=speech("the evening news", "gb-m1", 170),
        babble_talkers=(speech("did you buy milk", "us-f1", 160), speech("call your sister", "scot-m1", 140)),
    )


@pytest.mark.parametrize("kind", ["white", "pink", "babble", "hum", "tv"])
@pytest.mark.parametrize("snr", [20.0, 10.0, 5.0, 0.0])
def test_snr_of_the_written_file_measured_back_within_half_a_db(kind: str, snr: float, surroundings) -> None:
    clean = np.asarray(speech(SENTENCE, "us-m1", 160))
    noise = make_noise(kind, clean.size, np.random.default_rng(3), surroundings)
    mix = mix_at_snr(clean, noise, snr)
    written = decode_wav(encode_wav(mix.audio))  # through the 16-bit file, quantisation included
    assert np.max(np.abs(written)) <= 0.96
    assert measured_snr(written, mix.speech_gain * clean) == pytest.approx(snr, abs=0.5)


def test_the_grid_is_five_levels_by_dry_and_reverberant() -> None:
    assert [c.id for c in GRID] == [
        "clean-dry",
        "20db-dry",
        "10db-dry",
        "5db-dry",
        "0db-dry",
        "clean-reverb",
        "20db-reverb",
        "10db-reverb",
        "5db-reverb",
        "0db-reverb",
    ]
    assert parse_conditions("grid") == GRID
    assert parse_conditions("10DB-reverb, clean-dry") == (Condition(snr_db=10, reverberant=True), Condition())
    with pytest.raises(ConditionError, match=r"unknown condition 'loud'.*allowed"):
        parse_conditions("loud")


def test_reverberation_depends_on_the_room() -> None:
    bathroom, living = room_shape("bathroom"), room_shape("living_room")
    assert room_shape("master_bedroom") == room_shape("bedroom")
    rir_small = room_impulse_response(bathroom, np.random.default_rng(0))
    rir_large = room_impulse_response(living, np.random.default_rng(0))
    assert rir_small.size != rir_large.size
    np.testing.assert_array_equal(rir_small, room_impulse_response(bathroom, np.random.default_rng(0)))
    clean = np.asarray(speech(SENTENCE, "us-m1", 160))
    wet = reverberate(clean, rir_large)
    assert wet.size > clean.size  # the tail rings on
    assert np.sqrt(np.mean(wet**2)) == pytest.approx(np.sqrt(np.mean(clean**2)), rel=1e-6)
    assert np.corrcoef(wet[: clean.size], clean)[0, 1] < 0.9  # smeared, not the same signal
