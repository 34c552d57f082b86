"""SMH-style rules ``{trigger: {time_cron | state}, conditions, actions:[{did, locator, arguments}]}`` ↔ the
fabric's automation rules. Conditions and actions go through the HomeEnv (typed, validated), so a rule the
agent writes in SMH terms becomes exactly the cluster-level rule ``compare_automations`` judges.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError

from agent_tools.smh.home_env import CallResult, HomeEnv
from emulator.automations.model import ActionStep, AutomationSpec


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Action(_Strict):
    """One service call: ``did``, ``locator`` ("turn_on" or "light.set_brightness"), ``arguments``."""

    did: StrictStr
    locator: StrictStr
    arguments: dict[str, Any] = Field(default_factory=dict)


class SmhCondition(_Strict):
    did: StrictStr
    attribute: StrictStr
    op: Literal[">", ">=", "<", "<=", "==", "!="]
    value: Any


class SmhTrigger(_Strict):
    time_cron: str | None = None
    state: SmhCondition | None = None


class SmhAutomation(_Strict):
    name: str = "rule"
    trigger: SmhTrigger
    conditions: list[SmhCondition] = Field(default_factory=list)
    actions: list[Action] = Field(min_length=1)


class RuleError(ValueError):
    """A rule that cannot be built: ``code`` (a CALL_ERRORS code or BAD_RULE) and a sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _condition(env: HomeEnv, condition: SmhCondition) -> dict[str, Any]:
    try:
        attribute, endpoint = env.attribute(condition.did, condition.attribute)
    except KeyError:
        raise RuleError("UNKNOWN_ARGUMENT", f"no attribute {condition.attribute!r} on {condition.did!r}") from None
    if attribute.condition is None:
        raise RuleError("BAD_RULE", f"{condition.did}.{condition.attribute} cannot be watched by a rule")
    problem = attribute.param.problem(condition.value)
    if problem is not None and problem[0] in ("NONE_VALUE", "WRONG_TYPE", "NOT_AN_OPTION"):
        raise RuleError(problem[0], problem[1])
    if attribute.param.type in ("enum", "bool") and condition.op not in ("==", "!="):
        raise RuleError("BAD_RULE", f"{condition.attribute} is {attribute.param.type}: compare with == or !=")
    target, encode = attribute.condition
    path, _, at = target.partition("@")
    return {
        "device_id": condition.did,
        "path": f"{int(at) if at else endpoint}.{path}",
        "op": condition.op,
        "value": encode(condition.value),
    }


def to_spec(env: HomeEnv, rule: SmhAutomation) -> AutomationSpec:
    """The fabric rule of an SMH rule; RuleError names what is wrong."""
    trigger = rule.trigger
    if (trigger.time_cron is None) == (trigger.state is None):
        raise RuleError("BAD_RULE", "a trigger has exactly one of time_cron and state")
    actions = []
    for index, action in enumerate(rule.actions):
        steps = env.plan(action.did, action.locator, action.arguments)
        if isinstance(steps, CallResult):
            raise RuleError(steps.code, f"action {index}: {steps.message}")
        actions += [ActionStep.from_workflow_step(step).model_dump() for step in steps]
    # A rule without time_cron has its state trigger (validated by the rule model): the ignore.
    data = {
        "name": rule.name or "rule",
        "trigger": {"kind": "time", "cron": trigger.time_cron}
        if trigger.time_cron is not None
        else {"kind": "state", "condition": _condition(env, trigger.state)},  # type: ignore[arg-type]
        "conditions": [_condition(env, c) for c in rule.conditions],
        "actions": actions,
    }
    try:
        return AutomationSpec.model_validate(data)
    except ValidationError as error:
        raise RuleError("BAD_RULE", "; ".join(e["msg"] for e in error.errors())[:300]) from None
