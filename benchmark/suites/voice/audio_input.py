"""OpenAI-compatible audio input: a WAV as an ``input_audio`` content part (base64), and its checks."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from benchmark.suites.voice.wav import WavError, decode_wav

AUDIO_FORMATS = ("wav", "mp3")  # what OpenAI's chat completions accept in input_audio.format


def input_audio_part(wav: bytes) -> dict[str, Any]:
    return {"type": "input_audio", "input_audio": {"data": base64.b64encode(wav).decode("ascii"), "format": "wav"}}


def input_audio_problem(part: Any) -> str | None:
    """What a server would refuse in an ``input_audio`` part (None when it is valid)."""
    body = part.get("input_audio") if isinstance(part, dict) else None
    if not isinstance(body, dict) or not isinstance(body.get("data"), str):
        return "input_audio part without an input_audio.data string"
    if body.get("format") not in AUDIO_FORMATS:
        return f"input_audio.format {body.get('format')!r}; allowed: {', '.join(AUDIO_FORMATS)}"
    try:
        data = base64.b64decode(body["data"], validate=True)
    except (binascii.Error, ValueError):
        return "input_audio.data is not valid base64"
    if body["format"] == "wav":
        try:
            decode_wav(data)
        except WavError as error:
            return f"input_audio.data: {error}"
    return None
