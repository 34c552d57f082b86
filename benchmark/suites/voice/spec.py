"""How a run hears the user (the ``speech`` block of a run spec; ``bench run --input/--asr/--condition``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from benchmark.suites.voice.asr import DEFAULT_ASR, model_directory
from benchmark.suites.voice.conditions import Condition, NoiseKind
from benchmark.suites.voice.voices import parse_voices

InputWay = Literal["text", "asr", "audio"]


class SpeechSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input: InputWay = Field(
        default="text",
        description="text: the query as written; asr: the recogniser's "
        "transcript of the rendered turn; audio: the WAV itself",
    )
    asr: str = Field(default=DEFAULT_ASR, description="recogniser for input asr (a packaged name or a model dir)")
    condition: str = Field(default="clean-dry", description="e.g. clean-dry, 10db-reverb")
    noise: NoiseKind = "room"
    seed: int = Field(default=0, description="chooses voices, rates, noise and talker positions")
    voices: str = Field(default="all", description="voice pool: all or a comma list of voice ids")

    @field_validator("asr")
    @classmethod
    def _asr(cls, value: str) -> str:
        model_directory(value)  # a name that would need a download is refused before the run starts
        return value

    @field_validator("condition")
    @classmethod
    def _condition(cls, value: str) -> str:
        return Condition.parse(value).id

    @field_validator("voices")
    @classmethod
    def _voices(cls, value: str) -> str:
        parse_voices(value)
        return value
