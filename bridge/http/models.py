"""Pydantic models of every HTTP request body and the main responses (they also make the OpenAPI document).

Bodies are strict: unknown fields are refused, numbers must be numbers, and every error names its field.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr

ID_PATTERN = r"^[A-Za-z0-9_\-]+$"
NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9]*$"
TIME_PATTERN = r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$"
MAX_FAST_FORWARD_S = 7 * 86400  # one call advances at most 7 virtual days (in slices: the API keeps answering)
# The path limits of every device/room id, cluster/attribute/command name and endpoint (routes and fast path).
MAX_ID_LENGTH = 200
MAX_NAME_LENGTH = 100
MAX_ENDPOINT = 65534
MAX_SPEED = 100_000.0


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- errors ------------------------------------------------------------------------------------------------


class FieldProblem(BaseModel):
    field: str = Field(description='where, e.g. "body.speed" or "path.endpoint"')
    message: str
    type: str


class ErrorBody(BaseModel):
    code: str = Field(description="machine-readable, e.g. DEVICE_NOT_FOUND, CONSTRAINT_ERROR, VALIDATION_ERROR")
    message: str
    matter_status: str | None = None
    allowed: Any = None
    errors: list[FieldProblem] | None = None


# --- home --------------------------------------------------------------------------------------------------


class RoomOut(BaseModel):
    room_id: str
    name: str
    type: str
    floor: int
    parent: str | None
    state: dict[str, float] = Field(
        description="temperature (0.01 °C), humidity (0.01 %), illuminance (lux), pm10 (µg/m³)"
    )
    device_ids: list[str]


class DeviceOut(BaseModel):
    device_id: str
    name: str
    label: str = Field(description="catalogue label, e.g. 'Dimmable light'")
    device_type: str
    room_id: str
    roles: list[tuple[str, int]] = Field(description="physics roles (role, endpoint), e.g. ('light', 1)")
    state: dict[str, Any] = Field(description='the live attributes a dashboard shows, "<ep>.<Cluster>.<Attr>" → value')


class HomeOut(BaseModel):
    name: str
    tier: str | None
    seed: int | None
    time: str
    tick: int
    floors: list[int]
    rooms: list[RoomOut]
    devices: list[DeviceOut]


class WriteBody(_Body):
    value: Any = Field(description="the new attribute value (JSON); the cluster validates type and range")


class InvokeBody(_Body):
    args: dict[str, Any] = Field(default_factory=dict, description='command arguments, e.g. {"Level": 128}')


# --- clock -------------------------------------------------------------------------------------------------


class ClockOut(BaseModel):
    time: str
    tick: int
    paced: bool = Field(description="a RealtimePacer is attached (pause/resume/speed work)")
    running: bool = Field(description="virtual time follows the wall clock now")
    speed: float | None = Field(description="virtual seconds per wall second (None without a pacer)")


class SpeedBody(_Body):
    speed: float = Field(gt=0, le=MAX_SPEED, strict=True, description="virtual seconds per wall second")


class FastForwardBody(_Body):
    seconds: float = Field(ge=0, le=MAX_FAST_FORWARD_S, strict=True, description="virtual seconds to advance")


class FastForwardOut(BaseModel):
    clock: ClockOut
    events_run: int


# --- workflows ---------------------------------------------------------------------------------------------


class InvokeStep(_Body):
    kind: Literal["invoke"]
    device_id: StrictStr = Field(pattern=ID_PATTERN)
    endpoint: int = Field(ge=0, le=MAX_ENDPOINT, strict=True)
    cluster: StrictStr = Field(pattern=NAME_PATTERN)
    command: StrictStr = Field(pattern=NAME_PATTERN)
    args: dict[str, Any] = Field(default_factory=dict)


class WriteStep(_Body):
    kind: Literal["write"]
    device_id: StrictStr = Field(pattern=ID_PATTERN)
    endpoint: int = Field(ge=0, le=MAX_ENDPOINT, strict=True)
    cluster: StrictStr = Field(pattern=NAME_PATTERN)
    attribute: StrictStr = Field(pattern=NAME_PATTERN)
    value: Any


Step = Annotated[InvokeStep | WriteStep, Field(discriminator="kind")]


class ScheduleBody(_Body):
    start_time: StrictStr = Field(pattern=TIME_PATTERN, description="virtual 'YYYY-MM-DD HH:MM:SS', in the future")
    steps: list[Step] = Field(min_length=1, max_length=100)
    description: str = Field(default="", max_length=500)
