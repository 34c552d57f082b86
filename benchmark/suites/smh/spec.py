"""The ``smh:`` section of a run spec (``suite: smh``): which settings, tiers and subcategories, and the
EIA tool-call budget. The rest (episodes path and limit, agent and model, judge, trials, concurrency, out) is
the ordinary run spec's."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent_tools.smh import DEFAULT_BUDGET
from benchmark.suites.smh.taxonomy import SUBCATEGORIES


def _default_settings() -> list[Literal["dr", "eia"]]:
    return ["eia"]


SMH_AGENTS = ("oracle", "null", "react")  # react: the one-shot JSON agent in DR, the tool loop in EIA


class SmhSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    settings: list[Literal["dr", "eia"]] = Field(
        default_factory=_default_settings,
        min_length=1,
        description="dr, eia or both (each instance runs once per setting)",
    )
    tiers: list[Literal["simple", "medium", "complex"]] | None = None
    subcategories: list[str] | None = None
    budget: int = Field(default=DEFAULT_BUDGET, ge=1, description="EIA tool-call budget")

    @field_validator("settings")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError(f"settings {value} name one twice")
        return value

    @field_validator("subcategories")
    @classmethod
    def _known(cls, value: list[str] | None) -> list[str] | None:
        unknown = [s for s in value or [] if s not in SUBCATEGORIES]
        if unknown:
            raise ValueError(f"unknown subcategories {unknown}; known: {list(SUBCATEGORIES)}")
        return value
