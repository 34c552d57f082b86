"""The witness schedule of a qt4 episode, verified by simulating it (and doing nothing) on a fresh fabric."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from benchmark.generation.episode_layout import GenerationFailed, time_at
from benchmark.generation.homes import EpisodeHome
from benchmark.generation.targets import Variant, asserts_hold
from emulator.clock import TIME_FORMAT


@dataclass
class Check:
    """Goal ``index`` must hold at ``tick`` for ``device_id`` (asserts of ``variant``)."""

    index: int
    tick: int
    device_id: str
    variant: Variant


@dataclass
class Plan:
    """The witness: steps now and workflows at ticks."""

    now: list[tuple[str, Variant]]
    later: list[tuple[int, str, Variant]]


def simulate(home: EpisodeHome, plan: Plan | None, checks: Iterable[Check]) -> dict[int, bool]:
    """Run the plan (or nothing) on a fresh fabric; which goals hold at their check ticks."""
    fabric = home.fabric()
    if plan is not None:
        for device_id, variant in plan.now:
            for step in variant.steps:
                step.apply(fabric, device_id)
        for tick, device_id, variant in plan.later:
            fabric.schedule(tick, [s.workflow_step(device_id) for s in variant.steps])
    result: dict[int, bool] = {}
    for check in sorted(checks, key=lambda c: c.tick):
        fabric.run_until(check.tick)
        result[check.index] = result.get(check.index, True) and asserts_hold(fabric, check.device_id, check.variant)
    return result


def solution_calls(home: EpisodeHome, plan: Plan) -> list[dict[str, Any]]:
    calls = [step.tool_call(device_id) for device_id, variant in plan.now for step in variant.steps]
    for tick, device_id, variant in plan.later:
        start = time_at(home.initial_home_config, tick).strftime(TIME_FORMAT)
        calls.append(
            {
                "tool": "schedule_workflow",
                "params": {
                    "start_time": start,
                    "description": f"{variant.intent} {device_id}",
                    "steps": [
                        {"tool": c["tool"], "args": c["params"]}
                        for c in (s.tool_call(device_id) for s in variant.steps)
                    ],
                },
            }
        )
    return calls


def verify(home: EpisodeHome, plan: Plan, checks: list[Check], null_checks: list[Check]) -> None:
    held = simulate(home, plan, checks)
    if not all(held.values()):
        raise GenerationFailed(f"witness schedule misses goals {sorted(i for i, ok in held.items() if not ok)}")
    idle = simulate(home, None, null_checks)
    if all(idle.values()):
        raise GenerationFailed("doing nothing already satisfies every goal")
