"""Deliberately wrong outputs of every error class, each classified by the one verifier."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tools.smh.tools import SmhToolBox
from benchmark.suites.smh.agents import EiaResult, Tokens, oracle_question
from benchmark.suites.smh.instance import Instance
from benchmark.suites.smh.session import Homes
from benchmark.suites.smh.settings import run_dr, run_eia


class ScriptedDr:
    name = "scripted"

    def __init__(self, reply: Callable[[Instance], Any]) -> None:
        self._reply = reply

    async def reply(self, instance: Instance, messages: list, stage: int, tokens: Tokens) -> str:
        out = self._reply(instance)
        return out if isinstance(out, str) else json.dumps(out)


class ScriptedEia:
    name = "scripted"

    def __init__(self, act: Callable[[Instance, SmhToolBox], EiaResult]) -> None:
        self._act = act

    async def run(self, instance: Instance, tools: SmhToolBox, messages: list) -> EiaResult:
        return self._act(instance, tools)


def _pick(instances: list[Instance], subcategory: str, tier: str = "simple") -> Instance:
    return next(i for i in instances if i.subcategory == subcategory and i.tier == tier)


def _with_arguments(instances: list[Instance]) -> Instance:
    return next(
        i
        for i in instances
        if i.goal.mode == "execute"
        and len(i.goal.reference) == 1
        and i.goal.reference[0].arguments
        and not i.goal.clarify_allowed
    )


def _reference(instance: Instance) -> list[dict[str, Any]]:
    return [a.model_dump(mode="json") for a in instance.goal.reference]


def _bad_argument(instance: Instance, how: str) -> dict[str, Any]:
    action = _reference(instance)[0]
    ((name, value),) = action["arguments"].items()
    action["arguments"] = {
        "missing": {},
        "renamed": {name + "_x": value},
        "none": {name: None},
        "string": {name: 3 if isinstance(value, str) else str(value)},
    }[how]
    return {"mode": "execute", "response": "ok", "actions": [action]}


def _extra_change(instance: Instance, suite_dir: Path) -> dict[str, Any]:
    env = Homes(suite_dir).h0(instance)
    named = {c.did for c in instance.goal.constraints}
    other = next(
        d
        for d in env.device_ids()
        if d not in named and "state" in env.device_state(d) and env.device_state(d)["state"] in ("on", "off")
    )
    toggle = "turn_off" if env.read(other, "state") == "on" else "turn_on"
    return {
        "mode": "execute",
        "response": "ok",
        "actions": [*_reference(instance), {"did": other, "locator": toggle, "arguments": {}}],
    }


def _shifted_rule(instance: Instance) -> dict[str, Any]:
    rule = instance.goal.automations[0].model_dump(mode="json", exclude_none=True)
    fields = rule["trigger"]["time_cron"].split()
    fields[2] = str((int(fields[2]) + 1) % 24)
    rule["trigger"]["time_cron"] = " ".join(fields)
    return {"mode": "automate", "response": "ok", "automations": [rule]}


def _wrong_yes_no(instance: Instance) -> dict[str, Any]:
    expected = instance.goal.answer.facts[0]
    return {"mode": "answer", "response": "No." if expected == "yes" else "Yes."}


DR_CASES: list[tuple[str, str, Callable[..., Any], str, str]] = [
    ("FRF", "unparseable_output", lambda i, d: "I will turn it on for you!", "clear_command", "any"),
    ("FRF", "unparseable_output", lambda i, d: "", "clear_command", "any"),
    (
        "SO",
        "missing_labels",
        lambda i, d: {"mode": "execute", "response": "done", "actions": []},
        "clear_command",
        "any",
    ),
    ("SO", "missing_response", lambda i, d: {"mode": "answer", "response": ""}, "status_inquiry", "any"),
    (
        "SO",
        "missing_automation_conditions",
        lambda i, d: {"mode": "automate", "response": "ok"},
        "time_specific",
        "any",
    ),
    (
        "MS",
        "executed_instead_of_asking",
        lambda i, d: {"mode": "execute", "response": "ok", "actions": _reference(i)},
        "slot_missing",
        "any",
    ),
    (
        "MS",
        "clarify_instead_of_execute",
        lambda i, d: {"mode": "clarify", "response": "Which one?"},
        "clear_command",
        "any",
    ),
    (
        "MS",
        "question_misses_the_slot",
        lambda i, d: {"mode": "clarify", "response": "Are you sure?"},
        "slot_missing",
        "any",
    ),
    ("AJ", "not_equivalent_trigger", lambda i, d: _shifted_rule(i), "time_specific", "any"),
    (
        "AJ",
        "rule_invalid",
        lambda i, d: {
            "mode": "automate",
            "response": "ok",
            "automations": [
                {"trigger": {"time_cron": "0 0 7 * * ? *"}, "actions": [{"did": "nope", "locator": "turn_on"}]}
            ],
        },
        "time_specific",
        "any",
    ),
    ("AV", "MISSING_ARGUMENT", lambda i, d: _bad_argument(i, "missing"), "", "args"),
    ("AV", "UNKNOWN_ARGUMENT", lambda i, d: _bad_argument(i, "renamed"), "", "args"),
    ("AV", "NONE_VALUE", lambda i, d: _bad_argument(i, "none"), "", "args"),
    ("AV", "WRONG_TYPE", lambda i, d: _bad_argument(i, "string"), "", "args"),
    ("WRONG_STATE", "critic", _extra_change, "clear_command", "any"),
    ("WRONG_ANSWER", "fact_missing", lambda i, d: _wrong_yes_no(i), "", "yesno"),
]


@pytest.mark.parametrize(
    ("error_class", "subtype", "reply", "subcategory", "pick"), DR_CASES, ids=[f"{c[0]}-{c[1]}" for c in DR_CASES]
)
def test_dr_wrong_output_is_classified(
    suite_dir: Path,
    instances: list[Instance],
    error_class: str,
    subtype: str,
    reply: Callable[..., Any],
    subcategory: str,
    pick: str,
) -> None:
    if pick == "args":
        instance = _with_arguments(instances)
    elif pick == "yesno":
        instance = next(i for i in instances if i.goal.answer and i.goal.answer.facts[0] in ("yes", "no"))
    else:
        instance = _pick(instances, subcategory)
    outcome = asyncio.run(run_dr(instance, ScriptedDr(lambda i: reply(i, suite_dir)), Homes(suite_dir)))
    verdict = outcome.verdict
    assert (verdict.overall_pass, verdict.error_class, verdict.error_subtype) == (False, error_class, subtype), verdict


def _eia_wrong_name(instance: Instance, tools: SmhToolBox) -> EiaResult:
    action = _reference(instance)[0]
    action["arguments"] = {k + "_x": v for k, v in action["arguments"].items()}
    tools.call("control_device", action)
    return EiaResult("done")


def _eia_no_did(instance: Instance, tools: SmhToolBox) -> EiaResult:
    tools.call("control_device", {"locator": "turn_on"})
    return EiaResult("done")


def _eia_spin(instance: Instance, tools: SmhToolBox) -> EiaResult:
    for _ in range(tools.budget + 1):
        tools.call("query_device", {"what": "status"})
    return EiaResult(None, "budget")


def _eia_act_without_asking(instance: Instance, tools: SmhToolBox) -> EiaResult:
    for action in _reference(instance):
        tools.call("control_device", action)
    return EiaResult("done")


def _eia_request_failed(instance: Instance, tools: SmhToolBox) -> EiaResult:
    return EiaResult(None, "request_error", "HTTP 500 after 5 attempts")


def _eia_ask_then_act(instance: Instance, tools: SmhToolBox) -> EiaResult:
    tools.call("ask_user", {"question": oracle_question(instance)})
    return _eia_act_without_asking(instance, tools)


EIA_CASES = [
    ("TV", "UNKNOWN_ARGUMENT", _eia_wrong_name, "args"),
    ("TV", "MISSING_PARAMETERS", _eia_no_did, "clear_command"),
    ("IE", "too_many_tool_calls", _eia_spin, "clear_command"),
    ("MS", "executed_instead_of_asking", _eia_act_without_asking, "slot_missing"),
    ("FRF", "request_failed", _eia_request_failed, "clear_command"),
]


@pytest.mark.parametrize(
    ("error_class", "subtype", "act", "subcategory"), EIA_CASES, ids=[f"{c[0]}-{c[1]}" for c in EIA_CASES]
)
def test_eia_wrong_behaviour_is_classified(
    suite_dir: Path,
    instances: list[Instance],
    error_class: str,
    subtype: str,
    act: Callable[..., EiaResult],
    subcategory: str,
) -> None:
    instance = _with_arguments(instances) if subcategory == "args" else _pick(instances, subcategory)
    outcome = asyncio.run(run_eia(instance, ScriptedEia(act), Homes(suite_dir)))
    verdict = outcome.verdict
    assert (verdict.overall_pass, verdict.error_class, verdict.error_subtype) == (False, error_class, subtype), verdict


def test_asking_then_acting_passes_and_the_transcript_is_recorded(suite_dir: Path, instances: list[Instance]) -> None:
    instance = _pick(instances, "slot_missing")
    outcome = asyncio.run(run_eia(instance, ScriptedEia(_eia_ask_then_act), Homes(suite_dir)))
    assert outcome.verdict.overall_pass
    assert outcome.prediction.questions == [
        {"question": oracle_question(instance), "reply": instance.goal.clarification.reply}
    ]
    assert outcome.record(instance)["prediction"]["questions"][0]["reply"]


def test_dr_may_ask_first_on_a_state_complaint_then_act(suite_dir: Path, instances: list[Instance]) -> None:
    instance = _pick(instances, "state_ambiguity")
    replies = iter(
        [
            {"mode": "clarify", "response": "Shall I use the AC?"},
            {"mode": "execute", "response": "ok", "actions": _reference(instance)},
        ]
    )
    outcome = asyncio.run(run_dr(instance, ScriptedDr(lambda i: next(replies)), Homes(suite_dir)))
    assert outcome.verdict.overall_pass, outcome.verdict
    assert outcome.prediction.questions[0]["reply"] == instance.goal.clarification.reply


def test_eia_acting_before_asking_is_mode_selection(suite_dir: Path, instances: list[Instance]) -> None:
    instance = _pick(instances, "slot_missing")

    def act_then_ask(instance: Instance, tools: SmhToolBox) -> EiaResult:
        _eia_act_without_asking(instance, tools)
        tools.call("ask_user", {"question": oracle_question(instance)})
        return EiaResult("done")

    outcome = asyncio.run(run_eia(instance, ScriptedEia(act_then_ask), Homes(suite_dir)))
    assert (outcome.verdict.error_class, outcome.verdict.error_subtype) == ("MS", "executed_instead_of_asking")
