"""The automation tools: ``create_automation``, ``list_automations``, ``delete_automation``.

Profile-independent: each tool is an argument model plus a function of (fabric, arguments), so any tool
profile (the SimuHome-extended one today, an SMH-Bench one later) registers the same three. Arguments use
the SimuHome tools' names (device_id, endpoint_id, cluster_id, attribute_id; steps as in
``schedule_workflow``); the rule is checked by the fabric (devices, attributes, commands, ranges) and a
refusal names the offending value and what is allowed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field, StrictBool, StrictFloat, StrictInt, StrictStr, model_validator

from agent_tools import arguments as a
from emulator.automations.model import MAX_HOLD_S, ActionStep, CronText
from emulator.errors import HomeError
from emulator.home_api import AutomationHost, HomeAPI
from emulator.workflows import WorkflowStep

AutomationId = Annotated[
    StrictStr, Field(min_length=1, description='Automation id returned by create_automation, e.g. "auto-0001".')
]


class ComparisonArgs(a.ToolArgs):
    """A device attribute (device_id, endpoint_id, cluster_id, attribute_id) or a room variable (room_id,
    variable) compared with a value."""

    device_id: a.DeviceId | None = None
    endpoint_id: a.EndpointId | None = None
    cluster_id: a.ClusterId | None = None
    attribute_id: a.AttributeId | None = None
    room_id: a.RoomId | None = None
    variable: Literal["temperature", "humidity", "illuminance", "pm10"] | None = Field(
        default=None,
        description="Room variable in get_room_states units: temperature and humidity in 0.01 "
        "(2512 = 25.12 °C, 4800 = 48 %), illuminance in lux, pm10 in µg/m³.",
    )
    operator: Literal[">", ">=", "<", "<=", "==", "!="]
    value: StrictBool | StrictInt | StrictFloat = Field(
        description="The value compared with, in the attribute's own units (e.g. 7500 = 75 % humidity)."
    )
    for_seconds: float = Field(
        default=0,
        ge=0,
        le=MAX_HOLD_S,
        description="The comparison must hold this long first (e.g. no motion for 900 s).",
    )

    @model_validator(mode="after")
    def _one_source(self) -> ComparisonArgs:
        device = [self.device_id, self.endpoint_id, self.cluster_id, self.attribute_id]
        room = [self.room_id, self.variable]
        if any(v is not None for v in device) == any(v is not None for v in room):
            raise ValueError("give either device_id, endpoint_id, cluster_id and attribute_id, or room_id and variable")
        if any(v is not None for v in device) and None in device:
            raise ValueError("a device comparison needs device_id, endpoint_id, cluster_id and attribute_id")
        if any(v is not None for v in room) and None in room:
            raise ValueError("a room comparison needs room_id and variable")
        return self


class TriggerArgs(a.ToolArgs):
    type: Literal["time", "state"] = Field(
        description='"time": a cron schedule; "state": when a comparison becomes true.'
    )
    cron: CronText | None = Field(
        default=None,
        description="For type time: Quartz cron 'sec min hour "
        "day-of-month month day-of-week year' with '?' in one day field, e.g. "
        "'0 45 6 ? * MON-FRI *' (weekdays 06:45), '0 0 22 27 6 ? 2025' (once).",
    )
    condition: ComparisonArgs | None = Field(
        default=None, description="For type state: the comparison whose crossing fires the automation."
    )

    @model_validator(mode="after")
    def _shape(self) -> TriggerArgs:
        if self.type == "time" and (self.cron is None or self.condition is not None):
            raise ValueError("a time trigger has cron (and no condition)")
        if self.type == "state" and (self.condition is None or self.cron is not None):
            raise ValueError("a state trigger has condition (and no cron)")
        return self


class CreateAutomationArgs(a.ToolArgs):
    name: Annotated[StrictStr, Field(min_length=1, max_length=200, description="A short name for the rule.")]
    trigger: TriggerArgs
    conditions: list[ComparisonArgs] = Field(
        default_factory=list,
        max_length=16,
        description=(
            "Optional comparisons that must all hold when the trigger fires (e.g. at 23:00, only if nobody is in "
            "the room)."
        ),
    )
    actions: list[a.WorkflowStepArgs] = Field(
        min_length=1,
        max_length=64,
        description=(
            "Steps run when it fires, as in schedule_workflow: {tool: execute_command|write_attribute, args}."
        ),
    )


class DeleteAutomationArgs(a.ToolArgs):
    automation_id: AutomationId


def _condition(args: ComparisonArgs, chip_cluster: Callable[[str], str]) -> dict[str, Any]:
    out: dict[str, Any] = {"op": args.operator, "value": args.value, "for_s": float(args.for_seconds)}
    if args.room_id is not None:
        return {**out, "room_id": args.room_id, "variable": args.variable}
    return {
        **out,
        "device_id": args.device_id,
        "path": f"{args.endpoint_id}.{chip_cluster(args.cluster_id or '')}.{args.attribute_id}",
    }


def _hosting(fabric: HomeAPI) -> AutomationHost:
    """Rules live in an emulated home; a backend without them (a Matter controller's view) says so."""
    if not isinstance(fabric, AutomationHost):
        raise HomeError(
            "NOT_SUPPORTED",
            f"this home backend ({type(fabric).__name__}) does not host automations; "
            "use schedule_workflow, or the emulated home (homefabric's EmulatedHome)",
        )
    return fabric


def create_automation(
    fabric: HomeAPI, args: CreateAutomationArgs, steps: list[WorkflowStep], chip_cluster: Callable[[str], str]
) -> dict[str, Any]:
    host = _hosting(fabric)
    # TriggerArgs._shape: a state trigger has its condition.
    trigger: dict[str, Any] = (
        {"kind": "time", "cron": args.trigger.cron}
        if args.trigger.type == "time"
        else {"kind": "state", "condition": _condition(args.trigger.condition, chip_cluster)}  # type: ignore[arg-type]
    )
    rule = host.add_automation(
        {
            "name": args.name,
            "trigger": trigger,
            "conditions": [_condition(c, chip_cluster) for c in args.conditions],
            "actions": [ActionStep.from_workflow_step(step).model_dump() for step in steps],
        }
    )
    return automation_view(host, rule.id)


def automation_view(fabric: AutomationHost, rule_id: str) -> dict[str, Any]:
    status = fabric.automation_status(rule_id)
    return {"automation_id": status.pop("id"), **status}


def list_automations(fabric: HomeAPI) -> list[dict[str, Any]]:
    host = _hosting(fabric)
    return [automation_view(host, rule.id) for rule in host.automations()]


def delete_automation(fabric: HomeAPI, args: DeleteAutomationArgs) -> dict[str, Any]:
    rule = _hosting(fabric).remove_automation(args.automation_id)
    return {"automation_id": rule.id, "deleted": True}


DESCRIPTIONS = {
    "create_automation": (
        "Create a persistent automation: a trigger (type time with a Quartz cron, or type state with a comparison "
        "on a device attribute or room variable, firing when it becomes true), optional conditions checked at "
        "that instant, and actions (execute_command / write_attribute steps). Everything is checked now; "
        "returns the rule with automation_id and next_firing."
    ),
    "list_automations": "List the automations: trigger, conditions, actions, enabled, last_fired, next_firing.",
    "delete_automation": "Delete an automation by automation_id.",
}
AUTOMATION_TOOL_NAMES: tuple[str, ...] = ("create_automation", "list_automations", "delete_automation")
