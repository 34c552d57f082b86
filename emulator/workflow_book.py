"""The home's scheduled workflows: steps validated when scheduled, run at their virtual time, kept with the home."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime

from emulator.errors import HomeError
from emulator.home_config import WorkflowConfig
from emulator.home_results import StepResult
from emulator.timeline import Timeline
from emulator.workflows import STATUSES, Workflow, WorkflowStep


class WorkflowBook:
    """Owns the workflows: numbering, scheduling (every step checked now), running, cancelling, restoring."""

    __slots__ = ("_apply", "_counter", "_timeline", "_validate", "workflows")  # one per home: no instance dict

    def __init__(
        self, timeline: Timeline, validate: Callable[[WorkflowStep], None], apply: Callable[[WorkflowStep], StepResult]
    ) -> None:
        self._timeline = timeline
        self._validate = validate
        self._apply = apply
        self.workflows: dict[str, Workflow] = {}
        self._counter = 0

    def schedule(self, start: datetime | str | int, steps: Iterable[WorkflowStep], description: str = "") -> Workflow:
        """Schedule steps at an absolute future time; every step is validated now."""
        steps = tuple(steps)
        if not steps:
            raise HomeError("VALIDATION_ERROR", "a workflow needs at least one step")
        clock = self._timeline.clock
        tick = self._timeline.to_tick(start)
        if tick <= clock.tick:
            raise HomeError(
                "VALIDATION_ERROR", f"start time {clock.time_text(tick)} is not in the future (now {clock.now_text()})"
            )
        for index, step in enumerate(steps):
            try:
                self._validate(step)
            except HomeError as error:
                raise error.at(f"step {index}") from None
        self._counter += 1
        workflow = Workflow(f"wf-{self._counter:04d}", description, tick, clock.time_text(tick), steps)
        workflow.timer = clock.call_at_tick(tick, lambda: self._run(workflow), workflow.workflow_id)
        self.workflows[workflow.workflow_id] = workflow
        return workflow

    def _run(self, workflow: Workflow) -> None:
        if workflow.status != "pending":
            return
        workflow.status = "running"
        for index, step in enumerate(workflow.steps):
            workflow.current_step = index
            try:
                result = self._apply(step)
            except HomeError as error:
                workflow.status = "failed"
                workflow.error = {"step": index, **error.to_dict()}
                return
            workflow.results.append(result.to_dict())
        workflow.status = "completed"

    def restore(self, config: WorkflowConfig) -> None:
        steps = tuple(replace(s, args=dict(s.args)) for s in config.steps)  # a step's args are not shared
        clock = self._timeline.clock
        tick = self._timeline.to_tick(config.start_time)
        workflow = Workflow(
            config.id,
            config.description,
            tick,
            config.start_time,
            steps,
            config.status,
            config.current_step,
            config.error,
            list(config.results),
        )
        if workflow.status == "running":  # saved mid-way: it starts again from its first step
            workflow.status, workflow.current_step, workflow.results = "pending", 0, []
        if workflow.status == "pending":
            workflow.timer = clock.call_at_tick(
                max(tick, clock.tick), lambda: self._run(workflow), workflow.workflow_id
            )
        self.workflows[workflow.workflow_id] = workflow
        number = config.id.rsplit("-", 1)[-1]
        if number.isdigit():
            self._counter = max(self._counter, int(number))

    def workflow(self, workflow_id: str) -> Workflow:
        workflow = self.workflows.get(workflow_id)
        if workflow is None:
            raise HomeError("WORKFLOW_NOT_FOUND", f"no workflow {workflow_id!r}", allowed=sorted(self.workflows))
        return workflow

    def listed(self, status: str | None = None) -> list[Workflow]:
        if status is not None and status not in STATUSES:
            raise HomeError("VALIDATION_ERROR", f"unknown workflow status {status!r}", allowed=list(STATUSES))
        return [w for w in self.workflows.values() if status is None or w.status == status]

    def cancel(self, workflow_id: str) -> Workflow:
        workflow = self.workflow(workflow_id)
        if workflow.status == "pending":
            workflow.status = "cancelled"
            if workflow.timer is not None:
                workflow.timer.cancel()
        elif workflow.status != "cancelled":
            raise HomeError(
                "INVALID_STATE",
                f"workflow {workflow_id} is {workflow.status} and cannot be cancelled",
                allowed={"cancellable_status": "pending"},
            )
        return workflow

    def configs(self) -> list[WorkflowConfig]:
        return [
            WorkflowConfig(
                id=w.workflow_id,
                description=w.description,
                start_time=w.start_time,
                status=w.status,
                current_step=w.current_step,
                error=w.error,
                results=list(w.results),
                steps=[replace(s, args=dict(s.args)) for s in w.steps],
            )
            for w in self.workflows.values()
        ]
