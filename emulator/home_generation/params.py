"""The generator's parameters (validated at the boundary) and the named tiers."""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from emulator.home_config import validation_problems
from emulator.home_generation.device_types import Catalogue, RequiredDevices
from emulator.home_generation.errors import GeneratorError
from emulator.home_generation.layouts import Layout


class ValueRange(BaseModel):
    """An inclusive range, written ``{"min": a, "max": b}`` or ``[a, b]``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min: float
    max: float

    @model_validator(mode="before")
    @classmethod
    def _from_pair(cls, value: Any) -> Any:
        if isinstance(value, list | tuple) and len(value) == 2:
            return {"min": value[0], "max": value[1]}
        return value

    @model_validator(mode="after")
    def _ordered(self) -> ValueRange:
        if self.min > self.max:
            raise ValueError(f"min {self.min} is greater than max {self.max}")
        return self


class CountRange(ValueRange):
    """An inclusive integer range; a bare int n means exactly n."""

    min: int = Field(ge=0)
    max: int = Field(ge=0)

    @model_validator(mode="before")
    @classmethod
    def _from_int(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return {"min": value, "max": value}
        return value


# SimuHome's spec bounds (facts §7.1); every range must lie inside them.
ENVIRONMENT_BOUNDS = {
    "temperature_c": (18, 36),
    "humidity_pct": (15, 85),
    "illuminance_lux": (10, 3000),
    "pm10_ugm3": (5, 120),
}


class EnvironmentRanges(BaseModel):
    """Room-state ranges in human units; defaults are the values SimuHome's benchmark used."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature_c: ValueRange = ValueRange(min=22, max=32)
    humidity_pct: ValueRange = ValueRange(min=35, max=65)
    illuminance_lux: ValueRange = ValueRange(min=100, max=1500)
    pm10_ugm3: ValueRange = ValueRange(min=20, max=100)

    @model_validator(mode="after")
    def _within_bounds(self) -> EnvironmentRanges:
        for name, (low, high) in ENVIRONMENT_BOUNDS.items():
            value: ValueRange = getattr(self, name)
            if value.min < low or value.max > high:
                raise ValueError(f"{name} {value.min}..{value.max} is outside the allowed {low}..{high}")
        return self


class GeneratorParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    layout: Layout = "simuhome"
    device_catalogue: Catalogue = "simuhome"
    room_count: CountRange = CountRange(min=5, max=5)
    devices_per_room: CountRange = CountRange(min=4, max=7)
    total_devices: CountRange | None = None  # when set, per-room counts are drawn to add up to it
    required_devices: RequiredDevices = "full"
    max_per_type: int = Field(default=2, ge=1, le=10)
    environment: EnvironmentRanges = EnvironmentRanges()
    base_date: str = "2025-08-23"
    base_hours: CountRange = CountRange(min=9, max=18)
    nesting: bool = True  # False drops every parent (all rooms top level)
    initial_state: bool = True  # vary on/off, levels, setpoints, covers; False leaves device defaults
    latitude_deg: float = Field(default=37.57, ge=-90, le=90)  # where the sun of the home's daylight is

    @field_validator("base_date")
    @classmethod
    def _date(cls, value: str) -> str:
        try:
            date.fromisoformat(value)
        except ValueError:
            raise ValueError(f"{value!r} is not a date 'YYYY-MM-DD'") from None
        return value

    @field_validator("base_hours")
    @classmethod
    def _hours(cls, value: CountRange) -> CountRange:
        if value.max > 23:
            raise ValueError(f"hours must be 0..23, got max {value.max}")
        return value


TIERS: dict[str, GeneratorParams] = {
    # SimuHome's benchmark recipe: 5 rooms, 4–7 devices each, its 16 types.
    "simuhome": GeneratorParams(),
    # SMH-Bench "simple": a small apartment, ~5.5 rooms, ≤ 8 devices.
    "simple": GeneratorParams(
        layout="apartment",
        device_catalogue="extended",
        room_count=CountRange(min=5, max=6),
        devices_per_room=CountRange(min=0, max=3),
        total_devices=CountRange(min=5, max=8),
        required_devices="none",
    ),
    # SMH-Bench "medium": a multi-room house, ~10.5 rooms, ~35 devices.
    "medium": GeneratorParams(
        layout="house",
        device_catalogue="extended",
        room_count=CountRange(min=10, max=11),
        devices_per_room=CountRange(min=1, max=8),
        total_devices=CountRange(min=33, max=37),
    ),
    # SMH-Bench "complex": one dense hierarchical home, 31 nested rooms over 4 floors, 135 devices.
    "complex": GeneratorParams(
        layout="mansion",
        device_catalogue="extended",
        room_count=CountRange(min=31, max=31),
        devices_per_room=CountRange(min=1, max=9),
        total_devices=CountRange(min=135, max=135),
    ),
    # Load testing: a 12-floor building of flats, 120 rooms, 1,000 devices.
    "stress": GeneratorParams(
        layout="tower",
        device_catalogue="extended",
        room_count=CountRange(min=120, max=120),
        devices_per_room=CountRange(min=2, max=14),
        total_devices=CountRange(min=1000, max=1000),
    ),
}


def tier_params(tier: str, **overrides: Any) -> GeneratorParams:
    """The parameters of a named tier with ``overrides`` applied (validated)."""
    if tier not in TIERS:
        raise GeneratorError(f"unknown tier {tier!r}; known tiers: {', '.join(TIERS)}")
    try:
        return GeneratorParams.model_validate({**TIERS[tier].model_dump(), **overrides})
    except ValidationError as error:
        problems = "; ".join(f"{path}: {message}" for path, message in validation_problems(error))
        raise GeneratorError(f"invalid parameters for tier {tier!r}: {problems}") from None
