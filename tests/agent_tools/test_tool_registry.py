"""Agent tools are declared with ``@tool`` and checked when their class is made; ``mutates_state`` says which
tools can change the home, and the home agrees: a read-only tool leaves it exactly as it was, a mutating one
(called successfully) changes it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from agent_tools import ADMIN_TOOLS, ToolBox
from agent_tools.registry import ToolSet, tool
from agent_tools.smh.tools import SmhToolBox
from emulator.emulated_home import EmulatedHome
from tests.agent_tools.conftest import command, write


class Args(BaseModel):
    text: str = ""


def test_a_tool_without_description_schema_or_mutates_state_is_refused_at_class_creation():
    with pytest.raises(TypeError, match=r"NoWords._tool_a: tool 'a': it has no description"):

        class NoWords(ToolSet):
            @tool("a", Args, "  ", mutates_state=False)
            def _tool_a(self, args: Args) -> None: ...

    with pytest.raises(TypeError, match=r"NoSchema._tool_a: tool 'a': its arguments .* are not a pydantic model"):

        class NoSchema(ToolSet):
            @tool("a", dict, "Does a.", mutates_state=False)  # type: ignore[arg-type]
            def _tool_a(self, args: Args) -> None: ...

    with pytest.raises(TypeError, match=r"Undeclared._tool_a: tool 'a': it does not declare mutates_state"):

        class Undeclared(ToolSet):
            @tool("a", Args, "Does a.")
            def _tool_a(self, args: Args) -> None: ...

    with pytest.raises(TypeError, match=r"BadName._tool_a: tool 'a b': name 'a b' is not"):

        class BadName(ToolSet):
            @tool("a b", Args, "Does a.", mutates_state=False)
            def _tool_a(self, args: Args) -> None: ...


def test_duplicate_names_and_offered_names_without_a_method_are_refused():
    with pytest.raises(TypeError, match=r"Twice: tool 'a' is declared twice \(_first and _second\)"):

        class Twice(ToolSet):
            @tool("a", Args, "Does a.", mutates_state=False)
            def _first(self, args: Args) -> None: ...

            @tool("a", Args, "Does a again.", mutates_state=True)
            def _second(self, args: Args) -> None: ...

    with pytest.raises(TypeError, match=r"Short: offered tool\(s\) \['b'\] have no @tool method; tools: \['a'\]"):

        class Short(ToolSet, offered=("a", "b")):
            @tool("a", Args, "Does a.", mutates_state=False)
            def _tool_a(self, args: Args) -> None: ...


def test_a_subclass_keeps_its_base_tools_and_adds_its_own():
    class Base(ToolSet):
        @tool("a", Args, "Does a.", mutates_state=False)
        def _tool_a(self, args: Args) -> str:
            return "a"

    class More(Base):
        @tool("b", Args, "Does b.", mutates_state=True)
        def _tool_b(self, args: Args) -> str:
            return "b"

    assert list(Base.tools) == ["a"] and list(More.tools) == ["a", "b"]
    assert More.tools["b"].mutates_state and not More.tools["a"].mutates_state
    with pytest.raises(TypeError):
        More.tools["c"] = More.tools["a"]  # the registry is read-only after creation


def test_the_mutating_tools_are_declared_once():
    assert sorted(n for n, t in ToolBox.tools.items() if t.mutates_state) == [
        "add_device",
        "cancel_workflow",
        "create_automation",
        "delete_automation",
        "execute_command",
        "remove_device",
        "schedule_workflow",
        "write_attribute",
    ]
    assert sorted(n for n, t in SmhToolBox.tools.items() if t.mutates_state) == ["control_device", "create_automation"]


def _world(fabric: EmulatedHome) -> str:
    """Everything a tool could change: the home, its workflows and its automation rules."""
    return json.dumps(
        {
            "home": fabric.snapshot(),
            "workflows": [w.to_dict(with_steps=True) for w in fabric.workflows()],
            "automations": [fabric.automation_status(r.id) for r in fabric.automations()],
        },
        sort_keys=True,
        default=str,
    )


LIGHT, FAN, ROOM = "study_room_on_off_light_1", "study_room_fan_1", "study_room"
STEP = {"tool": "execute_command", "args": command(LIGHT, "OnOff", "On")}
READ_ONLY_CALLS: dict[str, dict[str, Any]] = {
    "get_rooms": {},
    "get_room_devices": {"room_id": ROOM},
    "get_room_states": {"room_id": ROOM},
    "get_device_structure": {"device_id": FAN},
    "get_all_attributes": {"device_id": FAN},
    "get_attribute": {"device_id": FAN, "endpoint_id": 1, "cluster_id": "FanControl", "attribute_id": "FanMode"},
    "get_cluster_doc": {"query": "fan speed", "top_k": 2},
    "get_environment_control_rules": {"state": "temperature"},
    "get_current_time": {},
    "get_workflow_status": {"workflow_id": "wf-0001"},
    "get_workflow_list": {},
    "get_home_energy": {},
    "list_automations": {},
    "finish": {"answer": "done"},
    "get_home_state": {},
    "set_tick_interval": {"tick_interval": 0.1},
}
MUTATING_CALLS: list[tuple[str, dict[str, Any]]] = [  # in order: later calls use what earlier ones made
    ("execute_command", command(LIGHT, "OnOff", "Toggle")),
    ("execute_command", command(FAN, "OnOff", "On")),
    ("write_attribute", write(FAN, "FanControl", "PercentSetting", 40)),
    ("schedule_workflow", {"start_time": "2099-01-01 00:00:00", "steps": [STEP]}),
    ("cancel_workflow", {"workflow_id": "wf-0001"}),
    ("create_automation", {"name": "night", "trigger": {"type": "time", "cron": "0 0 22 ? * * *"}, "actions": [STEP]}),
    ("delete_automation", {"automation_id": "auto-0001"}),
    ("add_device", {"room_id": ROOM, "device_type": "fan", "device_id": "study_room_fan_9"}),
    ("remove_device", {"device_id": "study_room_fan_9"}),
]


def test_the_declarations_agree_with_what_each_tool_does(fabric: EmulatedHome):
    tools = ToolBox(fabric, profile="simuhome_ext", admin=True)
    declared_read_only = {n for n in tools.names() if not tools.tools[n].mutates_state}
    assert declared_read_only == set(READ_ONLY_CALLS)
    assert {n for n, _ in MUTATING_CALLS} == set(tools.names()) - declared_read_only
    tools.call("schedule_workflow", {"start_time": "2099-01-01 00:00:00", "steps": [STEP]})  # something to read
    for name, arguments in READ_ONLY_CALLS.items():
        before = _world(fabric)
        envelope = tools.call(name, arguments)
        assert envelope["error"] is None, (name, envelope)
        assert _world(fabric) == before, f"{name} is declared read-only but changed the home"
    for name, arguments in MUTATING_CALLS:
        before = _world(fabric)
        envelope = tools.call(name, {**arguments, **({"workflow_id": "wf-0002"} if name == "cancel_workflow" else {})})
        assert envelope["error"] is None, (name, envelope)
        assert _world(fabric) != before, f"{name} is declared mutating but changed nothing"
    assert set(ADMIN_TOOLS) <= set(tools.names())
