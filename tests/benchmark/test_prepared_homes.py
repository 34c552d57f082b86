"""Per-process reuse that must not change behaviour: an episode's imported home config kept per distinct
initial state (``fresh_fabric``), tool argument schemas made once per model, and the snapshot diff's fast
path for unchanged devices."""

from __future__ import annotations

import copy
import json

import pytest

import benchmark.scoring.evaluators.state_comparison as state_comparison
from agent_tools.schemas import parameters_schema
from agent_tools.toolbox import ToolBox
from benchmark.scoring.evaluators.state_comparison import fresh_fabric
from benchmark.suites.simuhome.episode import load_episodes
from emulator.emulated_home import EmulatedHome
from emulator.home_config import dump_home
from tests.benchmark.fixture_episodes import EPISODE_DIR


def _config() -> dict:
    episodes, _ = load_episodes(str(EPISODE_DIR))
    return copy.deepcopy(dict(episodes[0].initial_home_config))


def test_a_home_built_again_from_the_same_initial_state_skips_the_import_and_is_the_same_home(monkeypatch):
    imports = []
    real = state_comparison.from_simuhome
    monkeypatch.setattr(state_comparison, "from_simuhome", lambda *a, **k: imports.append(1) or real(*a, **k))
    monkeypatch.setattr(state_comparison, "_prepared", type(state_comparison._prepared)())
    config = _config()
    first = fresh_fabric(config)
    second = fresh_fabric(copy.deepcopy(config))  # equal content, another object: the same initial state
    assert len(imports) == 1
    assert second is not first
    assert dump_home(second.to_config()) == dump_home(first.to_config())
    assert json.dumps(second.snapshot()) == json.dumps(first.snapshot())
    changed = dict(config, base_time="2025-08-23 15:00:00")  # another initial state: imported anew
    assert fresh_fabric(changed).now_text() != first.now_text()
    assert len(imports) == 2


def test_a_change_to_one_built_home_does_not_reach_the_next_built_from_the_same_state():
    config = _config()
    first = fresh_fabric(config)
    device = next(d for d in first.devices() if d.find(1, "OnOff") is not None)
    was = device.value(1, "OnOff", "OnOff")
    first.invoke(device.device_id, 1, "OnOff", "Off" if was else "On", {})
    assert first.device(device.device_id).value(1, "OnOff", "OnOff") is (not was)
    assert fresh_fabric(config).device(device.device_id).value(1, "OnOff", "OnOff") is was


def test_the_prepared_homes_are_bounded(monkeypatch):
    monkeypatch.setattr(state_comparison, "_prepared", type(state_comparison._prepared)())
    config = _config()
    for minute in range(state_comparison.PREPARED_HOMES + 3):
        fresh_fabric(dict(config, base_time=f"2025-08-23 14:{minute:02d}:00"))
    assert len(state_comparison._prepared) == state_comparison.PREPARED_HOMES


def test_a_tool_schema_is_the_callers_own_copy():
    model = ToolBox.tools["execute_command"].model
    schema = parameters_schema(model)
    schema["properties"].clear()
    assert parameters_schema(model)["properties"]  # the next caller gets the whole schema


@pytest.mark.parametrize(
    ("old", "new", "changed"),
    [(1, 1, False), (1, True, True), (1, 1.0, True), ([1, 2], [1, 2], False), ([1], [2], True)],
)
def test_the_diff_reports_a_change_of_value_or_of_type_only(old, new, changed):
    def snapshot(value):
        return {"rooms": {}, "devices": {"d": {"attributes": {"1.OnOff.OnOff": value, "1.X.Y": 3}}}}

    diff = EmulatedHome.diff(snapshot(old), snapshot(new))
    assert bool(diff) is changed
    if changed:
        assert diff == [{"kind": "attribute", "device_id": "d", "path": "1.OnOff.OnOff", "old": old, "new": new}]
