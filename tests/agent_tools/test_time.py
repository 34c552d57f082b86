"""Virtual time during an episode: paused while the agent thinks, per-call cost, SimuHome's realtime mode."""

from __future__ import annotations

import time

import pytest

from agent_tools import ToolBox
from emulator.emulated_home import EmulatedHome
from tests.agent_tools.conftest import command, write

LIGHT = "kitchen_on_off_light_1"
FAN = "study_room_fan_1"


def test_clock_is_paused_between_calls(tools: ToolBox, fabric: EmulatedHome) -> None:
    first = tools.call("get_current_time")["data"]["now"]
    time.sleep(0.05)
    assert tools.call("get_current_time")["data"]["now"] == first
    assert fabric.tick == 0


def test_call_cost_advances_time_after_each_call(fabric: EmulatedHome) -> None:
    tools = ToolBox(fabric, call_cost_s=2.5)
    assert tools.call("get_current_time")["data"]["now"] == "2025-08-23 12:37:34"  # charged after the call
    assert fabric.tick == 25
    tools.call("get_room_devices", {})  # a refused call still costs the turn
    assert fabric.tick == 50
    assert tools.call("get_current_time")["data"]["now"] == "2025-08-23 12:37:39"
    assert [r["virtual_time"] for r in tools.invocations] == [
        "2025-08-23 12:37:34",
        "2025-08-23 12:37:36",
        "2025-08-23 12:37:39",
    ]


def test_negative_call_cost_is_rejected(fabric: EmulatedHome) -> None:
    with pytest.raises(ValueError, match="call_cost_s"):
        ToolBox(fabric, call_cost_s=-1)
    with pytest.raises(ValueError, match="profile"):
        ToolBox(fabric, profile="paper20")


def test_realtime_advances_by_wall_clock(fabric: EmulatedHome) -> None:
    tools = ToolBox(fabric, realtime=True)
    time.sleep(0.35)
    tools.call("get_current_time")
    assert fabric.tick >= 3  # ≥ 0.3 s of virtual time for ≥ 0.35 s of wall time


def test_scheduled_workflow_runs_when_the_clock_is_advanced(tools: ToolBox, fabric: EmulatedHome) -> None:
    steps = [
        {"tool": "execute_command", "args": command(FAN, "OnOff", "On")},
        {"tool": "write_attribute", "args": write(FAN, "FanControl", "PercentSetting", 60)},
        {"tool": "execute_command", "args": command(LIGHT, "OnOff", "On")},
    ]
    envelope = tools.call("schedule_workflow", {"start_time": "2025-08-23 12:47:34", "steps": steps})
    assert envelope["error"] is None
    fabric.advance(599)
    assert fabric.read(LIGHT, 1, "OnOff", "OnOff") is False
    assert tools.call("get_workflow_status", {"workflow_id": "wf-0001"})["data"]["status"] == "pending"
    fabric.advance(1)
    assert fabric.read(LIGHT, 1, "OnOff", "OnOff") is True
    assert fabric.read(FAN, 1, "FanControl", "PercentSetting") == 60
    status = tools.call("get_workflow_status", {"workflow_id": "wf-0001"})["data"]
    assert status["status"] == "completed" and status["current_step"] == 2 and status["error"] is None


def test_a_step_that_fails_at_run_time_is_reported(tools: ToolBox, fabric: EmulatedHome) -> None:
    # valid when scheduled (the write is well-formed), refused when it runs: the fan is still off then
    steps = [{"tool": "write_attribute", "args": write(FAN, "FanControl", "PercentSetting", 60)}]
    assert tools.call("schedule_workflow", {"start_time": "2025-08-23 12:40:00", "steps": steps})["error"] is None
    fabric.run_until("2025-08-23 12:40:00")
    status = tools.call("get_workflow_status", {"workflow_id": "wf-0001"})["data"]
    assert status["status"] == "failed" and status["error"]["code"] == "DEPENDENCY_VIOLATION"


def test_call_cost_can_trigger_a_due_workflow(fabric: EmulatedHome) -> None:
    tools = ToolBox(fabric, call_cost_s=60)
    steps = [{"tool": "execute_command", "args": command(LIGHT, "OnOff", "On")}]
    tools.call("schedule_workflow", {"start_time": "2025-08-23 12:39:00", "steps": steps})  # now 12:37:34 → 12:38:34
    assert fabric.read(LIGHT, 1, "OnOff", "OnOff") is False
    tools.call("get_current_time")  # → 12:39:34
    assert fabric.read(LIGHT, 1, "OnOff", "OnOff") is True
