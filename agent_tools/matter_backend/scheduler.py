"""``schedule_workflow`` on the host clock: a real Matter home has no virtual time to queue events on.

One daemon thread sleeps until the earliest pending workflow's start time, then runs its steps in order
through the backend (a step that fails marks the workflow failed with that step and cause, like the
fabric's workflows). Workflows are ``emulator.workflows.Workflow`` records so the tools report them in
the same shape; ``start_tick`` is the start time in tenths of a second since the scheduler started.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

from emulator.clock import TICKS_PER_SECOND, TIME_FORMAT
from emulator.errors import HomeError
from emulator.workflows import Workflow, WorkflowStep

StepRunner = Callable[[WorkflowStep], Any]


class HostScheduler:
    def __init__(self, run_step: StepRunner, now: Callable[[], datetime]) -> None:
        self._run_step = run_step
        self._now = now
        self._origin = now()
        self._workflows: dict[str, Workflow] = {}
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name="workflow-scheduler", daemon=True)
        self._thread.start()

    def schedule(self, start_time: str, steps: list[WorkflowStep], description: str = "") -> Workflow:
        start = datetime.strptime(start_time, TIME_FORMAT)
        with self._lock:
            workflow_id = f"wf-{len(self._workflows) + 1:04d}"
            tick = round((start - self._origin).total_seconds() * TICKS_PER_SECOND)
            workflow = Workflow(workflow_id, description, tick, start_time, tuple(steps))
            self._workflows[workflow_id] = workflow
            self._wake.notify_all()
        return workflow

    def workflow(self, workflow_id: str) -> Workflow:
        with self._lock:
            workflow = self._workflows.get(workflow_id)
            if workflow is None:
                raise HomeError("WORKFLOW_NOT_FOUND", f"no workflow {workflow_id!r}", allowed=sorted(self._workflows))
            return workflow

    def workflows(self, status: str | None = None) -> list[Workflow]:
        with self._lock:
            return [w for w in self._workflows.values() if status is None or w.status == status]

    def cancel(self, workflow_id: str) -> Workflow:
        workflow = self.workflow(workflow_id)
        with self._lock:
            if workflow.status in ("running", "completed", "failed"):
                raise HomeError(
                    "INVALID_STATE",
                    f"workflow {workflow_id} is {workflow.status}; only a pending workflow can be cancelled",
                )
            workflow.status = "cancelled"
            self._wake.notify_all()
        return workflow

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._wake.notify_all()
        self._thread.join(5)

    # ------------------------------------------------------------------------------ the thread
    def _due(self) -> tuple[Workflow | None, float]:
        pending = [w for w in self._workflows.values() if w.status == "pending"]
        if not pending:
            return None, 3600.0
        first = min(pending, key=lambda w: (w.start_time, w.workflow_id))
        wait = (datetime.strptime(first.start_time, TIME_FORMAT) - self._now()).total_seconds()
        return (first, 0.0) if wait <= 0 else (None, min(wait, 3600.0))

    def _loop(self) -> None:
        while True:
            with self._lock:
                if self._closed:
                    return
                workflow, wait = self._due()
                if workflow is None:
                    self._wake.wait(wait)
                    continue
                workflow.status = "running"
            self._execute(workflow)

    def _execute(self, workflow: Workflow) -> None:
        for index, step in enumerate(workflow.steps):
            workflow.current_step = index
            try:
                workflow.results.append(self._run_step(step))
            except HomeError as error:
                workflow.error = {"step": index, **error.to_dict()}
                workflow.status = "failed"
                return
            except Exception as error:  # a dropped connection must not kill the scheduler
                workflow.error = {"step": index, "code": "CONNECTION_ERROR", "message": str(error)}
                workflow.status = "failed"
                return
        workflow.current_step = len(workflow.steps)
        workflow.status = "completed"
