"""The automation tools in the SimuHome-extended profile: validated arguments with real causes, the rule
running in virtual time, the same tools (and schemas) over MCP, and strict JSON schemas for function calling."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from mcp import Client

from agent_tools import ToolBox
from agent_tools.mcp_server import build_server
from agent_tools.toolbox import SIMUHOME_TOOLS
from emulator.emulated_home import EmulatedHome
from tests.emulator.helpers import fabric


@pytest.fixture
def tools() -> ToolBox:
    return ToolBox(
        fabric(
            [("fan", "fan", "bath"), ("hum", "humidifier", "bath"), ("tv", "on_off_light", "living")],
            rooms={"bath": {"humidity": 5000}, "living": {}},
        ),
        profile="simuhome_ext",
    )


def _step(device: str, command: str) -> dict[str, Any]:
    return {
        "tool": "execute_command",
        "args": {"device_id": device, "endpoint_id": 1, "cluster_id": "OnOff", "command_id": command, "args": {}},
    }


HUMID = {
    "name": "bath fan when humid",
    "trigger": {
        "type": "state",
        "condition": {
            "device_id": "hum",
            "endpoint_id": 2,
            "cluster_id": "RelativeHumidityMeasurement",
            "attribute_id": "MeasuredValue",
            "operator": ">",
            "value": 5100,
        },
    },
    "actions": [_step("fan", "On")],
}


def test_profile_offers_simuhome_tools_plus_automations(tools: ToolBox) -> None:
    names = tools.names()
    assert names[:15] == list(SIMUHOME_TOOLS[:15]) and names[-1] == "finish"
    assert {"create_automation", "list_automations", "delete_automation"} <= set(names)
    assert "create_automation" not in ToolBox(tools.fabric).names()  # SimuHome's own profile stays its 16


def test_create_list_delete_and_the_rule_runs(tools: ToolBox) -> None:
    tools.call(
        "execute_command", {"device_id": "hum", "endpoint_id": 1, "cluster_id": "OnOff", "command_id": "On", "args": {}}
    )
    tools.call(
        "write_attribute",
        {
            "device_id": "hum",
            "endpoint_id": 1,
            "cluster_id": "FanControl",
            "attribute_id": "PercentSetting",
            "value": 100,
        },
    )
    created = tools.call("create_automation", HUMID)
    assert created["error"] is None, created
    rule = created["data"]
    assert rule["automation_id"] == "auto-0001" and rule["kind"] == "state"
    assert rule["trigger"]["condition"]["path"] == "2.RelativeHumidityMeasurement.MeasuredValue"
    night = tools.call(
        "create_automation",
        {
            "name": "tv off at night",
            "trigger": {"type": "time", "cron": "0 0 23 * * ? *"},
            "conditions": [
                {
                    "device_id": "tv",
                    "endpoint_id": 1,
                    "cluster_id": "OnOff",
                    "attribute_id": "OnOff",
                    "operator": "==",
                    "value": True,
                }
            ],
            "actions": [_step("tv", "Off")],
        },
    )["data"]
    assert night["kind"] == "time_and_state" and night["next_firing"] == "2025-08-23 23:00:00.0"
    tools.fabric.advance(3600)
    assert tools.fabric.read("fan", 1, "OnOff", "OnOff") is True
    listed = tools.call("list_automations", {})["data"]
    assert [r["automation_id"] for r in listed] == ["auto-0001", "auto-0002"] and listed[0]["fire_count"] == 1
    assert tools.call("delete_automation", {"automation_id": "auto-0001"})["data"] == {
        "automation_id": "auto-0001",
        "deleted": True,
    }
    assert [r["automation_id"] for r in tools.call("list_automations", {})["data"]] == ["auto-0002"]


@pytest.mark.parametrize(
    ("arguments", "code", "fragment"),
    [
        (
            {**HUMID, "trigger": {"type": "time", "cron": "0 30 7 * * MON-FRI *"}},
            "INVALID_PARAMETERS",
            "exactly one of day-of-month",
        ),
        ({**HUMID, "trigger": {"type": "time"}}, "INVALID_PARAMETERS", "a time trigger has cron"),
        (
            {**HUMID, "trigger": {"type": "state", "condition": {"room_id": "bath", "operator": ">", "value": 1}}},
            "INVALID_PARAMETERS",
            "room_id and variable",
        ),
        (
            {
                **HUMID,
                "trigger": {
                    "type": "state",
                    "condition": {"room_id": "attic", "variable": "humidity", "operator": ">", "value": 1},
                },
            },
            "ROOM_NOT_FOUND",
            '["bath", "living"]',
        ),
        ({**HUMID, "actions": [_step("fan", "Explode")]}, "COMMAND_NOT_FOUND", "actions[0]"),
        (
            {**HUMID, "trigger": {"type": "state", "condition": {**HUMID["trigger"]["condition"], "operator": "=~"}}},
            "INVALID_PARAMETERS",
            "'>', '>=', '<', '<=', '==' or '!='",
        ),
        ({"name": "x", "trigger": HUMID["trigger"]}, "MISSING_PARAMETERS", "actions"),
    ],
)
def test_bad_automations_are_refused_with_the_cause(
    tools: ToolBox, arguments: dict[str, Any], code: str, fragment: str
) -> None:
    refused = tools.call("create_automation", arguments)
    assert refused["error"] is not None and refused["error"]["type"] == code, refused
    assert fragment in refused["error"]["detail"]
    assert tools.call("list_automations", {})["data"] == []


def test_delete_of_an_unknown_automation_names_the_existing_ones(tools: ToolBox) -> None:
    tools.call("create_automation", HUMID)
    refused = tools.call("delete_automation", {"automation_id": "auto-9"})
    assert refused["error"]["type"] == "AUTOMATION_NOT_FOUND" and '["auto-0001"]' in refused["error"]["detail"]


def test_mcp_exposes_the_same_automation_tools(tools: ToolBox) -> None:
    async def scenario() -> tuple[Any, Any]:
        async with Client(build_server(tools)) as client:
            listing = await client.list_tools()
            created = await client.call_tool("create_automation", HUMID)
            return listing, created

    listing, created = asyncio.run(asyncio.wait_for(scenario(), 30))
    schemas = {s["name"]: s["inputSchema"] for s in tools.schemas(style="mcp")}
    listed = {t.name: t.input_schema for t in listing.tools}
    assert listed["create_automation"] == schemas["create_automation"]
    assert {"list_automations", "delete_automation"} <= set(listed)
    envelope = json.loads(created.content[0].text)
    assert not created.is_error and envelope["data"]["automation_id"] == "auto-0001"
    fabric = tools.fabric
    assert isinstance(fabric, EmulatedHome)
    assert [r.id for r in fabric.automations()] == ["auto-0001"]


def test_the_matter_controller_backend_says_it_hosts_no_automations() -> None:
    from agent_tools.matter_backend.home import MatterHome

    home = MatterHome(None, [], [])  # type: ignore[arg-type]  # no node is needed to refuse
    refused = ToolBox(home, profile="simuhome_ext").call("list_automations", {})
    assert refused["error"]["type"] == "NOT_SUPPORTED" and "MatterHome" in refused["error"]["detail"]
