"""SimuHome's home config format (``initial_home_config`` / the reset body; facts §1.5, §5.1).

Unknown fields are kept at every level (``extra="allow"``) so an imported home can be written back unchanged.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from emulator.clock import TICK_S
from emulator.home_config import HomeConfigError, validation_problems

DEFAULT_ROOM_STATE = {"temperature": 2500, "humidity": 5000, "illuminance": 1000, "pm10": 35.0}


class SimuHomeRoomState(BaseModel):
    model_config = ConfigDict(extra="allow")

    temperature: int | float = DEFAULT_ROOM_STATE["temperature"]
    humidity: int | float = DEFAULT_ROOM_STATE["humidity"]
    illuminance: int | float = DEFAULT_ROOM_STATE["illuminance"]
    pm10: int | float = DEFAULT_ROOM_STATE["pm10"]


class SimuHomeDevice(BaseModel):
    model_config = ConfigDict(extra="allow")

    device_id: str
    device_type: str
    attributes: dict[str, Any] = Field(default_factory=dict)


class SimuHomeRoom(BaseModel):
    model_config = ConfigDict(extra="allow")

    state: SimuHomeRoomState | None = None  # absent → SimuHome's aggregator defaults
    devices: list[SimuHomeDevice] = Field(default_factory=list)


class SimuHomeConfig(BaseModel):
    model_config = ConfigDict(extra="allow")

    tick_interval: float = Field(default=TICK_S, gt=0)
    base_time: str
    rooms: dict[str, SimuHomeRoom] = Field(default_factory=dict)
    enable_aggregators: bool = True
    max_ticks: int | None = None
    fast_forward: bool = False


def parse_simuhome(data: Any, source: str = "<simuhome>") -> SimuHomeConfig:
    """Validate SimuHome config data (an ``initial_home_config`` or reset body); HomeConfigError if invalid."""
    try:
        return SimuHomeConfig.model_validate(data)
    except ValidationError as error:
        raise HomeConfigError(source, validation_problems(error)) from None
