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
    state: dict[str, float] = Field(description="temperature (0.01 °C), humidity (0.01 %), illuminance (lux), "
                                                "pm10 (µg/m³)")
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
    endpoint: int = Field(ge=0, le=65534, strict=True)
    cluster: StrictStr = Field(pattern=NAME_PATTERN)
    command: StrictStr = Field(pattern=NAME_PATTERN)
    args: dict[str, Any] = Field(default_factory=dict)


class WriteStep(_Body):
    kind: Literal["write"]
    device_id: StrictStr = Field(pattern=ID_PATTERN)
    endpoint: int = Field(ge=0, le=65534, strict=True)
    cluster: StrictStr = Field(pattern=NAME_PATTERN)
    attribute: StrictStr = Field(pattern=NAME_PATTERN)
    value: Any


Step = Annotated[InvokeStep | WriteStep, Field(discriminator="kind")]


class ScheduleBody(_Body):
    start_time: StrictStr = Field(pattern=TIME_PATTERN, description="virtual 'YYYY-MM-DD HH:MM:SS', in the future")
    steps: list[Step] = Field(min_length=1, max_length=100)
    description: str = Field(default="", max_length=500)


# --- episodes and runs -------------------------------------------------------------------------------------

class LoadEpisodesBody(_Body):
    path: StrictStr = Field(min_length=1, max_length=1024, description="a directory (or one file) of episode JSON "
                            "under the server's --episodes-root (relative to it, or absolute inside it)")


class EpisodeSummary(BaseModel):
    episode_id: str
    kind: str
    query: str
    user_location: str
    source: str | None


class LoadEpisodesOut(BaseModel):
    loaded: list[str]
    problems: list[dict[str, str]]


class RunAgentBody(_Body):
    name: Literal["oracle", "null", "replay", "react"]
    base_url: StrictStr | None = Field(default=None, max_length=2048, description="react: OpenAI-compatible base "
                                       "URL (…/v1), one the operator allowed with --allow-model-endpoint")
    model: StrictStr | None = Field(default=None, max_length=200, description="react: the model name")
    api_key_env: StrictStr | None = Field(default=None, max_length=200, description="react: environment variable "
                                          "holding the key, one the operator allowed with --model-key-env")
    max_steps: int = Field(default=20, ge=1, le=200)
    replay_from: StrictStr | None = Field(default=None, max_length=1024,
                                         description="replay: a run directory or records.jsonl under the runs dir")


class StartRunBody(_Body):
    episode_ids: list[Annotated[StrictStr, Field(pattern=ID_PATTERN)]] = Field(min_length=1, max_length=1000)
    agent: RunAgentBody
    trials: int = Field(default=1, ge=1, le=20)
    concurrency: int = Field(default=1, ge=1, le=32)
    episode_timeout_s: float | None = Field(default=None, gt=0, le=3600)


class RunOut(BaseModel):
    run_id: str
    live: bool = Field(description="started by this server (its events can be streamed)")
    status: Literal["running", "finished", "failed", "stored"]
    records: int
    statuses: dict[str, int]
    error: str | None = None
    events: int = Field(default=0, description="events so far (live runs)")
