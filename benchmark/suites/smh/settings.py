"""The two settings over one instance, each ending in a normalised Prediction scored by the one verifier.

DR: the full-context prompt, one JSON reply per stage (a clarification gets the simulated user's answer
and a second stage), the actions replayed on a fresh copy of H0, the state delta as labels.
EIA: the smh tools on a fresh copy of H0, the agent's loop, the before/after delta as labels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from agent_tools.profiles import make_toolbox
from agent_tools.smh import DEFAULT_BUDGET
from agent_tools.smh.home_env import state_diff
from agent_tools.smh.rules import RuleError, SmhAutomation, to_spec
from agent_tools.smh.tools import SmhToolBox
from benchmark.suites.smh import dr
from benchmark.suites.smh.agents import DrAgent, EiaAgent, RequestFailed, Tokens, eia_messages
from benchmark.suites.smh.heating import with_heating_results
from benchmark.suites.smh.instance import Instance
from benchmark.suites.smh.judge import SmhAnswerJudge, SmhClarificationJudge
from benchmark.suites.smh.session import Homes
from benchmark.suites.smh.user_sim import RuleUser
from benchmark.suites.smh.verifier import (
    AttemptedAction,
    Prediction,
    Verdict,
    judge_answer,
    judge_clarification,
    verify,
)
from emulator.errors import HomeError


@dataclass
class Outcome:
    prediction: Prediction
    verdict: Verdict

    def record(self, instance: Instance) -> dict[str, Any]:
        return {
            "instance_id": instance.id,
            "category": instance.category,
            "subcategory": instance.subcategory,
            "tier": instance.tier,
            "setting": self.prediction.setting,
            "agent": self.prediction.agent,
            "verdict": self.verdict.model_dump(mode="json"),
            "prediction": self.prediction.model_dump(mode="json"),
        }


def _replay(env: Any, actions: list[Any]) -> list[AttemptedAction]:
    out = []
    for raw in actions:
        if not isinstance(raw, dict):
            out.append(AttemptedAction(code="BAD_CALL", message=f"an action is an object, got {raw!r}"[:200]))
            continue
        did, locator, arguments = raw.get("did"), raw.get("locator"), raw.get("arguments", {})
        missing = [k for k in ("did", "locator") if k not in raw]
        if missing:
            out.append(
                AttemptedAction(
                    did=did,
                    locator=locator,
                    arguments=arguments,
                    code="MISSING_ARGUMENT",
                    message=f"an action needs {missing}",
                )
            )
            continue
        result = env.call(did, locator, arguments)
        out.append(
            AttemptedAction(did=did, locator=locator, arguments=arguments, code=result.code, message=result.message)
        )
    return out


UserFactory = Callable[[Instance], Callable[[str], str]]


async def run_dr(
    instance: Instance,
    agent: DrAgent,
    homes: Homes,
    *,
    user_factory: UserFactory = RuleUser,
    judge: SmhAnswerJudge | None = None,
    clarification_judge: SmhClarificationJudge | None = None,
) -> Outcome:
    env = homes.h0(instance)
    h0_state = env.state()
    user = user_factory(instance)
    tokens = Tokens()
    prediction = Prediction(instance_id=instance.id, setting="dr", agent=agent.name)
    messages = dr.first_messages(instance, env)
    try:
        text = await agent.reply(instance, messages, 1, tokens)
        reply = dr.parse_reply(text)
        prediction.mode = reply.mode
        if reply.mode == "clarify":
            prediction.questions.append({"question": reply.question, "reply": user(reply.question)})
            if instance.goal.mode == "clarify" or instance.goal.clarify_allowed:
                text = await agent.reply(
                    instance, dr.reply_messages(messages, text, prediction.questions[-1]["reply"]), 2, tokens
                )
                reply = dr.parse_reply(text)
    except RequestFailed as error:
        prediction.end_reason, prediction.error = "request_error", str(error)
    except dr.ReplyFormatError as error:
        prediction.end_reason, prediction.error = "format_error", str(error)
    else:
        prediction.response = reply.response
        prediction.actions = _replay(env, reply.actions) if reply.mode != "clarify" else []
        for index, raw in enumerate(reply.automations):
            try:
                rule = SmhAutomation.model_validate(raw)
                env.fabric.add_automation(to_spec(env, rule))
                prediction.automations.append(rule.model_dump(mode="json"))
            except ValidationError as error:
                prediction.automation_errors.append(f"rule {index}: {error.errors()[0]['msg']}")
            except (RuleError, HomeError) as error:
                prediction.automation_errors.append(f"rule {index}: {error}")
    final = with_heating_results(env, h0_state, env.state())
    prediction.labels = state_diff(h0_state, final)
    prediction.tokens = tokens.as_dict()
    return await _judged(
        instance, prediction, h0_state, final, _h0(env, h0_state, homes, instance), judge, clarification_judge
    )


def _h0(env: Any, h0_state: Any, homes: Homes, instance: Instance) -> Callable[[], Any]:
    """The home as it was before the agent: the run's own copy when the agent changed no device state (rules
    added to it are ignored by the comparison's copies), else a fresh H0."""
    return (lambda: env) if env.state() == h0_state else (lambda: homes.h0(instance))


async def _judged(
    instance: Instance,
    prediction: Prediction,
    h0_state: Any,
    final: Any,
    h0: Callable[[], Any],
    judge: SmhAnswerJudge | None,
    clarification_judge: SmhClarificationJudge | None,
) -> Outcome:
    """The rules verdict, then the optional LLM judges: of the clarifying question, and of a query's answer."""
    outcome = Outcome(prediction, verify(instance, prediction, h0_state, final, h0))
    if clarification_judge is not None:
        judged = await judge_clarification(
            instance,
            prediction,
            clarification_judge,
            lambda ok: verify(instance, prediction, h0_state, final, h0, question_ok=ok),
        )
        outcome.verdict = judged or outcome.verdict
    if judge is not None:
        outcome.verdict = await judge_answer(outcome.verdict, instance, outcome.prediction, judge)
    return outcome


def _mutates(name: Any) -> bool:
    spec = SmhToolBox.tools.get(name) if isinstance(name, str) else None
    return spec is not None and spec.mutates_state


def _mode_of(tools: SmhToolBox) -> str:
    for entry in tools.log:
        if entry["tool"] == "ask_user":
            return "clarify"
        if entry["tool"] == "control_device" and entry["code"] == "OK":
            return "execute"
        if entry["tool"] == "create_automation" and entry["code"] == "OK":
            return "automate"
    return "answer"


async def run_eia(
    instance: Instance,
    agent: EiaAgent,
    homes: Homes,
    *,
    budget: int = DEFAULT_BUDGET,
    user_factory: UserFactory = RuleUser,
    judge: SmhAnswerJudge | None = None,
    clarification_judge: SmhClarificationJudge | None = None,
) -> Outcome:
    env = homes.h0(instance)
    h0_state = env.state()
    user = user_factory(instance)
    tools = make_toolbox(env.fabric, "smh", budget=budget, user=user)  # the smh profile of agent_tools
    result = await agent.run(instance, tools, eia_messages(instance, env, budget))
    final = with_heating_results(env, h0_state, env.state())
    prediction = Prediction(
        instance_id=instance.id,
        setting="eia",
        agent=agent.name,
        mode=_mode_of(tools),
        response=result.response,
        questions=tools.questions,
        automations=tools.automations,
        labels=state_diff(h0_state, final),
        end_reason="budget" if tools.exhausted else result.end_reason,  # type: ignore[arg-type]  # the agent ends with one of the record's reasons
        error=result.error,
        tokens=result.tokens.as_dict(),
        tool_calls=len(tools.log),
        actions=[
            AttemptedAction(
                did=(e["arguments"] or {}).get("did") if isinstance(e["arguments"], dict) else None,
                locator=(e["arguments"] or {}).get("locator") if isinstance(e["arguments"], dict) else None,
                arguments=e["arguments"],
                code=e["code"],
            )
            for e in tools.log
            if _mutates(e["tool"]) and e["code"] != "BUDGET_EXCEEDED"
        ],
    )
    return await _judged(
        instance, prediction, h0_state, final, _h0(env, h0_state, homes, instance), judge, clarification_judge
    )
