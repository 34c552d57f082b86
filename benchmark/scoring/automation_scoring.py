"""Gold automations in episodes: the oracle creates them through the tools, the evaluator scores created rules.

An episode carries gold rules in ``homefabric.automations`` (AutomationSpec, the fabric's rule shape). A gold
rule is met by a rule the agent created when (1) ``compare_automations`` finds trigger, conditions and
actions equivalent (on the home as it was when the episode began), and (2) simulating the created rule
does what the gold rule would: on copies of the home where the agent left it, one with the created rule
and one with the gold rule, time is fast-forwarded past the gold trigger (the next cron firing plus a
minute, or ``replay_s`` for a state trigger, after the episode's ``homefabric.replay`` acts — a button
pressed, water at a detector — on both copies) and device states (sensor readings excluded) must be equal,
with the rule having fired.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchmark.scoring.evaluators.state_comparison import fresh_fabric
from benchmark.scoring.world_checks import perform_act
from benchmark.suites.simuhome.episode import Episode, ReplayAct
from emulator.automations.cron import parse_cron
from emulator.automations.model import AutomationSpec
from emulator.emulated_home import EmulatedHome
from emulator.physics import SENSOR_ATTRIBUTES

SETTLE_S = 60.0  # after a cron firing: its actions have run and rooms have started to move


def gold_automations(episode: Episode) -> list[AutomationSpec]:
    block = episode.homefabric
    return list(getattr(block, "automations", None) or []) if block is not None else []


def tool_arguments(spec: AutomationSpec) -> dict[str, Any]:
    """``create_automation`` arguments for a rule in the fabric's shape (the oracle's call)."""

    def comparison(condition: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"operator": condition.op, "value": condition.value, "for_seconds": condition.for_s}
        if condition.room_id is not None:
            return {**out, "room_id": condition.room_id, "variable": condition.variable}
        endpoint, cluster, attribute = condition.path.split(".")
        return {
            **out,
            "device_id": condition.device_id,
            "endpoint_id": int(endpoint),
            "cluster_id": cluster,
            "attribute_id": attribute,
        }

    trigger = (
        {"type": "time", "cron": spec.trigger.cron}
        if spec.trigger.kind == "time"
        else {"type": "state", "condition": comparison(spec.trigger.condition)}
    )
    actions = []
    for action in spec.actions:
        if action.kind == "invoke":
            actions.append(
                {
                    "tool": "execute_command",
                    "args": {
                        "device_id": action.device_id,
                        "endpoint_id": action.endpoint,
                        "cluster_id": action.cluster,
                        "command_id": action.command,
                        "args": dict(action.args),
                    },
                }
            )
        else:
            actions.append(
                {
                    "tool": "write_attribute",
                    "args": {
                        "device_id": action.device_id,
                        "endpoint_id": action.endpoint,
                        "cluster_id": action.cluster,
                        "attribute_id": action.attribute,
                        "value": action.value,
                    },
                }
            )
    return {
        "name": spec.name,
        "trigger": trigger,
        "conditions": [comparison(c) for c in spec.conditions],
        "actions": actions,
    }


def _devices(fabric: EmulatedHome) -> dict[tuple[str, str], Any]:
    return {
        (d, p): v
        for d, device in fabric.snapshot()["devices"].items()
        for p, v in device["attributes"].items()
        if p.split(".")[-1] not in SENSOR_ATTRIBUTES
    }


def replay_acts(episode: Episode) -> list[ReplayAct]:
    block = episode.homefabric
    return list(getattr(block, "replay", None) or []) if block is not None else []


def _with_rule(live: EmulatedHome, rule: AutomationSpec, acts: Sequence[ReplayAct]) -> EmulatedHome:
    from emulator.automations.equivalence import home_copy

    copy = home_copy(live)  # pending workflows (the agent's, the scenario's) come along
    copy.add_automation(rule)
    for act in acts:
        perform_act(copy, act)
    return copy


def simulate(
    live: EmulatedHome, gold: AutomationSpec, created: AutomationSpec, replay_s: float, acts: Sequence[ReplayAct] = ()
) -> tuple[bool, str]:
    """Fast-forward copies of the home past the gold trigger: the created rule's effect equals the gold one's."""
    if gold.trigger.kind == "time":
        following = parse_cron(gold.trigger.cron).next_after(live.now())
        if following is None:
            return False, "the gold schedule never fires again"
        seconds = (following - live.now()).total_seconds() + SETTLE_S
    else:
        seconds = replay_s
    mine, theirs = _with_rule(live, gold, acts), _with_rule(live, created, acts)
    mine.advance(seconds)
    theirs.advance(seconds)
    fired_gold, fired_created = mine.automations()[0].fire_count, theirs.automations()[0].fire_count
    if fired_gold == 0:
        return False, f"the gold rule does not fire within {seconds:g} s of virtual time"
    state_gold, state_created = _devices(mine), _devices(theirs)
    differing = sorted(k for k in set(state_gold) | set(state_created) if state_gold.get(k) != state_created.get(k))
    if differing or fired_gold != fired_created:
        shown = ", ".join(f"{d} {p}" for d, p in differing[:5])
        return False, (
            f"after {seconds:g} s: gold fired {fired_gold}×, created {fired_created}×"
            + (f"; states differ at {shown}" if shown else "")
        )
    return True, f"after {seconds:g} s both fired {fired_gold}× and left the same device states"


def score_automations(episode: Episode, live: EmulatedHome, *, replay_s: float | None = None) -> dict[str, Any] | None:
    """Match each gold rule to a created rule; None when the episode has no gold automations.

    ``live`` is the fabric where the agent left it (not modified); equivalence is decided on the home as the
    episode began. ``replay_s`` defaults to the equivalence check's DEFAULT_REPLAY_S.
    """
    golds = gold_automations(episode)
    if not golds:
        return None
    # The equivalence check loads with the first episode that has gold automations (most episodes have none).
    from emulator.automations.equivalence import DEFAULT_REPLAY_S, compare_automations

    if replay_s is None:
        replay_s = DEFAULT_REPLAY_S
    start = fresh_fabric(episode.initial_home_config)
    created = live.automations()
    results, used = [], set()
    for gold in golds:
        best: dict[str, Any] = {
            "gold": gold.name,
            "matched": None,
            "equivalence": None,
            "simulation": None,
            "passed": False,
        }
        for rule in created:
            if rule.id in used:
                continue
            verdict = compare_automations(gold, rule, start)
            simulated, why = (
                simulate(live, gold, rule, replay_s, replay_acts(episode)) if verdict.equivalent else (False, "not run")
            )
            candidate = {
                "gold": gold.name,
                "matched": rule.id,
                "equivalence": verdict.model_dump(),
                "simulation": why,
                "passed": verdict.equivalent and simulated,
            }
            if candidate["passed"] or best["matched"] is None:
                best = candidate
            if candidate["passed"]:
                used.add(rule.id)
                break
        if best["matched"] is None:
            best["simulation"] = "no automation was created" if not created else "every created rule is taken"
        results.append(best)
    return {"passed": all(r["passed"] for r in results), "rules": results}
