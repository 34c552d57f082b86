"""The HomeEnv view: SMH-style export, services mapped onto clusters both ways, §1 validation."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agent_tools.smh.home_env import HomeEnv
from agent_tools.smh.products import PRODUCTS, kelvin_to_mireds, mireds_to_kelvin, percent_to_level
from emulator.home_config import dump_home
from tests.smh.homes import every_product_home


def test_export_has_userdata_typed_attributes_services_and_components() -> None:
    env = HomeEnv(every_product_home())
    view = env.export()
    assert view["rooms"] == [{"id": "lounge", "type": "living_room", "name": "Lounge", "floor": 0, "parent": None}]
    assert view["unmapped_devices"] == ["smoke_alarm"]
    devices = {d["userdata"]["did"]: d for d in view["devices"]}
    assert set(devices) == set(PRODUCTS)
    fan_light = devices["fan_light"]
    assert fan_light["attributes"] == [] and [c["name"] for c in fan_light["components"]] == ["light", "fan"]
    assert fan_light["userdata"]["spid"] == "hf.fan_light.v1" and fan_light["userdata"]["room"] == "lounge"
    brightness = next(a for a in devices["dimmable_light"]["attributes"] if a["name"] == "brightness")
    assert brightness["range"] == [1, 100] and brightness["unit"] == "percentage" and brightness["type"] == "int"
    service = next(s for s in devices["air_conditioner"]["services"] if s["name"] == "set_ac_mode")
    assert service["arguments"][0]["options"] == ["cool", "heat", "dry", "fan_only"]


@pytest.mark.parametrize(
    ("did", "locator", "arguments", "cluster_path", "cluster_value"),
    [
        ("dimmable_light", "set_brightness", {"brightness": 37}, "1.LevelControl.CurrentLevel", percent_to_level(37)),
        (
            "color_temperature_light",
            "set_color_temperature",
            {"color_temperature": 2700},
            "1.ColorControl.ColorTemperatureMireds",
            kelvin_to_mireds(2700),
        ),
        ("fan_light", "light.set_brightness", {"brightness": 100}, "1.LevelControl.CurrentLevel", 254),
        ("curtain", "set_position", {"position": 60}, "1.WindowCovering.TargetPositionLiftPercent100ths", 4000),
        ("door_lock", "open", {}, "1.DoorLock.LockState", 2),
        ("rvc", "start", {}, "1.RvcRunMode.CurrentMode", 2),
        ("water_heater", "set_work_mode", {"work_mode": "timed"}, "1.WaterHeaterMode.CurrentMode", 2),
        (
            "water_heater",
            "set_target_water_temperature",
            {"target_water_temperature": 62},
            "1.Thermostat.OccupiedHeatingSetpoint",
            6200,
        ),
        (
            "oven",
            "set_target_temperature",
            {"target_temperature": 215},
            "2.TemperatureControl.TemperatureSetpoint",
            21500,
        ),
        ("oven", "set_work_mode", {"work_mode": "grill"}, "2.OvenMode.CurrentMode", 2),
        ("oven", "start", {}, "2.OvenCavityOperationalState.OperationalState", 1),
        ("laundry_washer", "set_wash_mode", {"wash_mode": "delicate"}, "1.LaundryWasherMode.CurrentMode", 1),
        (
            "laundry_washer",
            "set_water_temperature",
            {"water_temperature": 40},
            "1.TemperatureControl.TemperatureSetpoint",
            4000,
        ),
        (
            "laundry_dryer",
            "set_dryness_level",
            {"dryness_level": "max"},
            "1.LaundryDryerControls.SelectedDrynessLevel",
            3,
        ),
        ("dishwasher", "set_wash_mode", {"wash_mode": "quick_wash"}, "1.DishwasherMode.CurrentMode", 3),
        ("dishwasher", "turn_on", {}, "1.OnOff.OnOff", True),
        (
            "laundry_washer",
            "set_spin_speed",
            {"spin_speed": "extra_high"},
            "1.LaundryWasherControls.SpinSpeedCurrent",
            3,
        ),
        ("laundry_washer", "set_rinses", {"rinses": "max"}, "1.LaundryWasherControls.NumberOfRinses", 3),
        (
            "microwave_oven",
            "microwave_steam_oven.set_cooking_time",
            {"target_cooking_time": 95},
            "1.MicrowaveOvenControl.CookTime",
            95,
        ),
        (
            "microwave_oven",
            "microwave_steam_oven.set_power_level",
            {"power_level": 70},
            "1.MicrowaveOvenControl.PowerSetting",
            70,
        ),
        (
            "microwave_oven",
            "microwave_steam_oven.set_work_mode",
            {"work_mode": "defrost"},
            "1.MicrowaveOvenMode.CurrentMode",
            1,
        ),
        ("microwave_oven", "microwave_steam_oven.start", {}, "1.OperationalState.OperationalState", 1),
        (
            "refrigerator",
            "set_target_temperature",
            {"target_temperature": 3},
            "1.TemperatureControl.TemperatureSetpoint",
            300,
        ),
        (
            "refrigerator",
            "set_mode",
            {"mode": "rapid_cool"},
            "1.RefrigeratorAndTemperatureControlledCabinetMode.CurrentMode",
            2,
        ),
        (
            "freezer",
            "set_target_temperature",
            {"target_temperature": -20},
            "1.TemperatureControl.TemperatureSetpoint",
            -2000,
        ),
    ],
)
def test_a_service_becomes_cluster_state_and_reads_back(
    did: str, locator: str, arguments: dict, cluster_path: str, cluster_value: object
) -> None:
    fabric = every_product_home()
    env = HomeEnv(fabric)
    result = env.call(did, locator, arguments)
    assert result.ok, result.message
    assert fabric.read_path(did, cluster_path) == cluster_value
    if arguments:
        ((name, value),) = arguments.items()
        assert env.read(did, locator.rpartition(".")[0] + "." + name if "." in locator else name) == value


def test_kelvin_and_percent_round_trip_exactly_over_their_ranges() -> None:
    assert all(mireds_to_kelvin(kelvin_to_mireds(k)) == k for k in range(2700, 6501, 100))
    from agent_tools.smh.products import level_to_percent

    assert all(level_to_percent(percent_to_level(p), 0) == p for p in range(0, 101))


def test_ac_mode_and_fan_speed_map_onto_system_mode_and_fan_mode() -> None:
    fabric = every_product_home()
    env = HomeEnv(fabric)
    refused = env.call("air_conditioner", "set_ac_mode", {"ac_mode": "cool"})
    assert refused.code == "DEVICE_REFUSED" and "off" in refused.message
    assert env.call("air_conditioner", "turn_on").ok
    assert env.call("air_conditioner", "set_ac_mode", {"ac_mode": "heat"}).ok
    assert env.call("air_conditioner", "set_target_temperature", {"target_temperature": 23.5}).ok
    assert fabric.read_path("air_conditioner", "1.Thermostat.SystemMode") == 4
    assert fabric.read_path("air_conditioner", "1.Thermostat.OccupiedHeatingSetpoint") == 2350
    assert env.call("fan", "turn_on").ok and env.call("fan", "set_speed_level", {"speed_level": "medium"}).ok
    assert fabric.read_path("fan", "1.FanControl.FanMode") == 2 and env.read("fan", "speed_level") == "medium"


@pytest.mark.parametrize(
    ("did", "locator", "arguments", "code"),
    [
        ("nope", "turn_on", {}, "UNKNOWN_DEVICE"),
        ("smart_speaker", "play", {}, "UNKNOWN_SERVICE"),  # the component path is required: player.play
        ("dimmable_light", "set_brightness", {"brightnes": 3}, "UNKNOWN_ARGUMENT"),
        ("dimmable_light", "set_brightness", {}, "MISSING_ARGUMENT"),
        ("dimmable_light", "set_brightness", {"brightness": None}, "NONE_VALUE"),
        ("dimmable_light", "set_brightness", {"brightness": "30"}, "WRONG_TYPE"),
        ("dimmable_light", "set_brightness", {"brightness": 0}, "OUT_OF_RANGE"),
        ("color_temperature_light", "set_color_temperature", {"color_temperature": 3050}, "BAD_PRECISION"),
        ("fan", "set_speed_level", {"speed_level": "turbo"}, "NOT_AN_OPTION"),
        ("fan", "set_speed_level", {"speed_level": "low"}, "DEVICE_REFUSED"),  # off: FanMode needs it on
        ("microwave_oven", "set_cooking_time", {"target_cooking_time": 60}, "UNKNOWN_SERVICE"),  # component path needed
        ("microwave_oven", "microwave_steam_oven.set_cooking_time", {"target_cooking_time": 0}, "OUT_OF_RANGE"),
        ("microwave_oven", "microwave_steam_oven.set_cooking_time", {"target_cooking_time": 3601}, "OUT_OF_RANGE"),
        ("microwave_oven", "microwave_steam_oven.set_cooking_time", {"target_cooking_time": 60.5}, "WRONG_TYPE"),
        ("microwave_oven", "microwave_steam_oven.set_power_level", {"power_level": 55}, "BAD_PRECISION"),
        ("microwave_oven", "microwave_steam_oven.set_work_mode", {"work_mode": "steam"}, "NOT_AN_OPTION"),
        ("microwave_oven", "microwave_steam_oven.set_work_mode", {}, "MISSING_ARGUMENT"),
        ("microwave_oven", "microwave_steam_oven.pause", {}, "DEVICE_REFUSED"),  # nothing is cooking
        ("laundry_washer", "set_spin_speed", {"spin_speed": "turbo"}, "NOT_AN_OPTION"),
        ("laundry_washer", "set_rinses", {"rinses": 2}, "WRONG_TYPE"),
        ("refrigerator", "set_target_temperature", {"target_temperature": -18}, "OUT_OF_RANGE"),  # a freezer's value
        ("freezer", "set_target_temperature", {"target_temperature": 4}, "OUT_OF_RANGE"),
        ("freezer", "set_mode", {"mode": "defrost"}, "NOT_AN_OPTION"),
    ],
)
def test_a_refused_call_changes_nothing_and_says_why(did: str, locator: str, arguments: dict, code: str) -> None:
    fabric = every_product_home()
    before = dump_home(fabric.to_config())
    result = HomeEnv(fabric).call(did, locator, arguments)
    assert (result.ok, result.code) == (False, code) and result.message
    assert dump_home(fabric.to_config()) == before


def test_home_show_format_smh_prints_the_view(tmp_path) -> None:
    path = tmp_path / "home.json"
    path.write_text(dump_home(every_product_home().to_config()))
    shown = subprocess.run(
        [sys.executable, "-m", "homefabric_cli.main", "home", "show", str(path), "--format", "smh"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert {d["userdata"]["did"] for d in json.loads(shown.stdout)["devices"]} == set(PRODUCTS)
    bad = subprocess.run(
        [sys.executable, "-m", "homefabric_cli.main", "home", "show", str(path), "--format", "x"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode != 0 and "allowed: table, smh" in bad.stderr and "Traceback" not in bad.stderr


def test_start_heating_needs_all_three_arguments_and_becomes_mode_setpoint_and_boost() -> None:
    """Case study 1 of the paper: one argument short is refused and changes nothing."""
    fabric = every_product_home()
    env = HomeEnv(fabric)
    before = fabric.snapshot()
    refused = env.call("water_heater", "start_heating", {"work_mode": "manual"})
    assert (refused.ok, refused.code) == (False, "MISSING_ARGUMENT") and "target_water_quantity" in refused.message
    assert (
        env.call(
            "water_heater",
            "start_heating",
            {"work_mode": "manual", "target_water_quantity": 85, "target_water_temperature": 60},
        ).code
        == "BAD_PRECISION"
    )
    assert (
        env.call(
            "water_heater",
            "start_heating",
            {"work_mode": "off", "target_water_quantity": 80, "target_water_temperature": 60},
        ).code
        == "NOT_AN_OPTION"
    )
    assert fabric.snapshot() == before
    done = env.call(
        "water_heater",
        "start_heating",
        {"work_mode": "manual", "target_water_quantity": 80, "target_water_temperature": 60},
    )
    assert done.ok, done.message
    assert fabric.read_path("water_heater", "1.WaterHeaterMode.CurrentMode") == 1
    assert fabric.read_path("water_heater", "1.Thermostat.OccupiedHeatingSetpoint") == 6000
    assert fabric.read_path("water_heater", "1.WaterHeaterManagement.BoostState") == 1
    assert env.device_state("water_heater")["heating_state"] == "heating"
    fabric.advance(3600)  # the boost heats the tank to the asked-for fill, then ends
    assert env.device_state("water_heater")["water_quantity"] == 80
    assert env.device_state("water_heater")["heating_state"] == "idle"


def test_appliance_mode_options_and_limits_agree_with_the_devices() -> None:
    """The enum options are the devices' own SupportedModes; the heater's range is its setpoint limits."""
    from agent_tools.smh import products

    fabric = every_product_home()
    for did, endpoint, cluster, table in [
        ("water_heater", 1, "WaterHeaterMode", products.WATER_HEATER_MODES),
        ("oven", 2, "OvenMode", products.OVEN_MODES),
        ("laundry_washer", 1, "LaundryWasherMode", products.WASHER_MODES),
        ("dishwasher", 1, "DishwasherMode", products.DISHWASHER_MODES),
    ]:
        supported = fabric.read(did, endpoint, cluster, "SupportedModes")
        assert {m["label"].lower().replace(" ", "_"): m["mode"] for m in supported} == table, cluster
    assert fabric.read("laundry_dryer", 1, "LaundryDryerControls", "SupportedDrynessLevels") == sorted(
        products.DRYNESS_LEVELS.values()
    )
    assert (
        fabric.read("water_heater", 1, "Thermostat", "MinHeatSetpointLimit") / 100,
        fabric.read("water_heater", 1, "Thermostat", "MaxHeatSetpointLimit") / 100,
    ) == products.WATER_HEATER_LIMITS


def test_an_appliance_refusal_by_the_device_changes_nothing() -> None:
    fabric = every_product_home()
    env = HomeEnv(fabric)
    assert env.call("oven", "start").ok
    before = fabric.snapshot()
    refused = env.call("oven", "set_work_mode", {"work_mode": "grill"})  # OvenMode refuses while cooking
    assert (refused.ok, refused.code) == (False, "DEVICE_REFUSED") and "running" in refused.message
    off = env.call("laundry_washer", "start")  # a washer that is off refuses to start (dead front)
    assert (off.ok, off.code) == (False, "DEVICE_REFUSED")
    assert fabric.snapshot() == before


def test_microwave_cooking_parameters_change_one_at_a_time_and_are_refused_while_cooking() -> None:
    """SetCookingParameters resets every field it is not given; each service keeps the others as they were."""
    fabric = every_product_home()
    env = HomeEnv(fabric)
    oven = "microwave_steam_oven."
    for locator, arguments in [
        ("set_cooking_time", {"target_cooking_time": 240}),
        ("set_power_level", {"power_level": 40}),
        ("set_work_mode", {"work_mode": "defrost"}),
    ]:
        assert env.call("microwave_oven", oven + locator, arguments).ok
    state = {k.removeprefix(oven): v for k, v in env.device_state("microwave_oven").items()}
    assert state == {
        "work_state": "stopped",
        "work_mode": "defrost",
        "target_cooking_time": 240,
        "power_level": 40,
        "remaining_running_time": 0,
    }
    assert env.call("microwave_oven", oven + "start").ok
    assert env.read("microwave_oven", oven + "remaining_running_time") == 240
    fabric.advance(100)
    assert env.read("microwave_oven", oven + "remaining_running_time") == 140
    before = fabric.snapshot()
    for locator, arguments in [
        ("set_cooking_time", {"target_cooking_time": 60}),
        ("set_power_level", {"power_level": 100}),
        ("set_work_mode", {"work_mode": "normal"}),
    ]:
        refused = env.call("microwave_oven", oven + locator, arguments)
        assert (refused.ok, refused.code) == (False, "DEVICE_REFUSED") and "only while stopped" in refused.message
    assert fabric.snapshot() == before
    assert env.call("microwave_oven", oven + "pause").ok and env.read("microwave_oven", oven + "work_state") == "paused"
    assert env.call("microwave_oven", oven + "resume").ok
    fabric.advance(140)
    assert env.read("microwave_oven", oven + "work_state") == "stopped"


def test_microwave_schema_round_trips_exactly_over_its_whole_range() -> None:
    from agent_tools.smh import products

    fabric = every_product_home()
    env = HomeEnv(fabric)
    assert fabric.read("microwave_oven", 1, "MicrowaveOvenControl", "MaxCookTime") == products.MICROWAVE_COOK_TIME[1]
    power_features = fabric.read("microwave_oven", 1, "MicrowaveOvenControl", "FeatureMap")
    assert power_features == 1  # PowerAsNumber without PowerNumberLimits: the spec's fixed 10..100 step 10
    low, high, step = products.MICROWAVE_POWER
    for power in range(low, high + 1, step):
        assert env.call("microwave_oven", "microwave_steam_oven.set_power_level", {"power_level": power}).ok
        assert env.read("microwave_oven", "microwave_steam_oven.power_level") == power
    for seconds in (1, 59, 600, 3600):
        assert env.call("microwave_oven", "microwave_steam_oven.set_cooking_time", {"target_cooking_time": seconds}).ok
        assert env.read("microwave_oven", "microwave_steam_oven.target_cooking_time") == seconds
    supported = fabric.read("microwave_oven", 1, "MicrowaveOvenMode", "SupportedModes")
    assert {m["label"].lower(): m["mode"] for m in supported} == products.MICROWAVE_MODES
    view = next(d for d in env.export()["devices"] if d["userdata"]["did"] == "microwave_oven")
    assert view["attributes"] == [] and [c["name"] for c in view["components"]] == ["microwave_steam_oven"]
    assert view["userdata"]["category"] == "oven" and view["userdata"]["subcategory"] == "microwave_oven"


def test_washer_spin_speed_and_rinses_follow_the_programme() -> None:
    """The options are the device's SpinSpeeds labels and NumberOfRinsesEnum; a programme offers some of them,
    and a value the current programme does not offer is refused by the device without changing anything."""
    from agent_tools.smh import products

    fabric = every_product_home()
    env = HomeEnv(fabric)
    speeds = fabric.read("laundry_washer", 1, "LaundryWasherControls", "SpinSpeeds")
    assert tuple(s.lower().replace(" ", "_") for s in speeds) == products.SPIN_SPEED_LABELS
    assert fabric.read("laundry_washer", 1, "LaundryWasherControls", "SupportedRinses") == sorted(
        products.RINSES.values()
    )
    for speed in products.SPIN_SPEED_LABELS:
        assert env.call("laundry_washer", "set_spin_speed", {"spin_speed": speed}).ok
        assert env.read("laundry_washer", "spin_speed") == speed
    for rinses in products.RINSES:
        assert env.call("laundry_washer", "set_rinses", {"rinses": rinses}).ok
        assert env.read("laundry_washer", "rinses") == rinses
    assert env.call("laundry_washer", "set_wash_mode", {"wash_mode": "delicate"}).ok
    assert env.offered("laundry_washer", "set_spin_speed") == {"spin_speed": ("low", "medium")}
    assert env.offered("laundry_washer", "set_rinses") == {"rinses": ("normal", "extra")}
    assert env.device_state("laundry_washer")["spin_speed"] in ("low", "medium")
    before = fabric.snapshot()
    for locator, arguments in [("set_spin_speed", {"spin_speed": "extra_high"}), ("set_rinses", {"rinses": "none"})]:
        refused = env.call("laundry_washer", locator, arguments)
        assert (refused.ok, refused.code) == (False, "DEVICE_REFUSED"), refused
        assert f"offered now: {list(env.offered('laundry_washer', locator)[next(iter(arguments))])}" in refused.message
    assert fabric.snapshot() == before
    assert env.call("laundry_washer", "set_spin_speed", {"spin_speed": "medium"}).ok
    # Matter's value is the index in the programme's SpinSpeeds, ["Low", "Medium"] now
    assert fabric.read("laundry_washer", 1, "LaundryWasherControls", "SpinSpeedCurrent") == 1


def test_refrigerator_and_freezer_limits_and_modes_are_the_devices_own() -> None:
    from agent_tools.smh import products

    fabric = every_product_home()
    env = HomeEnv(fabric)
    for did in ("refrigerator", "freezer"):
        limits = (
            fabric.read(did, 1, "TemperatureControl", "MinTemperature") / 100,
            fabric.read(did, 1, "TemperatureControl", "MaxTemperature") / 100,
        )
        assert limits == products.CABINET_LIMITS[did]
        supported = fabric.read(did, 1, "RefrigeratorAndTemperatureControlledCabinetMode", "SupportedModes")
        assert {m["label"].lower().replace(" ", "_"): m["mode"] for m in supported} == products.CABINET_MODES
        for degrees in range(int(limits[0]), int(limits[1]) + 1):
            assert env.call(did, "set_target_temperature", {"target_temperature": degrees}).ok
            assert env.read(did, "target_temperature") == degrees
        assert env.userdata(did)["category"] == "refrigerator" and env.userdata(did)["subcategory"] == did
