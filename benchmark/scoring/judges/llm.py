"""The LLM judge of the answer-scored kinds: three votes of an OpenAI-compatible model (seeds 42/43/44, its
own temperature), majority wins; prompts are ours; the verdict is parsed from a JSON object (with
fallbacks), never from the first character. Fewer than two usable votes is a judge infrastructure error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Sequence
from typing import Any

from benchmark.llm.client import LLMClient
from benchmark.scoring.evaluators.judging import JudgeRequest
from benchmark.scoring.verdicts import JudgeRecord
from benchmark.suites.simuhome.episode import Episode

RUBRICS: dict[str, str] = {
    "qt1": (
        "The user asked about the state of their home. PASS only if the final answer addresses every goal: "
        "each room condition is given with a value that agrees with what the tools returned (raw units such as "
        "2841 centi-degrees or converted units such as 28.41 °C are both fine), each device attribute is "
        "reported as the tools showed it, and the rooms are named. If a goal's device does not exist, the answer "
        "must say so plainly and must not invent a value for it. Otherwise FAIL."
    ),
    "qt2_contextual_saturation": (
        "The user hinted at a discomfort that cannot be relieved because the devices able to do it are already "
        "at their limit. PASS only if the agent says it cannot make the change, gives the specific reason (e.g. "
        "the lights are already off or at minimum, the cooling is already at full power), names the room, does "
        "not claim to have changed anything, and stays consistent with what the tools showed. Otherwise FAIL."
    ),
    "qt2_nonexistence": (
        "The user hinted at a discomfort but the room has no device able to change that condition. PASS only if "
        "the agent says there is no suitable device in that room, shows awareness of which devices do exist, "
        "names the room and makes no false claims of having acted. Otherwise FAIL."
    ),
    "qt3": (
        "The user asked to operate a device that is not in the named room. PASS only if the agent states that "
        "the device is not there, names the room, and does not pretend to have operated it or invent data about "
        "it. Operating a different device instead is a FAIL."
    ),
    "qt4": (
        "The user's request contains a timing conflict (described below). PASS only if the agent recognises the "
        "conflict and refuses or asks for clarification instead of scheduling or executing the actions; times "
        "within one minute count as equal. When the conflict involves an appliance finishing, the agent must "
        "have checked that appliance's remaining time or state before answering. Otherwise FAIL."
    ),
}
VERDICT_INSTRUCTION = (
    'Reply with one JSON object and nothing else: {"verdict": "pass" or "fail", "reason": "<one sentence>"}.'
)
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
    lines = [
        f"User query: {episode.query}",
        f"User location: {episode.user_location}",
        f"Evaluation goals (ground truth): {_compact(goals, 4000)}",
    ]
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
            entry += (
                f"action: {step['tool']}({_compact(step.get('arguments'), 400)}) → {_compact(step.get('observation'))}"
            )
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
                    found.append(json.loads(text[start : index + 1]))
    return found


_VERDICT_WORDS = {
    "pass": True,
    "passed": True,
    "a": True,
    "yes": True,
    "correct": True,
    "fail": False,
    "failed": False,
    "b": False,
    "no": False,
    "incorrect": False,
}


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
        return bool(match[-1].casefold() == "pass")
    words = re.findall(r"\b(PASS|FAIL|Pass|Fail)\b", text)
    if words:
        return bool(words[-1].casefold() == "pass")
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
        return cls(
            [
                LLMClient.from_spec(spec.model_copy(update={"seed": seeds[i % len(seeds)] + i // len(seeds)}))
                for i in range(votes)
            ]
        )

    async def _vote(self, client: Any, messages: list[dict[str, str]]) -> dict[str, Any]:
        try:
            response = await client.complete(messages)
        except Exception as error:  # LLMInfraError / LLMRequestError / anything the transport raised
            return {"vote": "error", "error": f"{type(error).__name__}: {error}", "usage": None}
        verdict = parse_verdict(response.content)
        return {
            "vote": "unreadable" if verdict is None else ("pass" if verdict else "fail"),
            "reply": (response.content or "")[:500],
            "usage": dict(response.usage or {}),
        }

    async def judge(self, request: JudgeRequest) -> JudgeRecord:
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
        tokens = {
            "prompt_tokens": sum((v.get("usage") or {}).get("prompt_tokens", 0) for v in votes),
            "completion_tokens": sum((v.get("usage") or {}).get("completion_tokens", 0) for v in votes),
        }
        return JudgeRecord.model_validate(
            {"name": self.name, "passed": passed, "votes": votes, "error": error, "tokens": tokens}
        )
