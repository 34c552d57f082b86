"""``HomeAPI``: both homes the agent tools run on (the emulated EmulatedHome and the python-matter-server backend)
provide every member of the Protocol with a call shape the tools can use, and ``apply(step)`` is the one
way a step runs."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any

import pytest

from agent_tools.matter_backend.connection import MatterServerConnection
from agent_tools.matter_backend.home import MatterHome
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.home_api import AutomationHost, HomeAPI
from emulator.home_results import InvokeResult, WriteResult
from emulator.workflows import WorkflowStep
from tests.emulator.helpers import fabric

PROTOCOL_METHODS = sorted(
    name for name, member in vars(HomeAPI).items() if callable(member) and not name.startswith("_")
)


def _call_shape(function: Callable[..., Any]) -> list[tuple[str, inspect._ParameterKind, bool]]:
    parameters = list(inspect.signature(function).parameters.values())[1:]  # not self
    return [(p.name, p.kind, p.default is inspect.Parameter.empty) for p in parameters]


def test_the_protocol_lists_what_the_tools_use() -> None:
    assert {
        "rooms",
        "room",
        "room_state",
        "devices",
        "device",
        "describe_device",
        "read",
        "read_all",
        "write",
        "invoke",
        "apply",
        "now",
        "now_text",
        "advance",
        "schedule",
        "workflow",
        "workflows",
        "cancel",
    } <= set(PROTOCOL_METHODS)


@pytest.mark.parametrize("home_class", [EmulatedHome, MatterHome])
@pytest.mark.parametrize("method", PROTOCOL_METHODS)
def test_both_homes_implement_every_member_with_the_protocols_call_shape(home_class: type, method: str) -> None:
    implementation = getattr(home_class, method, None)
    assert callable(implementation), f"{home_class.__name__} lacks {method}"
    assert _call_shape(implementation) == _call_shape(getattr(HomeAPI, method)), (
        f"{home_class.__name__}.{method} is called differently from HomeAPI.{method}"
    )


def test_instances_of_both_homes_are_home_apis_and_only_the_fabric_hosts_automations() -> None:
    home = fabric([("lamp", "on_off_light", "living_room")])
    matter = MatterHome(MatterServerConnection("ws://127.0.0.1:9/ws"), [], [])  # never connected
    try:
        assert isinstance(home, HomeAPI) and isinstance(matter, HomeAPI)
        assert isinstance(home, AutomationHost) and not isinstance(matter, AutomationHost)
        with pytest.raises(HomeError) as refused:
            matter.add_device(None)  # type: ignore[arg-type]
        assert refused.value.code == "NOT_SUPPORTED"
    finally:
        matter.close()


def test_apply_runs_a_step_as_invoke_or_write_and_a_refused_step_changes_nothing() -> None:
    home = fabric([("lamp", "dimmable_light", "living_room")])
    invoked = home.apply(WorkflowStep.invoke("lamp", 1, "OnOff", "On"))
    assert isinstance(invoked, InvokeResult) and invoked.command == "On"
    assert invoked.to_dict() == {
        "device_id": "lamp",
        "endpoint": 1,
        "cluster": "OnOff",
        "command": "On",
        "response": None,
    }
    assert home.read("lamp", 1, "OnOff", "OnOff") is True
    result = home.apply(WorkflowStep.write("lamp", 1, "LevelControl", "OnLevel", 100))
    assert isinstance(result, WriteResult) and (result.attribute, result.new_value) == ("OnLevel", 100)
    before = json.dumps(home.snapshot(), sort_keys=True)
    with pytest.raises(HomeError) as refused:
        home.apply(WorkflowStep.invoke("lamp", 1, "LevelControl", "MoveToLevel", {"Level": 300}))
    assert refused.value.code == "CONSTRAINT_ERROR"
    assert json.dumps(home.snapshot(), sort_keys=True) == before
