"""Plans from what a device serves: thermostats and lights that leave out the optional limit attributes (a home
file's ``null`` for an optional attribute: not implemented) are planned with the Matter specification's values
for absent attributes (``clusters.absent_attributes``), never with the value being planned toward.

Before, a missing setpoint limit was taken as the current setpoint, so "cool to 23 °C" planned no write and the
oracle answered "Done"; ``test_the_oracle_solves_an_episode_whose_devices_lack_the_limits`` failed then."""

from __future__ import annotations

import asyncio
import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from agent_tools import ToolBox
from benchmark.agents.base import AgentTask
from benchmark.agents.oracle import OracleAgent
from benchmark.generation.targets import variants
from benchmark.scoring.evaluators.evaluate import EvaluationInput, evaluate_episode
from benchmark.scoring.evaluators.state_comparison import fresh_fabric
from benchmark.scoring.judges.rules import RulesJudge
from benchmark.scoring.step_planning import control_steps
from benchmark.suites.simuhome.episode import Assert, parse_episode
from clusters.absent_attributes import ABSENT_VALUES, device_rule
from tests.benchmark.test_oracle_planner import _one_device as _home
from tests.benchmark.test_oracle_planner import _plan, _run

SETPOINT_LIMITS = tuple(name for name in ABSENT_VALUES["Thermostat"])
LEVEL_LIMITS = ("MinLevel", "MaxLevel")
EPISODE = Path(__file__).parent / "episodes" / "qt3_feasible_seed_8.json"


def _without(endpoint: int, cluster: str, names: tuple[str, ...]) -> dict[str, None]:
    return {f"{endpoint}.{cluster}.{name}": None for name in names}


def _asserts(*pairs: tuple[str, Any]) -> list[Assert]:
    return [Assert.model_validate({"attribute": path, "value": value}) for path, value in pairs]


def test_the_home_file_leaves_the_limits_out_and_the_attribute_list_says_so() -> None:
    _, tools = _home("air_conditioner", _without(1, "Thermostat", SETPOINT_LIMITS))
    served = tools.call("get_all_attributes", {"device_id": "d"})["data"]
    assert not [name for name in SETPOINT_LIMITS if f"1.Thermostat.{name}" in served]
    listed = served["1.Thermostat.AttributeList"]
    assert not {3, 4, 5, 6, 21, 22, 23, 24} & set(listed) and {17, 18} <= set(listed)  # setpoints stay
    error = tools.call(
        "get_attribute",
        {"device_id": "d", "endpoint_id": 1, "cluster_id": "Thermostat", "attribute_id": "MinCoolSetpointLimit"},
    )["error"]
    assert error is not None and error["type"] == "ATTRIBUTE_NOT_FOUND"


@pytest.mark.parametrize(
    ("device_type", "endpoint", "asserts", "wanted"),
    [
        (
            "air_conditioner",
            1,
            (("1.OnOff.OnOff", True), ("1.Thermostat.SystemMode", 3), ("1.Thermostat.OccupiedCoolingSetpoint", 2300)),
            ("OccupiedCoolingSetpoint", 2300),
        ),
        (
            "heat_pump",
            4,
            (("4.Thermostat.SystemMode", 4), ("4.Thermostat.OccupiedHeatingSetpoint", 2150)),
            ("OccupiedHeatingSetpoint", 2150),
        ),
    ],
)
def test_a_setpoint_is_written_on_a_thermostat_without_limit_attributes(
    device_type: str, endpoint: int, asserts: tuple[tuple[str, Any], ...], wanted: tuple[str, int]
) -> None:
    fabric, tools = _home(device_type, _without(endpoint, "Thermostat", SETPOINT_LIMITS))
    plan = _plan(tools, device_type)
    assert plan.thermostat_limits(endpoint) == ((700, 3000), (1600, 3200), 0)  # the specification's defaults
    steps = plan.plan(_asserts(*asserts))
    attribute, value = wanted
    assert [(s.name, s.value) for s in steps if s.kind == "write" and s.name == attribute] == [(attribute, value)]
    assert _run(tools, steps) == []
    assert fabric.read("d", endpoint, "Thermostat", attribute) == value


def test_served_limits_still_bound_the_plan() -> None:
    """A served limit wins over the default: the wanted 30 °C is cooled to at most the device's 28 °C."""
    attributes: dict[str, Any] = {
        **_without(1, "Thermostat", ("AbsMaxCoolSetpointLimit",)),
        "1.Thermostat.MaxCoolSetpointLimit": 2800,
        "1.OnOff.OnOff": True,
    }
    fabric, tools = _home("air_conditioner", attributes)
    steps = _plan(tools, "air_conditioner").plan(_asserts(("1.Thermostat.OccupiedCoolingSetpoint", 3000)))
    assert [(s.name, s.value) for s in steps] == [("OccupiedCoolingSetpoint", 2800)]
    assert _run(tools, steps) == []
    assert fabric.read("d", 1, "Thermostat", "OccupiedCoolingSetpoint") == 2800


def test_a_value_read_but_not_in_the_attribute_list_is_not_the_devices_rule() -> None:
    state = {
        "1.Thermostat.OccupiedCoolingSetpoint": 2600,
        "1.Thermostat.MinCoolSetpointLimit": 2500,
        "1.Thermostat.FeatureMap": 2,
        "1.Thermostat.AttributeList": [0, 17, 65528, 65529, 65531, 65532, 65533],
    }
    assert device_rule(state, 1, "Thermostat", "MinCoolSetpointLimit") == 1600
    assert (
        device_rule(
            {k: v for k, v in state.items() if not k.endswith("AttributeList")}, 1, "Thermostat", "MinCoolSetpointLimit"
        )
        == 2500
    )  # no list read: what was read is served


@pytest.mark.parametrize("direction", ["increase", "decrease"])
def test_control_actions_without_limit_attributes_go_to_the_specification_limits(direction: str) -> None:
    fabric, tools = _home("air_conditioner", {**_without(1, "Thermostat", SETPOINT_LIMITS), "1.OnOff.OnOff": True})
    steps = control_steps(_plan(tools, "air_conditioner"), "ac", 1, "temperature", direction)
    assert _run(tools, steps) == []
    expected = (3000, 3200) if direction == "increase" else (700, 1600)
    assert (
        fabric.read("d", 1, "Thermostat", "OccupiedHeatingSetpoint"),
        fabric.read("d", 1, "Thermostat", "OccupiedCoolingSetpoint"),
    ) == expected


def test_a_light_without_min_and_max_level_is_brightened_to_254() -> None:
    fabric, tools = _home(
        "dimmable_light",
        {**_without(1, "LevelControl", LEVEL_LIMITS), "1.OnOff.OnOff": True, "1.LevelControl.CurrentLevel": 100},
    )
    steps = control_steps(_plan(tools, "dimmable_light"), "light", 1, "illuminance", "increase")
    assert [(s.name, dict(s.args)) for s in steps] == [("MoveToLevel", {"Level": 254})]
    assert _run(tools, steps) == []
    fabric.advance(1)
    assert fabric.read("d", 1, "LevelControl", "CurrentLevel") == 254


def test_generated_requests_stay_inside_the_served_limits() -> None:
    fabric, _ = _home(
        "air_conditioner", {"1.Thermostat.MaxCoolSetpointLimit": 2000, "1.Thermostat.OccupiedHeatingSetpoint": 1700}
    )
    for seed in range(20):
        cool = next(
            v for v in variants("air_conditioner", fabric.read_all("d"), random.Random(seed)) if v.intent == "cool_to"
        )
        assert 1800 <= cool.our_asserts()["1.Thermostat.OccupiedCoolingSetpoint"] <= 2000


def _episode_without_limits() -> dict[str, Any]:
    """qt3_feasible_seed_8 (heat the heat pump to 19.5 °C, the AC to 24 °C, dim a light to 80) with its
    thermostats and the light serving none of their optional limit attributes."""
    episode = copy.deepcopy(json.loads(EPISODE.read_text()))
    absent = {
        "utility_room_heat_pump_1": _without(4, "Thermostat", SETPOINT_LIMITS),
        "kitchen_air_conditioner_1": _without(1, "Thermostat", SETPOINT_LIMITS),
        "living_room_dimmable_light_1": _without(1, "LevelControl", LEVEL_LIMITS),
    }
    for room in episode["initial_home_config"]["rooms"].values():
        for device in room["devices"]:
            device["attributes"].update(absent.get(device["device_id"], {}))
    return episode


def test_the_oracle_solves_an_episode_whose_devices_lack_the_limits() -> None:
    raw = _episode_without_limits()
    episode = parse_episode(raw)
    fabric = fresh_fabric(episode.initial_home_config)
    assert not fabric.device("utility_room_heat_pump_1").cluster(4, "Thermostat").has_attribute("MaxHeatSetpointLimit")
    tools = ToolBox(fabric)
    before = fabric.snapshot()
    task = AgentTask(
        query=episode.query,
        user_location=episode.user_location,
        current_time=fabric.now_text(),
        episode_id=episode.episode_id,
        extras={"episode": episode},
    )
    outcome = asyncio.run(OracleAgent().run(task, tools))
    writes = {
        (i["params"]["device_id"], i["params"]["attribute_id"], i["params"]["value"])
        for i in tools.invocations
        if i["tool"] == "write_attribute" and i["ok"]
    }
    assert ("utility_room_heat_pump_1", "OccupiedHeatingSetpoint", 1950) in writes
    assert ("kitchen_air_conditioner_1", "OccupiedCoolingSetpoint", 2400) in writes
    data = EvaluationInput(
        episode,
        fabric,
        before,
        fabric.snapshot(),
        tools.invocations,
        outcome.final_answer,
        [s.to_dict() for s in outcome.steps],
        outcome.end_reason,
    )
    verdict = asyncio.run(evaluate_episode(data, RulesJudge()))
    assert verdict.passed, verdict.checks
