"""Workflows: steps (a command or an attribute write) run at an absolute virtual time.

``WorkflowStep`` is the one "invoke a command or write an attribute" type of the whole tree: workflows,
automation actions, scenarios, benchmark generation and planning, MQTT commands and the Matter-controller
backend all build WorkflowSteps and hand them to the home's ``apply(step)``.

Steps are validated when scheduled (device, endpoint, cluster, command or attribute, argument
names, types and ranges), so a malformed workflow is refused up front; state-dependent
conditions (a device that is off at that time) can only fail when the step runs, and the failing
step's error is recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ConfigDict, with_config

from emulator.clock import Timer

WorkflowStatus = Literal["pending", "running", "completed", "failed", "cancelled"]
STATUSES: tuple[str, ...] = ("pending", "running", "completed", "failed", "cancelled")


@with_config(ConfigDict(extra="forbid"))  # a saved home's workflow steps are validated as this type
@dataclass(frozen=True)
class WorkflowStep:
    kind: Literal["invoke", "write"]
    device_id: str
    endpoint: int
    cluster: str
    name: str  # command or attribute
    args: dict[str, Any] = field(default_factory=dict)  # command arguments
    value: Any = None  # attribute value

    @classmethod
    def invoke(
        cls, device_id: str, endpoint: int, cluster: str, command: str, args: dict[str, Any] | None = None
    ) -> WorkflowStep:
        return cls("invoke", device_id, endpoint, cluster, command, dict(args or {}))

    @classmethod
    def write(cls, device_id: str, endpoint: int, cluster: str, attribute: str, value: Any) -> WorkflowStep:
        return cls("write", device_id, endpoint, cluster, attribute, value=value)

    def describe(self) -> str:
        """``invoke 1.OnOff.On({})`` / ``write 1.FanControl.PercentSetting = 50`` (the device is not named)."""
        target = f"{self.endpoint}.{self.cluster}.{self.name}"
        return f"invoke {target}({self.args})" if self.kind == "invoke" else f"write {target} = {self.value!r}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "device_id": self.device_id,
            "endpoint": self.endpoint,
            "cluster": self.cluster,
        }
        if self.kind == "invoke":
            out |= {"command": self.name, "args": self.args}
        else:
            out |= {"attribute": self.name, "value": self.value}
        return out


@dataclass
class Workflow:
    workflow_id: str
    description: str
    start_tick: int
    start_time: str
    steps: tuple[WorkflowStep, ...]
    status: WorkflowStatus = "pending"
    current_step: int = 0
    error: dict[str, Any] | None = None
    results: list[Any] = field(default_factory=list)
    timer: Timer | None = field(default=None, repr=False)

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "workflow_id": self.workflow_id,
            "description": self.description,
            "start_time": self.start_time,
            "start_tick": self.start_tick,
            "status": self.status,
            "current_step": self.current_step,
            "total_steps": len(self.steps),
            "error": self.error,
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out
