"""Evaluators on hand-built episodes: each method's pass and fail cases, required actions, irrelevant changes."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from agent_tools import ToolBox
from benchmark.scoring.evaluators.evaluate import EvaluationInput, evaluate_episode
from benchmark.scoring.evaluators.state_comparison import (
    EvalSettings,
    fresh_fabric,
    is_subset,
    read_assert_path,
    values_equal,
)
from benchmark.scoring.judges.rules import RulesJudge
from benchmark.suites.simuhome.episode import parse_episode
from tests.benchmark.fixture_episodes import build_all

EPISODES = build_all()


def cmd(device: str, cluster: str, command: str, args: dict[str, Any] | None = None, ep: int = 1) -> tuple:
    return (
        "execute_command",
        {"device_id": device, "endpoint_id": ep, "cluster_id": cluster, "command_id": command, "args": args or {}},
    )


def wr(device: str, cluster: str, attribute: str, value: Any, ep: int = 1) -> tuple:
    return (
        "write_attribute",
        {"device_id": device, "endpoint_id": ep, "cluster_id": cluster, "attribute_id": attribute, "value": value},
    )


def devices(room: str) -> tuple:
    return ("get_room_devices", {"room_id": room})


def evaluate(
    name: str,
    calls: list[tuple],
    answer: str = "Done.",
    *,
    settings: EvalSettings | None = None,
    advance_s: float = 0.0,
    judge: Any = None,
    data: dict[str, Any] | None = None,
) -> dict[str, Any]:
    episode = parse_episode(data or EPISODES[name], name, episode_id=name)
    fabric = fresh_fabric(episode.initial_home_config)
    tools = ToolBox(fabric)
    before = fabric.snapshot()
    for tool, args in calls:
        tools.call(tool, args)
    tools.call("finish", {"answer": answer})
    if advance_s:
        fabric.advance(advance_s)
    after = fabric.snapshot()
    evaluation = EvaluationInput(episode, fabric, before, after, tools.invocations, answer)
    return asyncio.run(
        evaluate_episode(evaluation, judge or RulesJudge(), settings)
    ).to_dict()  # the verdict as recorded


# --- required actions ------------------------------------------------------------------------------------------


def test_subset_matching_is_recursive():
    assert is_subset({"room_id": "a"}, {"room_id": "a", "x": 1})
    assert not is_subset({"room_id": "a"}, {"room_id": "b"})
    assert is_subset({"steps": [{"tool": "x"}]}, {"steps": [{"tool": "y"}, {"tool": "x", "args": {}}]})
    assert not is_subset({"steps": [{"tool": "z"}]}, {"steps": [{"tool": "x"}]})


def test_required_action_reports_invoked_and_succeeded_separately():
    calls = [("get_room_devices", {"room_id": "living_room", "extra": 1}), devices("bathroom")]
    verdict = evaluate("qt3_feasible_seed_7", calls)
    living, bathroom = verdict["required_actions"]
    assert living == {
        "tool": "get_room_devices",
        "params": {"room_id": "living_room"},
        "invoked": True,
        "succeeded": False,
    }  # refused for the extra argument, but it was called (SimuHome's rule)
    assert bathroom["invoked"] and bathroom["succeeded"]
    assert verdict["error_type"] == "Final State Failure"


def test_missing_required_action_fails_even_with_the_right_state():
    calls = [
        devices("living_room"),
        cmd("living_room_fan_1", "OnOff", "On"),
        wr("living_room_fan_1", "FanControl", "PercentSetting", 60),
    ]
    verdict = evaluate("qt3_feasible_seed_7", calls)
    assert not verdict["passed"] and verdict["error_type"] == "Required Actions Failure"


# --- qt3: final state ---------------------------------------------------------------------------------------------

QT3_SOLUTION = [
    devices("living_room"),
    devices("bathroom"),
    cmd("living_room_fan_1", "OnOff", "On"),
    wr("living_room_fan_1", "FanControl", "PercentSetting", 60),
    cmd("bathroom_laundry_dryer_1", "OnOff", "On"),
    wr("bathroom_laundry_dryer_1", "LaundryDryerControls", "SelectedDrynessLevel", 3),
    cmd("bathroom_laundry_dryer_1", "OperationalState", "Start"),
    cmd("living_room_tv_1", "Channel", "ChangeChannelByNumber", {"major_number": 3, "minor_number": 0}),
]


def test_qt3_passes_with_every_assert_including_a_struct_field_path():
    verdict = evaluate("qt3_feasible_seed_7", QT3_SOLUTION)
    assert verdict["passed"] and verdict["score"] == 1 and verdict["method"] == "final_state"
    tv = next(c for c in verdict["checks"] if c["device_id"] == "living_room_tv_1")
    assert tv["asserts"][0] == {
        "attribute": "1.Channel.CurrentChannel.MajorNumber",
        "expected": 3,
        "actual": 3,
        "found": True,
        "ok": True,
    }


def test_qt3_fails_on_one_wrong_value_and_names_it():
    calls = [*QT3_SOLUTION[:3], wr("living_room_fan_1", "FanControl", "PercentSetting", 50), *QT3_SOLUTION[4:]]
    verdict = evaluate("qt3_feasible_seed_7", calls)
    assert not verdict["passed"]
    fan = next(c for c in verdict["checks"] if c["device_id"] == "living_room_fan_1")
    assert not fan["ok"] and fan["asserts"][1]["actual"] == 50 and fan["asserts"][1]["expected"] == 60


def test_irrelevant_changes_are_listed_without_failing_the_episode():
    verdict = evaluate("qt3_feasible_seed_7", [*QT3_SOLUTION, cmd("office_on_off_light_1", "OnOff", "On")])
    assert verdict["passed"]
    assert [(c["device_id"], c["path"]) for c in verdict["irrelevant_changes"]] == [
        ("office_on_off_light_1", "1.OnOff.OnOff")
    ]
    assert evaluate("qt3_feasible_seed_7", QT3_SOLUTION)["irrelevant_changes"] == []


def test_value_comparison_and_path_reading():
    assert values_equal(3, 3.0) and not values_equal(True, 1) and values_equal("Vacuum", "vacuum")
    assert values_equal({"MajorNumber": 1}, {"majorNumber": 1, "name": "x"})
    fabric = fresh_fabric(EPISODES["qt3_feasible_seed_7"]["initial_home_config"])
    assert read_assert_path(fabric, "living_room_rvc_1", "1.RVCOperationalState.OperationalState") == 66
    assert read_assert_path(fabric, "living_room_tv_1", "1.Channel.CurrentChannel.Identifier") == "kbs1"


# --- qt2: direction with a meaningful threshold -------------------------------------------------------------------


def test_qt2_passes_with_real_control_actions():
    calls = [
        devices("kitchen"),
        devices("living_room"),
        wr("kitchen_air_conditioner_1", "Thermostat", "OccupiedHeatingSetpoint", 1575),
        wr("kitchen_air_conditioner_1", "Thermostat", "OccupiedCoolingSetpoint", 1600),
        wr("kitchen_air_conditioner_1", "FanControl", "PercentSetting", 100),
        cmd("living_room_on_off_light_1", "OnOff", "On"),
    ]
    verdict = evaluate("qt2_feasible_seed_3", calls)
    assert verdict["passed"] and verdict["simuhome"]["direction_passed"]
    kitchen = verdict["checks"][0]
    # The AC moves the room ~0.76 °C in the 30-minute horizon at best: half of that counts as a real move.
    assert kitchen["moved"] >= kitchen["threshold"] == round(min(50.0, kitchen["reachable"] / 2), 4) < 50


def test_qt2_tiny_change_passes_simuhome_but_not_our_threshold():
    calls = [
        devices("kitchen"),
        devices("living_room"),
        wr("kitchen_air_conditioner_1", "FanControl", "PercentSetting", 10),
        cmd("living_room_on_off_light_1", "OnOff", "On"),
    ]
    verdict = evaluate("qt2_feasible_seed_3", calls)
    kitchen = verdict["checks"][0]
    assert 0 < kitchen["moved"] < kitchen["threshold"] and kitchen["ok_simuhome"] and not kitchen["ok"]
    assert not verdict["passed"] and verdict["simuhome"]["direction_passed"]
    assert verdict["error_type"] == "Direction Failure"
    loose = evaluate(
        "qt2_feasible_seed_3", calls, settings=EvalSettings(qt2_thresholds={"temperature": 1.0, "illuminance": 10.0})
    )
    assert loose["passed"]


def _dry_bathroom_with_a_running_dehumidifier(percent: int) -> dict[str, Any]:
    """qt2: raise the bathroom's humidity; its only humidity device is a dehumidifier running at ``percent``."""
    data = copy.deepcopy(EPISODES["qt2_feasible_seed_3"])
    bathroom = data["initial_home_config"]["rooms"]["bathroom"]
    bathroom["state"]["humidity"] = 3500.0
    dehumidifier = next(d for d in bathroom["devices"] if d["device_type"] == "dehumidifier")
    dehumidifier["attributes"].update(
        {
            "1.OnOff.OnOff": True,
            "1.FanControl.PercentSetting": percent,
            "1.FanControl.PercentCurrent": percent,
            "1.FanControl.FanMode": 1,
        }
    )
    data["eval"] = {
        "required_actions": [{"tool": "get_room_devices", "params": {"room_id": "bathroom"}}],
        "goals": [{"room_id": "bathroom", "room_state": "humidity", "direction": "increase", "feasibility": True}],
    }
    return data


def test_qt2_switching_off_a_running_dehumidifier_raises_humidity_against_the_replay():
    """SimuHome's humidity drift is stiff: a dehumidifier at 33 % fan holds a 35 % RH room only ~0.45 % RH
    below its baseline, less than our 1 % threshold. Switching it off is still the intended solution."""
    data = _dry_bathroom_with_a_running_dehumidifier(33)
    off = evaluate("x", [devices("bathroom"), cmd("bathroom_dehumidifier_1", "OnOff", "Off")], data=data)
    check = off["checks"][0]
    assert off["passed"] and off["simuhome"]["direction_passed"]
    assert 0 < check["threshold"] < 100 and check["moved"] == check["reachable"] > check["threshold"]
    nothing = evaluate("x", [devices("bathroom")], data=data)
    assert not nothing["passed"] and nothing["checks"][0]["moved"] == 0
    slower = evaluate(
        "x", [devices("bathroom"), wr("bathroom_dehumidifier_1", "FanControl", "PercentSetting", 30)], data=data
    )
    assert slower["checks"][0]["ok_simuhome"] and not slower["passed"]  # a token change is not enough


def test_qt2_wrong_direction_fails():
    calls = [
        devices("kitchen"),
        devices("living_room"),
        cmd("kitchen_air_conditioner_1", "OnOff", "Off"),
        cmd("living_room_on_off_light_1", "OnOff", "On"),
    ]
    verdict = evaluate("qt2_feasible_seed_3", calls)
    assert not verdict["passed"] and verdict["checks"][0]["moved"] <= 0


# --- qt4: windows by fast-forward --------------------------------------------------------------------------------


def schedule(start: str, *steps: tuple) -> tuple:
    return (
        "schedule_workflow",
        {"start_time": f"2025-08-23 {start}", "steps": [{"tool": t, "args": a} for t, a in steps]},
    )


ON = cmd("office_on_off_light_1", "OnOff", "On")
KITCHEN_ON = cmd("kitchen_on_off_light_1", "OnOff", "On")


def test_qt4_passes_when_each_goal_holds_inside_its_window():
    # dishwasher ends at tick 11800 (14:19:40): office light 5 min before, kitchen light 10 min after
    verdict = evaluate(
        "qt4-2_feasible_seed_12",
        [devices("kitchen"), devices("office"), schedule("14:14:40", ON), schedule("14:29:55", KITCHEN_ON)],
    )
    assert verdict["passed"], verdict["checks"]
    assert [c["satisfied_at"] for c in verdict["checks"]] == [8800, 17950]


def test_qt4_fails_when_a_goal_is_late_and_when_its_effect_is_undone():
    late = evaluate(
        "qt4-2_feasible_seed_12",
        [devices("kitchen"), devices("office"), schedule("14:14:40", ON), schedule("14:31:00", KITCHEN_ON)],
    )
    assert not late["passed"] and late["checks"][1]["satisfied_at"] is None and late["checks"][0]["ok"]
    assert late["error_type"] == "Schedule Failure"
    early = evaluate(
        "qt4-2_feasible_seed_12",
        [
            devices("kitchen"),
            devices("office"),
            ON,
            schedule("14:05:00", cmd("office_on_off_light_1", "OnOff", "Off")),
            schedule("14:29:40", KITCHEN_ON),
        ],
    )
    assert not early["checks"][0]["ok"] and early["checks"][1]["ok"]


def test_qt4_window_already_past_when_the_agent_finished_is_reported():
    verdict = evaluate(
        "qt4-2_feasible_seed_12", [devices("kitchen"), devices("office"), ON, KITCHEN_ON], advance_s=1000
    )
    first, second = verdict["checks"]
    assert first["window_missed"] and not first["ok"] and first["tested_ticks"] == 0
    assert not second["window_missed"] and second["ok"]  # the kitchen light stays on into its window


def test_qt4_zero_tolerance_window_needs_the_exact_tick():
    dryer_start = [
        cmd("bathroom_laundry_dryer_1", "OnOff", "On"),
        wr("bathroom_laundry_dryer_1", "LaundryDryerControls", "SelectedDrynessLevel", 3),
        cmd("bathroom_laundry_dryer_1", "OperationalState", "Start"),
    ]
    pause = cmd("bathroom_laundry_dryer_1", "OperationalState", "Pause")
    good = evaluate("qt4-3_feasible_seed_14", [devices("bathroom"), *dryer_start, schedule("14:40:10", pause)])
    assert good["passed"], good["checks"]
    late_start = evaluate(
        "qt4-3_feasible_seed_14", [devices("bathroom"), schedule("14:39:11", *dryer_start), schedule("14:40:10", pause)]
    )
    assert not late_start["checks"][0]["ok"] and late_start["checks"][1]["ok"]


# --- judged kinds through the rules judge ------------------------------------------------------------------------


def test_qt1_rules_judge_checks_numbers_and_values():
    reads = [("get_room_states", {"room_id": "kitchen"}), devices("living_room")]
    right = evaluate(
        "qt1_feasible_seed_1", reads, "The kitchen is at 28.4 °C; the living room fan is made by SimuHome."
    )
    assert right["passed"] and right["method"] == "judge"
    wrong = evaluate("qt1_feasible_seed_1", reads, "The kitchen is at 26 °C; the living room fan is made by SimuHome.")
    assert not wrong["passed"] and wrong["error_type"] == "Context Faithfulness Failure"
    failed = {c["check"] for c in wrong["judge"]["checks"] if not c["ok"]}
    assert failed == {"room_state_value"}
    raw_units = evaluate(
        "qt1_feasible_seed_1", reads, "kitchen: 2841 (hundredths of a degree); living room fan vendor SimuHome"
    )
    assert raw_units["passed"]
    empty = evaluate("qt1_feasible_seed_1", reads, "")
    assert not empty["passed"] and empty["error_type"] == "Final Response Failure" and empty["judge"] is None


def test_qt1_infeasible_needs_the_missing_device_stated():
    reads = [devices("office"), ("get_room_states", {"room_id": "bathroom"})]
    good = evaluate("qt1_infeasible_seed_2", reads, "There is no TV in the office. The bathroom humidity is 68.3%.")
    assert good["passed"]
    invented = evaluate("qt1_infeasible_seed_2", reads, "The office TV is a Model X. The bathroom is at 68.3%.")
    assert not invented["passed"]


def test_qt2_infeasible_fails_when_the_agent_changes_a_goal_actuator():
    reason = "I can't dim the office any further: the only light there is already off."
    assert evaluate("qt2_infeasible_seed_5", [devices("office")], reason)["passed"]
    acted = evaluate("qt2_infeasible_seed_5", [devices("office"), cmd("office_on_off_light_1", "OnOff", "On")], reason)
    assert not acted["passed"]
    change = next(c for c in acted["judge"]["checks"] if c["check"] == "no_state_change")
    assert change["changed_devices"] == ["office_on_off_light_1"]
    vague = evaluate("qt2_infeasible_seed_5", [devices("office")], "Sure, done!")
    assert not vague["passed"]


def test_qt2_nonexistence_and_qt3_infeasible_answers():
    assert evaluate(
        "qt2_infeasible_seed_6",
        [devices("office")],
        "There is no air purifier in the office, so I can't clean the air there.",
    )["passed"]
    assert not evaluate("qt2_infeasible_seed_6", [devices("office")], "I turned on the office purifier.")["passed"]
    assert evaluate(
        "qt3_infeasible_seed_9",
        [devices("utility_room")],
        "There is no dryer 2 in the utility room, so I did not start anything.",
    )["passed"]


def test_qt4_infeasible_needs_the_conflict_named_and_nothing_scheduled():
    answer = "You said 1:57 PM but 12 minutes from now is 2:12 PM. Which time do you want?"
    assert evaluate("qt4-1_infeasible_seed_11", [], answer)["passed"]
    scheduled = evaluate("qt4-1_infeasible_seed_11", [schedule("14:12:00", KITCHEN_ON)], answer)
    assert not scheduled["passed"]
    assert not evaluate("qt4-1_infeasible_seed_11", [], "Okay, I will turn it on.")["passed"]
