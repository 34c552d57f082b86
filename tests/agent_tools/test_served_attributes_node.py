"""Plans from what a live device serves: python-matter-server's record of a real interview
(``fixtures/matter_interview_node.json``), with the heat pump's thermostat serving none of the optional setpoint
limits (removed from its attributes and from its AttributeList, 0xFFFB), read through ``MatterHome`` as the oracle
reads a live home. The planner takes the specification's limits and writes the wanted setpoint; before, each
missing limit was the current setpoint and "heat to 21.5 °C" planned nothing.

The controller is replaced by its recorded answers: ``read_attribute`` is answered from the node dump exactly as
python-matter-server answers a wildcard read from its cache (``"<ep>/<cluster>/<attribute>" → value``)."""

from __future__ import annotations

import copy
import fnmatch
import json
from pathlib import Path
from typing import Any, cast

import pytest

from agent_tools.matter_backend import MatterHome, discover
from agent_tools.matter_backend.connection import MatterServerConnection
from agent_tools.matter_backend.discovery import rooms_for
from benchmark.generation.qt1 import answerable_variables
from benchmark.scoring.step_planning import DevicePlan, chip_path
from benchmark.suites.simuhome.episode import Assert

NODE = Path(__file__).parent / "fixtures" / "matter_interview_node.json"
THERMOSTAT = 0x0201
LIMIT_IDS = (3, 4, 5, 6, 21, 22, 23, 24)  # Abs/Min/Max Heat/Cool setpoint limits


class RecordedController:
    """python-matter-server's answers to reads, from the node it stored at the interview."""

    def __init__(self, node: dict[str, Any]) -> None:
        self.node = node

    def call(self, command: str, **args: Any) -> Any:
        if command != "read_attribute":
            raise AssertionError(f"the planner only reads; it called {command}")
        patterns = args["attribute_path"]
        patterns = [patterns] if isinstance(patterns, str) else patterns
        return {
            path: value
            for path, value in self.node["attributes"].items()
            if any(fnmatch.fnmatchcase(path, pattern) for pattern in patterns)
        }


def _node_without_limits() -> tuple[dict[str, Any], int]:
    """The interview's node with the first thermostat endpoint stripped of its limits; that endpoint's number."""
    node = copy.deepcopy(json.loads(NODE.read_text())["node"])
    number = min(int(path.split("/")[0]) for path in node["attributes"] if path.split("/")[1] == str(THERMOSTAT))
    for attribute in LIMIT_IDS:
        del node["attributes"][f"{number}/{THERMOSTAT}/{attribute}"]
    listed = node["attributes"][f"{number}/{THERMOSTAT}/65531"]
    node["attributes"][f"{number}/{THERMOSTAT}/65531"] = [a for a in listed if a not in LIMIT_IDS]
    return node, number


@pytest.fixture
def live_home() -> tuple[MatterHome, str, int]:
    node, number = _node_without_limits()
    devices = discover([node])
    home = MatterHome(cast(MatterServerConnection, RecordedController(node)), devices, rooms_for(devices))
    device = next(d for d in devices if number in d.endpoints.values())
    endpoint = next(ep for ep, n in device.endpoints.items() if n == number)
    return home, device.device_id, endpoint


def test_the_live_thermostat_serves_no_limits(live_home: tuple[MatterHome, str, int]) -> None:
    home, device_id, endpoint = live_home
    state = home.read_all(device_id)
    assert not [k for k in state if k.startswith(f"{endpoint}.Thermostat.") and "SetpointLimit" in k]
    assert state[f"{endpoint}.Thermostat.OccupiedHeatingSetpoint"] == 2000


def test_a_heating_setpoint_is_planned_with_the_specification_limits(live_home: tuple[MatterHome, str, int]) -> None:
    home, device_id, endpoint = live_home
    state = {chip_path(k): v for k, v in home.read_all(device_id).items()}
    plan = DevicePlan(device_id, home.device(device_id).device_type, state)
    assert plan.thermostat_limits(endpoint) == ((700, 3000), (1600, 3200), 0)
    steps = plan.plan(
        [Assert.model_validate({"attribute": f"{endpoint}.Thermostat.OccupiedHeatingSetpoint", "value": 2150})]
    )
    assert [(s.kind, s.endpoint, s.cluster, s.name, s.value) for s in steps] == [
        ("write", endpoint, "Thermostat", "OccupiedHeatingSetpoint", 2150)
    ]


def test_a_room_without_a_measurement_cluster_is_not_asked_about(live_home: tuple[MatterHome, str, int]) -> None:
    """The interview's home has no temperature, humidity, light or PM10 sensor: the generator's question about
    what its rooms answer gets none (the emulated home answers every room from its physics)."""
    home, device_id, _ = live_home
    assert answerable_variables(home, home.device(device_id).room_id) == ()
