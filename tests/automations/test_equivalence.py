"""compare_automations: rewritten-but-equal rules are equivalent, near misses are not, with reasons."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from emulator.automations.cron import parse_cron
from emulator.automations.equivalence import compare_automations, cron_difference
from emulator.emulated_home import EmulatedHome
from tests.emulator.helpers import fabric

START = datetime(2025, 8, 23, 9, 0, 0)
HUMIDITY = {"device_id": "hum", "path": "2.RelativeHumidityMeasurement.MeasuredValue"}


@pytest.fixture(scope="module")
def home() -> EmulatedHome:
    f = fabric(
        [
            ("hum", "humidifier", "bath"),
            ("fan", "fan", "bath"),
            ("lamp", "dimmable_light", "hall"),
            ("ac", "air_conditioner", "hall"),
            ("motion", "occupancy_sensor", "hall"),
        ],
        rooms={"bath": {"humidity": 5000}, "hall": {}},
    )
    f.invoke("hum", 1, "OnOff", "On")
    f.write("hum", 1, "FanControl", "PercentSetting", 100)
    return f


def _rule(
    trigger: dict[str, Any], actions: list[dict[str, Any]] | None = None, conditions: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {
        "name": "r",
        "trigger": trigger,
        "conditions": conditions or [],
        "actions": actions
        or [{"kind": "invoke", "device_id": "fan", "endpoint": 1, "cluster": "OnOff", "command": "On"}],
    }


def _cron(expression: str) -> dict[str, Any]:
    return {"kind": "time", "cron": expression}


def _state(op: str, value: Any, **source: Any) -> dict[str, Any]:
    return {"kind": "state", "condition": {**(source or HUMIDITY), "op": op, "value": value}}


@pytest.mark.parametrize(
    ("gold", "predicted"),
    [
        ("0 30 7 ? * MON-FRI *", "0 30 7 ? * MON,TUE,WED,THU,FRI *"),
        ("0 30 7 ? * MON-FRI *", "0 30 7 ? * 2-6"),
        ("0 0 23 * * ? *", "0 0 23 ? * SUN-SAT"),
        ("0 0/15 * * * ?", "0 0,15,30,45 0-23 * * ?"),
        ("0 0 12 1/5 * ?", "0 0 12 1,6,11,16,21,26,31 * ?"),
        ("0 0 22 27 6 ? 2026", "0 0 22 27 JUN ? 2026"),
    ],
)
def test_rewritten_cron_triggers_are_equivalent(gold: str, predicted: str) -> None:
    assert cron_difference(gold, predicted, START) is None


@pytest.mark.parametrize(
    ("gold", "predicted", "first"),
    [
        ("0 30 7 ? * MON-FRI *", "0 31 7 ? * MON-FRI *", "2025-08-25 07:30:00 (Mon)"),  # different minute
        ("0 30 7 ? * MON-FRI *", "0 30 7 ? * MON-SAT *", "2025-08-23 07:30:00"),  # not: 07:30 today has passed
        ("0 30 7 ? * MON-FRI *", "0 30 7 ? * MON-THU *", "2025-08-29 07:30:00 (Fri)"),
        ("0 0 9 ? * 1#1", "0 0 9 1-7 * ?", "2025-09-01 09:00:00 (Mon)"),
        ("0 15 10 L * ?", "0 15 10 30 * ?", "2025-08-30 10:15:00 (Sat)"),
        ("0 0 12 29 2 ? *", "0 0 12 1 3 ? *", "2026-03-01 12:00:00 (Sun)"),
    ],
)
def test_near_miss_crons_differ_at_the_first_instant(gold: str, predicted: str, first: str) -> None:
    difference = cron_difference(gold, predicted, START)
    if first.startswith("2025-08-23"):  # MON-SAT vs MON-FRI: the first Saturday in the window decides
        assert difference is not None and difference.startswith("2025-08-30 07:30:00 (Sat)")
        return
    assert difference is not None and difference.startswith(first), difference


def test_cron_equivalence_agrees_with_iterating_every_firing() -> None:
    for gold, predicted in [("0 30 7 ? * MON-FRI *", "0 30 7 ? * 2-6 *"), ("0 0/20 8-9 * * ?", "0 0,20,40 8,9 * * ?")]:
        end = START.replace(year=2026)
        assert parse_cron(gold).firings(START, end) == parse_cron(predicted).firings(START, end)
        assert cron_difference(gold, predicted, START) is None


def test_state_triggers_on_one_quantity_are_decided_over_its_domain(home: EmulatedHome) -> None:
    # An integer sensor reading (0..10000): > 7500 is >= 7501, and > 7500.5 too.
    same = compare_automations(_rule(_state(">", 7500)), _rule(_state(">=", 7501)), home)
    assert same.equivalent and same.methods["trigger"] == "interval", same.reasons
    assert compare_automations(_rule(_state(">", 7500)), _rule(_state(">", 7500.5)), home).equivalent
    # > vs >= at a reachable boundary: not the same rule, and the witness is the boundary.
    near = compare_automations(_rule(_state(">", 7500)), _rule(_state(">=", 7500)), home)
    assert not near.equivalent and not near.trigger_equivalent and near.actions_equivalent
    assert "differ at 7500" in near.reasons[0] and "only the predicted comparison holds" in near.reasons[0]
    # Room humidity is real-valued: > 7500 and >= 7500.01 differ in between.
    room = {"room_id": "bath", "variable": "humidity"}
    real = compare_automations(_rule(_state(">", 7500, **room)), _rule(_state(">=", 7500.01, **room)), home)
    assert not real.equivalent and "7500.005" in real.reasons[0]
    # A boundary outside the declared range is unreachable: > 10000 never holds, like > 20000.
    assert compare_automations(_rule(_state(">", 10000)), _rule(_state(">", 20000)), home).equivalent
    assert compare_automations(_rule(_state("<", 0)), _rule(_state("<=", -5)), home).equivalent


def test_finite_domains_and_hold_times(home: EmulatedHome) -> None:
    on = {"device_id": "lamp", "path": "1.OnOff.OnOff"}
    assert compare_automations(_rule(_state("==", True, **on)), _rule(_state("!=", False, **on)), home).equivalent
    assert not compare_automations(_rule(_state("==", True, **on)), _rule(_state("==", False, **on)), home).equivalent
    mode = {"device_id": "ac", "path": "1.Thermostat.SystemMode"}
    cool = compare_automations(_rule(_state("==", 3, **mode)), _rule(_state(">=", 3, **mode)), home)
    assert not cool.equivalent and cool.methods["trigger"] == "finite-set"  # 4 (heat) and more also hold
    held = {**_state("==", 0, device_id="motion", path="1.OccupancySensing.Occupancy")}
    held["condition"]["for_s"] = 900
    unheld = _state("==", 0, device_id="motion", path="1.OccupancySensing.Occupancy")
    verdict = compare_automations(_rule(held), _rule(unheld), home)
    assert not verdict.equivalent and "hold times differ" in verdict.reasons[0]


def test_different_quantities_are_replayed(home: EmulatedHome) -> None:
    # The humidifier's own sensor follows the bath's humidity, truncated to an integer: "reading >= 5101" is
    # "room humidity >= 5101" exactly, decided by replaying both on copies of the home.
    sensor = _rule(_state(">=", 5101))
    room = _rule(_state(">=", 5101, room_id="bath", variable="humidity"))
    verdict = compare_automations(sensor, room, home, replay_s=7200)
    assert verdict.methods["trigger"] == "replay" and verdict.equivalent, verdict.reasons
    # (> 5101 would fire at the same tick: the trajectory passes 5101 between ticks; > 5101.5 does not.)
    near = compare_automations(
        sensor, _rule(_state(">", 5101.5, room_id="bath", variable="humidity")), home, replay_s=7200
    )
    assert not near.equivalent and "first difference" in near.reasons[0]


def test_conditions_and_actions(home: EmulatedHome) -> None:
    night = _cron("0 0 23 * * ? *")
    nobody = [{"device_id": "motion", "path": "1.OccupancySensing.Occupancy", "op": "==", "value": 0}]
    also = [{"device_id": "motion", "path": "1.OccupancySensing.Occupancy", "op": "<", "value": 1}]
    assert compare_automations(_rule(night, conditions=nobody), _rule(night, conditions=also), home).equivalent
    missing = compare_automations(_rule(night, conditions=nobody), _rule(night), home)
    assert not missing.equivalent and not missing.conditions_equivalent and missing.trigger_equivalent

    level: dict[str, Any] = {
        "kind": "invoke",
        "device_id": "lamp",
        "endpoint": 1,
        "cluster": "LevelControl",
        "command": "MoveToLevelWithOnOff",
        "args": {"level": 100, "transitionTime": 0, "optionsMask": 0, "optionsOverride": 0},
    }
    toggle = {"kind": "invoke", "device_id": "fan", "endpoint": 1, "cluster": "OnOff", "command": "Toggle"}
    # The fan is off: Toggle ends where On ends.
    assert compare_automations(_rule(night), _rule(night, actions=[toggle]), home).equivalent
    other = compare_automations(
        _rule(night, actions=[level]), _rule(night, actions=[{**level, "args": {**level["args"], "level": 101}}]), home
    )
    assert not other.equivalent and "lamp 1.LevelControl.CurrentLevel: 100 vs 101" in other.reasons[0]
    before = home.snapshot()
    compare_automations(_rule(night), _rule(_cron("0 0 22 * * ? *")), home)
    assert home.snapshot() == before and home.automations() == []  # the home itself is untouched


def test_replay_follows_the_homes_scripted_evolution(home: EmulatedHome) -> None:
    """Pending workflows come along into the replay: the humidifier switched off later ends its crossing."""
    from emulator.workflows import WorkflowStep

    scripted = EmulatedHome(home.to_config())
    scripted.schedule(scripted.tick + 600, [WorkflowStep("invoke", "hum", 1, "OnOff", "Off")])
    sensor = _rule(_state(">=", 5101))
    room = _rule(_state(">=", 5101, room_id="bath", variable="humidity"))
    assert compare_automations(sensor, room, scripted, replay_s=7200).equivalent  # neither fires: off first
    late = _rule(_state(">=", 5020, room_id="bath", variable="humidity"))
    verdict = compare_automations(sensor, late, scripted, replay_s=7200)
    assert not verdict.equivalent and "gold fires 0×, predicted 1×" in verdict.reasons[0]
