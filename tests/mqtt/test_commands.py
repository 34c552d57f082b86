"""Command payload → fabric operations, without a broker: the Home Assistant ↔ Matter mappings."""

from __future__ import annotations

import pytest

from bridge.mqtt.commands import CommandError, execute, plan
from bridge.mqtt.entities import Entity, entities_for
from bridge.mqtt.state import brightness_to_level, entity_state, level_to_brightness
from emulator.emulated_home import EmulatedHome
from emulator.workflows import WorkflowStep
from tests.emulator.helpers import fabric as make_fabric


@pytest.fixture
def home() -> EmulatedHome:
    return make_fabric(
        [
            ("light", "extended_color_light", "r"),
            ("ac", "air_conditioner", "r"),
            ("thermo", "thermostat", "r"),
            ("blind", "blind", "r"),
            ("fan", "fan", "r"),
            ("lock", "door_lock", "r"),
            ("rvc", "rvc", "r"),
        ]
    )


def entity(fabric: EmulatedHome, device: str, key: str) -> Entity:
    return next(e for e in entities_for(fabric.device(device)) if e.key == key)


def test_brightness_maps_onto_levels_1_to_254() -> None:
    assert brightness_to_level(255) == 254
    assert brightness_to_level(1) == 1
    assert brightness_to_level(128) == 127
    assert [level_to_brightness(brightness_to_level(b)) for b in (1, 128, 255)] == [1, 128, 255]  # stable round trip
    assert all(1 <= brightness_to_level(b) <= 254 for b in range(1, 256))


def test_light_command_puts_the_colour_first_then_switches_on(home: EmulatedHome) -> None:
    light = entity(home, "light", "light_1")
    # Home Assistant sends kelvin (color_temp_kelvin: true); the light moves to the matching mireds.
    ops = plan(home, light, None, b'{"state": "ON", "brightness": 255, "color_temp": 3333, "transition": 1.5}')
    assert [op.name for op in ops] == ["MoveToColorTemperature", "MoveToLevelWithOnOff"]
    assert ops[0].args["colorTemperatureMireds"] == 300
    assert ops[1].args == {"level": 254, "transitionTime": 15}
    execute(home, ops)
    home.advance(2)
    assert entity_state(home, light) == {
        "state": "ON",
        "brightness": 255,
        "color_mode": "color_temp",
        "color_temp": 3333,
    }
    execute(home, plan(home, light, None, b'{"state": "ON", "color": {"h": 180, "s": 50}}'))
    home.advance(1)
    state = entity_state(home, light)
    assert state["color_mode"] == "hs" and state["color"] == {"h": 180.0, "s": 50.0}
    assert plan(home, light, None, b'{"state": "OFF"}') == [WorkflowStep.invoke("light", 1, "OnOff", "Off")]


def test_cover_positions_are_inverted(home: EmulatedHome) -> None:
    cover = entity(home, "blind", "cover_1")
    assert plan(home, cover, "position", b"100")[0].args == {"liftPercent100thsValue": 0}  # HA open = Matter 0
    assert plan(home, cover, "position", b"0")[0].args == {"liftPercent100thsValue": 10000}
    assert plan(home, cover, "tilt", b"25")[0].args == {"tiltPercent100thsValue": 7500}
    assert plan(home, cover, None, b"STOP")[0].name == "StopMotion"


def test_climate_temperature_goes_to_the_setpoint_of_the_mode(home: EmulatedHome) -> None:
    thermo = entity(home, "thermo", "climate_1")
    execute(home, plan(home, thermo, "mode", b"heat"))
    assert plan(home, thermo, "temperature", b"21.5") == [
        WorkflowStep.write("thermo", 1, "Thermostat", "OccupiedHeatingSetpoint", 2150)
    ]
    assert plan(home, thermo, "temperature_high", b"27")[0].name == "OccupiedCoolingSetpoint"
    assert plan(home, thermo, "mode", b"auto")[0].value == 1
    ac = entity(home, "ac", "climate_1")
    assert "temperature_low" not in ac.options or not ac.options["auto"]
    with pytest.raises(CommandError) as error:
        plan(home, ac, "temperature_low", b"20")
    assert error.value.field == "topic"
    with pytest.raises(CommandError) as error:
        plan(home, ac, "mode", b"auto")  # the AC has no AutoMode feature
    assert error.value.allowed == ["off", "cool", "heat", "dry", "fan_only"]
    assert [op.name for op in plan(home, ac, "mode", b"heat")] == ["On", "SystemMode"]
    assert plan(home, ac, "mode", b"off") == [WorkflowStep.invoke("ac", 1, "OnOff", "Off")]


def test_fan_percentage_zero_switches_off_and_above_zero_switches_on(home: EmulatedHome) -> None:
    fan = entity(home, "fan", "fan_1")
    assert [op.name for op in plan(home, fan, "percentage", b"40")] == ["On", "PercentSetting"]
    assert plan(home, fan, "percentage", b"0") == [WorkflowStep.invoke("fan", 1, "OnOff", "Off")]


def test_lock_takes_a_word_or_json_with_a_code(home: EmulatedHome) -> None:
    lock = entity(home, "lock", "lock_1")
    assert plan(home, lock, None, b"UNLOCK") == [WorkflowStep.invoke("lock", 1, "DoorLock", "UnlockDoor")]
    assert plan(home, lock, None, b'{"action": "LOCK", "code": "1234"}')[0].args == {"PINCode": "1234"}


def test_select_and_buttons_of_the_robot(home: EmulatedHome) -> None:
    run_mode = entity(home, "rvc", "run_mode_1")
    ops = plan(home, run_mode, None, b"Vacuum")
    assert ops == [WorkflowStep.invoke("rvc", 1, "RvcRunMode", "ChangeToMode", {"newMode": 2})]
    execute(home, ops)
    assert entity_state(home, entity(home, "rvc", "operational_state_1")) == {"value": "running"}
    execute(home, plan(home, entity(home, "rvc", "go_home_1"), None, b"PRESS"))
    assert entity_state(home, entity(home, "rvc", "operational_state_1")) == {"value": "seeking_charger"}
