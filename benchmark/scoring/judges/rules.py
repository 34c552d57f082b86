"""The rules judge of the answer-scored kinds (qt1, qt2 infeasible, qt3 infeasible, qt4 infeasible):
deterministic. qt1: every number or state in the answer that a goal asks about matches the truth (room
states in display or internal units within a tolerance; device attributes read from the fabric, enum names
and values both accepted) and the room is named. Infeasible kinds: no state that a goal targets changed, and
the answer names the reason (the missing device, the saturation, the time conflict) — keyword and number
checks against the goal and temporal_conflict.
"""

from __future__ import annotations

from typing import Any

from benchmark.scoring.evaluators.judging import JudgeRequest
from benchmark.scoring.evaluators.state_comparison import MISSING, moves_variable, read_assert_path
from benchmark.scoring.judges.words import (
    CONFLICT,
    NEGATION,
    QUANTITY_SCALES,
    SATURATION,
    VARIABLE_WORDS,
    has_any,
    mentions_device,
    mentions_room,
    normalised,
    number_matches,
    numbers_in,
    quantity_matches,
    times_in_formats,
    value_mentioned,
)
from benchmark.scoring.verdicts import JudgeRecord
from benchmark.suites.simuhome.episode import (
    DeviceAttributeGoal,
    DirectionGoal,
    RoomStateGoal,
    ScheduleGoal,
    TargetGoal,
)
from emulator.emulated_home import EmulatedHome
from emulator.simuhome.paths import our_path


def _enum_names(fabric: EmulatedHome, device_id: str, path: str) -> dict[int, str]:
    parts = path.split(".")
    if len(parts) != 3:
        return {}

    ours = our_path(path)
    if ours is None:
        return {}
    endpoint, cluster, attribute = ours.split(".")
    try:
        entry = fabric.describe_device(device_id)["endpoints"][endpoint]["clusters"][cluster]["attributes"][attribute]
    except Exception:
        return {}
    return {value: name for name, value in (entry.get("enum_values") or {}).items()}


class RulesJudge:
    name = "rules"

    async def judge(self, request: JudgeRequest) -> JudgeRecord:
        return self.judge_now(request)

    def judge_now(self, request: JudgeRequest) -> JudgeRecord:
        episode = request.episode
        text = normalised(request.final_answer or "")
        checks: list[dict[str, Any]] = [{"check": "answer_present", "ok": bool(request.final_answer.strip())}]
        qt = episode.query_type
        if qt == "qt1":
            checks += self._qt1(request, text)
        elif qt == "qt2":
            checks += self._qt2_infeasible(request, text)
        elif qt == "qt3":
            checks += self._qt3_infeasible(request, text)
        else:
            checks += self._qt4_infeasible(request, text)
        return JudgeRecord(name=self.name, passed=all(c["ok"] for c in checks), checks=checks, error=None)

    # qt1 -----------------------------------------------------------------------------------------------
    def _qt1(self, request: JudgeRequest, text: str) -> list[dict[str, Any]]:
        checks = []
        devices = request.after["devices"]
        for index, goal in enumerate(request.episode.goals):
            if isinstance(goal, RoomStateGoal):
                truth = request.after["rooms"].get(goal.room_id, {}).get("state", {}).get(goal.room_state)
                ok = truth is not None and number_matches(text, float(truth), goal.room_state)
                checks.append(
                    {
                        "check": "room_state_value",
                        "goal_index": index,
                        "room_id": goal.room_id,
                        "room_state": goal.room_state,
                        "truth": truth,
                        "ok": ok,
                    }
                )
                checks.append(
                    {
                        "check": "room_named",
                        "goal_index": index,
                        "room_id": goal.room_id,
                        "ok": mentions_room(text, goal.room_id),
                    }
                )
            elif isinstance(goal, DeviceAttributeGoal):
                if goal.device_id not in devices:
                    ok = has_any(text, NEGATION) and mentions_device(text, goal.device_type, goal.device_id)
                    checks.append(
                        {"check": "device_missing_stated", "goal_index": index, "device_id": goal.device_id, "ok": ok}
                    )
                    checks.append(
                        {
                            "check": "room_named",
                            "goal_index": index,
                            "room_id": goal.room_id,
                            "ok": mentions_room(text, goal.room_id),
                        }
                    )
                    continue
                truth = read_assert_path(request.fabric, goal.device_id, goal.attribute)
                names = _enum_names(request.fabric, goal.device_id, goal.attribute)
                quantity = (goal.model_extra or {}).get("quantity")
                if quantity in QUANTITY_SCALES and isinstance(truth, int | float):
                    ok = quantity_matches(text, float(truth), quantity)
                else:
                    ok = truth is not MISSING and value_mentioned(text, truth, names)
                checks.append(
                    {
                        "check": "device_attribute_value",
                        "goal_index": index,
                        "device_id": goal.device_id,
                        "attribute": goal.attribute,
                        "truth": None if truth is MISSING else truth,
                        "ok": ok,
                    }
                )
        return checks

    # infeasible kinds -------------------------------------------------------------------------------------
    def _unchanged(self, request: JudgeRequest, devices: set[str], label: str) -> dict[str, Any]:
        touched = sorted({c["device_id"] for c in request.changes if c.get("device_id") in devices})
        return {"check": "no_state_change", "scope": label, "changed_devices": touched, "ok": not touched}

    def _qt2_infeasible(self, request: JudgeRequest, text: str) -> list[dict[str, Any]]:
        checks = []
        family = (request.episode.meta.model_extra or {}).get("infeasible_family")
        devices = request.after["devices"]
        for index, goal in enumerate(request.episode.goals):
            if not isinstance(goal, DirectionGoal):
                continue
            actuators = {
                d
                for d, info in devices.items()
                if info["room_id"] == goal.room_id and moves_variable(info["device_type"], goal.room_state)
            }
            nonexistence = family == "nonexistence" or (goal.device_id is not None and goal.device_id not in devices)
            if goal.feasibility is True and not nonexistence:
                continue  # the feasible half of a mixed episode is not what makes it infeasible
            checks.append(self._unchanged(request, actuators, f"goal {index} actuators"))
            checks.append(
                {
                    "check": "room_named",
                    "goal_index": index,
                    "room_id": goal.room_id,
                    "ok": mentions_room(text, goal.room_id),
                }
            )
            if nonexistence:
                device_named = mentions_device(text, goal.device_type, goal.device_id) or "device" in text
                checks.append(
                    {
                        "check": "nonexistence_stated",
                        "goal_index": index,
                        "ok": has_any(text, NEGATION) and device_named,
                    }
                )
            else:
                checks.append(
                    {
                        "check": "saturation_stated",
                        "goal_index": index,
                        "ok": has_any(text, SATURATION)
                        and (has_any(text, NEGATION) or has_any(text, VARIABLE_WORDS[goal.room_state])),
                    }
                )
        return checks

    def _qt3_infeasible(self, request: JudgeRequest, text: str) -> list[dict[str, Any]]:
        checks = []
        devices = request.after["devices"]
        for index, goal in enumerate(request.episode.goals):
            if not isinstance(goal, TargetGoal):
                continue
            # The named device is gone; operating another one of its kind in that room is the typical mistake.
            stand_ins = {
                d
                for d, info in devices.items()
                if info["room_id"] == goal.room_id and info["device_type"] == goal.device_type
            }
            checks.append(self._unchanged(request, stand_ins | {goal.device_id}, f"goal {index} {goal.device_type}"))
            checks.append(
                {
                    "check": "device_missing_stated",
                    "goal_index": index,
                    "device_id": goal.device_id,
                    "ok": has_any(text, NEGATION) and mentions_device(text, goal.device_type, goal.device_id),
                }
            )
            checks.append(
                {
                    "check": "room_named",
                    "goal_index": index,
                    "room_id": goal.room_id,
                    "ok": mentions_room(text, goal.room_id),
                }
            )
        return checks

    def _qt4_infeasible(self, request: JudgeRequest, text: str) -> list[dict[str, Any]]:
        targets: set[str] = set()
        for goal in request.episode.goals:
            if isinstance(goal, ScheduleGoal):
                targets.update(t.device_id for t in goal.targets)
        scheduled = sorted(
            {
                s.get("device_id")
                for w in request.workflows
                if w.get("status") != "cancelled"
                for s in w.get("steps", [])
                if s.get("device_id") in targets
            }
        )
        checks = [
            self._unchanged(request, targets, "targets"),
            {"check": "nothing_scheduled", "scheduled_for": scheduled, "ok": not scheduled},
            {"check": "conflict_stated", "ok": has_any(text, CONFLICT)},
        ]
        conflict = request.episode.temporal_conflict
        facts = conflict.model_dump() if conflict is not None else {}
        spellings: list[str] = []
        for key in ("expected_time", "conflict_time", "anchor_end_time"):
            if isinstance(facts.get(key), str):
                spellings += times_in_formats(facts[key])
        numbers = [
            float(facts[k])
            for k in ("offset_minutes", "delay_minutes", "expected_at", "conflict_at", "anchor_end_at")
            if isinstance(facts.get(k), int | float)
        ]
        named = any(s in text for s in spellings) or any(n in numbers for n in numbers_in(text))
        if facts.get("type") in ("completion_vs_pause", "impossible_early_end"):
            named = named or has_any(text, ("finish", "done", "cycle", "longer", "earlier", "end "))
        checks.append({"check": "conflict_specifics_named", "times": spellings, "numbers": numbers, "ok": named})
        return checks
