"""One verifier for both settings (§5 "Shared verifier"): the normalised prediction record, the final-state
critic with strict irrelevant-state preservation, the rules answer judge, clarification alignment (mode
included), automation equivalence (``compare_automations``), ``overall_pass``, and the error class of a
failure (SO, MS, AJ, AV/TV, IE, FRF; WRONG_STATE / WRONG_ANSWER when the output is valid but wrong).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from agent_tools.smh.home_env import HomeEnv
from agent_tools.smh.rules import RuleError, SmhAutomation, to_spec
from benchmark.suites.smh.instance import Constraint, Instance
from benchmark.suites.smh.judge import SmhAnswerJudge, SmhClarificationJudge
from benchmark.suites.smh.user_sim import question_fits
from emulator.automations.equivalence import compare_automations
from emulator.automations.model import compare

EndReason = Literal["finished", "budget", "format_error", "request_error", "max_steps"]


class AttemptedAction(BaseModel):
    did: Any = None
    locator: Any = None
    arguments: Any = None
    code: str = "OK"
    message: str = ""


class Prediction(BaseModel):
    """What an agent did, the same shape in DR and EIA."""

    instance_id: str
    setting: Literal["dr", "eia"]
    agent: str
    mode: str | None = None
    response: str | None = None
    questions: list[dict[str, str]] = Field(default_factory=list, description="clarification transcript")
    actions: list[AttemptedAction] = Field(default_factory=list)
    automations: list[Any] = Field(default_factory=list)
    automation_errors: list[str] = Field(default_factory=list)
    labels: dict[str, list[Any]] = Field(default_factory=dict, description='"did/path" → [old, new]')
    end_reason: EndReason = "finished"
    error: str | None = None
    tokens: dict[str, int] = Field(default_factory=dict)
    tool_calls: int = 0


class Verdict(BaseModel):
    overall_pass: bool
    checks: dict[str, bool] = Field(default_factory=dict)
    error_class: str | None = None
    error_subtype: str | None = None
    detail: str = ""
    judge: dict[str, Any] | None = Field(default=None, description="the LLM judge's votes, when it was asked")


async def judge_clarification(
    instance: Instance, prediction: Prediction, judge: SmhClarificationJudge, reverify: Callable[[bool], Verdict]
) -> Verdict | None:
    """With an LLM clarification judge, a clarify instance whose agent asked is verified again with the judge's
    decision on the question (None when it does not apply or cannot decide: the rules verdict stays)."""
    if instance.goal.mode != "clarify" or prediction.mode != "clarify" or not prediction.questions:
        return None
    votes = await judge.judge_clarification(instance, prediction.questions[0]["question"])
    if votes["passed"] is None:
        return None
    return reverify(votes["passed"]).model_copy(update={"judge": votes})


async def judge_answer(verdict: Verdict, instance: Instance, prediction: Prediction, judge: SmhAnswerJudge) -> Verdict:
    """With an LLM judge, a query whose output was otherwise valid is decided by its votes (the rules verdict
    stays when the judge cannot decide)."""
    if instance.goal.mode != "answer" or verdict.error_class not in (None, "WRONG_ANSWER"):
        return verdict
    votes = await judge.judge_answer(instance, prediction.response or "")
    if votes["passed"] is None:
        return verdict.model_copy(update={"judge": votes})
    checks = {**verdict.checks, "answer": votes["passed"]}
    if votes["passed"]:
        return Verdict(overall_pass=True, checks=checks, judge=votes)
    return Verdict(
        overall_pass=False,
        checks=checks,
        error_class="WRONG_ANSWER",
        error_subtype="llm_judge",
        detail="the LLM judge's majority found the answer wrong",
        judge=votes,
    )


def critic(
    constraints: list[Constraint], h0: Mapping[str, Mapping[str, Any]], final: Mapping[str, Mapping[str, Any]]
) -> str | None:
    """None when every clause holds and nothing else changed; else the first violation."""
    named = set()
    for clause in constraints:
        named.add((clause.did, clause.path))
        if clause.op == "any":
            continue
        actual = final.get(clause.did, {}).get(clause.path)
        if not compare(actual, clause.op, clause.value):
            return f"device({clause.did}).{clause.path} is {actual!r}, wanted {clause.op} {clause.value!r}"
    for did, attributes in h0.items():
        for path, before in attributes.items():
            if (did, path) not in named and final.get(did, {}).get(path) != before:
                return f"device({did}).{path} changed {before!r} → {final.get(did, {}).get(path)!r} (not asked for)"
    return None


_NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def answer_matches(facts: list[str], response: str) -> str | None:
    """Rules judge: every expected fact is in the response (yes/no: the first yes/no word; numbers: digits or
    words; names: the text). None when it matches, else the missing fact."""
    text = response.lower()
    words = re.findall(r"[a-z0-9]+(?:\.[0-9]+)?", text)
    for fact in facts:
        f = fact.lower()
        if f in ("yes", "no"):
            first = next((w for w in words if w in ("yes", "no")), None)
            if first != f:
                return f"expected {fact!r}, the response says {first!r}"
        elif f.isdigit():
            spelled = _NUMBERS[int(f)] if int(f) < len(_NUMBERS) else None
            if f not in words and spelled not in words:
                return f"the count {fact} is missing"
        elif f not in text:
            return f"{fact!r} is missing"
    return None


def _rules(env: HomeEnv, raw: list[Any]) -> list[Any]:
    out = []
    for index, rule in enumerate(raw):
        try:
            out.append(to_spec(env, rule if isinstance(rule, SmhAutomation) else SmhAutomation.model_validate(rule)))
        except ValidationError as error:
            raise RuleError("BAD_RULE", f"rule {index}: {error.errors()[0]['msg']}") from None
        except RuleError as error:
            raise RuleError(error.code, f"rule {index}: {error}") from None
    return out


def automation_difference(
    instance: Instance, predicted: list[Any], h0: Callable[[], HomeEnv]
) -> tuple[str, str] | None:
    env = h0()
    try:
        predicted_specs = _rules(env, predicted)
    except RuleError as error:
        return "rule_invalid", str(error)
    gold_specs = _rules(env, instance.goal.automations)
    if len(predicted_specs) != len(gold_specs):
        return "rule_count", f"{len(predicted_specs)} rules, expected {len(gold_specs)}"
    unmatched = list(predicted_specs)
    for gold in gold_specs:
        reasons = []
        for candidate in unmatched:
            if candidate == gold:  # the very same rule: equivalent without simulating it
                unmatched.remove(candidate)
                break
            verdict = compare_automations(gold, candidate, env.fabric)
            if verdict.equivalent:
                unmatched.remove(candidate)
                break
            reasons = verdict.reasons
        else:
            subtype = (
                "trigger"
                if any(r.startswith("trigger") for r in reasons)
                else "conditions"
                if any(r.startswith("conditions") for r in reasons)
                else "actions"
            )
            return f"not_equivalent_{subtype}", "; ".join(reasons)[:300]
    return None


def _validity(prediction: Prediction) -> tuple[str, str, str] | None:
    refused = [a for a in prediction.actions if a.code != "OK"]
    if not refused:
        return None
    first = refused[0]
    where = f"{first.locator} on {first.did}: {first.message}"
    return ("AV" if prediction.setting == "dr" else "TV"), first.code, where


def verify(
    instance: Instance,
    prediction: Prediction,
    h0_state: Mapping[str, Mapping[str, Any]],
    final_state: Mapping[str, Mapping[str, Any]],
    h0: Callable[[], HomeEnv],
    *,
    question_ok: bool | None = None,
) -> Verdict:
    """``question_ok``: the LLM judge's decision on the clarifying question (None: the rules decide)."""
    goal = instance.goal
    checks: dict[str, Any] = {}

    def failed(error_class: str, subtype: str, detail: str = "") -> Verdict:
        return Verdict(overall_pass=False, checks=checks, error_class=error_class, error_subtype=subtype, detail=detail)

    if prediction.end_reason == "request_error":
        return failed("FRF", "request_failed", prediction.error or "")
    if prediction.end_reason == "format_error":
        return failed("FRF", "unparseable_output", prediction.error or "")
    dr = prediction.setting == "dr"
    if goal.mode == "clarify":
        checks["mode"] = prediction.mode == "clarify" and bool(prediction.questions)  # asked before acting
        if not checks["mode"]:
            return failed("MS", "executed_instead_of_asking")
        rules = question_fits(instance, prediction.questions[0]["question"])
        checks["clarification"] = rules if question_ok is None else question_ok
        if question_ok is not None:
            checks["clarification_rules"] = rules
        if not checks["clarification"]:
            return failed("MS", "question_misses_the_slot", prediction.questions[0]["question"][:200])
    elif dr and prediction.mode != goal.mode and not (prediction.mode == "clarify" and goal.clarify_allowed):
        checks["mode"] = False
        return failed("MS", f"{prediction.mode}_instead_of_{goal.mode}")
    else:
        checks["mode"] = True
    budget = prediction.end_reason in ("budget", "max_steps")
    if goal.mode in ("execute", "clarify"):
        problem = critic(goal.constraints, h0_state, final_state)
        checks["state"] = problem is None
        if problem is None:
            return Verdict(overall_pass=True, checks=checks)
        if budget:
            return failed("IE", "too_many_tool_calls", problem)
        if not prediction.actions:
            return failed("SO", "missing_labels", problem)
        validity = _validity(prediction)
        return failed(*validity) if validity else failed("WRONG_STATE", "critic", problem)
    if goal.mode == "answer":
        if not (prediction.response or "").strip():
            return failed("IE", "too_many_tool_calls") if budget else failed("SO", "missing_response")
        problem = critic([], h0_state, final_state)
        checks["no_state_change"] = problem is None
        if problem is not None:
            return failed("WRONG_STATE", "query_changed_state", problem)
        missing = answer_matches(goal.answer.facts if goal.answer else [], prediction.response or "")
        checks["answer"] = missing is None
        return (
            Verdict(overall_pass=True, checks=checks)
            if missing is None
            else failed("WRONG_ANSWER", "fact_missing", missing)
        )
    # automate
    if prediction.automation_errors:  # a rule was written but does not validate
        checks["automation"] = False
        return failed("AJ", "rule_invalid", "; ".join(prediction.automation_errors)[:300])
    if not prediction.automations:
        if budget:
            return failed("IE", "too_many_tool_calls")
        validity = _validity(prediction)
        return failed(*validity) if validity else failed("SO", "missing_automation_conditions")
    difference = automation_difference(instance, prediction.automations, h0)
    checks["automation"] = difference is None
    if difference is not None:
        return failed("AJ", *difference)
    problem = critic([], h0_state, final_state)
    checks["no_state_change"] = problem is None
    return (
        Verdict(overall_pass=True, checks=checks)
        if problem is None
        else failed("WRONG_STATE", "acted_instead_of_scheduling", problem)
    )
