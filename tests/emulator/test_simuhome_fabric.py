"""SimuHome homes run in the fabric unchanged, and come back out losslessly."""

from __future__ import annotations

import json

import pytest

from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.simuhome.export_home import to_simuhome
from emulator.simuhome.import_home import from_simuhome
from tests.emulator.test_simuhome_config import simuhome_config


def test_simuhome_home_loads_runs_and_round_trips_through_the_fabric() -> None:
    original = simuhome_config()
    config, origin = from_simuhome(original)
    fabric = EmulatedHome(config)
    assert {d.device_type for d in fabric.devices()} >= {
        "on_off_light",
        "dimmable_light",
        "air_conditioner",
        "air_purifier",
        "fan",
        "humidifier",
        "dehumidifier",
        "heat_pump",
        "tv",
        "window_covering_controller",
        "dishwasher",
        "laundry_washer",
        "laundry_dryer",
        "rvc",
        "freezer",
        "refrigerator",
    }
    # SimuHome's attribute paths read back with its values (the heat-pump thermostat is on endpoint 4).
    for room_id, room in original["rooms"].items():
        if "state" in room:  # a room without a state gets SimuHome's defaults
            assert fabric.room_state(room_id)["temperature"] == round(room["state"]["temperature"], 2)
        for device in room["devices"]:
            for path, value in device["attributes"].items():
                if path == "1.OnOff.OnOff":
                    assert fabric.read_path(device["device_id"], path) == value
    exported = to_simuhome(fabric.to_config(), origin, only_original_attributes=True)
    assert json.dumps(exported, sort_keys=True) == json.dumps(original, sort_keys=True)


def test_a_loaded_simuhome_home_reacts_like_simuhome() -> None:
    config, _ = from_simuhome(simuhome_config())
    fabric = EmulatedHome(config)
    ac = next(d for d in fabric.devices() if d.device_type == "air_conditioner")
    fabric.invoke(ac.device_id, 1, "OnOff", "Off")
    with pytest.raises(HomeError) as refused:
        fabric.write(ac.device_id, 1, "FanControl", "PercentSetting", 50)
    assert refused.value.code == "DEPENDENCY_VIOLATION"
    fabric.invoke(ac.device_id, 1, "OnOff", "On")
    fabric.write(ac.device_id, 1, "FanControl", "PercentSetting", 50)
    assert fabric.read_path(ac.device_id, "1.FanControl.FanMode") == 2


def test_imported_simuhome_homes_keep_simuhome_light_physics() -> None:
    """In SimuHome, blinds never change a room's light; its qt2 saturation episodes rely on that."""
    config, _ = from_simuhome(simuhome_config())
    fabric = EmulatedHome(config)
    blinds = next(d for d in fabric.devices() if d.device_type == "window_covering_controller")
    before = fabric.room_state(blinds.room_id)["illuminance"]
    fabric.invoke(blinds.device_id, 1, "WindowCovering", "DownOrClose")
    fabric.advance(120)
    assert fabric.read_path(blinds.device_id, "1.WindowCovering.CurrentPositionLiftPercent100ths") == 10000
    assert fabric.room_state(blinds.room_id)["illuminance"] == before
    ours = EmulatedHome(config.model_copy(update={"extensions": {}}))  # our default physics: daylight is blocked
    ours.invoke(blinds.device_id, 1, "WindowCovering", "DownOrClose")
    ours.advance(120)
    assert ours.room_state(blinds.room_id)["illuminance"] < before
