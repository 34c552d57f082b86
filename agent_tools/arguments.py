"""One pydantic argument model per tool: SimuHome's argument names, checked before the fabric is touched.

The models are also the source of the exported function-calling schemas (``agent_tools.schemas``),
so their field descriptions are written for a model: units, id formats, examples.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictInt, StrictStr

MAX_DOC_QUERY_CHARS = 500  # a documentation search is a few words; longer text only costs time
TIME_PATTERN = r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$"


def _endpoint_number(value: object) -> Any:
    """Models send endpoints as 1 or "1": accept a numeric string, refuse bools and other text."""
    if isinstance(value, bool):
        raise ValueError("endpoint_id must be an integer such as 1, not a boolean")
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if not isinstance(value, int):
        raise ValueError(f"endpoint_id must be an integer such as 1 (or a numeric string), got {value!r}")
    return value


EndpointId = Annotated[
    int,
    Field(
        ge=0,
        le=65534,
        description="Matter endpoint number, e.g. 1 (heat-pump thermostat: 4; humidity sensors of "
        '(de)humidifiers: 2; device identity: 0). A numeric string such as "1" is accepted.',
    ),
    BeforeValidator(_endpoint_number),
]
DeviceId = Annotated[
    StrictStr,
    Field(
        min_length=1, description='Exact device id as listed by get_room_devices, e.g. "living_room_air_conditioner_1".'
    ),
]
RoomId = Annotated[StrictStr, Field(min_length=1, description='Room id as listed by get_rooms, e.g. "living_room".')]
ClusterId = Annotated[
    StrictStr,
    Field(min_length=1, description='Cluster name, e.g. "OnOff", "FanControl", "Thermostat", "OperationalState".'),
]
AttributeId = Annotated[
    StrictStr,
    Field(min_length=1, description='Attribute name, e.g. "OnOff", "PercentSetting", "OccupiedCoolingSetpoint".'),
]
VirtualTime = Annotated[
    StrictStr,
    Field(pattern=TIME_PATTERN, description='Virtual home time "YYYY-MM-DD HH:MM:SS", e.g. "2025-08-23 14:30:00".'),
]
WorkflowId = Annotated[
    StrictStr, Field(min_length=1, description='Workflow id returned by schedule_workflow, e.g. "wf-0001".')
]


class ToolArgs(BaseModel):
    # built on the first call of its tool, not when the toolbox loads (a run starts smaller; an agent uses few tools)
    model_config = ConfigDict(extra="forbid", defer_build=True)


class NoArgs(ToolArgs):
    pass


class RoomArgs(ToolArgs):
    room_id: RoomId


class DeviceArgs(ToolArgs):
    device_id: DeviceId


class GetAttributeArgs(ToolArgs):
    device_id: DeviceId
    endpoint_id: EndpointId
    cluster_id: ClusterId
    attribute_id: AttributeId


class ExecuteCommandArgs(ToolArgs):
    device_id: DeviceId
    endpoint_id: EndpointId
    cluster_id: ClusterId
    command_id: Annotated[
        StrictStr,
        Field(
            min_length=1, description='Command name, e.g. "On", "Off", "MoveToLevel", "Step", "ChangeToMode", "Start".'
        ),
    ]
    args: dict[str, Any] = Field(
        description="Command arguments as an object ({} when the command has none), e.g. "
        '{"Level": 127} for MoveToLevel or {"NewMode": 1} for ChangeToMode. '
        "Names as listed by get_device_structure (PascalCase, lowerCamel, "
        "snake_case and the listed aliases are accepted)."
    )


class WriteAttributeArgs(ToolArgs):
    device_id: DeviceId
    endpoint_id: EndpointId
    cluster_id: ClusterId
    attribute_id: AttributeId
    value: Any = Field(
        description="New value (JSON). Units are the attribute's: temperatures in 0.01 °C "
        "(2400 = 24.00 °C), humidity in 0.01 %, percentages 0..100, window-covering "
        "positions in 0.01 % closed (0 open … 10000 closed), enums as integers."
    )


class ClusterDocArgs(ToolArgs):
    query: Annotated[
        StrictStr,
        Field(
            min_length=1,
            max_length=MAX_DOC_QUERY_CHARS,
            description='What to look up, in words, e.g. "fan speed percent" or "dishwasher start".',
        ),
    ]
    top_k: Annotated[StrictInt, Field(ge=1, le=20, description="How many documentation chunks to return (1..20).")]


class ControlRulesArgs(ToolArgs):
    state: Literal["temperature", "humidity", "air_quality", "illuminance"] = Field(
        description="Room variable to control (air_quality is the room's pm10)."
    )


class WorkflowStepArgs(ToolArgs):
    tool: Literal["execute_command", "write_attribute"] = Field(description="Which action tool the step runs.")
    args: dict[str, Any] = Field(
        description="The full arguments of that tool, device_id included, e.g. "
        '{"device_id": "kitchen_fan_1", "endpoint_id": 1, "cluster_id": '
        '"OnOff", "command_id": "On", "args": {}}.'
    )


class ScheduleWorkflowArgs(ToolArgs):
    """SimuHome's schedule_workflow arguments exactly (facts §1.2): start_time and steps; any other key is
    refused (INVALID_PARAMETERS), as SimuHome's tool layer refuses ``description``."""

    start_time: VirtualTime
    steps: list[WorkflowStepArgs] = Field(min_length=1, description="Steps run in order at start_time.")


class ScheduleWorkflowExtArgs(ScheduleWorkflowArgs):
    """The simuhome_ext profile's schedule_workflow: SimuHome's arguments plus a note on the workflow."""

    description: StrictStr | None = Field(default=None, description="Optional note on what the workflow does.")


class WorkflowArgs(ToolArgs):
    workflow_id: WorkflowId


class WorkflowListArgs(ToolArgs):
    status: Literal["pending", "running", "completed", "failed", "cancelled"] | None = Field(
        default=None, description="Only workflows with this status."
    )
    from_time: VirtualTime | None = Field(
        default=None, description='Only workflows starting at or after this time, "YYYY-MM-DD HH:MM:SS".'
    )
    to_time: VirtualTime | None = Field(
        default=None, description='Only workflows starting at or before this time, "YYYY-MM-DD HH:MM:SS".'
    )


class FinishArgs(ToolArgs):
    answer: StrictStr = Field(description="The final answer to the user, in plain language.")


class AddDeviceArgs(ToolArgs):
    room_id: RoomId
    device_type: Annotated[StrictStr, Field(min_length=1, description='Catalogue device type, e.g. "fan".')]
    device_id: Annotated[StrictStr, Field(min_length=1, description='New unique device id, e.g. "kitchen_fan_3".')]


class TickIntervalArgs(ToolArgs):
    tick_interval: float = Field(
        gt=0,
        description="Seconds per tick; this emulator's event-driven clock has "
        "a fixed 0.1 s tick, so only 0.1 is accepted.",
    )
