"""Automations over HTTP: list (with kind, last and next firing), create, delete, enable/disable, history."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request

from bridge.http.context import ApiContext
from emulator.automations.model import AutomationSpec

router = APIRouter(prefix="/api/automations", tags=["automations"])
RuleId = Annotated[str, Path(max_length=64)]


def _context(request: Request) -> ApiContext:
    context: ApiContext = request.app.state.ctx
    if context.pacer is not None and context.pacer.running:
        context.pacer.catch_up()  # "now" is the virtual time of this request, not of the last pacer step
    return context


@router.get("", summary="Every rule in creation order, with its kind, last and next firing")
async def list_automations(request: Request) -> list[dict[str, Any]]:
    fabric = _context(request).fabric
    return [fabric.automation_status(rule.id) for rule in fabric.automations()]


@router.get("/history", summary="The latest firings, skips (conditions not met) and loop cuts, oldest first")
async def history(request: Request) -> list[dict[str, Any]]:
    return _context(request).fabric.automation_history()


@router.get("/{rule_id}", summary="One rule")
async def get_automation(request: Request, rule_id: RuleId) -> dict[str, Any]:
    return _context(request).fabric.automation_status(rule_id)


@router.post("", status_code=201, summary="Create a rule (time, state or time-and-state; checked now)")
async def create_automation(request: Request, body: AutomationSpec) -> dict[str, Any]:
    fabric = _context(request).fabric
    return fabric.automation_status(fabric.add_automation(body).id)


@router.delete("/{rule_id}", summary="Delete a rule")
async def delete_automation(request: Request, rule_id: RuleId) -> dict[str, Any]:
    return _context(request).fabric.remove_automation(rule_id).model_dump(mode="json")


@router.post("/{rule_id}/enable", summary="Enable a rule (a state rule starts from the state now)")
async def enable_automation(request: Request, rule_id: RuleId) -> dict[str, Any]:
    fabric = _context(request).fabric
    return fabric.automation_status(fabric.enable_automation(rule_id).id)


@router.post("/{rule_id}/disable", summary="Disable a rule (kept, never fires)")
async def disable_automation(request: Request, rule_id: RuleId) -> dict[str, Any]:
    fabric = _context(request).fabric
    return fabric.automation_status(fabric.disable_automation(rule_id).id)
