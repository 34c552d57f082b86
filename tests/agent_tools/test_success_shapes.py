"""Every tool's success envelope and data shape on a generated home."""

from __future__ import annotations

import json
import re
from typing import Any

from agent_tools import ADMIN_TOOLS, PAPER13_TOOLS, SIMUHOME_TOOLS, ToolBox
from emulator.emulated_home import EmulatedHome
from tests.agent_tools.conftest import command, device_of, write

OK = {"code": 200, "message": "OK"}


def _ok(envelope: dict) -> Any:
    assert set(envelope) == {"status", "data", "error"}
    assert envelope["status"] == OK, envelope
    assert envelope["error"] is None
    json.dumps(envelope)  # plain JSON all the way down
    return envelope["data"]


def test_profiles() -> None:
    assert len(SIMUHOME_TOOLS) == 16 and len(PAPER13_TOOLS) == 13
    assert set(SIMUHOME_TOOLS) - set(PAPER13_TOOLS) == {"get_all_attributes", "get_workflow_list", "cancel_workflow"}


def test_names_per_profile_and_admin(fabric: EmulatedHome) -> None:
    assert ToolBox(fabric).names() == list(SIMUHOME_TOOLS)
    assert ToolBox(fabric, profile="paper13").names() == list(PAPER13_TOOLS)
    assert ToolBox(fabric, admin=True).names() == list(SIMUHOME_TOOLS + ADMIN_TOOLS)
    envelope = ToolBox(fabric, profile="paper13").call("get_all_attributes", {"device_id": "x"})
    assert envelope["error"]["type"] == "UNKNOWN_TOOL"


def test_rooms_devices_states(tools: ToolBox, fabric: EmulatedHome) -> None:
    rooms = _ok(tools.call("get_rooms"))["rooms"]
    assert [r["room_id"] for r in rooms] == sorted(r.room_id for r in fabric.rooms())
    assert {"room_id": "living_room", "display_name": "Living Room"} in rooms
    devices = _ok(tools.call("get_room_devices", {"room_id": "kitchen"}))
    assert devices == {d.device_id: {"device_type": d.device_type} for d in fabric.devices("kitchen")}
    assert devices["kitchen_dishwasher_1"] == {"device_type": "dishwasher"}
    states = _ok(tools.call("get_room_states", {"room_id": "kitchen"}))
    assert list(states) == ["temperature", "pm10", "illuminance", "humidity"]
    assert states == {k: fabric.room_state("kitchen")[k] for k in states}


def test_device_structure_has_enum_metadata_and_arguments(tools: ToolBox, fabric: EmulatedHome) -> None:
    ac = device_of(fabric, "air_conditioner")
    data = _ok(tools.call("get_device_structure", {"device_id": ac}))
    assert data["device_id"] == ac and data["device_type"] == "air_conditioner"
    thermostat = data["endpoints"]["1"]["clusters"]["Thermostat"]
    assert thermostat["cluster_id"] == "Thermostat"
    mode = thermostat["attributes"]["SystemMode"]
    assert mode["readonly"] is False and mode["enum_values"]["Cool"] == 3
    assert mode["enum_name"] == next(k for k, v in mode["enum_values"].items() if v == mode["value"])
    assert data["endpoints"]["1"]["clusters"]["OnOff"]["attributes"]["OnOff"]["readonly"] is True
    step = next(c for c in data["endpoints"]["1"]["clusters"]["FanControl"]["commands"] if c["name"] == "Step")
    direction = step["arguments"][0]
    assert direction["name"] == "Direction" and direction["required"] is True and "direction" in direction["aliases"]
    assert direction["enum_values"] == {"Increase": 0, "Decrease": 1}
    assert "BasicInformation" in data["endpoints"]["0"]["clusters"]


def test_attributes_and_current_phase_name(tools: ToolBox, fabric: EmulatedHome) -> None:
    dishwasher = device_of(fabric, "dishwasher")
    flat = _ok(tools.call("get_all_attributes", {"device_id": dishwasher}))
    assert flat == fabric.read_all(dishwasher) and "1.OperationalState.CurrentPhase" in flat
    read = {"device_id": dishwasher, "endpoint_id": 1, "cluster_id": "OnOff", "attribute_id": "OnOff"}
    assert _ok(tools.call("get_attribute", read)) is False
    _ok(tools.call("execute_command", command(dishwasher, "OnOff", "On")))
    started = _ok(tools.call("execute_command", command(dishwasher, "OperationalState", "Start")))
    assert started["command"] == "Start"
    phase = {**read, "cluster_id": "OperationalState", "attribute_id": "CurrentPhase"}
    assert _ok(tools.call("get_attribute", phase)) == "Pre-wash"  # the name, as SimuHome reports it
    assert fabric.read(dishwasher, 1, "OperationalState", "CurrentPhase") == 0


def test_write_attribute_returns_old_and_new(tools: ToolBox, fabric: EmulatedHome) -> None:
    fan = device_of(fabric, "fan")
    _ok(tools.call("execute_command", command(fan, "OnOff", "On")))
    data = _ok(tools.call("write_attribute", write(fan, "FanControl", "PercentSetting", 40)))
    assert data["cluster"] == "FanControl" and data["attribute"] == "PercentSetting" and data["new_value"] == 40
    assert fabric.read(fan, 1, "FanControl", "PercentSetting") == 40


def test_simuhome_cluster_spelling_accepted(tools: ToolBox, fabric: EmulatedHome) -> None:
    freezer = device_of(fabric, "freezer")
    read = {"device_id": freezer, "endpoint_id": 1, "cluster_id": "RTCCMode", "attribute_id": "CurrentMode"}
    assert _ok(tools.call("get_attribute", read)) == fabric.read(
        freezer, 1, "RefrigeratorAndTemperatureControlledCabinetMode", "CurrentMode"
    )


def test_knowledge_tools(tools: ToolBox) -> None:
    doc = _ok(tools.call("get_cluster_doc", {"query": "fan speed percent", "top_k": 2}))
    assert set(doc) == {"text"} and "FanControl" in doc["text"]
    rules = _ok(tools.call("get_environment_control_rules", {"state": "humidity"}))
    assert rules["state"] == "humidity" and isinstance(rules["control_rules"], str)
    assert {r["device_type"] for r in json.loads(rules["control_rules"])} >= {"humidifier", "dehumidifier"}
    now = _ok(tools.call("get_current_time"))
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}", now["now"])


def test_workflow_tools(tools: ToolBox, fabric: EmulatedHome) -> None:
    light = device_of(fabric, "on_off_light")
    start = "2025-08-23 23:00:00"
    scheduled = _ok(
        tools.call(
            "schedule_workflow",
            {
                "start_time": start,
                "steps": [{"tool": "execute_command", "args": command(light, "OnOff", "On")}],
            },
        )
    )
    assert scheduled["workflow_id"] == "wf-0001" and scheduled["status"] == "pending"
    status = _ok(tools.call("get_workflow_status", {"workflow_id": "wf-0001"}))
    assert {
        k: status[k]
        for k in ("workflow_id", "description", "start_time", "status", "current_step", "total_steps", "error")
    } == {
        "workflow_id": "wf-0001",
        "description": "",  # SimuHome's schedule_workflow takes no description (simuhome_ext does)
        "start_time": start,
        "status": "pending",
        "current_step": 0,
        "total_steps": 1,
        "error": None,
    }
    listed = _ok(tools.call("get_workflow_list", {"status": "pending"}))
    assert [w["workflow_id"] for w in listed] == ["wf-0001"]
    assert _ok(tools.call("get_workflow_list", {"to_time": "2025-08-23 22:00:00"})) == []
    assert _ok(tools.call("cancel_workflow", {"workflow_id": "wf-0001"})) == {
        "workflow_id": "wf-0001",
        "status": "cancelled",
    }
    again = _ok(tools.call("cancel_workflow", {"workflow_id": "wf-0001"}))
    assert again["message"] == "Already cancelled"


def test_finish_remembers_answer(tools: ToolBox) -> None:
    assert _ok(tools.call("finish", {"answer": "It is 25 °C."})) == {"answer": "It is 25 °C."}
    assert tools.final_answer == "It is 25 °C."


def test_admin_tools(fabric: EmulatedHome) -> None:
    tools = ToolBox(fabric, admin=True)
    state = _ok(tools.call("get_home_state"))
    assert state["tick_interval"] == 0.1 and state["current_tick"] == 0
    assert {d["device_id"] for d in state["rooms"]["kitchen"]["devices"]} == {
        d.device_id for d in fabric.devices("kitchen")
    }
    assert _ok(
        tools.call("add_device", {"room_id": "kitchen", "device_type": "fan", "device_id": "kitchen_fan_9"})
    ) == {"room_id": "kitchen", "device_id": "kitchen_fan_9"}
    assert fabric.device("kitchen_fan_9").device_type == "fan"
    assert _ok(tools.call("remove_device", {"device_id": "kitchen_fan_9"})) == {"device_id": "kitchen_fan_9"}
    assert _ok(tools.call("set_tick_interval", {"tick_interval": 0.1}))["tick_interval"] == 0.1
    refused = tools.call("set_tick_interval", {"tick_interval": 1.0})
    assert refused["error"]["type"] == "VALIDATION_ERROR" and "event-driven" in refused["error"]["detail"]


def test_admin_tools_hidden_by_default(tools: ToolBox) -> None:
    assert tools.call("get_home_state")["error"]["type"] == "UNKNOWN_TOOL"


def test_invocations_log(tools: ToolBox) -> None:
    tools.call("get_rooms", {})
    tools.call("get_room_devices", '{"room_id": "kitchen"}')
    tools.call("get_room_devices", {"room": "kitchen"})
    tools.call("no_such_tool", {})
    log = tools.invocations
    assert [r["tool"] for r in log] == ["get_rooms", "get_room_devices", "get_room_devices", "no_such_tool"]
    assert log[1]["params"] == {"room_id": "kitchen"} and log[1]["ok"] is True and log[1]["status_code"] == 200
    assert log[2] | {"virtual_time": None} == {
        "tool": "get_room_devices",
        "params": {"room": "kitchen"},
        "ok": False,
        "status_code": 400,
        "error_type": "MISSING_PARAMETERS",
        "virtual_time": None,
    }
    assert log[3]["error_type"] == "UNKNOWN_TOOL" and log[0]["virtual_time"] == tools.fabric.now_text()
