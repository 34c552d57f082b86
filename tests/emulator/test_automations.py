"""Rules in the fabric: cron and state triggers in virtual time, gating, ordering, loop guard, persistence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.events import AutomationEvent
from emulator.home_config import load_home
from tests.emulator.helpers import fabric

HUMIDITY_PATH = "2.RelativeHumidityMeasurement.MeasuredValue"


def _on(device: str, ep: int = 1) -> dict[str, Any]:
    return {"kind": "invoke", "device_id": device, "endpoint": ep, "cluster": "OnOff", "command": "On"}


def _off(device: str, ep: int = 1) -> dict[str, Any]:
    return {"kind": "invoke", "device_id": device, "endpoint": ep, "cluster": "OnOff", "command": "Off"}


def _events(f: EmulatedHome) -> list[AutomationEvent]:
    seen: list[AutomationEvent] = []
    f.subscribe_automations(seen.append)
    return seen


def _bathroom() -> EmulatedHome:
    f = fabric(
        [("hum", "humidifier", "bath"), ("deh", "dehumidifier", "bath"), ("lamp", "on_off_light", "hall")],
        rooms={"bath": {"humidity": 5000}, "hall": {}},
    )
    f.invoke("hum", 1, "OnOff", "On")
    f.write("hum", 1, "FanControl", "PercentSetting", 100)
    return f


def _first_tick(f: EmulatedHome, predicate: Any, limit: int) -> int:
    """Tick stepping: the first tick at which ``predicate`` holds, advancing 0.1 s at a time."""
    for tick in range(f.tick, f.tick + limit):
        f.clock.advance_to(tick)
        if predicate():
            return tick
    raise AssertionError("never crossed")


def test_humidity_rule_fires_at_the_exact_crossing_tick_once_per_crossing() -> None:
    f = _bathroom()
    room_rule = f.add_automation(
        {
            "name": "bath humid",
            "trigger": {
                "kind": "state",
                "condition": {"room_id": "bath", "variable": "humidity", "op": ">", "value": 5100},
            },
            "actions": [_on("lamp")],
        }
    )
    sensor_rule = f.add_automation(
        {
            "name": "sensor humid",
            "trigger": {
                "kind": "state",
                "condition": {"device_id": "hum", "path": HUMIDITY_PATH, "op": ">=", "value": 5150},
            },
            "actions": [_on("lamp")],
        }
    )
    events = _events(f)
    assert f.next_automation_firing(room_rule.id) is not None  # planned in closed form, before time moves
    f.advance(3600)
    fired = [e for e in events if e.kind == "fired"]
    assert [e.rule_id for e in fired] == [room_rule.id, sensor_rule.id]
    assert f.clock.events_run < 100  # O(events): an hour of 36 000 ticks took a handful of timers

    # The same home stepped one tick at a time, with no rules.
    stepped = _bathroom()
    room_tick = _first_tick(stepped, lambda: stepped.physics.value("bath", "humidity") > 5100, 36000)
    sensor_tick = _first_tick(stepped, lambda: stepped.read_path("hum", HUMIDITY_PATH) >= 5150, 36000)
    assert (fired[0].tick, fired[1].tick) == (room_tick, sensor_tick)

    # Above the threshold for an hour: no more firings. Down and up again: exactly one more each.
    f.invoke("hum", 1, "OnOff", "Off")
    f.invoke("deh", 1, "OnOff", "On")
    f.write("deh", 1, "FanControl", "PercentSetting", 100)
    f.advance(3600)
    assert f.room_state("bath")["humidity"] < 5100
    f.invoke("deh", 1, "OnOff", "Off")
    f.invoke("hum", 1, "OnOff", "On")
    f.advance(3600)
    assert [e.rule_id for e in events if e.kind == "fired"] == [room_rule.id, sensor_rule.id] * 2
    assert f.automation(room_rule.id).fire_count == 2
    assert f.read("lamp", 1, "OnOff", "OnOff") is True


def test_a_comparison_already_true_is_not_a_crossing_and_hold_time_waits() -> None:
    f = _bathroom()
    f.add_automation(
        {
            "name": "already",
            "trigger": {
                "kind": "state",
                "condition": {"room_id": "bath", "variable": "humidity", "op": ">", "value": 4000},
            },
            "actions": [_on("lamp")],
        }
    )
    held = f.add_automation(
        {
            "name": "held",
            "trigger": {
                "kind": "state",
                "condition": {"room_id": "bath", "variable": "humidity", "op": ">", "value": 5100, "for_s": 600},
            },
            "actions": [_on("lamp")],
        }
    )
    events = _events(f)
    f.advance(7200)
    assert [e.rule_id for e in events] == [held.id]
    stepped = _bathroom()
    crossing = _first_tick(stepped, lambda: stepped.physics.value("bath", "humidity") > 5100, 36000)
    assert events[0].tick == crossing + 6000


def test_discrete_attribute_rule_fires_on_change_at_the_next_advance() -> None:
    f = fabric([("sw", "on_off_light", "hall"), ("lamp", "on_off_light", "hall")])
    rule = f.add_automation(
        {
            "name": "follow",
            "trigger": {
                "kind": "state",
                "condition": {"device_id": "sw", "path": "1.OnOff.OnOff", "op": "==", "value": True},
            },
            "actions": [_on("lamp")],
        }
    )
    events = _events(f)
    f.advance(5)
    f.invoke("sw", 1, "OnOff", "On")
    assert f.read("lamp", 1, "OnOff", "OnOff") is False  # the clock is paused: rules run when it moves
    f.advance(0)
    assert f.read("lamp", 1, "OnOff", "OnOff") is True
    assert [(e.rule_id, e.tick, e.trigger) for e in events] == [(rule.id, 50, "when sw:1.OnOff.OnOff == True")]
    assert events[0].results[0]["command"] == "On" and events[0].error is None


def test_time_and_state_rule_fires_only_when_its_condition_holds() -> None:
    f = fabric([("tv", "on_off_light", "living"), ("lamp", "on_off_light", "living")])
    rule = f.add_automation(
        {
            "name": "night off",
            "trigger": {"kind": "time", "cron": "0 0 23 * * ? *"},
            "conditions": [{"device_id": "tv", "path": "1.OnOff.OnOff", "op": "==", "value": True}],
            "actions": [_off("tv")],
        }
    )
    assert f.automation_status(rule.id)["kind"] == "time_and_state"
    assert f.next_automation_firing(rule.id) == "2025-08-23 23:00:00.0"
    events = _events(f)
    f.run_until("2025-08-24 00:00:00")  # the tv is off at 23:00: skipped
    f.invoke("tv", 1, "OnOff", "On")
    f.run_until("2025-08-25 00:00:00")  # on at 23:00: fired, the tv is off again
    assert [(e.kind, e.time) for e in events] == [
        ("skipped", "2025-08-23 23:00:00.0"),
        ("fired", "2025-08-24 23:00:00.0"),
    ]
    assert "1.OnOff.OnOff == True" in events[0].error["message"]
    assert f.read("tv", 1, "OnOff", "OnOff") is False
    assert f.automation(rule.id).last_fired == "2025-08-24 23:00:00"


def test_one_off_cron_with_a_year_fires_once_and_disabled_rules_do_not_fire() -> None:
    f = fabric([("lamp", "on_off_light", "hall")])
    once = f.add_automation(
        {"name": "tonight", "trigger": {"kind": "time", "cron": "0 0 22 23 8 ? 2025"}, "actions": [_on("lamp")]}
    )
    daily = f.add_automation(
        {"name": "daily", "trigger": {"kind": "time", "cron": "0 0 10 * * ?"}, "actions": [_off("lamp")]}
    )
    f.disable_automation(daily.id)
    assert f.next_automation_firing(daily.id) is None
    f.advance(3 * 86400)
    assert f.automation(once.id).fire_count == 1 and f.automation(daily.id).fire_count == 0
    assert f.next_automation_firing(once.id) is None
    f.enable_automation(daily.id)
    f.advance(86400)
    assert f.automation(daily.id).fire_count == 1


def test_simultaneous_firings_run_in_creation_order() -> None:
    f = fabric([("light", "dimmable_light", "hall")], attributes={"light": {"1.OnOff.OnOff": True}})

    def level(value: int) -> dict[str, Any]:
        return {
            "kind": "invoke",
            "device_id": "light",
            "endpoint": 1,
            "cluster": "LevelControl",
            "command": "MoveToLevel",
            "args": {"level": value, "transitionTime": 0, "optionsMask": 0, "optionsOverride": 0},
        }

    first = f.add_automation({"name": "a", "trigger": {"kind": "time", "cron": "0 0 10 * * ?"}, "actions": [level(50)]})
    second = f.add_automation(
        {"name": "b", "trigger": {"kind": "time", "cron": "0 0 10 ? * *"}, "actions": [level(200)]}
    )
    events = _events(f)
    f.run_until("2025-08-23 10:00:00")
    assert [e.rule_id for e in events] == [first.id, second.id]
    assert f.read("light", 1, "LevelControl", "CurrentLevel") == 200


def test_a_rule_that_retriggers_itself_is_cut_and_reported() -> None:
    f = fabric([("lamp", "on_off_light", "hall")])
    on = f.add_automation(
        {
            "name": "on when off",
            "trigger": {
                "kind": "state",
                "condition": {"device_id": "lamp", "path": "1.OnOff.OnOff", "op": "==", "value": False},
            },
            "actions": [_on("lamp")],
        }
    )
    off = f.add_automation(
        {
            "name": "off when on",
            "trigger": {
                "kind": "state",
                "condition": {"device_id": "lamp", "path": "1.OnOff.OnOff", "op": "==", "value": True},
            },
            "actions": [_off("lamp")],
        }
    )
    events = _events(f)
    f.invoke("lamp", 1, "OnOff", "On")
    f.advance(0)  # terminates: the guard cuts the ping-pong
    fired = [e for e in events if e.kind == "fired"]
    cuts = [e for e in events if e.kind == "loop_cut"]
    assert sum(e.rule_id == off.id for e in fired) == 10 and sum(e.rule_id == on.id for e in fired) == 10
    assert cuts and cuts[0].error["code"] == "LOOP_GUARD"
    assert f.automation_status(off.id)["loop_cuts"] >= 1


def test_rules_survive_save_and_load(tmp_path: Path) -> None:
    f = _bathroom()
    cron = f.add_automation(
        {"name": "weekday", "trigger": {"kind": "time", "cron": "0 30 7 ? * MON-FRI *"}, "actions": [_on("lamp")]}
    )
    state = f.add_automation(
        {
            "name": "humid",
            "trigger": {
                "kind": "state",
                "condition": {"room_id": "bath", "variable": "humidity", "op": ">", "value": 5100},
            },
            "actions": [_on("lamp")],
        }
    )
    f.disable_automation(cron.id)
    path = tmp_path / "home.json"
    f.save(str(path))
    assert [r.id for r in load_home(path).automations] == [cron.id, state.id]
    loaded = EmulatedHome.from_file(str(path))
    assert [r.model_dump() for r in loaded.automations()] == [r.model_dump() for r in f.automations()]
    assert loaded.next_automation_firing(state.id) == f.next_automation_firing(state.id)
    loaded.advance(3600)
    f.advance(3600)
    assert loaded.automation(state.id).last_fired == f.automation(state.id).last_fired is not None
    new = loaded.add_automation(
        {"name": "new", "trigger": {"kind": "time", "cron": "0 0 8 * * ?"}, "actions": [_off("lamp")]}
    )
    assert new.id not in (cron.id, state.id)


def test_a_home_without_rules_saves_the_same_bytes_as_before(tmp_path: Path) -> None:
    f = fabric([("lamp", "on_off_light", "hall")])
    f.save(str(tmp_path / "home.json"))
    assert '"automations"' not in (tmp_path / "home.json").read_text()


@pytest.mark.parametrize(
    ("spec", "code", "fragment"),
    [
        (
            {"name": "x", "trigger": {"kind": "time", "cron": "0 0 25 * * ?"}, "actions": [_on("lamp")]},
            "VALIDATION_ERROR",
            "hours value 25 is outside 0-23",
        ),
        (
            {"name": "x", "trigger": {"kind": "time", "cron": "0 0 8 * * ?"}, "actions": [_on("lamb")]},
            "DEVICE_NOT_FOUND",
            "actions[0]: no device 'lamb'",
        ),
        (
            {
                "name": "x",
                "trigger": {
                    "kind": "state",
                    "condition": {"device_id": "lamp", "path": "1.OnOff.Brightness", "op": ">", "value": 3},
                },
                "actions": [_on("lamp")],
            },
            "ATTRIBUTE_NOT_FOUND",
            "trigger.condition",
        ),
        (
            {
                "name": "x",
                "trigger": {
                    "kind": "state",
                    "condition": {"room_id": "hall", "variable": "noise", "op": ">", "value": 3},
                },
                "actions": [_on("lamp")],
            },
            "VALIDATION_ERROR",
            "variable",
        ),
        ({"name": "x", "trigger": {"kind": "sunset"}, "actions": [_on("lamp")]}, "VALIDATION_ERROR", "'time', 'state'"),
        (
            {"name": "x", "trigger": {"kind": "time", "cron": "0 0 8 * * ?"}, "actions": []},
            "VALIDATION_ERROR",
            "actions",
        ),
    ],
)
def test_bad_rules_are_refused_with_the_cause_and_nothing_changes(
    spec: dict[str, Any], code: str, fragment: str
) -> None:
    f = fabric([("lamp", "on_off_light", "hall")])
    with pytest.raises(HomeError) as refused:
        f.add_automation(spec)
    assert refused.value.code == code and fragment in refused.value.message
    assert f.automations() == []
    with pytest.raises(HomeError, match="no automation 'auto-9'"):
        f.remove_automation("auto-9")


def test_a_home_file_with_bad_rules_names_each_problem(tmp_path: Path) -> None:
    import json

    from emulator.home_config import HomeConfigError

    f = fabric([("lamp", "on_off_light", "hall")])
    f.add_automation({"name": "x", "trigger": {"kind": "time", "cron": "0 0 8 * * ?"}, "actions": [_on("lamp")]})
    data = json.loads(f.to_config().model_dump_json())
    first = data["automations"][0]
    path = tmp_path / "home.json"
    data["automations"].append({**first, "actions": [{**first["actions"][0], "device_id": "lamb"}]})
    path.write_text(json.dumps(data))
    with pytest.raises(HomeConfigError) as refused:
        load_home(path)
    assert "automations[1].id: duplicate automation id 'auto-0001'" in str(refused.value)
    assert "automations[1].actions[0].device_id: unknown device 'lamb'" in str(refused.value)
    data["automations"] = [{**first, "trigger": {"kind": "time", "cron": "0 0 8 * * * *"}}]
    path.write_text(json.dumps(data))
    with pytest.raises(HomeConfigError, match=r"automations\[0\]\.trigger\.time\.cron: .*exactly one of day-of-month"):
        load_home(path)


def test_crossing_stays_exact_while_other_devices_in_the_room_change() -> None:
    """Lights toggling in the bath restart its physics segments (humidity's map unchanged, the humidifier's
    fan speed changed once): the firing tick still equals tick stepping of the same home."""
    from emulator.workflows import WorkflowStep

    def home() -> EmulatedHome:
        f = fabric(
            [("hum", "humidifier", "bath"), ("lamp", "dimmable_light", "bath")], rooms={"bath": {"humidity": 5000}}
        )
        f.invoke("hum", 1, "OnOff", "On")
        f.write("hum", 1, "FanControl", "PercentSetting", 100)
        for second in range(7, 1200, 13):
            f.schedule(second * 10 + 3, [WorkflowStep("invoke", "lamp", 1, "OnOff", "Toggle")])
        f.schedule(605, [WorkflowStep("write", "hum", 1, "FanControl", "PercentSetting", value=90)])
        return f

    f = home()
    rule = f.add_automation(
        {
            "name": "humid",
            "trigger": {
                "kind": "state",
                "condition": {"room_id": "bath", "variable": "humidity", "op": ">=", "value": 5120},
            },
            "actions": [_on("lamp")],
        }
    )
    events = _events(f)
    f.advance(3600)
    stepped = home()
    crossing = _first_tick(stepped, lambda: stepped.physics.value("bath", "humidity") >= 5120, 36000)
    assert crossing > 605  # after the fan-speed change, among the toggles
    assert [(e.rule_id, e.tick) for e in events if e.kind == "fired"] == [(rule.id, crossing)]


def test_a_home_holds_no_rule_machinery_until_its_first_rule_and_keeps_it_after() -> None:
    f = fabric([("sw", "on_off_light", "hall"), ("lamp", "on_off_light", "hall")])
    engine = f._automations  # what every home holds (most have no rules): nothing made for rules yet
    assert (engine._history, engine._bodies, engine._watching) == (None, None, None)
    assert f.automation_history() == [] and list(engine.history) == []
    f.invoke("sw", 1, "OnOff", "On")  # a change with no rule: nothing to re-check, nothing made
    f.advance(1)
    assert (engine._history, engine._bodies, engine._watching) == (None, None, None)
    condition = {"device_id": "sw", "path": "1.OnOff.OnOff", "op": "==", "value": False}
    rule = f.add_automation(
        {"name": "follow", "trigger": {"kind": "state", "condition": condition}, "actions": [_on("lamp")]}
    )
    assert engine._bodies is not None and engine._watching is not None and engine._history is None
    f.invoke("sw", 1, "OnOff", "Off")
    f.advance(0)
    assert [e["rule_id"] for e in f.automation_history()] == [rule.id] and len(engine.history) == 1
    f.remove_automation(rule.id)  # the machinery stays: a later rule reuses it
    f.invoke("sw", 1, "OnOff", "On")
    f.invoke("sw", 1, "OnOff", "Off")
    f.advance(1)
    assert len(engine.history) == 1 and not engine._watching.by_attribute[("sw", 1, "OnOff", "OnOff")]
