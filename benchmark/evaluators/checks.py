"""The state-based evaluators: final-state asserts (qt3), direction against the no-agent world (qt2),
and asserts within a time window found by fast-forwarding the live fabric (qt4)."""

from __future__ import annotations

from typing import Any

from benchmark.episode import DirectionGoal, ScheduleGoal, TargetGoal
from benchmark.evaluators.common import Baseline, EvalSettings, check_asserts
from emulator.clock import TICKS_PER_SECOND
from emulator.errors import FabricError
from emulator.fabric import Fabric


def final_state_checks(fabric: Fabric, goals: list[Any]) -> tuple[bool, list[dict[str, Any]]]:
    """qt3 feasible: every assert of every target equals the state now (no tolerance)."""
    checks = []
    for goal in goals:
        if not isinstance(goal, TargetGoal):
            continue
        asserts = check_asserts(fabric, goal.device_id, goal.asserts)
        checks.append({"check": "final_state", "device_id": goal.device_id,
                       "ok": bool(asserts) and all(a["ok"] for a in asserts), "asserts": asserts})
    return bool(checks) and all(c["ok"] for c in checks), checks


def direction_checks(fabric: Fabric, baseline: Baseline, goals: list[Any], settings: EvalSettings
                     ) -> tuple[bool, bool, list[dict[str, Any]]]:
    """qt2 feasible: each goal variable moved in the asked direction, compared with the no-agent world at
    the same tick, ``qt2_horizon_s`` after the agent finished. Returns (ours, SimuHome-style, checks)."""
    start = fabric.tick
    tick = start + round(settings.qt2_horizon_s * TICKS_PER_SECOND)
    fabric.run_until(tick)
    world = baseline.fabric_at(tick)
    checks = []
    for goal in goals:
        if not isinstance(goal, DirectionGoal):
            continue
        try:
            final = fabric.room_state(goal.room_id, exact=True)[goal.room_state]
            reference = world.room_state(goal.room_id, exact=True)[goal.room_state]
        except FabricError as error:
            checks.append({"check": "direction", "room_id": goal.room_id, "room_state": goal.room_state,
                           "direction": goal.direction, "ok": False, "ok_simuhome": False, "error": error.message})
            continue
        moved = final - reference if goal.direction == "increase" else reference - final
        threshold = settings.qt2_thresholds.get(goal.room_state, 0.0)
        checks.append({"check": "direction", "room_id": goal.room_id, "room_state": goal.room_state,
                       "direction": goal.direction, "at_tick": tick, "no_agent": round(reference, 4),
                       "with_agent": round(final, 4), "moved": round(moved, 4), "threshold": threshold,
                       "ok": moved >= threshold, "ok_simuhome": moved >= settings.simuhome_threshold})
    ours = bool(checks) and all(c["ok"] for c in checks)
    simuhome = bool(checks) and all(c["ok_simuhome"] for c in checks)
    return ours, simuhome, checks


def schedule_checks(fabric: Fabric, goals: list[Any]) -> tuple[bool, list[dict[str, Any]]]:
    """qt4 feasible: every goal's asserts all hold at some tick of ``[at − tol, at + tol]``.

    Device state only changes at clock events, so one sweep forward over every window checks each window
    start and every event tick inside a window — exact, and cheap (O(events), not 601 probes per goal).
    Virtual time is paused while the agent works, so windows normally lie ahead; a window that had
    (partly) passed when the agent finished cannot be inspected any more and is reported as such.
    """
    start = fabric.tick
    windows = []
    for index, goal in enumerate(goals):
        if not isinstance(goal, ScheduleGoal):
            continue
        at, tol = goal.when.at_tick, goal.when.tolerance_ticks
        windows.append({"goal_index": index, "goal": goal, "at_tick": at, "tolerance_ticks": tol,
                        "low": at - tol, "high": at + tol, "satisfied_at": None, "tested_ticks": 0,
                        "window_missed": at + tol < start, "window_clipped": at - tol < start <= at + tol,
                        "last": None})
    live = [w for w in windows if not w["window_missed"]]
    if live:
        end = max(w["high"] for w in live)
        tick = max(start, min(w["low"] for w in live))
        while True:
            fabric.run_until(tick)  # also runs events due at this very tick
            for window in live:
                if window["satisfied_at"] is None and window["low"] <= tick <= window["high"]:
                    window["tested_ticks"] += 1
                    results = [{"device_id": t.device_id, "asserts": check_asserts(fabric, t.device_id, t.asserts)}
                               for t in window["goal"].targets]
                    window["last"] = results
                    if all(a["ok"] for r in results for a in r["asserts"]):
                        window["satisfied_at"] = tick
            upcoming = [w["low"] for w in live if w["low"] > tick]
            due = fabric.clock.next_due()  # the next event: state is constant until then
            candidates = [t for t in (*upcoming, due) if t is not None and t <= end]
            if not candidates or all(w["satisfied_at"] is not None for w in live):
                break
            tick = max(min(candidates), tick)
    checks = []
    for window in windows:
        ok = window["satisfied_at"] is not None
        check = {"check": "schedule", "goal_index": window["goal_index"], "at_tick": window["at_tick"],
                 "tolerance_ticks": window["tolerance_ticks"], "ok": ok, "satisfied_at": window["satisfied_at"],
                 "tested_ticks": window["tested_ticks"], "window_missed": window["window_missed"],
                 "window_clipped": window["window_clipped"]}
        if not ok and window["last"] is not None:
            check["last_checked"] = window["last"]
        checks.append(check)
    return bool(checks) and all(c["ok"] for c in checks), checks
