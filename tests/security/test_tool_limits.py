"""Issue #15 cases 6 and 7 (tools): ToolBox.call never raises, whatever a model sends, and every refusal and
observation stays bounded, naming the limit it hit and how much it left out."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_tools import ToolBox, limits
from agent_tools.limits import MAX_ARGUMENT_CHARS, MAX_ARGUMENT_DEPTH, MAX_DETAIL_CHARS
from emulator.emulated_home import EmulatedHome
from emulator.home_config import DeviceConfig
from tests.agent_tools.conftest import home_config


@pytest.fixture
def tools() -> ToolBox:
    return ToolBox(EmulatedHome(home_config().model_copy(deep=True)), admin=True)


def _nested_dict(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    "arguments",
    [
        "[" * 600 + "]" * 600,  # JSON text 600 deep: json.loads would raise RecursionError
        '{"room_id": ' + "[" * 5000 + "]" * 5000 + "}",
        _nested_dict(600),  # a dict 600 deep: copy.deepcopy would raise RecursionError
        {"room_id": "kitchen", "x": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]},
    ],
)
def test_deeply_nested_arguments_are_a_refusal_naming_the_depth_limit(tools: ToolBox, arguments: Any) -> None:
    before = tools.fabric.snapshot()
    envelope = tools.call("get_room_devices", arguments)
    assert envelope["status"]["code"] == 400 and envelope["error"]["type"] == "INVALID_PARAMETERS"
    assert f"nested more than {MAX_ARGUMENT_DEPTH} levels" in envelope["error"]["detail"]
    assert tools.fabric.snapshot() == before
    assert tools.invocations[-1]["ok"] is False


def test_oversized_argument_text_is_refused_before_parsing(tools: ToolBox) -> None:
    text = json.dumps({"room_id": "x" * (MAX_ARGUMENT_CHARS + 10)})
    envelope = tools.call("get_room_devices", text)
    assert envelope["error"]["type"] == "INVALID_PARAMETERS"
    assert f"the limit is {MAX_ARGUMENT_CHARS}" in envelope["error"]["detail"]


def test_a_self_referencing_dict_is_refused(tools: ToolBox) -> None:
    arguments: dict[str, Any] = {"room_id": "kitchen"}
    arguments["me"] = arguments
    envelope = tools.call("get_room_devices", arguments)
    assert envelope["error"]["type"] == "INVALID_PARAMETERS" and "cycle" in envelope["error"]["detail"]


def test_a_refusal_detail_stays_bounded_for_a_huge_steps_list(tools: ToolBox) -> None:
    steps = [{"tool": "execute_command", "args": {"bogus": i}} for i in range(100_000)]
    envelope = tools.call("schedule_workflow", {"start_time": "2030-01-01 00:00:00", "steps": steps})
    assert envelope["status"]["code"] == 400
    assert len(envelope["error"]["detail"]) <= MAX_DETAIL_CHARS + 100
    assert "the limit is" in envelope["error"]["detail"]


def test_many_wrong_steps_name_ten_problems_and_count_the_rest(tools: ToolBox) -> None:
    steps = [{"tool": "nope", "args": {}} for _ in range(50)]
    envelope = tools.call("schedule_workflow", {"start_time": "2030-01-01 00:00:00", "steps": steps})
    detail = envelope["error"]["detail"]
    assert "and 40 more left out" in detail and len(detail) <= MAX_DETAIL_CHARS + 100


def test_cluster_doc_query_is_bounded(tools: ToolBox) -> None:
    envelope = tools.call("get_cluster_doc", {"query": "fan " * 10_000, "top_k": 3})
    assert envelope["error"]["type"] == "INVALID_PARAMETERS"
    assert "500" in envelope["error"]["detail"]
    assert tools.call("get_cluster_doc", {"query": "fan speed", "top_k": 3})["status"]["code"] == 200


def test_an_oversized_observation_is_cut_and_says_what_it_left_out(
    tools: ToolBox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_OBSERVATION_CHARS", 2000)  # the real limit, 256 KiB, needs a huge home
    fabric = tools.fabric
    room = fabric.rooms()[0].room_id
    for index in range(100):
        fabric.add_device(DeviceConfig(id=f"extra_light_{index:04d}", type="on_off_light", room=room))
    envelope = tools.call("get_room_devices", {"room_id": room})
    assert envelope["status"]["code"] == 200
    assert len(json.dumps(envelope["data"])) <= 2000
    assert envelope["left_out"]["count"] > 0
    assert len(envelope["data"]) + envelope["left_out"]["count"] == len(list(fabric.devices(room)))


def test_call_never_raises_even_when_the_backend_does(tools: ToolBox) -> None:
    def broken(*_: Any, **__: Any) -> str:
        raise RecursionError("maximum recursion depth exceeded")

    tools.fabric.now_text = broken  # type: ignore[method-assign]
    envelope = tools.call("get_current_time", {})
    assert envelope["status"]["code"] == 500 and envelope["error"]["type"] == "INTERNAL_ERROR"
    assert "RecursionError" in envelope["error"]["detail"]
