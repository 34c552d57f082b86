"""The MCP server over the agent tools: the in-memory client of the official SDK, and one streamable-HTTP
round trip on 127.0.0.1. Same schemas and envelope as function calling; refusals are envelopes, not
protocol errors, and leave the home unchanged."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from mcp import Client

from agent_tools import ToolBox
from agent_tools.mcp_server import McpHttpService, build_server
from emulator.emulated_home import EmulatedHome
from tests.agent_tools.conftest import command, device_of


def _run(coro: Any, timeout_s: float = 30) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout_s))


def _envelope(result: Any) -> dict[str, Any]:
    """The structured envelope, checked against the JSON text it is also sent as."""
    assert result.structured_content is not None
    texts = [c.text for c in result.content if c.type == "text"]
    assert len(texts) == 1 and json.loads(texts[0]) == result.structured_content
    return result.structured_content


def test_lists_the_toolbox_tools_with_the_same_schemas(tools: ToolBox) -> None:
    async def scenario() -> Any:
        async with Client(build_server(tools)) as client:
            return await client.list_tools()

    listed = _run(scenario()).tools
    expected = tools.schemas(style="mcp")
    assert [t.name for t in listed] == [s["name"] for s in expected]
    for tool, schema in zip(listed, expected, strict=True):
        assert tool.input_schema == schema["inputSchema"], tool.name
        assert tool.description == schema["description"]
        # The tool's one mutates_state declaration, as MCP's read-only hint.
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is not tools.tools[tool.name].mutates_state
    assert {t.name for t in listed if not t.annotations.read_only_hint} == {
        "execute_command",
        "write_attribute",
        "schedule_workflow",
        "cancel_workflow",
    }


def test_call_changes_the_fabric_and_returns_the_envelope(fabric: EmulatedHome, tools: ToolBox) -> None:
    lamp = device_of(fabric, "on_off_light")
    before = fabric.read(lamp, 1, "OnOff", "OnOff")

    async def scenario() -> Any:
        async with Client(build_server(tools)) as client:
            return await client.call_tool("execute_command", command(lamp, "OnOff", "Toggle"))

    result = _run(scenario())
    envelope = _envelope(result)
    assert not result.is_error
    assert envelope["status"] == {"code": 200, "message": "OK"} and envelope["error"] is None
    assert fabric.read(lamp, 1, "OnOff", "OnOff") is (not before)
    # the same call through function calling gives the same envelope shape
    assert set(tools.call("get_rooms", {})) == set(envelope)


def test_bad_arguments_give_a_structured_error_and_change_nothing(fabric: EmulatedHome, tools: ToolBox) -> None:
    fan = device_of(fabric, "fan")
    snapshot = fabric.snapshot()

    async def scenario() -> list[Any]:
        async with Client(build_server(tools)) as client:
            return [
                await client.call_tool("execute_command", {"device_id": fan, "endpoint_id": 1}),  # missing args
                await client.call_tool(
                    "write_attribute",
                    {
                        "device_id": fan,
                        "endpoint_id": "one",
                        "cluster_id": "FanControl",
                        "attribute_id": "PercentSetting",
                        "value": 50,
                    },
                ),
                await client.call_tool(
                    "write_attribute",
                    {
                        "device_id": fan,
                        "endpoint_id": 1,
                        "cluster_id": "FanControl",
                        "attribute_id": "PercentSetting",
                        "value": 500,
                    },
                ),
                await client.call_tool("no_such_tool", {}),
            ]

    missing, wrong_type, out_of_range, unknown = (_envelope(r) for r in _run(scenario()))
    assert missing["error"]["type"] == "MISSING_PARAMETERS" and "cluster_id" in missing["error"]["detail"]
    assert wrong_type["error"]["type"] == "INVALID_PARAMETERS" and "endpoint_id" in wrong_type["error"]["detail"]
    assert out_of_range["error"]["type"] == "CONSTRAINT_ERROR" and out_of_range["status"]["code"] == 400
    assert unknown["error"]["type"] == "UNKNOWN_TOOL"
    assert EmulatedHome.diff(snapshot, fabric.snapshot()) == []


def test_streamable_http_round_trip(fabric: EmulatedHome, tools: ToolBox) -> None:
    lamp = device_of(fabric, "on_off_light")

    async def scenario() -> tuple[list[str], dict[str, Any], str]:
        async with McpHttpService(build_server(tools), "127.0.0.1", 0) as service, Client(service.url) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            result = await client.call_tool("execute_command", command(lamp, "OnOff", "On"))
            return names, _envelope(result), service.url

    names, envelope, url = _run(scenario())
    assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
    assert names == tools.names()
    assert envelope["error"] is None
    assert fabric.read(lamp, 1, "OnOff", "OnOff") is True


def test_a_deferred_home_answers_initialize_while_it_loads_then_serves_its_tools(tools: ToolBox) -> None:
    """`homefabric mcp HOME` loads the home (and the cluster model) in a worker thread: the MCP server over a
    DeferredTools must answer initialize before the tools exist, then list and call them once they do."""
    import threading

    from agent_tools.mcp_server import DeferredTools

    release = threading.Event()

    def build() -> ToolBox:
        assert release.wait(30)  # the "import" does not finish until the client has been answered
        return tools

    deferred = DeferredTools(build)

    async def scenario() -> Any:
        async with Client(build_server(deferred)) as client:  # Client() performs initialize
            initialized = client.server_info
            release.set()
            return initialized, await client.list_tools()

    initialized, listed = _run(scenario())
    assert initialized.name == "homefabric"
    assert [t.name for t in listed.tools] == [s["name"] for s in tools.schemas(style="mcp")]


def test_importing_the_mcp_server_does_not_load_the_cluster_model() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, agent_tools.mcp_server; "
        "print('chip.clusters.Objects' in sys.modules, 'emulator.emulated_home' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert result.stdout.split() == ["False", "False"]


def test_the_new_device_library_is_driven_through_mcp() -> None:
    """A water valve closes, an EV charger is enabled and a Generic Switch is read, all through MCP's tool calls."""
    from tests.emulator.helpers import fabric as make_fabric

    home = make_fabric(
        [("valve", "water_valve", "utility"), ("car", "evse", "garage"), ("button", "generic_switch", "hall")]
    )
    tools = ToolBox(home)
    home.invoke("valve", 1, "ValveConfigurationAndControl", "Open", {})
    assert home.read("valve", 1, "ValveConfigurationAndControl", "TargetState") == 1

    async def scenario() -> list[dict[str, Any]]:
        async with Client(build_server(tools)) as client:
            calls = [
                ("execute_command", command("valve", "ValveConfigurationAndControl", "Close")),
                (
                    "execute_command",
                    command(
                        "car",
                        "EnergyEvse",
                        "EnableCharging",
                        {"chargingEnabledUntil": None, "minimumChargeCurrent": 6000, "maximumChargeCurrent": 16000},
                    ),
                ),
                ("get_all_attributes", {"device_id": "button"}),
                ("get_cluster_doc", {"query": "Switch MultiPressComplete event", "top_k": 2}),
            ]
            return [_envelope(await client.call_tool(name, args)) for name, args in calls]

    closed, charging, button, doc = _run(scenario())
    assert [e["status"]["code"] for e in (closed, charging, button, doc)] == [200, 200, 200, 200]
    assert home.read("valve", 1, "ValveConfigurationAndControl", "TargetState") == 0
    assert home.read("car", 1, "EnergyEvse", "SupplyState") == 1  # ChargingEnabled
    assert "Switch" in json.dumps(button["data"]) and "MultiPressComplete" in json.dumps(doc["data"])
