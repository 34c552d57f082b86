"""Scoring one finished episode (facts §6, without SimuHome's scoring bugs of §9).

| kind | method |
|---|---|
| qt3 feasible | required actions + exact final-state asserts (4-segment struct paths resolved) |
| qt2 feasible | required actions + direction vs the no-agent world, with a meaningful threshold |
| qt4-* feasible | required actions + asserts at some tick of each window, one forward sweep |
| everything else | required actions (qt4 infeasible has none) + a non-empty answer + a judge |

Every verdict also lists irrelevant state changes: device attributes the agent changed (compared with the
no-agent world at the same tick) on devices no goal is about.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from benchmark.scoring.automation_scoring import score_automations
from benchmark.scoring.charging_scoring import charging_checks
from benchmark.scoring.evaluators.checks import direction_checks, final_state_checks, schedule_checks
from benchmark.scoring.evaluators.judging import Judge, JudgeRequest
from benchmark.scoring.evaluators.state_comparison import (
    Baseline,
    EvalSettings,
    agent_changes,
    irrelevant_changes,
    match_required_actions,
    targeted_devices,
)
from benchmark.scoring.verdicts import JudgeRecord, Verdict
from benchmark.scoring.world_checks import world_check_results
from benchmark.suites.simuhome.episode import Episode
from emulator.emulated_home import EmulatedHome

STATE_METHODS = {
    "qt2": "direction",
    "qt3": "final_state",
    "qt4-1": "schedule",
    "qt4-2": "schedule",
    "qt4-3": "schedule",
}


@dataclass
class EvaluationInput:
    episode: Episode
    fabric: EmulatedHome  # the live fabric, where the agent left it
    before: dict[str, Any]  # snapshot before the agent started
    after: dict[str, Any]  # snapshot when the agent finished
    invocations: list[dict[str, Any]]
    final_answer: str | None
    steps: list[dict[str, Any]] = field(default_factory=list)
    end_reason: str = "finished"
    failure: str | None = None  # the agent's failure kind when it aborted (AgentOutcome.failure)
    baseline: Any = None  # the no-agent world (``snapshot_at``); None: the episode's home replayed in emulation
    state_diff: list[dict[str, Any]] | None = None  # EmulatedHome.diff(before, after), when the caller took it


def method_for(episode: Episode) -> str:
    if episode.homefabric is not None and episode.homefabric.charging is not None:
        return "charging"  # the home at the charging goal's deadline (benchmark.scoring.charging_scoring)
    if episode.feasible and episode.query_type in STATE_METHODS:
        return STATE_METHODS[episode.query_type]
    return "judge"


def error_type(
    method: str, required_ok: bool, answer_ok: bool, method_ok: bool | None, end_reason: str, failure: str | None = None
) -> str | None:
    """SimuHome's error taxonomy where it can be derived (plus our names for the state-based failures and
    for a model that ran away: generated until the timeout or, turn after turn, to the token limit)."""
    if end_reason == "max_steps":
        return "Step Limit Failure"
    if end_reason == "aborted" and failure == "runaway_output":
        return "Runaway Output"
    if end_reason == "aborted":
        return "Agent Aborted"
    if not required_ok:
        return "Required Actions Failure"
    if method == "judge" and not answer_ok:
        return "Final Response Failure"
    if method_ok is None:
        return "Judge Error"
    if method_ok:
        return None
    return {
        "judge": "Context Faithfulness Failure",
        "final_state": "Final State Failure",
        "charging": "Final State Failure",  # the home at the deadline is not what was asked
        "direction": "Direction Failure",
        "schedule": "Schedule Failure",
    }[method]


async def evaluate_episode(data: EvaluationInput, judge: Judge, settings: EvalSettings | None = None) -> Verdict:
    """The verdict of one (episode, trial). Advances the live fabric (qt2/qt4)."""
    settings = settings or EvalSettings()
    episode, fabric = data.episode, data.fabric
    required = match_required_actions(episode.required_actions, data.invocations)
    required_ok = all(r["invoked"] for r in required)
    baseline = data.baseline if data.baseline is not None else Baseline(episode.initial_home_config, data.before)
    natural = baseline.snapshot_at(data.after["tick"])  # ``before`` itself while virtual time has not moved
    changes = agent_changes(natural, data.after, data.state_diff if natural is data.before else None)
    irrelevant = irrelevant_changes(changes, targeted_devices(episode, data.before))
    method = method_for(episode)
    automations = score_automations(episode, fabric)  # before the checks that advance the live fabric
    answer = (data.final_answer or "").strip()
    checks: list[dict[str, Any]] = []
    judge_record: JudgeRecord | None = None
    method_ok: bool | None
    simuhome: dict[str, Any] = {}
    infra_error = None
    if method == "final_state":
        method_ok, checks = final_state_checks(fabric, episode.goals)
        replayed = world_check_results(episode, fabric)  # on copies: the live fabric is left as it is
        if replayed is not None:
            method_ok, checks = method_ok and replayed[0], checks + replayed[1]
    elif method == "charging":
        method_ok, checks = charging_checks(episode, fabric)
    elif method == "direction":
        method_ok, simuhome_ok, checks = direction_checks(fabric, baseline, episode.goals, settings)
        simuhome["direction_passed"] = required_ok and simuhome_ok
    elif method == "schedule":
        method_ok, checks = schedule_checks(fabric, episode.goals)
    elif not answer:
        method_ok = False  # SimuHome: no final answer, no judge call
    else:
        workflows = [w.to_dict(with_steps=True) for w in fabric.workflows()]
        request = JudgeRequest(episode, answer, data.steps, data.invocations, data.after, fabric, changes, workflows)
        judge_record = await judge.judge(request)
        method_ok = judge_record.passed
        if method_ok is None:
            infra_error = f"judge: {judge_record.error}"
    # Running out of steps (or aborting) is a failure however the home ended up.
    passed = bool(
        required_ok and method_ok and data.end_reason == "finished" and (automations is None or automations["passed"])
    )
    kind_error = error_type(method, required_ok, bool(answer), method_ok, data.end_reason, data.failure)
    if kind_error is None and automations is not None and not automations["passed"]:
        kind_error = "Automation Judging Failure"  # SMH-Bench's AJ
    return Verdict.model_validate(
        {
            "passed": passed,
            "score": 1 if passed else 0,
            "method": method,
            "checks": checks,
            "required_actions": required,
            "irrelevant_changes": irrelevant,
            "judge": judge_record,
            "error_type": None if passed else kind_error,
            "infra_error": infra_error,
            "simuhome": simuhome,
            **({"automations": automations} if automations is not None else {}),
        }
    )


__all__ = ["EvalSettings", "EvaluationInput", "error_type", "evaluate_episode", "method_for"]
