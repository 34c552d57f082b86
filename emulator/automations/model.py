"""What a rule is: a trigger (time, state), optional gating conditions, and the steps it runs.

Pydantic at the boundary: the same models are the home file's ``automations`` list, the home's API,
the tools' and the HTTP API's payloads. Cross-references (does the device, attribute, command exist)
are the home's to check, since only it knows the home.
"""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    model_validator,
)

from emulator.automations.cron import CronError, parse_cron
from emulator.clock import TIME_FORMAT
from emulator.workflows import WorkflowStep

OPERATORS: tuple[str, ...] = (">", ">=", "<", "<=", "==", "!=")
Operator = Literal[">", ">=", "<", "<=", "==", "!="]
ROOM_VARIABLES: tuple[str, ...] = ("temperature", "humidity", "illuminance", "pm10")
RULE_ID = re.compile(r"[A-Za-z0-9_\-]{1,64}")
MAX_HOLD_S = 7 * 86400
MAX_RULES = 1000  # rules in one home: each is planned on every firing and saved on every change
_PATH = re.compile(r"(0|[1-9][0-9]{0,4})\.([A-Z][A-Za-z0-9]*)\.([A-Z][A-Za-z0-9]*)")


def _check_cron(value: str) -> str:
    try:
        return parse_cron(value).expression
    except CronError as error:
        raise ValueError(str(error)) from None


def _check_time(value: str) -> str:
    try:
        datetime.strptime(value, TIME_FORMAT)
    except ValueError:
        raise ValueError(f"{value!r} is not a time 'YYYY-MM-DD HH:MM:SS'") from None
    return value


def _check_path(value: str) -> str:
    if not _PATH.fullmatch(value):
        raise ValueError(
            f"{value!r} is not an attribute path '<endpoint>.<Cluster>.<Attribute>', "
            "e.g. '1.RelativeHumidityMeasurement.MeasuredValue'"
        )
    return value


def _check_finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"value must be finite, got {value!r}")
    return value


CronText = Annotated[StrictStr, AfterValidator(_check_cron)]
Timestamp = Annotated[StrictStr, AfterValidator(_check_time)]
AttributePath = Annotated[StrictStr, AfterValidator(_check_path)]
ConditionValue = Annotated[StrictBool | StrictInt | StrictFloat, AfterValidator(_check_finite)]


class StateCondition(BaseModel):
    """``<device attribute | room variable> <op> <value>``, optionally held for ``for_s`` seconds."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # built on first use

    device_id: StrictStr | None = Field(default=None, description="Device whose attribute is compared.")
    path: AttributePath | None = Field(default=None, description="'<endpoint>.<Cluster>.<Attribute>'.")
    room_id: StrictStr | None = Field(default=None, description="Room whose environment variable is compared.")
    variable: Literal["temperature", "humidity", "illuminance", "pm10"] | None = Field(
        default=None, description="Room variable in SimuHome units: centi-°C, centi-%, lux, µg/m³."
    )
    op: Operator
    value: ConditionValue
    for_s: Annotated[float, Field(ge=0, le=MAX_HOLD_S)] = Field(
        default=0.0, description="The comparison must hold this many seconds before the trigger fires."
    )

    @model_validator(mode="after")
    def _one_source(self) -> StateCondition:
        device = self.device_id is not None or self.path is not None
        room = self.room_id is not None or self.variable is not None
        if device == room:
            raise ValueError(
                "a condition compares either a device attribute (device_id + path) or a room "
                "variable (room_id + variable), not both and not neither"
            )
        if device and (self.device_id is None or self.path is None):
            raise ValueError("a device condition needs both device_id and path")
        if room and (self.room_id is None or self.variable is None):
            raise ValueError(f"a room condition needs both room_id and variable (one of {', '.join(ROOM_VARIABLES)})")
        if isinstance(self.value, bool) and self.op not in ("==", "!="):
            raise ValueError(f"a true/false value can only be compared with == or !=, not {self.op}")
        return self

    @property
    def source(self) -> str:
        return f"{self.device_id}:{self.path}" if self.device_id is not None else f"room {self.room_id}:{self.variable}"

    def holds(self, actual: Any) -> bool:
        return compare(actual, self.op, self.value)

    def describe(self) -> str:
        held = f" for {self.for_s:g} s" if self.for_s else ""
        return f"{self.source} {self.op} {self.value!r}{held}"


def compare(actual: Any, op: str, value: Any) -> bool:
    """The comparison a condition makes; a missing (None) or non-numeric reading never satisfies < > <= >=."""
    if op == "==":
        return bool(actual == value) and isinstance(actual, bool) == isinstance(value, bool)
    if op == "!=":
        return not compare(actual, "==", value)
    if actual is None or isinstance(actual, bool) or not isinstance(actual, int | float):
        return False
    if op == ">":
        return bool(actual > value)
    if op == ">=":
        return bool(actual >= value)
    if op == "<":
        return bool(actual < value)
    return bool(actual <= value)


class TimeTrigger(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # built on first use

    kind: Literal["time"] = "time"
    cron: CronText = Field(
        description="Quartz cron 'sec min hour day-of-month month day-of-week [year]', e.g. "
        "'0 30 7 ? * MON-FRI *'; a one-off: '0 0 22 27 6 ? 2024'."
    )

    def describe(self) -> str:
        return f"cron {self.cron}"


class StateTrigger(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # built on first use

    kind: Literal["state"] = "state"
    condition: StateCondition = Field(description="Fires when this comparison becomes true (the crossing).")

    def describe(self) -> str:
        return f"when {self.condition.describe()}"


Trigger = Annotated[TimeTrigger | StateTrigger, Field(discriminator="kind")]


class ActionStep(BaseModel):
    """One workflow step: ``invoke`` a command with ``args`` or ``write`` an attribute ``value``."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # built on first use

    kind: Literal["invoke", "write"]
    device_id: StrictStr
    endpoint: Annotated[StrictInt, Field(ge=0, le=65534)]
    cluster: StrictStr
    command: StrictStr | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    attribute: StrictStr | None = None
    value: Any = None

    @model_validator(mode="after")
    def _shape(self) -> ActionStep:
        if self.kind == "invoke" and (self.command is None or self.attribute is not None):
            raise ValueError("an invoke step names a command (and args), not an attribute")
        if self.kind == "write" and (self.attribute is None or self.command is not None or self.args):
            raise ValueError("a write step names an attribute and a value, not a command")
        return self

    def to_workflow_step(self) -> WorkflowStep:
        if self.kind == "invoke":
            return WorkflowStep(
                "invoke", self.device_id, self.endpoint, self.cluster, self.command or "", dict(self.args)
            )
        return WorkflowStep(
            "write", self.device_id, self.endpoint, self.cluster, self.attribute or "", value=self.value
        )

    @classmethod
    def from_workflow_step(cls, step: WorkflowStep) -> ActionStep:
        return cls.model_validate(step.to_dict())


class AutomationSpec(BaseModel):
    """What a caller gives to create a rule."""

    model_config = ConfigDict(extra="forbid", defer_build=True)  # built on first use

    name: Annotated[StrictStr, Field(min_length=1, max_length=200)]
    trigger: Trigger
    conditions: list[StateCondition] = Field(
        default_factory=list, max_length=16, description="All must hold at the firing instant."
    )
    actions: list[ActionStep] = Field(min_length=1, max_length=64)
    enabled: StrictBool = True


class AutomationRule(AutomationSpec):
    """A stored rule: the spec plus its identity and history (persisted in the home file)."""

    id: Annotated[StrictStr, Field(pattern=RULE_ID.pattern)]
    created_at: Timestamp
    last_fired: Timestamp | None = None
    fire_count: Annotated[StrictInt, Field(ge=0)] = 0

    def kind(self) -> str:
        if self.trigger.kind == "time":
            return "time_and_state" if self.conditions else "time"
        return "state"

    def steps(self) -> tuple[WorkflowStep, ...]:
        return tuple(action.to_workflow_step() for action in self.actions)
