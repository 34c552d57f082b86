"""The oracle's planner takes every rule from the device itself: on every catalogue device type, each step it
plans (qt2 control actions in both directions, thermostat setpoints at the device's limits, the qt3/qt4 goal
templates) is accepted by the device through the agent tools."""

from __future__ import annotations

import random
from typing import Any

import pytest

from agent_tools import ToolBox
from benchmark.agents.oracle_session import tool_call
from benchmark.generation.targets import CYCLE_TYPES, NON_OPERATIONAL_TYPES, variants
from benchmark.scoring.evaluators.state_comparison import ROLES_BY_VARIABLE
from benchmark.scoring.step_planning import DevicePlan, chip_path, control_steps
from benchmark.suites.simuhome.episode import Assert
from emulator.catalogue import CATALOGUE
from emulator.emulated_home import EmulatedHome
from emulator.home_config import validate_home
from emulator.workflows import WorkflowStep

TYPES = sorted(CATALOGUE)


def _one_device(device_type: str, attributes: dict[str, Any] | None = None) -> tuple[EmulatedHome, ToolBox]:
    config = validate_home(
        {
            "name": "planner",
            "base_time": "2025-08-23 14:00:00",
            "rooms": [
                {
                    "id": "room",
                    "name": "Room",
                    "type": "living_room",
                    "environment": {"temperature": 2500, "humidity": 5000, "illuminance": 300, "pm10": 40},
                }
            ],
            "devices": [{"id": "d", "type": device_type, "room": "room", "attributes": attributes or {}}],
        }
    )
    fabric = EmulatedHome(config)
    return fabric, ToolBox(fabric)


def _plan(tools: ToolBox, device_type: str) -> DevicePlan:
    data = tools.call("get_all_attributes", {"device_id": "d"})["data"]
    return DevicePlan("d", device_type, {chip_path(k): v for k, v in data.items()})


def _run(tools: ToolBox, steps: list[WorkflowStep]) -> list[str]:
    refused = []
    for step in steps:
        call = tool_call(step)
        envelope = tools.call(call["tool"], call["args"])
        if envelope.get("error") is not None:
            refused.append(f"{call['args']}: {envelope['error'].get('detail')}")
    return refused


def test_every_catalogue_type_is_planned():
    assert len(TYPES) >= 37


@pytest.mark.parametrize("device_type", TYPES)
def test_control_steps_are_accepted_in_both_directions(device_type: str):
    roles = CATALOGUE[device_type].roles
    for role, endpoint in roles:
        for variable, movers in ROLES_BY_VARIABLE.items():
            if role not in movers:
                continue
            for direction in ("increase", "decrease"):
                for start_on in (False, True):
                    fabric, tools = _one_device(device_type)
                    if start_on and fabric.device("d").find(1, "OnOff") is not None:
                        tools.call(
                            "execute_command",
                            {"device_id": "d", "endpoint_id": 1, "cluster_id": "OnOff", "command_id": "On", "args": {}},
                        )
                    steps = control_steps(_plan(tools, device_type), role, endpoint, variable, direction)
                    assert _run(tools, steps) == [], (role, variable, direction, start_on)


THERMOSTATS = [
    t
    for t in TYPES
    if any(ep.clusters and any(c.cluster == "Thermostat" for c in ep.clusters) for ep in CATALOGUE[t].endpoints)
]


@pytest.mark.parametrize("device_type", THERMOSTATS)
def test_setpoints_at_the_device_limits_respect_its_deadband(device_type: str):
    endpoint = next(
        ep.endpoint_id for ep in CATALOGUE[device_type].endpoints if any(c.cluster == "Thermostat" for c in ep.clusters)
    )
    for heat, cool in ((10_000, None), (None, -10_000), (10_000, -10_000), (-10_000, 10_000)):
        fabric, tools = _one_device(device_type)
        tools.call(
            "execute_command",
            {"device_id": "d", "endpoint_id": 1, "cluster_id": "OnOff", "command_id": "On", "args": {}},
        )
        plan = _plan(tools, device_type)
        steps = plan.setpoint_steps(endpoint, heat, cool)
        assert _run(tools, steps) == [], (heat, cool)
        _, _, band = plan.thermostat_limits(endpoint)
        server = fabric.device("d").cluster(endpoint, "Thermostat")
        if band and server.has_attribute("OccupiedHeatingSetpoint") and server.has_attribute("OccupiedCoolingSetpoint"):
            assert server.read("OccupiedCoolingSetpoint") - server.read("OccupiedHeatingSetpoint") >= band


def test_an_auto_mode_thermostat_enforces_ten_times_its_deadband_attribute():
    fabric, tools = _one_device("thermostat")
    plan = _plan(tools, "thermostat")
    _, _, band = plan.thermostat_limits(1)
    assert band == 10 * fabric.read("d", 1, "Thermostat", "MinSetpointDeadBand") == 250


@pytest.mark.parametrize("device_type", [t for t in (*NON_OPERATIONAL_TYPES, *CYCLE_TYPES) if t in CATALOGUE])
def test_goal_templates_are_planned_with_accepted_steps(device_type: str):
    rng = random.Random(7)
    fabric, tools = _one_device(device_type)
    for variant in variants(device_type, fabric.read_all("d"), rng):
        fabric, tools = _one_device(device_type)
        steps = _plan(tools, device_type).plan([Assert.model_validate(a) for a in variant.asserts])
        assert _run(tools, steps) == [], variant.intent


LIMITS = (
    "AbsMinHeatSetpointLimit",
    "AbsMaxHeatSetpointLimit",
    "AbsMinCoolSetpointLimit",
    "AbsMaxCoolSetpointLimit",
    "MinHeatSetpointLimit",
    "MaxHeatSetpointLimit",
    "MinCoolSetpointLimit",
    "MaxCoolSetpointLimit",
)


def test_a_thermostat_without_limit_attributes_is_planned_within_the_specifications_limits() -> None:
    # Many real thermostats serve none of the optional limits: the planner then uses the spec's 700..3000 heat,
    # 1600..3200 cool (never the current setpoint, which planned no write: "cool to 23 °C" answered "Done").
    _, tools = _one_device("heat_pump", {f"4.Thermostat.{name}": None for name in LIMITS})
    plan = _plan(tools, "heat_pump")
    assert not any(plan.has(4, "Thermostat", name) for name in LIMITS)
    assert plan.thermostat_limits(4)[:2] == ((700, 3000), (1600, 3200))
    steps = plan.plan([Assert(attribute="4.Thermostat.OccupiedCoolingSetpoint", value=2300)])
    assert [(s.name, s.value) for s in steps] == [("OccupiedCoolingSetpoint", 2300)]
    assert _run(tools, steps) == []
    assert plan.plan([Assert(attribute="4.Thermostat.OccupiedCoolingSetpoint", value=3500)])[0].value == 3200


def test_a_colour_temperature_is_planned_as_a_command_within_the_physical_limits() -> None:
    _, tools = _one_device("extended_color_light")
    plan = _plan(tools, "extended_color_light")
    high = plan.get(1, "ColorControl", "ColorTempPhysicalMaxMireds")
    [step] = [
        s
        for s in plan.plan([Assert(attribute="1.ColorControl.ColorTemperatureMireds", value=high + 100)])
        if s.cluster == "ColorControl"
    ]
    assert (step.kind, step.name, step.args["ColorTemperatureMireds"]) == ("invoke", "MoveToColorTemperature", high)
    assert _run(tools, [step]) == []
