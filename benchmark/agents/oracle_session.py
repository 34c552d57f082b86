"""The oracle's tool session: every call it makes (kept as its trajectory), what it has read so far (rooms,
device states in chip paths) and planned ``WorkflowStep``s run as the agent tools that do them."""

from __future__ import annotations

from typing import Any

from benchmark.agents.base import AgentStep, ToolCaller
from benchmark.agents.oracle_answers import spoken
from benchmark.scoring.step_planning import chip_path
from emulator.workflows import WorkflowStep


class OracleSession:
    def __init__(self, tools: ToolCaller) -> None:
        self.tools = tools
        self.steps: list[AgentStep] = []
        self.room_devices: dict[str, dict[str, Any]] = {}
        self.device_state: dict[str, dict[str, Any]] = {}
        self.room_states: dict[str, dict[str, Any]] = {}

    def call(self, tool: str, arguments: dict[str, Any], thought: str | None = None) -> dict[str, Any]:
        envelope = self.tools.call(tool, arguments)
        self.steps.append(AgentStep(len(self.steps), thought, tool, arguments, envelope))
        return envelope

    def offers_argument(self, tool: str, argument: str) -> bool:
        """Whether the offered ``tool`` takes ``argument`` (its schema lists it): the tool profile decides."""
        for schema in self.tools.schemas():
            function = schema.get("function", {})
            if function.get("name") == tool:
                return argument in function.get("parameters", {}).get("properties", {})
        return False

    def data(self, tool: str, arguments: dict[str, Any], thought: str | None = None) -> Any:
        envelope = self.call(tool, arguments, thought)
        return envelope.get("data") if envelope.get("error") is None else None

    def devices_in(self, room_id: str) -> dict[str, Any]:
        if room_id not in self.room_devices:
            self.room_devices[room_id] = (
                self.data("get_room_devices", {"room_id": room_id}, f"Which devices are in the {spoken(room_id)}?")
                or {}
            )
        return self.room_devices[room_id]

    def state_of(self, device_id: str) -> dict[str, Any] | None:
        if device_id not in self.device_state:
            data = self.data("get_all_attributes", {"device_id": device_id}, f"Read the state of {device_id}.")
            if data is None:
                return None
            self.device_state[device_id] = {chip_path(k): v for k, v in data.items()}
        return self.device_state[device_id]

    def run_steps(self, steps: list[WorkflowStep]) -> list[str]:
        problems = []
        for step in steps:
            call = tool_call(step)
            envelope = self.call(call["tool"], call["args"], describe_step(step))
            if envelope.get("error") is not None:
                problems.append(f"{describe_step(step)}: {envelope['error'].get('detail')}")
        return problems


def tool_call(step: WorkflowStep) -> dict[str, Any]:
    """The agent tool doing ``step``: ``{"tool": "execute_command"|"write_attribute", "args": {...}}`` (also the
    shape of a ``schedule_workflow`` step)."""
    if step.kind == "invoke":
        return {
            "tool": "execute_command",
            "args": {
                "device_id": step.device_id,
                "endpoint_id": step.endpoint,
                "cluster_id": step.cluster,
                "command_id": step.name,
                "args": dict(step.args),
            },
        }
    return {
        "tool": "write_attribute",
        "args": {
            "device_id": step.device_id,
            "endpoint_id": step.endpoint,
            "cluster_id": step.cluster,
            "attribute_id": step.name,
            "value": step.value,
        },
    }


def describe_step(step: WorkflowStep) -> str:
    if step.kind == "invoke":
        return f"{step.device_id}: {step.cluster}.{step.name} {step.args or ''}".strip()
    return f"{step.device_id}: set {step.cluster}.{step.name} = {step.value}"
