"""The EmulatedHome's public API: addressing, errors that leave state unchanged, device rules, events,
snapshots and diffs, workflows, time, determinism."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.home_generation.generator import generate_home
from emulator.scenarios import start_typical_day
from emulator.workflows import WorkflowStep
from tests.emulator.helpers import fabric

DEVICES = [
    ("ac", "air_conditioner", "living_room"),
    ("light", "dimmable_light", "living_room"),
    ("dw", "dishwasher", "kitchen"),
    ("tv", "tv", "living_room"),
    ("hp", "heat_pump", "kitchen"),
    ("blinds", "window_covering_controller", "living_room"),
    ("fridge", "refrigerator", "kitchen"),
]


@pytest.fixture
def home() -> EmulatedHome:
    return fabric(DEVICES)


def _refused(f: EmulatedHome, call: Any, code: str) -> HomeError:
    before = json.dumps(f.snapshot(), sort_keys=True)
    with pytest.raises(HomeError) as caught:
        call(f)
    assert caught.value.code == code, caught.value
    assert json.dumps(f.snapshot(), sort_keys=True) == before, "a refused call changed state"
    return caught.value


@pytest.mark.parametrize(
    ("call", "code", "allowed_hint"),
    [
        (lambda f: f.invoke("nope", 1, "OnOff", "On"), "DEVICE_NOT_FOUND", None),
        (lambda f: f.invoke("ac", 7, "OnOff", "On"), "ENDPOINT_NOT_FOUND", 1),
        (lambda f: f.invoke("ac", 1, "LevelControl", "MoveToLevel", {"Level": 3}), "CLUSTER_NOT_FOUND", "OnOff"),
        (lambda f: f.invoke("ac", 1, "OnOff", "Dim"), "COMMAND_NOT_FOUND", "Toggle"),
        (lambda f: f.invoke("light", 1, "LevelControl", "MoveToLevel", {"Lvl": 3}), "COMMAND_INVALID_ARGS", None),
        (
            lambda f: f.invoke("light", 1, "LevelControl", "MoveToLevel", {"Level": "high"}),
            "COMMAND_INVALID_ARGS",
            None,
        ),
        (lambda f: f.invoke("light", 1, "LevelControl", "MoveToLevel", {"Level": 300}), "CONSTRAINT_ERROR", None),
        (lambda f: f.invoke("light", 1, "LevelControl", "MoveToLevel", ["Level", 3]), "COMMAND_INVALID_ARGS", None),
        (lambda f: f.write("ac", 1, "OnOff", "OnOff", True), "READ_ONLY", None),
        (lambda f: f.write("ac", 1, "FanControl", "PercentSetting", 40), "DEPENDENCY_VIOLATION", None),
        (
            lambda f: f.invoke("ac", 1, "Thermostat", "SetpointRaiseLower", {"Mode": 0, "Amount": 5}),
            "DEPENDENCY_VIOLATION",
            None,
        ),
        (lambda f: f.write("hp", 4, "Thermostat", "OccupiedHeatingSetpoint", 3500), "CONSTRAINT_ERROR", None),
        (lambda f: f.write("hp", 4, "Thermostat", "SystemMode", "warm"), "CONSTRAINT_ERROR", None),
        (lambda f: f.read("ac", 1, "OnOff", "Brightness"), "ATTRIBUTE_NOT_FOUND", "OnOff"),
        (lambda f: f.read_path("ac", "1.OnOff"), "INVALID_ARGUMENT", None),
        (lambda f: f.invoke("tv", 1, "Channel", "SkipChannel", {"Count": 1}), "DEPENDENCY_VIOLATION", None),
        (lambda f: f.invoke("dw", 1, "OperationalState", "Start"), "DEPENDENCY_VIOLATION", None),
        (lambda f: f.room_state("attic"), "ROOM_NOT_FOUND", "kitchen"),
        (lambda f: f.advance(-1), "INVALID_ARGUMENT", None),
        (lambda f: f.set_room_state("kitchen", "noise", 3), "INVALID_ARGUMENT", "pm10"),
    ],
)
def test_bad_input_is_refused_with_a_named_cause_and_no_state_change(
    home: EmulatedHome, call: Any, code: str, allowed_hint: Any
) -> None:
    error = _refused(home, call, code)
    assert error.message
    if allowed_hint is not None:
        assert allowed_hint in error.allowed


def test_power_dependency_lifts_when_on(home: EmulatedHome) -> None:
    home.invoke("ac", 1, "OnOff", "On")
    result = home.write("ac", 1, "FanControl", "PercentSetting", 40)
    assert (result.old_value, result.new_value) == (0, 40)
    assert home.read_path("ac", "1.FanControl.FanMode") == 2  # Medium band


def test_appliance_cycle_runs_over_virtual_time(home: EmulatedHome) -> None:
    home.invoke("dw", 1, "OnOff", "On")
    home.invoke("dw", 1, "DishwasherMode", "ChangeToMode", {"new_mode": 3})  # Quick Wash: 1800 s
    home.invoke("dw", 1, "OperationalState", "Start")
    assert home.read_path("dw", "1.OperationalState.OperationalState") == 1
    assert home.read_path("dw", "1.OperationalState.CountdownTime") == 1800
    with pytest.raises(HomeError) as refused:
        home.invoke("dw", 1, "DishwasherMode", "ChangeToMode", {"new_mode": 0})
    assert refused.value.code in ("INVALID_STATE", "CONSTRAINT_ERROR")
    home.advance(600)
    assert home.read_path("dw", "1.OperationalState.CountdownTime") == 1200
    home.advance(1200)
    assert home.read_path("dw", "1.OperationalState.OperationalState") == 0
    assert home.read_path("dw", "1.OperationalState.CountdownTime") is None


def test_event_bus_reports_changes_with_virtual_time(home: EmulatedHome) -> None:
    events: list[Any] = []
    unsubscribe = home.subscribe(events.append)
    home.advance(5)
    home.invoke("light", 1, "OnOff", "On")
    assert ("light", 1, "OnOff", "OnOff", False, True, 50) in [
        (e.device_id, e.endpoint, e.cluster, e.attribute, e.old, e.new, e.tick) for e in events
    ]
    assert events[-1].time.startswith("2025-08-23 09:00:05")
    unsubscribe()
    count = len(events)
    home.invoke("light", 1, "OnOff", "Off")
    assert len(events) == count


def test_subscribers_get_sensor_reports_as_the_room_moves(home: EmulatedHome) -> None:
    home.invoke("ac", 1, "OnOff", "On")
    home.write("ac", 1, "Thermostat", "SystemMode", 3)
    home.write("ac", 1, "Thermostat", "OccupiedCoolingSetpoint", 2000)
    home.write("ac", 1, "FanControl", "PercentSetting", 100)
    events: list[Any] = []
    home.subscribe(events.append)
    home.advance(600)
    readings = [e.new for e in events if e.attribute == "LocalTemperature" and e.device_id == "ac"]
    assert len(readings) >= 2 and readings == sorted(readings, reverse=True) and readings[-1] < 2800
    # a report each time the reading has moved by more than its reportable change (0.1 °C), so the last one is
    # within that of what a read says now
    assert all(earlier - later >= 10 for earlier, later in itertools.pairwise(readings))
    assert abs(readings[-1] - home.read("ac", 1, "Thermostat", "LocalTemperature")) <= 11


def test_snapshot_diff_names_exactly_what_changed(home: EmulatedHome) -> None:
    before = home.snapshot()
    home.invoke("light", 1, "LevelControl", "MoveToLevelWithOnOff", {"Level": 200, "TransitionTime": 0})
    changes = EmulatedHome.diff(before, home.snapshot())
    paths = {(c.get("device_id"), c.get("path")) for c in changes if c["kind"] == "attribute"}
    assert ("light", "1.OnOff.OnOff") in paths and ("light", "1.LevelControl.CurrentLevel") in paths
    assert {c["device_id"] for c in changes if c["kind"] == "attribute"} == {"light"}
    assert any(c["kind"] == "room" and c["variable"] == "illuminance" for c in changes)


def test_workflows_are_validated_when_scheduled(home: EmulatedHome) -> None:
    with pytest.raises(HomeError) as bad_arg:
        home.schedule(
            "2025-08-23 09:10:00", [WorkflowStep("invoke", "light", 1, "LevelControl", "MoveToLevel", {"Level": 999})]
        )
    assert bad_arg.value.code == "CONSTRAINT_ERROR" and "step 0" in bad_arg.value.message
    with pytest.raises(HomeError) as past:
        home.schedule("2025-08-23 08:00:00", [WorkflowStep("invoke", "light", 1, "OnOff", "On")])
    assert past.value.code == "VALIDATION_ERROR"
    with pytest.raises(HomeError) as unknown:
        home.schedule("2025-08-23 09:10:00", [WorkflowStep("write", "ghost", 1, "OnOff", "OnOff", value=True)])
    assert unknown.value.code == "DEVICE_NOT_FOUND"
    assert home.workflows() == []


def test_workflows_run_on_time_record_failures_and_cancel(home: EmulatedHome) -> None:
    good = home.schedule("2025-08-23 09:10:00", [WorkflowStep("invoke", "light", 1, "OnOff", "On")], "lights")
    failing = home.schedule(
        "2025-08-23 09:10:00",
        [
            WorkflowStep("invoke", "light", 1, "OnOff", "Off"),
            WorkflowStep("write", "ac", 1, "FanControl", "PercentSetting", value=50),  # AC is off → refused then
        ],
    )
    cancelled = home.schedule("2025-08-23 09:20:00", [WorkflowStep("invoke", "light", 1, "OnOff", "On")])
    home.cancel(cancelled.workflow_id)
    home.advance(599.9)
    assert good.status == "pending" and home.read_path("light", "1.OnOff.OnOff") is False
    home.advance(0.1)
    assert home.workflow(good.workflow_id).status == "completed"
    assert failing.status == "failed" and failing.current_step == 1
    assert failing.error is not None and failing.error["code"] == "DEPENDENCY_VIOLATION"
    home.advance(3600)
    assert cancelled.status == "cancelled" and home.read_path("light", "1.OnOff.OnOff") is False
    assert [w.workflow_id for w in home.workflows("failed")] == [failing.workflow_id]
    with pytest.raises(HomeError):
        home.cancel(good.workflow_id)
    with pytest.raises(HomeError):
        home.workflows("done")


def test_time_is_virtual_and_paused(home: EmulatedHome) -> None:
    assert home.now_text() == "2025-08-23 09:00:00"
    home.advance(90.05)  # rounded up to whole ticks
    assert home.tick == 901
    home.run_until("2025-08-23 10:00:00")
    assert home.now_text() == "2025-08-23 10:00:00"
    with pytest.raises(HomeError):
        home.run_until("2025-08-23 09:30:00")


def test_same_seed_and_actions_give_byte_identical_results() -> None:
    def run() -> str:
        f = EmulatedHome(generate_home("complex", 11))
        start_typical_day(f)
        f.advance(6 * 3600)
        return json.dumps(f.snapshot(), sort_keys=True)

    first, second = run(), run()
    assert first == second
    assert '"tick": 216000' in first


def test_saved_home_comes_back_the_same(home: EmulatedHome) -> None:
    home.invoke("light", 1, "LevelControl", "MoveToLevelWithOnOff", {"Level": 120})
    home.invoke("ac", 1, "OnOff", "On")
    home.write("ac", 1, "FanControl", "PercentSetting", 70)
    home.advance(30)
    restored = EmulatedHome(home.to_config())
    assert restored.now_text() == home.now_text()
    for device in home.devices():
        assert restored.read_all(device.device_id) == home.read_all(device.device_id)
    for room in home.rooms():
        assert restored.room_state(room.room_id) == home.room_state(room.room_id)


def test_save_writes_a_file_that_loads_back_the_same(home: EmulatedHome, tmp_path) -> None:
    home.invoke("dw", 1, "OnOff", "On")
    home.invoke("dw", 1, "OperationalState", "Start")
    home.advance(125)
    path = tmp_path / "saved.json"
    home.save(str(path))
    restored = EmulatedHome.from_file(str(path))
    assert restored.read_all("dw") == home.read_all("dw")
    home.advance(7200)
    restored.advance(7200)  # the running cycle resumed from the file and ends at the same time
    assert restored.read_all("dw") == home.read_all("dw")
    assert [p.name for p in tmp_path.iterdir()] == ["saved.json"]  # no temp files left behind


def test_devices_can_be_added_and_removed(home: EmulatedHome) -> None:
    from emulator.home_config import DeviceConfig

    home.add_device(DeviceConfig(id="lamp2", type="on_off_light", room="kitchen"))
    before = home.room_state("kitchen")["illuminance"]
    home.invoke("lamp2", 1, "OnOff", "On")
    assert home.room_state("kitchen")["illuminance"] == pytest.approx(before + 500)
    with pytest.raises(HomeError) as duplicate:
        home.add_device(DeviceConfig(id="lamp2", type="on_off_light", room="kitchen"))
    assert duplicate.value.code == "DEVICE_ALREADY_EXISTS"
    home.remove_device("lamp2")
    assert home.room_state("kitchen")["illuminance"] == pytest.approx(before)
    with pytest.raises(HomeError):
        home.read("lamp2", 1, "OnOff", "OnOff")


def test_every_device_type_survives_save_and_load_mid_activity() -> None:
    busy = EmulatedHome(generate_home("complex", 5))
    start_typical_day(busy)
    # mid transitions, motions and cycles; a whole second, because a home file's base_time has whole seconds and
    # our homes' sun and outdoor temperature follow the absolute time of day
    busy.advance(95)
    _count_energy(busy)  # a meter counts at each change of its power; the save does not count the rest (yet)
    restored = EmulatedHome(busy.to_config())
    assert len({d.device_type for d in busy.devices()}) >= 17
    for device in busy.devices():
        assert restored.read_all(device.device_id) == busy.read_all(device.device_id), device.device_id
    busy.advance(4 * 3600)
    restored.advance(4 * 3600)
    after, again = busy.snapshot(), restored.snapshot()
    assert again["time"] == after["time"]  # a saved home starts at the time it was saved (tick 0 there)
    for key in ("rooms", "devices"):
        assert _boot_free(again[key]) == _boot_free(after[key])


def _count_energy(home: EmulatedHome) -> None:
    for device in home.devices():
        for endpoint in device.endpoints.values():
            meter = endpoint.find("ElectricalEnergyMeasurement")
            if meter is not None:
                meter.flush()  # type: ignore[attr-defined]


def _boot_free(state: Any) -> str:
    """The state as JSON without energy timestamps: they are Matter systime, time since the device booted, and a
    restored home boots at the moment it was saved (the energy counted is compared, to the mWh)."""

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: (None if k.endswith("Systime") else walk(v)) for k, v in value.items()}
        return [walk(v) for v in value] if isinstance(value, list) else value

    return json.dumps(walk(state), sort_keys=True)
