"""16 kHz mono 16-bit PCM WAV bytes in and out (stdlib ``wave``: the header bytes never vary), and checksums."""

from __future__ import annotations

import hashlib
import io
import wave

import numpy as np

SAMPLE_RATE = 16_000  # what ASR and audio-input models take


class WavError(ValueError):
    """Bytes that are not a 16 kHz mono 16-bit PCM WAV."""


def to_int16(audio: np.ndarray) -> np.ndarray:
    """Float samples in [-1, 1] → int16 (rounded, clipped): one deterministic quantiser for every file."""
    return np.clip(np.rint(np.asarray(audio, dtype=np.float64) * 32767.0), -32768, 32767).astype("<i2")


def to_float(pcm: np.ndarray) -> np.ndarray:
    return np.asarray(pcm, dtype=np.float64) / 32767.0


def encode_wav(audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> bytes:
    pcm = audio if audio.dtype == np.dtype("<i2") else to_int16(audio)
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(sample_rate)
        out.writeframes(pcm.tobytes())
    return buffer.getvalue()


def decode_wav(data: bytes, *, sample_rate: int = SAMPLE_RATE) -> np.ndarray:
    """Float samples of a mono 16-bit PCM WAV at ``sample_rate``; WavError names what differs."""
    try:
        with wave.open(io.BytesIO(data), "rb") as source:
            channels, width, rate = source.getnchannels(), source.getsampwidth(), source.getframerate()
            frames = source.readframes(source.getnframes())
    except (wave.Error, EOFError) as error:
        raise WavError(f"not a PCM WAV file: {error}") from None
    if (channels, width, rate) != (1, 2, sample_rate):
        raise WavError(
            f"WAV is {channels} channel(s), {8 * width}-bit, {rate} Hz; allowed: 1 channel, 16-bit, {sample_rate} Hz"
        )
    return to_float(np.frombuffer(frames, dtype="<i2"))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
