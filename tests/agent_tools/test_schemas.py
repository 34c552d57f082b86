"""Exported function-calling schemas are valid JSON Schema and agree with the argument models."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from agent_tools import ToolBox
from emulator.emulated_home import EmulatedHome
from tests.agent_tools.conftest import command

GOOD: dict[str, dict[str, Any]] = {
    "get_rooms": {},
    "get_room_devices": {"room_id": "kitchen"},
    "get_room_states": {"room_id": "kitchen"},
    "get_device_structure": {"device_id": "kitchen_fan_1"},
    "get_all_attributes": {"device_id": "kitchen_fan_1"},
    "get_attribute": {"device_id": "d", "endpoint_id": 1, "cluster_id": "OnOff", "attribute_id": "OnOff"},
    "execute_command": command("d", "LevelControl", "MoveToLevel", {"Level": 100}),
    "write_attribute": {
        "device_id": "d",
        "endpoint_id": 1,
        "cluster_id": "FanControl",
        "attribute_id": "PercentSetting",
        "value": 40,
    },
    "get_cluster_doc": {"query": "fan speed", "top_k": 3},
    "get_environment_control_rules": {"state": "air_quality"},
    "get_current_time": {},
    "schedule_workflow": {
        "start_time": "2025-08-23 18:00:00",
        "steps": [{"tool": "execute_command", "args": command("d", "OnOff", "On")}],
    },
    "get_workflow_status": {"workflow_id": "wf-0001"},
    "cancel_workflow": {"workflow_id": "wf-0001"},
    "get_workflow_list": {"status": "pending", "from_time": "2025-08-23 10:00:00"},
    "finish": {"answer": "done"},
    "get_home_state": {},
    "add_device": {"room_id": "kitchen", "device_type": "fan", "device_id": "kitchen_fan_3"},
    "remove_device": {"device_id": "kitchen_fan_3"},
    "set_tick_interval": {"tick_interval": 0.1},
}
BAD: list[tuple[str, dict[str, Any]]] = [
    ("get_rooms", {"extra": 1}),
    ("get_room_devices", {}),
    ("get_room_devices", {"room_id": 3}),
    ("get_attribute", {"device_id": "d", "endpoint_id": -1, "cluster_id": "OnOff", "attribute_id": "OnOff"}),
    ("execute_command", {**command("d", "OnOff", "On"), "args": []}),
    ("execute_command", {"device_id": "d", "endpoint_id": 1, "cluster_id": "OnOff", "command_id": "On"}),
    ("get_cluster_doc", {"query": "fan", "top_k": 0}),
    ("get_environment_control_rules", {"state": "noise"}),
    ("schedule_workflow", {"start_time": "tomorrow", "steps": [{"tool": "execute_command", "args": {}}]}),
    ("schedule_workflow", {"start_time": "2025-08-23 18:00:00", "steps": []}),
    ("schedule_workflow", {"start_time": "2025-08-23 18:00:00", "steps": [{"tool": "get_rooms", "args": {}}]}),
    ("get_workflow_list", {"status": "sleeping"}),
    ("finish", {"answer": 42}),
]


@pytest.fixture
def admin_tools(fabric: EmulatedHome) -> ToolBox:
    return ToolBox(fabric, admin=True)


def _parameters(tools: ToolBox) -> dict[str, dict[str, Any]]:
    return {s["function"]["name"]: s["function"]["parameters"] for s in tools.schemas()}


def test_openai_shape_and_clean_schemas(admin_tools: ToolBox) -> None:
    schemas = admin_tools.schemas()
    assert [s["function"]["name"] for s in schemas] == admin_tools.names()
    for schema in schemas:
        assert schema["type"] == "function" and set(schema["function"]) == {"name", "description", "parameters"}
        assert schema["function"]["description"]
        parameters = schema["function"]["parameters"]
        text = json.dumps(parameters)
        assert "$defs" not in text and "$ref" not in text and '"title"' not in text
        assert parameters["type"] == "object" and parameters["additionalProperties"] is False
        jsonschema.Draft202012Validator.check_schema(parameters)


def test_units_and_formats_are_described(admin_tools: ToolBox) -> None:
    parameters = _parameters(admin_tools)
    assert "0.01 °C" in parameters["write_attribute"]["properties"]["value"]["description"]
    assert "YYYY-MM-DD HH:MM:SS" in parameters["schedule_workflow"]["properties"]["start_time"]["description"]
    assert (
        "living_room_air_conditioner_1" in parameters["get_device_structure"]["properties"]["device_id"]["description"]
    )
    step = parameters["schedule_workflow"]["properties"]["steps"]["items"]
    assert step["additionalProperties"] is False and step["properties"]["tool"]["enum"] == [
        "execute_command",
        "write_attribute",
    ]


@pytest.mark.parametrize("name", sorted(GOOD))
def test_good_arguments_pass_schema_and_model(admin_tools: ToolBox, name: str) -> None:
    jsonschema.validate(GOOD[name], _parameters(admin_tools)[name])


@pytest.mark.parametrize(("name", "arguments"), BAD, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BAD)])
def test_bad_arguments_fail_schema_and_toolbox(admin_tools: ToolBox, name: str, arguments: dict[str, Any]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(arguments, _parameters(admin_tools)[name])
    envelope = admin_tools.call(name, arguments)
    assert envelope["status"] == {"code": 400, "message": "VALIDATION_ERROR"}
    assert envelope["error"]["type"] in ("MISSING_PARAMETERS", "INVALID_PARAMETERS")


def test_mcp_style_uses_the_same_schemas(admin_tools: ToolBox) -> None:
    mcp = admin_tools.schemas(style="mcp")
    openai = admin_tools.schemas()
    assert [t["name"] for t in mcp] == admin_tools.names()
    for mcp_tool, openai_tool in zip(mcp, openai, strict=True):
        assert set(mcp_tool) == {"name", "description", "inputSchema", "annotations"}
        assert mcp_tool["annotations"] == {"readOnlyHint": not admin_tools.tools[mcp_tool["name"]].mutates_state}
        assert mcp_tool["inputSchema"] == openai_tool["function"]["parameters"]


def test_numeric_string_endpoint_is_accepted(tools: ToolBox) -> None:
    envelope = tools.call(
        "get_attribute",
        {"device_id": "study_room_fan_1", "endpoint_id": "1", "cluster_id": "OnOff", "attribute_id": "OnOff"},
    )
    assert envelope["error"] is None and envelope["data"] is False
    assert tools.invocations[-1]["params"]["endpoint_id"] == "1"  # logged as the agent sent it


def test_json_string_arguments(tools: ToolBox, fabric: EmulatedHome) -> None:
    envelope = tools.call("execute_command", json.dumps(command("study_room_fan_1", "OnOff", "On")))
    assert envelope["error"] is None and fabric.read("study_room_fan_1", 1, "OnOff", "OnOff") is True
    assert tools.call("get_rooms", "")["error"] is None  # empty string = no arguments
    assert tools.call("get_rooms", None)["error"] is None
