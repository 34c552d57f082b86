"""SimuHome config codec: import, key translation, lossless round trip, unknown fields kept.

The SimuHome config below is written by hand from the facts (§2.2, §5.1): 5 rooms, all 16 benchmark
device types, SimuHome's attribute paths and value shapes; every value is invented.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from emulator.home_config import HomeConfigError, dump_home, loads_home
from emulator.home_generator import SIMUHOME_DEVICE_TYPES, generate_home
from emulator.simuhome_config import (
    SimuHomeOrigin,
    from_simuhome,
    our_key,
    our_path,
    simuhome_key,
    simuhome_path,
    to_our_value,
    to_simuhome,
    to_simuhome_value,
)


def channel(major: int, name: str) -> dict[str, Any]:
    return {"MajorNumber": major, "MinorNumber": 0, "Name": name, "CallSign": name,
            "AffiliateCallSign": name[:3], "Identifier": name.lower(), "Type": 2}


def modes(*labels: str, start: int = 0) -> list[dict[str, Any]]:
    return [{"label": label, "mode": start + i, "ModeTags": []} for i, label in enumerate(labels)]


OPERATIONAL_STATES = [{"operational_state_id": i} for i in range(4)]


def simuhome_config() -> dict[str, Any]:
    return {
        "tick_interval": 0.1,
        "base_time": "2025-08-23 14:07:31",
        "current_tick": 0,  # unknown to the reset body: must survive
        "x_generator_note": {"augment_rounds": 20},
        "rooms": {
            "living_room": {
                "state": {"temperature": 2712, "humidity": 4630, "illuminance": 835.27, "pm10": 41.5},
                "devices": [
                    {"device_id": "living_room_on_off_light_1", "device_type": "on_off_light",
                     "attributes": {"1.OnOff.OnOff": False}},
                    {"device_id": "living_room_dimmable_light_1", "device_type": "dimmable_light",
                     "attributes": {"1.OnOff.OnOff": True, "1.OnOff.GlobalSceneControl": True,
                                    "1.LevelControl.CurrentLevel": 181, "1.LevelControl.OnLevel": None,
                                    "1.LevelControl.Options": 0, "1.LevelControl.RemainingTime": 0}},
                    {"device_id": "living_room_window_covering_controller_1",
                     "device_type": "window_covering_controller",
                     "attributes": {"1.WindowCovering.CurrentPositionLiftPercent100ths": 2500,
                                    "1.WindowCovering.TargetPositionLiftPercent100ths": 2500,
                                    "1.WindowCovering.OperationalStatus": 0, "1.WindowCovering.Mode": 1,
                                    "1.WindowCovering.NumberOfActuationsLift": 3}},
                    {"device_id": "living_room_tv_1", "device_type": "tv", "ui_hint": "wall",
                     "attributes": {"1.OnOff.OnOff": True,
                                    "1.Channel.ChannelList": [channel(1, "KBS1"), channel(2, "KBS2"),
                                                              channel(3, "MBC")],
                                    "1.Channel.Lineup": {"OperatorName": "Cable Co", "LineupName": "Basic",
                                                         "PostalCode": "04524", "LineupInfoType": 0},
                                    "1.Channel.CurrentChannel": channel(2, "KBS2"),
                                    "1.MediaPlayback.CurrentState": 0, "1.LevelControl.CurrentLevel": 30,
                                    "1.KeypadInput.FeatureMap": 7}},
                    {"device_id": "living_room_rvc_1", "device_type": "rvc",
                     "attributes": {
                         "1.RVCRunMode.SupportedModes": [
                             {"Label": "Idle", "Mode": 1, "ModeTags": [16384]},
                             {"Label": "Vacuum", "Mode": 2, "ModeTags": [16385]},
                             {"Label": "Mapping", "Mode": 3, "ModeTags": [16386]}],
                         "1.RVCRunMode.CurrentMode": 1,
                         "1.RVCOperationalState.OperationalStateList": [
                             {"operational_state_id": i} for i in (0, 1, 2, 3, 64, 65, 66)],
                         "1.RVCOperationalState.OperationalState": 66,
                         "1.RVCOperationalState.OperationalError": {"error_state_id": 0},
                         "1.RVCOperationalState.CountdownTime": None,
                         "1.RVCCleanMode.SupportedModes": [
                             {"Label": "Vacuum", "Mode": 1, "ModeTags": [{"value": 16385}]},
                             {"Label": "Deep Clean", "Mode": 2, "ModeTags": [{"value": 16386}]},
                             {"Label": "Mop", "Mode": 3, "ModeTags": [{"value": 16387}]}],
                         "1.RVCCleanMode.CurrentMode": 1}},
                ],
            },
            "bathroom": {
                "state": {"temperature": 2650.0, "humidity": 6120, "illuminance": 402.0, "pm10": 23.08,
                          "co2": 640},
                "label": "upstairs bath",
                "devices": [
                    {"device_id": "bathroom_on_off_light_1", "device_type": "on_off_light",
                     "attributes": {"1.OnOff.OnOff": False}},
                    {"device_id": "bathroom_air_purifier_1", "device_type": "air_purifier",
                     "attributes": {"1.OnOff.OnOff": True, "1.FanControl.FanMode": 2,
                                    "1.FanControl.FanModeSequence": 1, "1.FanControl.PercentSetting": 50,
                                    "1.FanControl.PercentCurrent": 50, "1.Identify.IdentifyTime": 0,
                                    "1.Identify.IdentifyType": 2,
                                    "1.Descriptor.DeviceTypeList": [{"DeviceType": 45, "Revision": 1}],
                                    "1.Descriptor.ServerList": [29, 3, 514]}},
                    {"device_id": "bathroom_humidifier_1", "device_type": "humidifier",
                     "attributes": {"1.OnOff.OnOff": True, "1.FanControl.PercentSetting": 66,
                                    "1.FanControl.PercentCurrent": 66, "1.FanControl.FanMode": 2,
                                    "2.RelativeHumidityMeasurement.MeasuredValue": 6120,
                                    "2.RelativeHumidityMeasurement.MinMeasuredValue": 1000,
                                    "2.RelativeHumidityMeasurement.MaxMeasuredValue": 9500,
                                    "2.RelativeHumidityMeasurement.Tolerance": None}},
                    {"device_id": "bathroom_dehumidifier_1", "device_type": "dehumidifier",
                     "attributes": {"1.OnOff.OnOff": False, "1.FanControl.PercentSetting": 0,
                                    "2.RelativeHumidityMeasurement.MeasuredValue": 6120}},
                    {"device_id": "bathroom_laundry_washer_1", "device_type": "laundry_washer",
                     "attributes": {
                         "1.OnOff.OnOff": True,
                         "1.OperationalState.PhaseList": ["Pre-wash", "Main wash", "Rinse", "Spin", "Complete"],
                         "1.OperationalState.CurrentPhase": 1, "1.OperationalState.CountdownTime": 2410,
                         "1.OperationalState.OperationalStateList": OPERATIONAL_STATES,
                         "1.OperationalState.OperationalState": 1,
                         "1.OperationalState.OperationalError": {"error_state_id": 0},
                         "1.LaundryWasherMode.SupportedModes": modes("Normal", "Delicate", "Heavy", "Whites",
                                                                     "Quick Normal", "Heavy Whites"),
                         "1.LaundryWasherMode.CurrentMode": 0,
                         "1.LaundryWasherControls.SpinSpeeds": ["LOW", "MEDIUM", "HIGH"],
                         "1.LaundryWasherControls.SpinSpeedCurrent": 1,
                         "1.LaundryWasherControls.NumberOfRinses": 1,
                         "1.LaundryWasherControls.SupportedRinses": [0, 1, 2],
                         "1.TemperatureControl.TemperatureSetpoint": 4000,
                         "1.TemperatureControl.MinTemperature": 500,
                         "1.TemperatureControl.MaxTemperature": 9500}},
                    {"device_id": "bathroom_laundry_dryer_1", "device_type": "laundry_dryer",
                     "attributes": {
                         "1.OnOff.OnOff": False,
                         "1.OperationalState.PhaseList": ["Heating", "Drying", "CoolDown", "Complete"],
                         "1.OperationalState.CurrentPhase": None, "1.OperationalState.OperationalState": 0,
                         "1.OperationalState.OperationalError": {"error_state_id": 0},
                         "1.LaundryDryerControls.SupportedDrynessLevels": [0, 1, 2, 3],
                         "1.LaundryDryerControls.SelectedDrynessLevel": 2}},
                ],
            },
            "kitchen": {
                "state": {"temperature": 2841, "humidity": 5210, "illuminance": 1120.66, "pm10": 77.9},
                "devices": [
                    {"device_id": "kitchen_on_off_light_1", "device_type": "on_off_light",
                     "attributes": {"1.OnOff.OnOff": False}},
                    {"device_id": "kitchen_dishwasher_1", "device_type": "dishwasher",
                     "attributes": {
                         "1.OnOff.OnOff": True,
                         "1.OperationalState.PhaseList": ["Pre-wash", "Main wash", "Rinse", "Dry", "Complete"],
                         "1.OperationalState.CurrentPhase": 2, "1.OperationalState.CountdownTime": 1180,
                         "1.OperationalState.OperationalStateList": OPERATIONAL_STATES,
                         "1.OperationalState.OperationalState": 1,
                         "1.OperationalState.OperationalError": {"error_state_id": 0},
                         "1.DishwasherMode.SupportedModes": modes("Normal", "Heavy Duty", "Light Wash", "Quick Wash",
                                                                  "Low Energy", "Silent"),
                         "1.DishwasherMode.CurrentMode": 3,
                         "1.DishwasherAlarm.Mask": 0, "1.DishwasherAlarm.Supported": 63}},
                    {"device_id": "kitchen_freezer_1", "device_type": "freezer",
                     "attributes": {
                         "1.RTCCMode.SupportedModes": [
                             {"label": "Normal", "mode": 0, "ModeTags": [0]},
                             {"label": "Energy Save", "mode": 4, "ModeTags": [4]},
                             {"label": "Rapid Freeze", "mode": 16385, "ModeTags": [16385]}],
                         "1.RTCCMode.CurrentMode": 0,
                         "1.TemperatureControl.TemperatureSetpoint": -1800,
                         "1.TemperatureControl.MinTemperature": -2300,
                         "1.TemperatureControl.MaxTemperature": -1500,
                         "1.TemperatureMeasurement.MeasuredValue": -1800}},
                    {"device_id": "kitchen_refrigerator_1", "device_type": "refrigerator",
                     "attributes": {"1.RTCCMode.CurrentMode": 4,
                                    "1.TemperatureControl.TemperatureSetpoint": 400,
                                    "1.TemperatureMeasurement.MeasuredValue": 400}},
                    {"device_id": "kitchen_air_conditioner_1", "device_type": "air_conditioner",
                     "attributes": {"1.OnOff.OnOff": True, "1.Thermostat.LocalTemperature": 2841,
                                    "1.Thermostat.OccupiedCoolingSetpoint": 2000,
                                    "1.Thermostat.OccupiedHeatingSetpoint": 2800,
                                    "1.Thermostat.ControlSequenceOfOperation": 4, "1.Thermostat.SystemMode": 3,
                                    "1.FanControl.FanMode": 0, "1.FanControl.PercentSetting": 0}},
                ],
            },
            "utility_room": {
                "state": {"temperature": 2590, "humidity": 5830, "illuminance": 310.4, "pm10": 55},
                "devices": [
                    {"device_id": "utility_room_on_off_light_1", "device_type": "on_off_light",
                     "attributes": {"1.OnOff.OnOff": False}},
                    {"device_id": "utility_room_heat_pump_1", "device_type": "heat_pump",
                     "attributes": {
                         "1.PowerSource.Status": 2, "1.PowerSource.Description": "AC Grid Connection",
                         "1.PowerSource.WiredNominalVoltage": 220000,
                         "1.Descriptor.TagList": [{"MfgCode": None, "NamespaceID": 2, "Tag": 0, "Label": "Grid"}],
                         "2.ElectricalPowerMeasurement.ActivePower": 3450000,
                         "2.ElectricalPowerMeasurement.PowerFactor": 9500,
                         "2.ElectricalEnergyMeasurement.CumulativeEnergyImported": None,
                         "3.DeviceEnergyManagement.ESAType": 1,
                         "3.DeviceEnergyManagement.AbsMinPower": 1000000,
                         "3.DeviceEnergyManagement.PowerAdjustmentCapability": {"power_adjust_capability": [],
                                                                                "cause": 0},
                         "4.Thermostat.SystemMode": 4, "4.Thermostat.OccupiedHeatingSetpoint": 1900,
                         "4.Thermostat.OccupiedCoolingSetpoint": 2000, "4.Thermostat.LocalTemperature": 2590}},
                    {"device_id": "utility_room_fan_1", "device_type": "fan",
                     "attributes": {"1.OnOff.OnOff": True, "1.FanControl.PercentSetting": 33,
                                    "1.FanControl.FanMode": 1,
                                    "1.fanControl.legacySpeed": 3,  # not an attribute path we can express
                                    "1.Channel.CurrentChannel.MajorNumber": 1}},
                ],
            },
            "office": {
                "devices": [  # no state: SimuHome's defaults apply
                    {"device_id": "office_on_off_light_1", "device_type": "on_off_light",
                     "attributes": {"1.OnOff.OnOff": True}},
                    {"device_id": "office_fan_1", "device_type": "fan", "attributes": {"1.OnOff.OnOff": False}},
                    {"device_id": "office_fan_2", "device_type": "fan", "attributes": {}},
                ],
            },
        },
    }


@pytest.fixture
def loaded() -> tuple[Any, SimuHomeOrigin, dict[str, Any]]:
    data = simuhome_config()
    config, origin = from_simuhome(copy.deepcopy(data))
    return config, origin, data


def test_fixture_covers_every_benchmark_device_type():
    types = {d["device_type"] for room in simuhome_config()["rooms"].values() for d in room["devices"]}
    assert types == set(SIMUHOME_DEVICE_TYPES)


# --- import --------------------------------------------------------------------------------------

def test_import_builds_rooms_from_ids_and_states(loaded):
    config, _, _ = loaded
    assert [r.id for r in config.rooms] == ["living_room", "bathroom", "kitchen", "utility_room", "office"]
    living = config.room("living_room")
    assert (living.name, living.type, living.floor, living.parent) == ("Living Room", "living_room", 0, None)
    assert config.room("utility_room").name == "Utility Room"
    assert living.environment.model_dump() == {"temperature": 2712, "humidity": 4630, "illuminance": 835.27,
                                               "pm10": 41.5}
    assert living.baseline == living.environment
    assert config.room("office").environment.model_dump() == {"temperature": 2500, "humidity": 5000,
                                                              "illuminance": 1000, "pm10": 35.0}
    assert config.base_time == "2025-08-23 14:07:31" and config.tier == "simuhome"
    assert len(config.devices) == 22
    assert config.device("office_fan_2").room == "office"


def test_import_translates_struct_keys_and_cluster_names(loaded):
    config, _, _ = loaded
    dishwasher = config.device("kitchen_dishwasher_1").attributes
    assert dishwasher["1.DishwasherMode.SupportedModes"][1] == {"label": "Heavy Duty", "mode": 1, "modeTags": []}
    assert dishwasher["1.OperationalState.OperationalStateList"][2] == {"operationalStateID": 2}
    assert dishwasher["1.OperationalState.OperationalError"] == {"errorStateID": 0}
    tv = config.device("living_room_tv_1").attributes
    assert tv["1.Channel.CurrentChannel"] == {"majorNumber": 2, "minorNumber": 0, "name": "KBS2",
                                              "callSign": "KBS2", "affiliateCallSign": "KBS",
                                              "identifier": "kbs2", "type": 2}
    assert tv["1.Channel.Lineup"]["lineupInfoType"] == 0
    rvc = config.device("living_room_rvc_1").attributes
    assert "1.RVCRunMode.SupportedModes" not in rvc
    assert rvc["1.RvcRunMode.SupportedModes"][0] == {"label": "Idle", "mode": 1, "modeTags": [{"value": 16384}]}
    assert rvc["1.RvcCleanMode.SupportedModes"][2] == {"label": "Mop", "mode": 3, "modeTags": [{"value": 16387}]}
    assert rvc["1.RvcOperationalState.OperationalError"] == {"errorStateID": 0}
    freezer = config.device("kitchen_freezer_1").attributes
    assert freezer["1.RefrigeratorAndTemperatureControlledCabinetMode.CurrentMode"] == 0
    heat_pump = config.device("utility_room_heat_pump_1").attributes
    assert heat_pump["3.DeviceEnergyManagement.PowerAdjustmentCapability"] == {"powerAdjustCapability": [],
                                                                               "cause": 0}
    assert heat_pump["1.Descriptor.TagList"] == [{"mfgCode": None, "namespaceID": 2, "tag": 0, "label": "Grid"}]
    purifier = config.device("bathroom_air_purifier_1").attributes
    assert purifier["1.Descriptor.DeviceTypeList"] == [{"deviceType": 45, "revision": 1}]
    # Paths we cannot express are not loaded (they stay in the origin).
    assert set(config.device("utility_room_fan_1").attributes) == {"1.OnOff.OnOff", "1.FanControl.PercentSetting",
                                                                   "1.FanControl.FanMode"}


def test_import_accepts_a_whole_episode():
    episode = {"meta": {"seed": 4}, "query": "…", "initial_home_config": simuhome_config()}
    config, origin = from_simuhome(episode)
    assert len(config.rooms) == 5 and origin.top_level["current_tick"] == 0


def test_invalid_simuhome_data_names_the_path():
    data = simuhome_config()
    del data["rooms"]["kitchen"]["devices"][1]["device_id"]
    data["rooms"]["bathroom"]["state"]["humidity"] = "wet"
    with pytest.raises(HomeConfigError) as caught:
        from_simuhome(data, source="episode.json")
    paths = [path for path, _ in caught.value.problems]
    assert "rooms.kitchen.devices[1].device_id" in paths
    assert any(path.startswith("rooms.bathroom.state.humidity") for path in paths)
    assert str(caught.value).startswith("episode.json:")


def test_out_of_bounds_room_state_is_refused_with_our_path():
    data = simuhome_config()
    data["rooms"]["kitchen"]["state"]["humidity"] = 12000
    with pytest.raises(HomeConfigError, match=r"rooms\[2\]\.environment\.humidity"):
        from_simuhome(data)


# --- round trip ----------------------------------------------------------------------------------

def test_unchanged_round_trip_is_exact(loaded):
    config, origin, data = loaded
    exported = to_simuhome(config, origin)
    assert exported == data
    assert json.dumps(exported) == json.dumps(data)  # same key order too


def test_round_trip_survives_our_file_format_and_a_serialised_origin(loaded):
    config, origin, data = loaded
    reloaded = loads_home(dump_home(config))  # sorted attribute keys, our JSON
    origin_again = SimuHomeOrigin.model_validate_json(origin.model_dump_json())
    assert json.dumps(to_simuhome(reloaded, origin_again)) == json.dumps(data)
    assert to_simuhome(json.loads(dump_home(config)), origin) == data  # plain data in our format


def test_equivalent_values_are_written_verbatim(loaded):
    config, origin, data = loaded
    bathroom = config.room("bathroom")
    bathroom.environment = bathroom.environment.model_copy(update={"temperature": 2650})  # was 2650.0
    config.device("kitchen_dishwasher_1").attributes["1.DishwasherMode.SupportedModes"] = [
        {"label": m["label"], "mode": float(m["mode"]), "modeTags": []}
        for m in data["rooms"]["kitchen"]["devices"][1]["attributes"]["1.DishwasherMode.SupportedModes"]]
    exported = to_simuhome(config, origin)
    assert exported == data
    assert isinstance(exported["rooms"]["bathroom"]["state"]["temperature"], float)


def test_changed_values_are_written_in_simuhome_spelling(loaded):
    config, origin, data = loaded
    attrs = config.device("kitchen_dishwasher_1").attributes
    attrs["1.DishwasherMode.CurrentMode"] = 1
    attrs["1.OperationalState.OperationalError"] = {"errorStateID": 3}
    attrs["1.DishwasherMode.SupportedModes"] = attrs["1.DishwasherMode.SupportedModes"][:2]
    config.device("living_room_tv_1").attributes["1.Channel.CurrentChannel"] = {
        "majorNumber": 3, "minorNumber": 0, "name": "MBC", "callSign": "MBC", "affiliateCallSign": "MBC",
        "identifier": "mbc", "type": 2}
    rvc = config.device("living_room_rvc_1").attributes
    rvc["1.RvcRunMode.SupportedModes"] = rvc["1.RvcRunMode.SupportedModes"][:1]
    rvc["1.RvcRunMode.CurrentMode"] = 2
    config.device("utility_room_heat_pump_1").attributes["3.DeviceEnergyManagement.PowerAdjustmentCapability"] = {
        "powerAdjustCapability": None, "cause": 1}
    kitchen = config.room("kitchen")
    kitchen.environment = kitchen.environment.model_copy(update={"pm10": 12.5})
    bathroom = config.room("bathroom")
    bathroom.environment = bathroom.environment.model_copy(update={"humidity": 7000})

    exported = to_simuhome(config, origin)
    devices = {d["device_id"]: d for room in exported["rooms"].values() for d in room["devices"]}
    dishwasher = devices["kitchen_dishwasher_1"]["attributes"]
    assert dishwasher["1.DishwasherMode.CurrentMode"] == 1
    assert dishwasher["1.OperationalState.OperationalError"] == {"error_state_id": 3}
    assert dishwasher["1.DishwasherMode.SupportedModes"] == [{"label": "Normal", "mode": 0, "ModeTags": []},
                                                             {"label": "Heavy Duty", "mode": 1, "ModeTags": []}]
    assert devices["living_room_tv_1"]["attributes"]["1.Channel.CurrentChannel"] == channel(3, "MBC")
    rvc_out = devices["living_room_rvc_1"]["attributes"]
    assert rvc_out["1.RVCRunMode.SupportedModes"] == [{"Label": "Idle", "Mode": 1, "ModeTags": [16384]}]
    assert rvc_out["1.RVCRunMode.CurrentMode"] == 2
    assert devices["utility_room_heat_pump_1"]["attributes"]["3.DeviceEnergyManagement.PowerAdjustmentCapability"] \
        == {"power_adjust_capability": None, "cause": 1}
    assert exported["rooms"]["kitchen"]["state"] == {**data["rooms"]["kitchen"]["state"], "pm10": 12.5}
    assert exported["rooms"]["bathroom"]["state"]["co2"] == 640  # unknown state key kept
    assert exported["rooms"]["bathroom"]["state"]["humidity"] == 7000
    # Everything else is untouched.
    assert devices["kitchen_freezer_1"] == data["rooms"]["kitchen"]["devices"][2]
    assert exported["rooms"]["living_room"]["devices"][0] == data["rooms"]["living_room"]["devices"][0]


def test_attributes_we_did_not_load_or_do_not_hold_are_written_back(loaded):
    config, origin, _ = loaded
    fan = config.device("utility_room_fan_1").attributes
    assert "1.fanControl.legacySpeed" in origin.devices["utility_room_fan_1"].not_loaded
    del fan["1.FanControl.FanMode"]  # e.g. a fabric state that does not carry this attribute
    fan["1.FanControl.PercentSetting"] = 70
    fan["1.FanControl.FanModeSequence"] = 2  # new: written too
    exported = to_simuhome(config, origin)
    out = exported["rooms"]["utility_room"]["devices"][2]["attributes"]
    assert out == {"1.OnOff.OnOff": True, "1.FanControl.PercentSetting": 70, "1.FanControl.FanMode": 1,
                   "1.fanControl.legacySpeed": 3, "1.Channel.CurrentChannel.MajorNumber": 1,
                   "1.FanControl.FanModeSequence": 2}


def test_global_attributes_stay_in_the_origin(loaded):
    config, origin, data = loaded
    assert "1.KeypadInput.FeatureMap" not in config.device("living_room_tv_1").attributes
    assert "1.KeypadInput.FeatureMap" in origin.devices["living_room_tv_1"].not_loaded
    assert to_simuhome(config, origin)["rooms"]["living_room"]["devices"][3] == \
        data["rooms"]["living_room"]["devices"][3]


def test_a_richer_state_can_be_cut_back_to_simuhome_paths(loaded):
    config, origin, _ = loaded
    light = config.device("kitchen_on_off_light_1").attributes
    light["1.OnOff.OnOff"] = True
    light["1.Identify.IdentifyTime"] = 0  # our device model has Identify, SimuHome's does not
    new_device = config.devices[0].model_copy(update={"id": "kitchen_on_off_light_2", "room": "kitchen",
                                                      "attributes": {"1.Identify.IdentifyTime": 0}})
    config.devices.append(new_device)
    exported = to_simuhome(config, origin, only_original_attributes=True)
    kitchen = exported["rooms"]["kitchen"]["devices"]
    assert kitchen[0]["attributes"] == {"1.OnOff.OnOff": True}
    assert kitchen[-1]["attributes"] == {"1.Identify.IdentifyTime": 0}  # no origin: written as it is
    assert "1.Identify.IdentifyTime" in to_simuhome(config, origin)["rooms"]["kitchen"]["devices"][0]["attributes"]


def test_unknown_fields_are_kept_at_every_level(loaded):
    config, origin, _ = loaded
    exported = to_simuhome(config, origin)
    assert exported["current_tick"] == 0 and exported["x_generator_note"] == {"augment_rounds": 20}
    assert exported["rooms"]["bathroom"]["label"] == "upstairs bath"
    assert exported["rooms"]["living_room"]["devices"][3]["ui_hint"] == "wall"
    assert "state" not in exported["rooms"]["office"]  # it had none and still sits at the defaults


def test_structural_edits_follow_the_config(loaded):
    config, origin, _ = loaded
    config.base_time = "2025-08-24 08:00:00"
    config.devices = [d for d in config.devices if d.id != "office_fan_2"]
    config.device("office_fan_1").room = "kitchen"
    config.device("office_on_off_light_1").type = "dimmable_light"  # another device under an old id
    office = config.room("office")
    office.environment = office.environment.model_copy(update={"illuminance": 50})
    exported = to_simuhome(config, origin)
    assert exported["base_time"] == "2025-08-24 08:00:00"
    office_out = exported["rooms"]["office"]
    assert office_out["state"] == {"temperature": 2500, "humidity": 5000, "illuminance": 50, "pm10": 35.0}
    assert office_out["devices"] == [{"device_id": "office_on_off_light_1", "device_type": "dimmable_light",
                                      "attributes": {"1.OnOff.OnOff": True}}]
    assert exported["rooms"]["kitchen"]["devices"][-1]["device_id"] == "office_fan_1"


def test_export_without_origin_uses_simuhome_defaults_and_spellings():
    home = generate_home("simuhome", 11)
    exported = to_simuhome(home)
    assert list(exported) == ["tick_interval", "base_time", "rooms"]
    assert exported["tick_interval"] == 0.1 and exported["base_time"] == home.base_time
    first_room = home.rooms[0]
    assert exported["rooms"][first_room.id]["state"] == first_room.environment.model_dump()
    back, _ = from_simuhome(exported)
    assert {d.id: d.attributes for d in back.devices} == {d.id: d.attributes for d in home.devices}
    assert [r.environment for r in back.rooms] == [r.environment for r in home.rooms]


def test_nested_rooms_flatten_on_export():
    home = generate_home("complex", 2)
    exported = to_simuhome(home)
    assert len(exported["rooms"]) == 31
    assert sum(len(room["devices"]) for room in exported["rooms"].values()) == 135
    assert all(set(room) == {"state", "devices"} for room in exported["rooms"].values())


# --- spelling helpers ----------------------------------------------------------------------------

@pytest.mark.parametrize(("simuhome", "ours"), [
    ("operational_state_id", "operationalStateID"), ("error_state_id", "errorStateID"),
    ("error_state_label", "errorStateLabel"), ("ModeTags", "modeTags"), ("MajorNumber", "majorNumber"),
    ("AffiliateCallSign", "affiliateCallSign"), ("NamespaceID", "namespaceID"), ("MfgCode", "mfgCode"),
    ("ESAType", "esaType"), ("power_adjust_capability", "powerAdjustCapability"), ("label", "label"),
])
def test_our_key(simuhome: str, ours: str):
    assert our_key(simuhome) == ours


@pytest.mark.parametrize(("ours", "cluster", "simuhome"), [
    ("operationalStateID", "OperationalState", "operational_state_id"),
    ("errorStateID", "RvcOperationalState", "error_state_id"),
    ("modeTags", "DishwasherMode", "ModeTags"), ("label", "DishwasherMode", "label"),
    ("label", "RvcRunMode", "Label"), ("majorNumber", "Channel", "MajorNumber"),
    ("powerAdjustCapability", "DeviceEnergyManagement", "power_adjust_capability"),
    ("deviceType", "Descriptor", "DeviceType"),
])
def test_simuhome_key(ours: str, cluster: str, simuhome: str):
    assert simuhome_key(ours, cluster) == simuhome


def test_paths_translate_both_ways():
    assert our_path("1.RTCCMode.CurrentMode") == "1.RefrigeratorAndTemperatureControlledCabinetMode.CurrentMode"
    assert simuhome_path("1.RefrigeratorAndTemperatureControlledCabinetMode.CurrentMode") == "1.RTCCMode.CurrentMode"
    assert our_path("1.OnOff.OnOff") == "1.OnOff.OnOff" == simuhome_path("1.OnOff.OnOff")
    assert our_path("1.Channel.CurrentChannel.MajorNumber") is None
    assert our_path("ep1.OnOff.OnOff") is None
    assert our_path("1.RVCRunMode.ClusterRevision") is None


def test_value_translation_uses_the_original_as_template():
    original = [{"Label": "Idle", "Mode": 1, "ModeTags": [16384]}]
    ours = to_our_value(original)
    assert ours == [{"label": "Idle", "mode": 1, "modeTags": [{"value": 16384}]}]
    assert to_simuhome_value(ours, "RvcRunMode", original) == original
    # Without a template, the cluster's known style applies and mode tags stay structs.
    assert to_simuhome_value(ours, "RvcRunMode") == [{"Label": "Idle", "Mode": 1, "ModeTags": [{"Value": 16384}]}]
    assert to_simuhome_value(ours, "DishwasherMode") == [{"label": "Idle", "mode": 1, "ModeTags": [{"value": 16384}]}]
