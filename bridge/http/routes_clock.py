"""Clock controls (pause, resume, speed via the RealtimePacer; fast-forward) and workflows."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request

from bridge.http.context import ApiContext
from bridge.http.errors import ApiError
from bridge.http.models import ClockOut, FastForwardBody, FastForwardOut, InvokeStep, ScheduleBody, SpeedBody
from emulator.workflows import STATUSES, WorkflowStep

clock_router = APIRouter(prefix="/api/clock", tags=["clock"])
workflow_router = APIRouter(prefix="/api/workflows", tags=["workflows"])


def ctx(request: Request) -> ApiContext:
    context: ApiContext = request.app.state.ctx
    return context


def _pacer(context: ApiContext) -> Any:
    if context.pacer is None:
        raise ApiError(
            "NO_PACER",
            "this API was started without a real-time pacer: virtual time only moves by fast-forward",
            allowed=["POST /api/clock/fast-forward"],
        )
    return context.pacer


@clock_router.get("", response_model=ClockOut, summary="Virtual time now and the pacer's state")
async def get_clock(request: Request) -> dict[str, Any]:
    return ctx(request).clock()


@clock_router.post("/pause", response_model=ClockOut, summary="Stop virtual time following the wall clock")
async def pause(request: Request) -> dict[str, Any]:
    context = ctx(request)
    await _pacer(context).stop()
    return context.clock_changed()


@clock_router.post("/resume", response_model=ClockOut, summary="Let virtual time follow the wall clock again")
async def resume(request: Request) -> dict[str, Any]:
    context = ctx(request)
    await _pacer(context).start()
    return context.clock_changed()


@clock_router.put("/speed", response_model=ClockOut, summary="Virtual seconds per wall second")
async def set_speed(request: Request, body: SpeedBody) -> dict[str, Any]:
    context = ctx(request)
    _pacer(context).speed = body.speed
    return context.clock_changed()


@clock_router.post(
    "/fast-forward",
    response_model=FastForwardOut,
    summary="Advance virtual time now by a duration; every timer on the way runs",
    description="Runs in short slices: the API answers other requests meanwhile, and /ws/events "
    "streams `fast_forward` progress events. One fast-forward at a time (409 otherwise).",
)
async def fast_forward(request: Request, body: FastForwardBody) -> dict[str, Any]:
    context = ctx(request)
    pacer = context.pacer
    if pacer is not None and pacer.running:
        pacer.catch_up()
    ran = await context.fast_forward.run(body.seconds)  # in slices: other requests are answered meanwhile
    if pacer is not None and pacer.running:
        pacer.catch_up()  # re-anchor: the pacer goes on from the new time instead of waiting for the wall clock
    return {"clock": context.clock_changed(), "events_run": ran}


# --- workflows -----------------------------------------------------------------------------------------------


@workflow_router.get("", summary="Workflows, optionally of one status")
async def list_workflows(
    request: Request, status: Annotated[str | None, Query(description=f"one of {', '.join(STATUSES)}")] = None
) -> list[dict[str, Any]]:
    return [w.to_dict() for w in ctx(request).fabric.workflows(status)]


@workflow_router.get("/{workflow_id}", summary="One workflow with its steps")
async def get_workflow(request: Request, workflow_id: Annotated[str, Path(max_length=100)]) -> dict[str, Any]:
    return ctx(request).fabric.workflow(workflow_id).to_dict(with_steps=True)


@workflow_router.post("", status_code=201, summary="Schedule steps at a future virtual time (validated now)")
async def schedule_workflow(request: Request, body: ScheduleBody) -> dict[str, Any]:
    steps = [
        WorkflowStep("invoke", s.device_id, s.endpoint, s.cluster, s.command, args=dict(s.args))
        if isinstance(s, InvokeStep)
        else WorkflowStep("write", s.device_id, s.endpoint, s.cluster, s.attribute, value=s.value)
        for s in body.steps
    ]
    workflow = ctx(request).fabric.schedule(body.start_time, steps, body.description)
    return workflow.to_dict(with_steps=True)


@workflow_router.delete("/{workflow_id}", summary="Cancel a pending workflow (409 if it already ran)")
async def cancel_workflow(request: Request, workflow_id: Annotated[str, Path(max_length=100)]) -> dict[str, Any]:
    return ctx(request).fabric.cancel(workflow_id).to_dict(with_steps=True)
