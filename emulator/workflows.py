"""Workflows: steps (a command or an attribute write) run at an absolute virtual time.

Steps are validated when scheduled (device, endpoint, cluster, command or attribute, argument
names, types and ranges), so a malformed workflow is refused up front; state-dependent
conditions (a device that is off at that time) can only fail when the step runs, and the failing
step's error is recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from emulator.clock import Timer

WorkflowStatus = Literal["pending", "running", "completed", "failed", "cancelled"]
STATUSES: tuple[str, ...] = ("pending", "running", "completed", "failed", "cancelled")


@dataclass(frozen=True)
class WorkflowStep:
    kind: Literal["invoke", "write"]
    device_id: str
    endpoint: int
    cluster: str
    name: str  # command or attribute
    args: dict[str, Any] = field(default_factory=dict)  # command arguments
    value: Any = None  # attribute value

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "device_id": self.device_id, "endpoint": self.endpoint,
                               "cluster": self.cluster}
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
            "workflow_id": self.workflow_id, "description": self.description, "start_time": self.start_time,
            "start_tick": self.start_tick, "status": self.status, "current_step": self.current_step,
            "total_steps": len(self.steps), "error": self.error,
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out
