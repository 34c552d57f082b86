"""The state-based evaluators: final-state asserts (qt3), direction against the no-agent world (qt2),
and asserts within a time window found by fast-forwarding the live fabric (qt4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchmark.scoring.evaluators.state_comparison import (
    ROLES_BY_VARIABLE,
    Baseline,
    EvalSettings,
    check_asserts,
    fresh_room,
)
from benchmark.scoring.step_planning import DevicePlan, control_steps
from benchmark.suites.simuhome.episode import DirectionGoal, ScheduleGoal, TargetGoal
from emulator.clock import TICKS_PER_SECOND
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError


def final_state_checks(fabric: EmulatedHome, goals: list[Any]) -> tuple[bool, list[dict[str, Any]]]:
    """qt3 feasible: every assert of every target equals the state now (no tolerance)."""
    checks = []
    for goal in goals:
        if not isinstance(goal, TargetGoal):
            continue
        asserts = check_asserts(fabric, goal.device_id, goal.asserts)
        checks.append(
            {
                "check": "final_state",
                "device_id": goal.device_id,
                "ok": bool(asserts) and all(a["ok"] for a in asserts),
                "asserts": asserts,
            }
        )
    return bool(checks) and all(c["ok"] for c in checks), checks


def direction_checks(
    fabric: EmulatedHome, baseline: Baseline, goals: list[Any], settings: EvalSettings
) -> tuple[bool, bool, list[dict[str, Any]]]:
    """qt2 feasible: each goal variable moved in the asked direction, compared with the no-agent world at
    the same tick, ``qt2_horizon_s`` after the agent finished. Returns (ours, SimuHome-style, checks).

    Ours asks for a real move: the goal's threshold, or ``qt2_reach_share`` of the move the room's own devices
    can make at best (:func:`reachable_move`) where that is smaller; SimuHome's asks for 1e-8.
    """
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
        except HomeError as error:
            checks.append(
                {
                    "check": "direction",
                    "room_id": goal.room_id,
                    "room_state": goal.room_state,
                    "direction": goal.direction,
                    "ok": False,
                    "ok_simuhome": False,
                    "error": error.message,
                }
            )
            continue
        sign = 1 if goal.direction == "increase" else -1
        moved = sign * (final - reference)
        threshold = settings.qt2_thresholds.get(goal.room_state, 0.0)
        reach = sign * (reachable_value(baseline, goal, tick) - reference)
        if settings.simuhome_threshold < reach * settings.qt2_reach_share < threshold:
            threshold = reach * settings.qt2_reach_share
        checks.append(
            {
                "check": "direction",
                "room_id": goal.room_id,
                "room_state": goal.room_state,
                "direction": goal.direction,
                "at_tick": tick,
                "no_agent": round(reference, 4),
                "with_agent": round(final, 4),
                "moved": round(moved, 4),
                "reachable": round(reach, 4),
                "threshold": round(threshold, 4),
                "ok": moved >= threshold,
                "ok_simuhome": moved >= settings.simuhome_threshold,
            }
        )
    ours = bool(checks) and all(c["ok"] for c in checks)
    simuhome = bool(checks) and all(c["ok_simuhome"] for c in checks)
    return ours, simuhome, checks


def reachable_value(baseline: Baseline, goal: DirectionGoal, tick: int) -> float:
    """The goal variable at ``tick`` in a world where, when the agent started, every device of the goal room
    that moves it was set to its strongest action the asked way (opposing ones switched off): the most the
    room's own devices can do (in a world of that room alone: :func:`fresh_room`)."""
    world = fresh_room(baseline.initial_home_config, goal.room_id)
    world.run_until(int(baseline.before.get("tick", 0)))
    for device in world.devices(goal.room_id):
        for role, endpoint in device.spec.roles:
            if role not in ROLES_BY_VARIABLE.get(goal.room_state, ()):
                continue
            plan = DevicePlan(device.device_id, device.device_type, dict(world.read_all(device.device_id)))
            for step in control_steps(plan, role, endpoint, goal.room_state, goal.direction):
                try:
                    world.apply(step)
                except HomeError:
                    continue  # a refused step is simply not part of what the devices can do
    world.run_until(tick)
    return world.room_state(goal.room_id, exact=True)[goal.room_state]


@dataclass
class _ScheduleWindow:
    """One qt4 goal's window ``[at − tol, at + tol]`` and what the sweep found in it."""

    goal_index: int
    goal: ScheduleGoal
    at_tick: int
    tolerance_ticks: int
    window_missed: bool
    window_clipped: bool
    satisfied_at: int | None = None
    tested_ticks: int = 0
    last: list[dict[str, Any]] | None = None

    @classmethod
    def open(cls, goal_index: int, goal: ScheduleGoal, start: int) -> _ScheduleWindow:
        at, tol = goal.when.at_tick, goal.when.tolerance_ticks
        return cls(
            goal_index, goal, at, tol, window_missed=at + tol < start, window_clipped=at - tol < start <= at + tol
        )

    @property
    def low(self) -> int:
        return self.at_tick - self.tolerance_ticks

    @property
    def high(self) -> int:
        return self.at_tick + self.tolerance_ticks

    def check(self) -> dict[str, Any]:
        ok = self.satisfied_at is not None
        check: dict[str, Any] = {
            "check": "schedule",
            "goal_index": self.goal_index,
            "at_tick": self.at_tick,
            "tolerance_ticks": self.tolerance_ticks,
            "ok": ok,
            "satisfied_at": self.satisfied_at,
            "tested_ticks": self.tested_ticks,
            "window_missed": self.window_missed,
            "window_clipped": self.window_clipped,
        }
        if not ok and self.last is not None:
            check["last_checked"] = self.last
        return check


def schedule_checks(fabric: EmulatedHome, goals: list[Any]) -> tuple[bool, list[dict[str, Any]]]:
    """qt4 feasible: every goal's asserts all hold at some tick of ``[at − tol, at + tol]``.

    Device state only changes at clock events, so one sweep forward over every window checks each window
    start and every event tick inside a window — exact, and cheap (O(events), not 601 probes per goal).
    Virtual time is paused while the agent works, so windows normally lie ahead; a window that had
    (partly) passed when the agent finished cannot be inspected any more and is reported as such.
    """
    start = fabric.tick
    windows = [
        _ScheduleWindow.open(index, goal, start) for index, goal in enumerate(goals) if isinstance(goal, ScheduleGoal)
    ]
    live = [w for w in windows if not w.window_missed]
    if live:
        end = max(w.high for w in live)
        tick = max(start, min(w.low for w in live))
        while True:
            fabric.run_until(tick)  # also runs events due at this very tick
            for window in live:
                if window.satisfied_at is None and window.low <= tick <= window.high:
                    window.tested_ticks += 1
                    asserts = [
                        (t.device_id, check_asserts(fabric, t.device_id, t.asserts)) for t in window.goal.targets
                    ]
                    window.last = [{"device_id": device_id, "asserts": found} for device_id, found in asserts]
                    if all(a["ok"] for _, found in asserts for a in found):
                        window.satisfied_at = tick
            upcoming = [w.low for w in live if w.low > tick]
            due = fabric.clock.next_due()  # the next event: state is constant until then
            candidates = [t for t in (*upcoming, due) if t is not None and t <= end]
            if not candidates or all(w.satisfied_at is not None for w in live):
                break
            tick = max(min(candidates), tick)
    checks = [window.check() for window in windows]
    return bool(checks) and all(c["ok"] for c in checks), checks
