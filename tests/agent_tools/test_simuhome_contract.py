"""The simuhome tool profile is SimuHome's contract (facts §1.2): each tool accepts exactly SimuHome's argument
names, and an argument SimuHome's tool layer refuses is refused with SimuHome's envelope (HTTP 400,
VALIDATION_ERROR / INVALID_PARAMETERS) and changes nothing. Extras (schedule_workflow's description) belong
to simuhome_ext."""

from __future__ import annotations

from typing import Any

import pytest

from agent_tools import ToolBox
from emulator.emulated_home import EmulatedHome
from tests.agent_tools.conftest import command, device_of, write

# SimuHome's tool catalogue: tool → (required argument names, optional argument names).
SIMUHOME_ARGUMENTS: dict[str, tuple[set[str], set[str]]] = {
    "get_rooms": (set(), set()),
    "get_room_devices": ({"room_id"}, set()),
    "get_room_states": ({"room_id"}, set()),
    "get_device_structure": ({"device_id"}, set()),
    "get_all_attributes": ({"device_id"}, set()),
    "get_attribute": ({"device_id", "endpoint_id", "cluster_id", "attribute_id"}, set()),
    "execute_command": ({"device_id", "endpoint_id", "cluster_id", "command_id", "args"}, set()),
    "write_attribute": ({"device_id", "endpoint_id", "cluster_id", "attribute_id", "value"}, set()),
    "get_cluster_doc": ({"query", "top_k"}, set()),
    "get_environment_control_rules": ({"state"}, set()),
    "get_current_time": (set(), set()),
    "schedule_workflow": ({"start_time", "steps"}, set()),
    "get_workflow_status": ({"workflow_id"}, set()),
    "cancel_workflow": ({"workflow_id"}, set()),
    "get_workflow_list": (set(), {"status", "from_time", "to_time"}),
    "finish": ({"answer"}, set()),
    "get_home_state": (set(), set()),
    "add_device": ({"room_id", "device_type", "device_id"}, set()),
    "remove_device": ({"device_id"}, set()),
    "set_tick_interval": ({"tick_interval"}, set()),
}


def _valid(fabric: EmulatedHome) -> dict[str, dict[str, Any]]:
    """One valid call per tool that has required arguments (the extra-argument test adds one key to it)."""
    fan = device_of(fabric, "fan")
    room = next(d.room_id for d in fabric.devices() if d.device_id == fan)
    on = command(fan, "OnOff", "On")
    return {
        "get_room_devices": {"room_id": room},
        "get_room_states": {"room_id": room},
        "get_device_structure": {"device_id": fan},
        "get_all_attributes": {"device_id": fan},
        "get_attribute": {"device_id": fan, "endpoint_id": 1, "cluster_id": "OnOff", "attribute_id": "OnOff"},
        "execute_command": on,
        "write_attribute": write(fan, "FanControl", "PercentSetting", 10),
        "get_cluster_doc": {"query": "fan speed", "top_k": 1},
        "get_environment_control_rules": {"state": "temperature"},
        "schedule_workflow": {"start_time": "2025-08-23 23:00:00", "steps": [{"tool": "execute_command", "args": on}]},
        "get_workflow_status": {"workflow_id": "wf-0001"},
        "cancel_workflow": {"workflow_id": "wf-0001"},
        "finish": {"answer": "done"},
        "add_device": {"room_id": room, "device_type": "fan", "device_id": "contract_fan_2"},
        "remove_device": {"device_id": fan},
        "set_tick_interval": {"tick_interval": 0.1},
    }


WITH_REQUIRED = sorted(name for name, (required, _) in SIMUHOME_ARGUMENTS.items() if required)


@pytest.mark.parametrize("profile", ["simuhome", "paper13"])
def test_every_simuhome_profile_schema_lists_exactly_simuhomes_arguments(fabric: EmulatedHome, profile: str) -> None:
    tools = ToolBox(fabric, profile=profile, admin=True)
    for schema in tools.schemas():
        function = schema["function"]
        required, optional = SIMUHOME_ARGUMENTS[function["name"]]
        parameters = function["parameters"]
        assert set(parameters["properties"]) == required | optional, function["name"]
        assert set(parameters["required"]) == required, function["name"]
        assert parameters["additionalProperties"] is False
    mcp = {t["name"]: t["inputSchema"] for t in tools.schemas("mcp")}
    assert set(mcp["schedule_workflow"]["properties"]) == {"start_time", "steps"}


def test_description_on_schedule_workflow_is_refused_like_simuhome_and_schedules_nothing(
    fabric: EmulatedHome, tools: ToolBox
) -> None:
    arguments = {**_valid(fabric)["schedule_workflow"], "description": "later"}
    envelope = tools.call("schedule_workflow", arguments)
    assert envelope["status"] == {"code": 400, "message": "VALIDATION_ERROR"}
    assert envelope["data"] is None
    assert envelope["error"]["type"] == "INVALID_PARAMETERS"
    assert "description" in envelope["error"]["detail"]
    assert "Allowed arguments: start_time, steps" in envelope["error"]["detail"]
    assert tools.call("get_workflow_list", {})["data"] == []


def test_simuhome_ext_keeps_the_description(fabric: EmulatedHome) -> None:
    tools = ToolBox(fabric, profile="simuhome_ext")
    schema = {s["function"]["name"]: s["function"]["parameters"] for s in tools.schemas()}
    assert set(schema["schedule_workflow"]["properties"]) == {"start_time", "steps", "description"}
    envelope = tools.call("schedule_workflow", {**_valid(fabric)["schedule_workflow"], "description": "later"})
    assert envelope["error"] is None
    status = tools.call("get_workflow_status", {"workflow_id": envelope["data"]["workflow_id"]})
    assert status["data"]["description"] == "later"


@pytest.mark.parametrize("name", WITH_REQUIRED)
def test_an_extra_argument_is_refused_by_every_tool_with_required_arguments(fabric: EmulatedHome, name: str) -> None:
    valid = _valid(fabric)[name]
    tools = ToolBox(fabric, admin=True)
    envelope = tools.call(name, {**valid, "note": "x"})
    assert envelope["status"] == {"code": 400, "message": "VALIDATION_ERROR"}, envelope
    assert envelope["error"]["type"] == "INVALID_PARAMETERS"
    assert "Unexpected arguments: note" in envelope["error"]["detail"]
    assert tools.invocations[-1]["ok"] is False
    without = tools.call(name, valid)
    assert without["error"] is None or without["error"]["type"] != "INVALID_PARAMETERS", without
