"""Gold automations in an episode: the oracle creates them through create_automation and passes; a near
miss or no rule at all fails with the reason; the episode file round-trips its gold rules."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from agent_tools import ToolBox
from benchmark.agents.base import AgentTask
from benchmark.agents.oracle import OracleAgent
from benchmark.scoring.automation_scoring import tool_arguments
from benchmark.scoring.evaluators.evaluate import EvaluationInput, evaluate_episode
from benchmark.scoring.evaluators.state_comparison import fresh_fabric
from benchmark.scoring.judges.rules import RulesJudge
from benchmark.suites.simuhome.episode import Episode, parse_episode
from tests.benchmark.fixture_episodes import build_all

NAME = "qt3_feasible_seed_7"  # turns the living room fan on (it cools the room), among other things
LIGHT = "kitchen_on_off_light_1"


def _episode(golds: list[dict[str, Any]]) -> Episode:
    data = copy.deepcopy(build_all()[NAME])
    data["homefabric"] = {"format": "homefabric-episode/1", "automations": golds}
    return parse_episode(data, NAME, episode_id=NAME)


def _weekday_light(minute: int = 45) -> dict[str, Any]:
    return {
        "name": "kitchen light on weekday mornings",
        "trigger": {"kind": "time", "cron": f"0 {minute} 6 ? * MON-FRI *"},
        "actions": [{"kind": "invoke", "device_id": LIGHT, "endpoint": 1, "cluster": "OnOff", "command": "On"}],
    }


def _cool_room_light() -> dict[str, Any]:
    start = fresh_fabric(build_all()[NAME]["initial_home_config"]).room_state("living_room")["temperature"]
    return {
        "name": "light when the living room has cooled",
        "trigger": {
            "kind": "state",
            "condition": {"room_id": "living_room", "variable": "temperature", "op": "<", "value": start - 20},
        },
        "actions": [
            {
                "kind": "invoke",
                "device_id": "living_room_on_off_light_1",
                "endpoint": 1,
                "cluster": "OnOff",
                "command": "On",
            }
        ],
    }


def _run(episode: Episode, agent_calls: list[tuple[str, dict[str, Any]]] | None = None) -> dict[str, Any]:
    fabric = fresh_fabric(episode.initial_home_config)
    tools = ToolBox(fabric, profile="simuhome_ext")
    before = fabric.snapshot()
    if agent_calls is None:
        task = AgentTask(
            query=episode.query,
            user_location=episode.user_location,
            current_time=fabric.now_text(),
            episode_id=episode.episode_id,
            extras={"episode": episode},
        )
        answer = asyncio.run(OracleAgent().run(task, tools)).final_answer
    else:
        for name, arguments in agent_calls:
            assert tools.call(name, arguments)["error"] is None
        answer = "Done."
    data = EvaluationInput(episode, fabric, before, fabric.snapshot(), tools.invocations, answer)
    return asyncio.run(evaluate_episode(data, RulesJudge())).to_dict()  # the verdict as recorded


def test_the_episode_file_keeps_its_gold_rules() -> None:
    episode = _episode([_weekday_light()])
    again = parse_episode(episode.to_json_dict(), NAME)
    assert again.homefabric.automations[0].trigger.cron == "0 45 6 ? * MON-FRI *"


def test_the_oracle_creates_gold_rules_through_the_tools_and_passes() -> None:
    episode = _episode([_weekday_light(), _cool_room_light()])
    verdict = _run(episode)
    assert verdict["passed"], verdict.get("automations")
    rules = verdict["automations"]["rules"]
    assert [r["matched"] for r in rules] == ["auto-0001", "auto-0002"]
    assert all(r["equivalence"]["equivalent"] for r in rules)
    assert "both fired 1×" in rules[0]["simulation"] and "both fired" in rules[1]["simulation"]


def test_a_near_miss_rule_fails_with_the_reason() -> None:
    episode = _episode([_weekday_light()])
    oracle_verdict = _run(episode)
    assert oracle_verdict["passed"]
    # The same qt3 actions as the oracle, then a rule one minute late.
    oracle_calls = [(i["tool"], i["params"]) for i in _oracle_invocations(episode) if i["tool"] != "create_automation"]
    late = tool_arguments(
        parse_episode(
            {**episode.to_json_dict(), "homefabric": {"automations": [_weekday_light(46)]}}, NAME
        ).homefabric.automations[0]
    )
    verdict = _run(episode, [*oracle_calls, ("create_automation", late)])
    assert not verdict["passed"] and verdict["error_type"] == "Automation Judging Failure"
    reason = verdict["automations"]["rules"][0]["equivalence"]["reasons"][0]
    assert reason.startswith("trigger: ") and "06:45:00" in reason and "only the gold schedule fires" in reason
    nothing = _run(episode, list(oracle_calls))
    assert not nothing["passed"] and nothing["automations"]["rules"][0]["simulation"] == "no automation was created"


def _oracle_invocations(episode: Episode) -> list[dict[str, Any]]:
    fabric = fresh_fabric(episode.initial_home_config)
    tools = ToolBox(fabric, profile="simuhome_ext")
    task = AgentTask(
        query=episode.query,
        user_location=episode.user_location,
        current_time=fabric.now_text(),
        episode_id=episode.episode_id,
        extras={"episode": episode},
    )
    asyncio.run(OracleAgent().run(task, tools))
    return [i for i in tools.invocations if i["ok"] and i["tool"] != "finish"]
