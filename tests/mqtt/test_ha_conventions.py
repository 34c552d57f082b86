"""Issue #14, item 6 (of the issue; item 5 of the brief): Home Assistant's current MQTT conventions — colour
temperature in kelvin and friendly device names with the room as suggested area — checked against the schema of
HA's documented discovery payloads (tests/mqtt/ha_schema.py)."""

from __future__ import annotations

import jsonschema

from bridge.mqtt.discovery import device_config, friendly_name
from bridge.mqtt.entities import entities_for
from bridge.mqtt.topics import Topics
from emulator.emulated_home import EmulatedHome
from emulator.home_generation.generator import generate_home
from tests.mqtt.ha_schema import DEVICE_CONFIG, semantic_problems


def discovery(fabric: EmulatedHome, device_id: str) -> dict:
    device = fabric.device(device_id)
    config = device_config(fabric, device, entities_for(device), Topics("homefabric", "home", "homeassistant"))
    jsonschema.validate(config, DEVICE_CONFIG)
    assert semantic_problems(config) == []
    return config


def test_colour_temperature_is_offered_in_kelvin() -> None:
    fabric = EmulatedHome(generate_home("stress", 2))
    lights = [d for d in fabric.devices() if d.device_type in ("color_temperature_light", "extended_color_light")]
    assert lights
    light = discovery(fabric, lights[0].device_id)["cmps"]["light_1"]
    assert light["color_temp_kelvin"] is True
    assert "min_mireds" not in light and "max_mireds" not in light
    coolest = fabric.read(lights[0].device_id, 1, "ColorControl", "ColorTempPhysicalMinMireds")
    warmest = fabric.read(lights[0].device_id, 1, "ColorControl", "ColorTempPhysicalMaxMireds")
    assert (light["min_kelvin"], light["max_kelvin"]) == (round(1e6 / warmest), round(1e6 / coolest))


def test_devices_have_friendly_names_and_their_room_as_suggested_area() -> None:
    fabric = EmulatedHome(generate_home("complex", 7))
    for device in fabric.devices()[:40]:
        dev = discovery(fabric, device.device_id)["dev"]
        room = fabric.room(device.room_id)
        assert dev["sa"] == room.name
        assert dev["name"] != device.device_id and "_" not in dev["name"]
        assert dev["name"].startswith(room.name) and device.spec.label in dev["name"]
    second = next(d for d in fabric.devices() if d.device_id.endswith("_2"))
    assert friendly_name(second, "Hall").endswith(" 2")


def _entity(fabric: EmulatedHome, device_id: str, key: str):
    return next(e for e in entities_for(fabric.device(device_id)) if e.key == key)


def test_setpoints_and_volume_are_number_entities_that_change_the_fabric() -> None:
    from bridge.mqtt.commands import CommandError, execute, plan
    from bridge.mqtt.state import entity_state
    from tests.emulator.helpers import fabric as make_fabric

    fabric = make_fabric(
        [("fridge", "refrigerator", "kitchen"), ("oven", "oven", "kitchen"), ("speaker", "smart_speaker", "living")]
    )
    for device_id, key in (("fridge", "setpoint_1"), ("oven", "setpoint_2"), ("speaker", "volume_1")):
        config = discovery(fabric, device_id)["cmps"][key]
        assert config["p"] == "number" and config["min"] < config["max"]
    fridge = next(e for e in entities_for(fabric.device("fridge")) if e.key.startswith("setpoint"))
    execute(fabric, plan(fabric, fridge, None, b"5"))
    assert fabric.read("fridge", fridge.endpoint, "TemperatureControl", "TemperatureSetpoint") == 500
    assert entity_state(fabric, fridge) == {"value": 5.0}
    try:
        plan(fabric, fridge, None, b"99")
    except CommandError as error:
        assert "99 °C is outside" in error.message and "Temperature setpoint" in error.message
    else:
        raise AssertionError("99 °C accepted for a fridge")
    fabric.invoke("speaker", 1, "OnOff", "On")
    volume = _entity(fabric, "speaker", "volume_1")
    execute(fabric, plan(fabric, volume, None, b"50"))
    assert fabric.read("speaker", 1, "LevelControl", "CurrentLevel") == 127
    assert entity_state(fabric, volume) == {"value": 50}


def test_a_robot_vacuum_is_a_vacuum_entity_that_cleans_pauses_and_goes_home() -> None:
    from bridge.mqtt.commands import execute, plan
    from bridge.mqtt.state import entity_state
    from tests.emulator.helpers import fabric as make_fabric

    fabric = make_fabric([("robot", "rvc", "hall")])
    config = discovery(fabric, "robot")["cmps"]["vacuum_1"]
    assert config["p"] == "vacuum" and "start" in config["supported_features"]
    vacuum = _entity(fabric, "robot", "vacuum_1")
    assert entity_state(fabric, vacuum) == {"state": "idle"}
    for word, expected in (
        ("start", "cleaning"),
        ("pause", "paused"),
        ("start", "cleaning"),
        ("return_to_base", "returning"),
    ):
        execute(fabric, plan(fabric, vacuum, None, word.encode()))
        assert entity_state(fabric, vacuum) == {"state": expected}, word
    fabric.advance(3600)
    execute(fabric, plan(fabric, vacuum, None, b"start"))
    assert entity_state(fabric, vacuum) == {"state": "cleaning"}
    execute(fabric, plan(fabric, vacuum, None, b"stop"))
    assert fabric.read("robot", 1, "RvcRunMode", "CurrentMode") == 1  # the Idle run mode


def test_a_water_heater_is_a_water_heater_entity() -> None:
    from bridge.mqtt.commands import CommandError, execute, plan
    from bridge.mqtt.state import entity_state
    from tests.emulator.helpers import fabric as make_fabric

    fabric = make_fabric([("tank", "water_heater", "utility")])
    config = discovery(fabric, "tank")["cmps"]["water_heater_1"]
    assert config["p"] == "water_heater" and config["modes"] == ["off", "electric"]
    assert "climate_1" not in discovery(fabric, "tank")["cmps"]
    heater = _entity(fabric, "tank", "water_heater_1")
    assert entity_state(fabric, heater) == {"mode": "electric", "temperature": 55.0, "current_temperature": 55.0}
    execute(fabric, plan(fabric, heater, "temperature", b"60"))
    assert fabric.read("tank", 1, "Thermostat", "OccupiedHeatingSetpoint") == 6000
    execute(fabric, plan(fabric, heater, "mode", b"off"))
    assert entity_state(fabric, heater)["mode"] == "off"
    try:
        plan(fabric, heater, "temperature", b"95")
    except CommandError as error:
        assert "95 °C is outside 30..80 °C" in error.message
    else:
        raise AssertionError("95 °C accepted")


def test_an_ac_meter_reports_power_voltage_and_current_as_sensors() -> None:
    from bridge.mqtt.state import entity_state
    from tests.emulator.helpers import fabric as make_fabric

    fabric = make_fabric([("hp", "heat_pump", "utility")])
    fabric.write("hp", 4, "Thermostat", "SystemMode", 4)
    components = discovery(fabric, "hp")["cmps"]
    units = {
        key: (c.get("device_class"), c.get("unit_of_measurement"))
        for key, c in components.items()
        if c["p"] == "sensor"
    }
    assert units["power_2"] == ("power", "W") and units["voltage_2"] == ("voltage", "V")
    assert units["current_2"] == ("current", "A")
    values = {
        key: entity_state(fabric, _entity(fabric, "hp", key))["value"] for key in ("power_2", "voltage_2", "current_2")
    }
    assert values == {"power_2": 3450.0, "voltage_2": 230.0, "current_2": 15.0}


def test_dryer_dryness_is_a_number_entity_that_changes_the_fabric() -> None:
    from bridge.mqtt.commands import CommandError, execute, plan
    from bridge.mqtt.state import entity_state
    from tests.emulator.helpers import fabric as make_fabric

    fabric = make_fabric([("dryer", "laundry_dryer", "utility")])
    [key] = [k for k in discovery(fabric, "dryer")["cmps"] if k.startswith("dryness")]
    config = discovery(fabric, "dryer")["cmps"][key]
    levels = fabric.read("dryer", 1, "LaundryDryerControls", "SupportedDrynessLevels")
    assert config["p"] == "number" and (config["min"], config["max"], config["step"]) == (min(levels), max(levels), 1)
    dryness = _entity(fabric, "dryer", key)
    execute(fabric, plan(fabric, dryness, None, b"3"))
    assert fabric.read("dryer", 1, "LaundryDryerControls", "SelectedDrynessLevel") == 3
    assert entity_state(fabric, dryness) == {"value": 3}
    for bad in (b"7", b"1.5"):
        try:
            plan(fabric, dryness, None, bad)
        except CommandError as error:
            assert "Dryness level" in error.message and "is outside 0..3" in error.message
        else:
            raise AssertionError(f"dryness {bad!r} accepted")
    assert fabric.read("dryer", 1, "LaundryDryerControls", "SelectedDrynessLevel") == 3


def test_new_device_library_types_validate_and_map_to_their_home_assistant_platforms() -> None:
    from bridge.mqtt.state import entity_state
    from emulator.scenarios import sense_water
    from tests.emulator.helpers import fabric as make_fabric

    kinds = {
        "water_valve": "valve",
        "pump": "switch",
        "pressure_sensor": "sensor",
        "flow_sensor": "sensor",
        "rain_sensor": "binary_sensor",
        "water_freeze_detector": "binary_sensor",
        "mode_select": "select",
        "solar_power": "sensor",
        "battery_storage": "sensor",
        "evse": "sensor",
        "extractor_hood": "fan",
        "dimmable_plug_in_unit": "light",
        "cooktop": "switch",
        "wine_cooler": "number",
    }
    fabric = make_fabric([(name, name, "room") for name in kinds])
    platforms = {name: {c["p"] for c in discovery(fabric, name)["cmps"].values()} for name in kinds}
    assert all(kind in platforms[name] for name, kind in kinds.items()), platforms
    components = {
        name: discovery(fabric, name)["cmps"]
        for name in ("pressure_sensor", "flow_sensor", "solar_power", "rain_sensor", "water_freeze_detector")
    }
    assert components["pressure_sensor"]["pressure_1"]["unit_of_measurement"] == "kPa"
    assert components["flow_sensor"]["volume_flow_rate_1"]["device_class"] == "volume_flow_rate"
    assert components["solar_power"]["energy_exported_1"]["state_class"] == "total_increasing"
    assert "energy_1" not in components["solar_power"]  # a generator imports nothing
    assert components["rain_sensor"]["rain_1"]["device_class"] == "moisture"
    assert components["water_freeze_detector"]["freeze_1"]["device_class"] == "cold"
    assert entity_state(fabric, _entity(fabric, "pressure_sensor", "pressure_1")) == {"value": 300}
    sense_water(fabric, "water_freeze_detector", True)
    assert entity_state(fabric, _entity(fabric, "water_freeze_detector", "freeze_1")) == {"state": "ON"}


def test_a_water_valve_is_a_valve_entity_that_opens_and_closes() -> None:
    from bridge.mqtt.commands import CommandError, execute, plan
    from bridge.mqtt.state import entity_state
    from tests.emulator.helpers import fabric as make_fabric

    fabric = make_fabric([("main", "water_valve", "utility")])
    config = discovery(fabric, "main")["cmps"]["valve_1"]
    assert (config["device_class"], config["reports_position"]) == ("water", False)
    valve = _entity(fabric, "main", "valve_1")
    flow = _entity(fabric, "main", "volume_flow_rate_2")
    assert entity_state(fabric, valve) == {"state": "closed"}
    execute(fabric, plan(fabric, valve, None, b"OPEN"))
    assert entity_state(fabric, valve) == {"state": "opening"}
    assert entity_state(fabric, flow) == {"value": 1.2}
    fabric.advance(3)
    assert entity_state(fabric, valve) == {"state": "open"}
    execute(fabric, plan(fabric, valve, None, b"CLOSE"))
    assert entity_state(fabric, valve) == {"state": "closing"}
    fabric.advance(3)
    assert entity_state(fabric, valve) == {"state": "closed"} and entity_state(fabric, flow) == {"value": 0.0}
    try:
        plan(fabric, valve, None, b"STOP")
    except CommandError as error:
        assert error.allowed == ["OPEN", "CLOSE"]
    else:
        raise AssertionError("STOP accepted by a valve")


def test_every_catalogue_type_is_announced_or_listed_as_not_announced_with_a_reason() -> None:
    from bridge.mqtt.entities import NOT_ANNOUNCED
    from emulator.catalogue import CATALOGUE
    from tests.emulator.helpers import fabric as make_fabric

    fabric = make_fabric([(name, name, "room") for name in CATALOGUE])
    silent = {d.device_id for d in fabric.devices() if not entities_for(d)}
    assert silent == set(NOT_ANNOUNCED), "announce these types or list them in NOT_ANNOUNCED with a reason"
    assert all(len(reason) > 20 for reason in NOT_ANNOUNCED.values())
    for name in set(CATALOGUE) - silent:  # every announced type gives Home Assistant a valid device config
        assert discovery(fabric, name)["cmps"], name


def test_a_dimmable_plug_is_a_dimmable_light_not_a_volume() -> None:
    from tests.emulator.helpers import fabric as make_fabric

    fabric = make_fabric([("plug", "dimmable_plug_in_unit", "room")])
    components = discovery(fabric, "plug")["cmps"]
    assert [c["p"] for c in components.values() if c["p"] != "event"] == ["light"]
    assert next(c for c in components.values() if c["p"] == "light")["brightness"] is True


def test_an_ev_chargers_charging_is_a_switch_that_enables_and_disables_it() -> None:
    from bridge.mqtt.commands import execute, plan
    from bridge.mqtt.state import entity_state
    from emulator.scenarios import plug_in_vehicle
    from tests.emulator.helpers import fabric as make_fabric

    fabric = make_fabric([("car", "evse", "garage")])
    assert discovery(fabric, "car")["cmps"]["charging_1"]["p"] == "switch"
    charging = _entity(fabric, "car", "charging_1")
    assert entity_state(fabric, charging) == {"state": "OFF"}
    plug_in_vehicle(fabric, "car")
    execute(fabric, plan(fabric, charging, None, b"ON"))
    assert entity_state(fabric, charging) == {"state": "ON"}
    assert fabric.read("car", 1, "EnergyEvse", "State") == 3  # PluggedInCharging
    execute(fabric, plan(fabric, charging, None, b"OFF"))
    assert entity_state(fabric, charging) == {"state": "OFF"}
    assert fabric.read("car", 1, "EnergyEvse", "SupplyState") == 0


def test_a_pumps_operation_mode_is_a_select_that_writes_it() -> None:
    from bridge.mqtt.commands import execute, plan
    from bridge.mqtt.state import entity_state
    from tests.emulator.helpers import fabric as make_fabric

    fabric = make_fabric([("pump", "pump", "utility")])
    config = discovery(fabric, "pump")["cmps"]["operation_mode_1"]
    assert (config["p"], config["options"]) == ("select", ["Normal", "Minimum", "Maximum"])
    mode = _entity(fabric, "pump", "operation_mode_1")
    assert entity_state(fabric, mode) == {"option": "Normal"}
    execute(fabric, plan(fabric, mode, None, b"Maximum"))
    assert fabric.read("pump", 1, "PumpConfigurationAndControl", "OperationMode") == 2
    assert entity_state(fabric, mode) == {"option": "Maximum"}
