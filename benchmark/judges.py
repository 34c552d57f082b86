"""Judges for the answer-scored kinds (qt1, qt2 infeasible, qt3 infeasible, qt4 infeasible).

* ``RulesJudge`` — deterministic. qt1: every number or state in the answer that a goal asks about
  matches the truth (room states in display or internal units within a tolerance; device attributes
  read from the fabric, enum names and values both accepted) and the room is named. Infeasible kinds:
  no state that a goal targets changed, and the answer names the reason (the missing device, the
  saturation, the time conflict) — keyword and number checks against the goal and temporal_conflict.
* ``LLMJudge`` — three votes of an OpenAI-compatible model (seeds 42/43/44, its own temperature),
  majority wins; prompts are ours; the verdict is parsed from a JSON object (with fallbacks), never
  from the first character. Fewer than two usable votes is a judge infrastructure error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from benchmark.episode import DeviceAttributeGoal, DirectionGoal, Episode, RoomStateGoal, ScheduleGoal, TargetGoal
from benchmark.evaluators.common import MISSING, moves_variable, read_assert_path
from emulator.fabric import Fabric


@dataclass
class JudgeRequest:
    episode: Episode
    final_answer: str
    steps: list[dict[str, Any]]
    invocations: list[dict[str, Any]]
    after: dict[str, Any]  # the home when the agent finished
    fabric: Fabric  # at that same moment (read-only use)
    changes: list[dict[str, Any]]  # device attributes the agent changed (vs the no-agent world)
    workflows: list[dict[str, Any]] = field(default_factory=list)  # every workflow the agent scheduled


class Judge(Protocol):
    name: str

    async def judge(self, request: JudgeRequest) -> dict[str, Any]:
        """{"name", "passed": bool | None (None: the judge could not decide), "checks"|"votes", "error"}"""
        ...


# --- words --------------------------------------------------------------------------------------------

DEVICE_WORDS: dict[str, tuple[str, ...]] = {
    "on_off_light": ("light", "lamp", "bulb"), "dimmable_light": ("light", "lamp", "dimmer", "bulb"),
    "air_conditioner": ("air conditioner", "air-conditioner", "aircon", "a/c", "ac"),
    "air_purifier": ("purifier", "air cleaner", "air filter"), "fan": ("fan",),
    "humidifier": ("humidifier",), "dehumidifier": ("dehumidifier",),
    "heat_pump": ("heat pump", "heatpump", "heater", "heating"), "tv": ("tv", "television"),
    "window_covering_controller": ("blind", "shade", "curtain", "covering", "shutter"),
    "dishwasher": ("dishwasher", "dish washer"), "laundry_washer": ("washer", "washing machine", "laundry"),
    "laundry_dryer": ("dryer", "drier"), "rvc": ("vacuum", "robot", "rvc", "roomba"),
    "freezer": ("freezer",), "refrigerator": ("fridge", "refrigerator"),
}
VARIABLE_WORDS: dict[str, tuple[str, ...]] = {
    "temperature": ("temperature", "warm", "hot", "cool", "cold", "heat", "°c", "degree"),
    "humidity": ("humid", "moist", "dry", "damp"),
    "illuminance": ("light", "bright", "dim", "dark", "lux", "illuminan"),
    "pm10": ("air", "dust", "pm10", "pm 10", "pollut", "purif"),
}
NEGATION = ("not ", "no ", "n't", "cannot", "unable", "none", "without", "missing", "absent", "unavailable",
            "nothing", "never", "neither", "lack", "no longer", "doesn't exist", "does not exist", "no such")
SATURATION = ("already", "maximum", "minimum", "max", "min ", "lowest", "highest", "full", "fully", "limit",
              "saturat", "as far as", "no more", "nothing more", "all off", "all on", "at its", "at their",
              "no further", "can't go", "cannot go", "off already", "all the way")
CONFLICT = ("conflict", "contradict", "inconsistent", "doesn't match", "does not match", "don't match", "mismatch",
            "doesn't line up", "does not line up", "discrepan", "clarify", "confirm", "which time", "which one",
            "did you mean", "do you mean", "impossible", "not possible", "can't", "cannot", "unable", "won't",
            "?", "but ", "however", "instead", "before it", "longer", "too long", "earlier")


def _has_any(text: str, words: Sequence[str]) -> bool:
    return any(word in text for word in words)


def _normal(text: str) -> str:
    return " " + re.sub(r"\s+", " ", text.casefold().replace("_", " ").replace("’", "'")) + " "


def mentions_room(text: str, room_id: str) -> bool:
    spoken = room_id.replace("_", " ").casefold()
    words = [w for w in spoken.split() if w != "room"]
    return spoken in text or (bool(words) and all(w in text for w in words))


def mentions_device(text: str, device_type: str | None, device_id: str | None = None) -> bool:
    if device_id and device_id.replace("_", " ").casefold() in text:
        return True
    words = DEVICE_WORDS.get(device_type or "", ())
    if any(re.search(rf"(?<![a-z]){re.escape(w)}", text) for w in words):
        return True
    return bool(device_type) and device_type.replace("_", " ") in text


NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?")


def numbers_in(text: str) -> list[float]:
    return [float(n.replace(",", ".")) for n in NUMBER.findall(text)]


# Display unit, internal → display factor, and the tolerance in display units.
ROOM_STATE_UNITS: dict[str, tuple[float, float, float]] = {
    "temperature": (0.01, 0.5, 0.0), "humidity": (0.01, 1.0, 0.0),
    "illuminance": (1.0, 5.0, 0.02), "pm10": (1.0, 1.0, 0.05),
}


def number_matches(text: str, truth: float, variable: str) -> bool:
    factor, absolute, relative = ROOM_STATE_UNITS[variable]
    display = truth * factor
    tol = max(absolute, abs(display) * relative)
    return any(abs(n - display) <= tol or abs(n - truth) <= tol / factor for n in numbers_in(text))


def times_in_formats(hhmmss: str) -> list[str]:
    """'14:22:00' → ['14:22', '2:22', '02:22'] (12- and 24-hour clock spellings)."""
    match = re.fullmatch(r"(\d{1,2}):(\d{2})(?::\d{2})?", hhmmss.strip())
    if not match:
        return []
    hour, minute = int(match.group(1)), match.group(2)
    twelve = hour % 12 or 12
    return sorted({f"{hour:02d}:{minute}", f"{hour}:{minute}", f"{twelve}:{minute}", f"{twelve:02d}:{minute}"})


def _enum_names(fabric: Fabric, device_id: str, path: str) -> dict[int, str]:
    parts = path.split(".")
    if len(parts) != 3:
        return {}
    from emulator.simuhome.paths import our_path

    ours = our_path(path)
    if ours is None:
        return {}
    endpoint, cluster, attribute = ours.split(".")
    try:
        entry = fabric.describe_device(device_id)["endpoints"][endpoint]["clusters"][cluster]["attributes"][attribute]
    except Exception:
        return {}
    return {value: name for name, value in (entry.get("enum_values") or {}).items()}


def _spoken(name: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).casefold().replace("_", " ")


def value_mentioned(text: str, value: Any, enum_names: Mapping[int, str] | None = None) -> bool:
    if value is None:
        return _has_any(text, ("none", "null", "not set", "no value", "unknown", "n/a"))
    if isinstance(value, bool):
        yes = (" on ", " on.", " on,", "true", "yes", "enabled", "active", "running", "is on", "switched on")
        no = (" off", "false", " no ", "disabled", "inactive", "not on", "switched off")
        return _has_any(text, yes) if value else _has_any(text, no)
    if isinstance(value, int | float):
        if enum_names and int(value) in enum_names and _spoken(enum_names[int(value)]) in text:
            return True
        return any(abs(n - value) <= max(1e-9, abs(value) * 0.005) for n in numbers_in(text))
    if isinstance(value, str):
        return value.casefold().replace("_", " ") in text or _spoken(value) in text
    if isinstance(value, Mapping):
        for key in ("name", "label", "callSign", "identifier"):
            if isinstance(value.get(key), str) and value_mentioned(text, value[key]):
                return True
        return False
    if isinstance(value, list):
        return bool(value) and any(value_mentioned(text, item) for item in value)
    return False


# --- the rules judge ------------------------------------------------------------------------------------

class RulesJudge:
    name = "rules"

    async def judge(self, request: JudgeRequest) -> dict[str, Any]:
        return self.judge_now(request)

    def judge_now(self, request: JudgeRequest) -> dict[str, Any]:
        episode = request.episode
        text = _normal(request.final_answer or "")
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
        return {"name": self.name, "passed": all(c["ok"] for c in checks), "checks": checks, "error": None}

    # qt1 -----------------------------------------------------------------------------------------------
    def _qt1(self, request: JudgeRequest, text: str) -> list[dict[str, Any]]:
        checks = []
        devices = request.after["devices"]
        for index, goal in enumerate(request.episode.goals):
            if isinstance(goal, RoomStateGoal):
                truth = request.after["rooms"].get(goal.room_id, {}).get("state", {}).get(goal.room_state)
                ok = truth is not None and number_matches(text, float(truth), goal.room_state)
                checks.append({"check": "room_state_value", "goal_index": index, "room_id": goal.room_id,
                               "room_state": goal.room_state, "truth": truth, "ok": ok})
                checks.append({"check": "room_named", "goal_index": index, "room_id": goal.room_id,
                               "ok": mentions_room(text, goal.room_id)})
            elif isinstance(goal, DeviceAttributeGoal):
                if goal.device_id not in devices:
                    ok = _has_any(text, NEGATION) and mentions_device(text, goal.device_type, goal.device_id)
                    checks.append({"check": "device_missing_stated", "goal_index": index,
                                   "device_id": goal.device_id, "ok": ok})
                    checks.append({"check": "room_named", "goal_index": index, "room_id": goal.room_id,
                                   "ok": mentions_room(text, goal.room_id)})
                    continue
                truth = read_assert_path(request.fabric, goal.device_id, goal.attribute)
                names = _enum_names(request.fabric, goal.device_id, goal.attribute)
                ok = truth is not MISSING and value_mentioned(text, truth, names)
                checks.append({"check": "device_attribute_value", "goal_index": index, "device_id": goal.device_id,
                               "attribute": goal.attribute, "truth": None if truth is MISSING else truth, "ok": ok})
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
            actuators = {d for d, info in devices.items()
                         if info["room_id"] == goal.room_id and moves_variable(info["device_type"], goal.room_state)}
            nonexistence = family == "nonexistence" or (goal.device_id is not None and goal.device_id not in devices)
            if goal.feasibility is True and not nonexistence:
                continue  # the feasible half of a mixed episode is not what makes it infeasible
            checks.append(self._unchanged(request, actuators, f"goal {index} actuators"))
            checks.append({"check": "room_named", "goal_index": index, "room_id": goal.room_id,
                           "ok": mentions_room(text, goal.room_id)})
            if nonexistence:
                device_named = mentions_device(text, goal.device_type, goal.device_id) or "device" in text
                checks.append({"check": "nonexistence_stated", "goal_index": index,
                               "ok": _has_any(text, NEGATION) and device_named})
            else:
                checks.append({"check": "saturation_stated", "goal_index": index,
                               "ok": _has_any(text, SATURATION) and (_has_any(text, NEGATION) or
                                                                     _has_any(text, VARIABLE_WORDS[goal.room_state]))})
        return checks

    def _qt3_infeasible(self, request: JudgeRequest, text: str) -> list[dict[str, Any]]:
        checks = []
        devices = request.after["devices"]
        for index, goal in enumerate(request.episode.goals):
            if not isinstance(goal, TargetGoal):
                continue
            # The named device is gone; operating another one of its kind in that room is the typical mistake.
            stand_ins = {d for d, info in devices.items()
                         if info["room_id"] == goal.room_id and info["device_type"] == goal.device_type}
            checks.append(self._unchanged(request, stand_ins | {goal.device_id}, f"goal {index} {goal.device_type}"))
            checks.append({"check": "device_missing_stated", "goal_index": index, "device_id": goal.device_id,
                           "ok": _has_any(text, NEGATION) and mentions_device(text, goal.device_type, goal.device_id)})
            checks.append({"check": "room_named", "goal_index": index, "room_id": goal.room_id,
                           "ok": mentions_room(text, goal.room_id)})
        return checks

    def _qt4_infeasible(self, request: JudgeRequest, text: str) -> list[dict[str, Any]]:
        targets: set[str] = set()
        for goal in request.episode.goals:
            if isinstance(goal, ScheduleGoal):
                targets.update(t.device_id for t in goal.targets)
        scheduled = sorted({s.get("device_id") for w in request.workflows if w.get("status") != "cancelled"
                            for s in w.get("steps", []) if s.get("device_id") in targets})
        checks = [self._unchanged(request, targets, "targets"),
                  {"check": "nothing_scheduled", "scheduled_for": scheduled, "ok": not scheduled},
                  {"check": "conflict_stated", "ok": _has_any(text, CONFLICT)}]
        conflict = request.episode.temporal_conflict
        facts = conflict.model_dump() if conflict is not None else {}
        spellings: list[str] = []
        for key in ("expected_time", "conflict_time", "anchor_end_time"):
            if isinstance(facts.get(key), str):
                spellings += times_in_formats(facts[key])
        numbers = [float(facts[k]) for k in ("offset_minutes", "delay_minutes", "expected_at", "conflict_at",
                                             "anchor_end_at") if isinstance(facts.get(k), int | float)]
        named = any(s in text for s in spellings) or any(n in numbers for n in numbers_in(text))
        if facts.get("type") in ("completion_vs_pause", "impossible_early_end"):
            named = named or _has_any(text, ("finish", "done", "cycle", "longer", "earlier", "end "))
        checks.append({"check": "conflict_specifics_named", "times": spellings, "numbers": numbers, "ok": named})
        return checks


# --- the LLM judge --------------------------------------------------------------------------------------

RUBRICS: dict[str, str] = {
    "qt1": (
        "The user asked about the state of their home. PASS only if the final answer addresses every goal: "
        "each room condition is given with a value that agrees with what the tools returned (raw units such as "
        "2841 centi-degrees or converted units such as 28.41 °C are both fine), each device attribute is "
        "reported as the tools showed it, and the rooms are named. If a goal's device does not exist, the answer "
        "must say so plainly and must not invent a value for it. Otherwise FAIL."),
    "qt2_contextual_saturation": (
        "The user hinted at a discomfort that cannot be relieved because the devices able to do it are already "
        "at their limit. PASS only if the agent says it cannot make the change, gives the specific reason (e.g. "
        "the lights are already off or at minimum, the cooling is already at full power), names the room, does "
        "not claim to have changed anything, and stays consistent with what the tools showed. Otherwise FAIL."),
    "qt2_nonexistence": (
        "The user hinted at a discomfort but the room has no device able to change that condition. PASS only if "
        "the agent says there is no suitable device in that room, shows awareness of which devices do exist, "
        "names the room and makes no false claims of having acted. Otherwise FAIL."),
    "qt3": (
        "The user asked to operate a device that is not in the named room. PASS only if the agent states that "
        "the device is not there, names the room, and does not pretend to have operated it or invent data about "
        "it. Operating a different device instead is a FAIL."),
    "qt4": (
        "The user's request contains a timing conflict (described below). PASS only if the agent recognises the "
        "conflict and refuses or asks for clarification instead of scheduling or executing the actions; times "
        "within one minute count as equal. When the conflict involves an appliance finishing, the agent must "
        "have checked that appliance's remaining time or state before answering. Otherwise FAIL."),
}
VERDICT_INSTRUCTION = (
    'Reply with one JSON object and nothing else: {"verdict": "pass" or "fail", "reason": "<one sentence>"}.')
OBSERVATION_LIMIT = 800


def rubric_for(episode: Episode) -> str:
    if episode.query_type == "qt2":
        family = (episode.meta.model_extra or {}).get("infeasible_family") or "contextual_saturation"
        return RUBRICS.get(f"qt2_{family}", RUBRICS["qt2_contextual_saturation"])
    return RUBRICS["qt4" if episode.query_type.startswith("qt4") else episode.query_type]


def _compact(value: Any, limit: int = OBSERVATION_LIMIT) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit} more characters)"


def judge_messages(request: JudgeRequest) -> list[dict[str, str]]:
    episode = request.episode
    goals = [g.model_dump(mode="json", exclude_unset=True) for g in episode.goals]
    lines = [f"User query: {episode.query}", f"User location: {episode.user_location}",
             f"Evaluation goals (ground truth): {_compact(goals, 4000)}"]
    if episode.temporal_conflict is not None:
        lines.append(f"Timing conflict: {_compact(episode.temporal_conflict.model_dump(mode='json'), 2000)}")
    trace = []
    for step in request.steps:
        if step.get("tool") is None and not step.get("thought"):
            continue
        entry = f"{step.get('index')}. "
        if step.get("thought"):
            entry += f"thought: {str(step['thought'])[:400]} "
        if step.get("tool"):
            entry += f"action: {step['tool']}({_compact(step.get('arguments'), 400)}) " \
                     f"→ {_compact(step.get('observation'))}"
        trace.append(entry)
    lines.append("Agent trajectory:\n" + ("\n".join(trace) if trace else "(no steps)"))
    lines.append(f"Final answer: {request.final_answer or '(none)'}")
    system = "You grade a smart-home assistant's reply. " + rubric_for(episode) + " " + VERDICT_INSTRUCTION
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(lines)}]


def _json_objects(text: str) -> list[Any]:
    found, depth, start = [], 0, None
    in_string = escaped = False
    for index, char in enumerate(text):
        if in_string:
            escaped = (char == "\\") and not escaped
            if char == '"' and not escaped:
                in_string = False
            continue
        if char == '"' and depth:
            in_string = True
        elif char == "{":
            start = index if depth == 0 else start
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0 and start is not None:
                with contextlib.suppress(json.JSONDecodeError):
                    found.append(json.loads(text[start:index + 1]))
    return found


_VERDICT_WORDS = {"pass": True, "passed": True, "a": True, "yes": True, "correct": True,
                  "fail": False, "failed": False, "b": False, "no": False, "incorrect": False}


def parse_verdict(text: str | None) -> bool | None:
    """A judge reply → True (pass) / False (fail) / None (unreadable): a JSON ``verdict`` field first, then a
    ``verdict: pass`` line, then the last standalone PASS/FAIL word. Never the first character."""
    if not text:
        return None
    for obj in reversed(_json_objects(text)):
        if isinstance(obj, dict):
            for key in ("verdict", "decision", "result", "grade"):
                value = obj.get(key)
                if isinstance(value, bool):
                    return value
                if isinstance(value, str) and value.strip().casefold() in _VERDICT_WORDS:
                    return _VERDICT_WORDS[value.strip().casefold()]
    match = re.findall(r"verdict\W{0,5}(pass|fail)", text, flags=re.IGNORECASE)
    if match:
        return match[-1].casefold() == "pass"
    words = re.findall(r"\b(PASS|FAIL|Pass|Fail)\b", text)
    if words:
        return words[-1].casefold() == "pass"
    return None


class LLMJudge:
    """Three votes, majority. ``clients`` are LLMClient-like objects (``await complete(messages)``)."""

    name = "llm"

    def __init__(self, clients: Sequence[Any]) -> None:
        if not clients:
            raise ValueError("the LLM judge needs at least one client")
        self.clients = list(clients)

    @classmethod
    def from_spec(cls, spec: Any, *, votes: int = 3, seeds: Sequence[int] = (42, 43, 44)) -> LLMJudge:
        from benchmark.llm_client import LLMClient

        return cls([LLMClient.from_spec(spec.model_copy(update={"seed": seeds[i % len(seeds)] + i // len(seeds)}))
                    for i in range(votes)])

    async def _vote(self, client: Any, messages: list[dict[str, str]]) -> dict[str, Any]:
        try:
            response = await client.complete(messages)
        except Exception as error:  # LLMInfraError / LLMRequestError / anything the transport raised
            return {"vote": "error", "error": f"{type(error).__name__}: {error}", "usage": None}
        verdict = parse_verdict(response.content)
        return {"vote": "unreadable" if verdict is None else ("pass" if verdict else "fail"),
                "reply": (response.content or "")[:500], "usage": dict(response.usage or {})}

    async def judge(self, request: JudgeRequest) -> dict[str, Any]:
        messages = judge_messages(request)
        votes = await asyncio.gather(*(self._vote(c, messages) for c in self.clients))
        passes = sum(v["vote"] == "pass" for v in votes)
        fails = sum(v["vote"] == "fail" for v in votes)
        usable = passes + fails
        needed = len(self.clients) // 2 + 1
        error = None
        if usable < min(needed, len(self.clients)):
            error = f"only {usable} of {len(self.clients)} judge votes were usable"
            passed = None
        else:
            passed = passes > fails
        tokens = {"prompt_tokens": sum((v.get("usage") or {}).get("prompt_tokens", 0) for v in votes),
                  "completion_tokens": sum((v.get("usage") or {}).get("completion_tokens", 0) for v in votes)}
        return {"name": self.name, "passed": passed, "votes": votes, "error": error, "tokens": tokens}
