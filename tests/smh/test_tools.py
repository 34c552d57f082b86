"""The smh tool profile: query/control/create_automation/ask_user over the HomeEnv, the budget, and the same
tools served over MCP (the official SDK's in-memory client)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from mcp import Client

from agent_tools.mcp_server import build_server
from agent_tools.smh.home_env import HomeEnv
from agent_tools.smh.tools import SmhToolBox
from emulator.home_config import dump_home
from tests.smh.homes import every_product_home


def _tools(budget: int = 10) -> SmhToolBox:
    return SmhToolBox(HomeEnv(every_product_home()), budget=budget, user=lambda q: "the lamp")


def test_query_candidates_specs_and_status() -> None:
    tools = _tools()
    candidates = tools.call("query_device", {"what": "candidates", "category": "light"})["data"]
    assert {c["did"] for c in candidates} == {
        "on_off_light",
        "dimmable_light",
        "color_temperature_light",
        "extended_color_light",
    }
    specs = tools.call("query_device", {"what": "specs", "did": "fan_light"})["data"]
    assert [c["name"] for c in specs[0]["components"]] == ["light", "fan"]
    assert "value" not in specs[0]["components"][0]["attributes"][0]
    status = tools.call("query_device", {"what": "status", "room": "lounge", "tags": ["fan_light"]})["data"]
    assert status == {
        "fan_light": {"light.state": "off", "light.brightness": 1, "fan.state": "off", "fan.speed_level": "off"}
    }


def test_control_refusals_are_envelopes_and_change_nothing() -> None:
    tools = _tools()
    fabric = tools.env.fabric
    before = dump_home(fabric.to_config())
    missing = tools.call("control_device", {"locator": "turn_on"})
    wrong = tools.call(
        "control_device", {"did": "dimmable_light", "locator": "set_brightness", "arguments": {"level": 30}}
    )
    assert missing["error"]["type"] == "MISSING_PARAMETERS" and wrong["error"]["type"] == "UNKNOWN_ARGUMENT"
    assert dump_home(fabric.to_config()) == before
    done = tools.call("control_device", {"did": "fan_light", "locator": "light.turn_on"})
    assert done["data"]["changes"][0]["attribute"] == "light.state"
    assert [e["code"] for e in tools.log] == ["MISSING_PARAMETERS", "UNKNOWN_ARGUMENT", "OK"]


def test_create_automation_builds_a_fabric_rule() -> None:
    tools = _tools()
    created = tools.call(
        "create_automation",
        {
            "name": "humid",
            "trigger": {"state": {"did": "climate_sensor", "attribute": "current_humidity", "op": ">", "value": 75.0}},
            "actions": [{"did": "fan", "locator": "turn_on"}],
        },
    )
    assert created["data"]["kind"] == "state"
    rule = tools.env.fabric.automations()[0]
    assert rule.trigger.condition.path == "2.RelativeHumidityMeasurement.MeasuredValue"
    assert rule.trigger.condition.value == 7500
    refused = tools.call(
        "create_automation",
        {
            "trigger": {"time_cron": "0 0 7 * * ? *"},
            "actions": [{"did": "dimmable_light", "locator": "set_brightness", "arguments": {"brightness": 500}}],
        },
    )
    assert refused["error"]["type"] == "OUT_OF_RANGE" and len(tools.env.fabric.automations()) == 1


def test_the_budget_ends_the_episode() -> None:
    tools = _tools(budget=2)
    for _ in range(3):
        envelope = tools.call("ask_user", {"question": "Which light?"})
    assert envelope["error"]["type"] == "BUDGET_EXCEEDED" and tools.exhausted
    assert tools.questions == [{"question": "Which light?", "reply": "the lamp"}] * 2


def test_the_smh_tools_over_mcp() -> None:
    tools = _tools()

    async def scenario() -> Any:
        async with Client(build_server(tools)) as client:
            listed = await client.list_tools()
            called = await client.call_tool("control_device", {"did": "door_lock", "locator": "open"})
            return listed, called

    listed, called = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert [t.name for t in listed.tools] == [s["name"] for s in tools.schemas(style="mcp")]
    assert listed.tools[1].input_schema == tools.schemas(style="mcp")[1]["inputSchema"]
    envelope = json.loads(next(c.text for c in called.content if c.type == "text"))
    assert envelope["status"]["code"] == 200 and tools.env.read("door_lock", "state") == "unlocked"


def test_homefabric_mcp_profile_smh_over_stdio(tmp_path) -> None:
    import sys

    from mcp import ClientSession, StdioServerParameters, stdio_client

    home = tmp_path / "home.json"
    home.write_text(dump_home(every_product_home().to_config()))
    parameters = StdioServerParameters(
        command=sys.executable, args=["-m", "homefabric_cli.main", "mcp", str(home), "--profile", "smh"]
    )

    async def scenario() -> Any:
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            called = await session.call_tool("query_device", {"what": "status", "did": "door_lock"})
            return listed, called

    listed, called = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert [t.name for t in listed.tools] == ["query_device", "control_device", "create_automation"]
    envelope = json.loads(next(c.text for c in called.content if c.type == "text"))
    assert envelope["data"] == {"door_lock": {"state": "locked"}}


def test_smh_is_a_tool_profile_resolved_like_the_others() -> None:
    from agent_tools.profiles import PROFILES, make_toolbox
    from agent_tools.toolbox import TOOL_PROFILES, ToolBox

    fabric = every_product_home()
    assert set(TOOL_PROFILES) < set(PROFILES) and "smh" in PROFILES
    smh = make_toolbox(fabric, "smh", budget=3)
    assert isinstance(smh, SmhToolBox) and smh.budget == 3 and smh.env.fabric is fabric
    assert smh.names() == ["query_device", "control_device", "create_automation"]  # ask_user needs a user
    assert isinstance(make_toolbox(fabric, "simuhome_ext"), ToolBox)
    for profile, options, needle in [
        ("nope", {}, "unknown tool profile 'nope'"),
        ("smh", {"admin": True}, "no admin tools"),
    ]:
        with pytest.raises(ValueError, match=needle):
            make_toolbox(fabric, profile, **options)


def test_agent_tools_smh_uses_only_the_emulators_public_api() -> None:
    """The layering: the HomeEnv view and the smh tools import agent_tools and emulator modules, never the
    benchmark, and no private name of the emulator."""
    import ast
    from pathlib import Path

    import agent_tools.smh as package

    for path in sorted(Path(package.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.module.split(".")[0] in (
                    "agent_tools",
                    "emulator",
                    "pydantic",
                    "collections",
                    "dataclasses",
                    "typing",
                    "math",
                    "__future__",
                ), (path, node.module)
                assert not any(alias.name.startswith("_") for alias in node.names), (path, node.module)
