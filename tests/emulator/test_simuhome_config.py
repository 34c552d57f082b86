"""SimuHome config codec: import, normalisation, key translation, lossless round trip, unknown fields kept.

The SimuHome config below is built from the published-shape inventory (``emulator.simuhome.samples``: every
path and value shape of SimuHome's 600 published homes, values at the ends of the published ranges), plus
fields SimuHome's format does not define, to check that those survive too.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from emulator.home_config import HomeConfigError, dump_home, loads_home
from emulator.home_generation.device_types import SIMUHOME_DEVICE_TYPES
from emulator.home_generation.generator import generate_home
from emulator.simuhome.export_home import SIMUHOME_KNOWN_TYPES, export_for_simuhome, to_simuhome
from emulator.simuhome.import_home import from_simuhome
from emulator.simuhome.origin import SimuHomeOrigin
from emulator.simuhome.paths import our_path, simuhome_path
from emulator.simuhome.samples import inventory_homes
from emulator.simuhome.shapes import path_shapes, shape_of
from emulator.simuhome.spelling import simuhome_key, to_simuhome_value
from emulator.simuhome.values import import_list_or_struct, our_key, spell_ours


def simuhome_config() -> dict[str, Any]:
    """An inventory-built home (all 16 published device types) with a few fields SimuHome does not define."""
    home = inventory_homes()[0]
    rooms = home["rooms"]
    rooms["living_room"]["devices"][3]["ui_hint"] = "wall"  # unknown device field
    rooms["bathroom"]["label"] = "upstairs bath"  # unknown room field
    rooms["bathroom"]["state"]["co2"] = 640  # unknown state key
    fan = rooms["kitchen"]["devices"][3]["attributes"]
    fan["1.fanControl.legacySpeed"] = 3  # not an attribute path we can express
    fan["1.Channel.CurrentChannel.MajorNumber"] = 1
    rooms["office"] = {
        "devices": [  # no state: SimuHome's defaults apply
            {
                "device_id": "office_on_off_light_1",
                "device_type": "on_off_light",
                "attributes": {"1.OnOff.OnOff": True},
            },
            {"device_id": "office_fan_1", "device_type": "fan", "attributes": {"1.OnOff.OnOff": False}},
            {"device_id": "office_fan_2", "device_type": "fan", "attributes": {}},
        ]
    }
    return {
        "tick_interval": home["tick_interval"],
        "base_time": home["base_time"],
        "current_tick": 0,  # unknown to the reset body: must survive
        "x_generator_note": {"augment_rounds": 20},
        "rooms": rooms,
    }


def device_of(data: dict[str, Any], device_id: str) -> dict[str, Any]:
    return next(d for room in data["rooms"].values() for d in room["devices"] if d["device_id"] == device_id)


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
    config, _, data = loaded
    assert [r.id for r in config.rooms] == ["living_room", "bathroom", "kitchen", "utility_room", "office"]
    living = config.room("living_room")
    assert (living.name, living.type, living.floor, living.parent) == ("Living Room", "living_room", 0, None)
    assert config.room("utility_room").name == "Utility Room"
    assert living.environment.model_dump() == data["rooms"]["living_room"]["state"]
    assert living.baseline == living.environment
    assert config.room("office").environment.model_dump() == {
        "temperature": 2500,
        "humidity": 5000,
        "illuminance": 1000,
        "pm10": 35.0,
    }
    assert config.base_time == data["base_time"] and config.tier == "simuhome"
    assert len(config.devices) == 19
    assert config.device("office_fan_2").room == "office"


def test_import_translates_struct_keys_and_cluster_names(loaded):
    config, origin, _ = loaded
    dishwasher = config.device("kitchen_dishwasher_1").attributes
    assert dishwasher["1.DishwasherMode.SupportedModes"][1] == {
        "label": "Heavy Duty",
        "mode": 1,
        "modeTags": [{"value": 0x4001}],
    }
    assert dishwasher["1.OperationalState.OperationalStateList"][2] == {"operationalStateID": 2}
    assert dishwasher["1.OperationalState.OperationalError"] == {"errorStateID": 0}
    tv = config.device("living_room_tv_1").attributes
    assert tv["1.Channel.CurrentChannel"] == {
        "affiliateCallSign": "KBS1",
        "callSign": "KBS1",
        "identifier": "kbs1",
        "majorNumber": 1,
        "minorNumber": 0,
        "name": "KBS1",
        "type": 2,
    }
    assert tv["1.Channel.Lineup"]["lineupInfoType"] == 0
    rvc = config.device("living_room_rvc_1").attributes
    assert "1.RVCRunMode.SupportedModes" not in rvc
    assert rvc["1.RvcRunMode.SupportedModes"][0] == {"label": "Idle", "mode": 1, "modeTags": [{"value": 0x4000}]}
    assert rvc["1.RvcCleanMode.SupportedModes"][2] == {"label": "Mop", "mode": 3, "modeTags": [{"value": 0x4003}]}
    assert rvc["1.RvcOperationalState.OperationalError"] == {"errorStateID": 0}
    freezer = config.device("kitchen_freezer_1").attributes
    assert freezer["1.RefrigeratorAndTemperatureControlledCabinetMode.CurrentMode"] == 0
    heat_pump = config.device("utility_room_heat_pump_1").attributes
    assert heat_pump["3.DeviceEnergyManagement.PowerAdjustmentCapability"] == {"powerAdjustCapability": [], "cause": 0}
    # Paths we cannot express are not loaded (they stay in the origin).
    assert set(config.device("kitchen_fan_1").attributes) == {
        path
        for path in device_of(simuhome_config(), "kitchen_fan_1")["attributes"]
        if path.count(".") == 2 and not path.startswith("1.fanControl")
    }
    assert origin.devices["kitchen_fan_1"].not_loaded == [
        "1.fanControl.legacySpeed",
        "1.Channel.CurrentChannel.MajorNumber",
    ]


def test_import_normalises_simuhome_shapes_to_matter_types(loaded):
    config, origin, _ = loaded
    heat_pump = config.device("utility_room_heat_pump_1").attributes
    # TagList names → SemanticTagStruct (a manufacturer tag of the test vendor: "Grid" has no standard tag).
    assert heat_pump["1.Descriptor.TagList"] == [{"mfgCode": 0xFFF1, "namespaceID": 0, "tag": 0, "label": "Grid"}]
    assert config.device("kitchen_freezer_1").attributes["1.Descriptor.TagList"] == [
        {"mfgCode": None, "namespaceID": 0x41, "tag": 1, "label": "Freezer"}
    ]
    # Null optional struct fields are absent fields; EPM's Accuracy is a list, EEM's a single struct.
    energy_range = heat_pump["2.ElectricalEnergyMeasurement.Accuracy"]["accuracyRanges"][0]
    power_range = heat_pump["2.ElectricalPowerMeasurement.Accuracy"][0]["accuracyRanges"][0]
    for accuracy_range in (energy_range, power_range):
        assert not {"fixedMax", "fixedMin", "fixedTypical"} & set(accuracy_range)
        assert {"percentMax", "percentMin", "percentTypical", "rangeMax", "rangeMin"} <= set(accuracy_range)
    # Spin speeds: SimuHome's speed ids → Matter's labels, the current speed id → its index.
    washer = config.device("bathroom_laundry_washer_1").attributes
    assert washer["1.LaundryWasherControls.SpinSpeeds"] == ["Low", "Medium", "High"]
    assert washer["1.LaundryWasherControls.SpinSpeedCurrent"] == 1
    # The endpoint structure is the fabric's; SimuHome's is kept for the export.
    purifier = config.device("bathroom_air_purifier_1").attributes
    assert "1.Descriptor.DeviceTypeList" not in purifier and "1.Descriptor.ServerList" not in purifier
    assert "1.Descriptor.ServerList" in origin.devices["bathroom_air_purifier_1"].not_loaded
    assert config.device("living_room_dimmable_light_1").attributes["1.LevelControl.CurrentLevel"] == 1
    assert origin.devices["utility_room_heat_pump_1"].normalised["2.ElectricalPowerMeasurement.Accuracy"] == [
        "null-optional-field",
        "struct-field-spelling",
    ]
    counts = origin.normalisation_counts()
    assert counts["tag-names"] == 6 and counts["spin-speed-ids"] == 2 and counts["null-optional-field"] == 2
    assert counts["descriptor-structure-kept"] == 28 and "text-truncated" not in counts


def test_a_list_or_struct_imported_again_gives_the_same_value_and_normalisations_in_a_copy_of_its_own(loaded):
    """Lists and structs are imported once per distinct value (import_list_or_struct): a second import of the same
    home answers as the first — values, normalisations — and no two homes share a value object."""
    first, first_origin, _ = loaded
    again, again_origin = from_simuhome(simuhome_config())
    assert dump_home(again) == dump_home(first)
    assert again_origin.normalisation_counts() == first_origin.normalisation_counts()
    path = "2.ElectricalPowerMeasurement.Accuracy"
    mine = again.device("utility_room_heat_pump_1").attributes[path]
    assert mine == first.device("utility_room_heat_pump_1").attributes[path]
    assert mine is not first.device("utility_room_heat_pump_1").attributes[path]
    assert again_origin.devices["utility_room_heat_pump_1"].normalised[path] == [
        "null-optional-field",
        "struct-field-spelling",
    ]


def test_a_list_that_is_not_json_data_is_imported_each_time_as_it_is():
    applied: set[str] = set()
    value = [{"Value": (1, 2)}]  # a tuple inside: JSON would read it back as a list
    assert import_list_or_struct("Descriptor", "TagList", value, applied) == [{"value": (1, 2)}]
    assert import_list_or_struct("Descriptor", "TagList", value, applied) == [{"value": (1, 2)}]
    assert applied == {"struct-field-spelling"}


def test_spin_speed_ids_map_through_the_speed_list():
    data = simuhome_config()
    washer = device_of(data, "bathroom_laundry_washer_1")["attributes"]
    washer["1.LaundryWasherControls.SpinSpeeds"] = [2, 3]  # SimuHome's Heavy Whites
    washer["1.LaundryWasherControls.SpinSpeedCurrent"] = 3
    config, origin = from_simuhome(data)
    ours = config.device("bathroom_laundry_washer_1").attributes
    assert ours["1.LaundryWasherControls.SpinSpeeds"] == ["High", "Extra High"]
    assert ours["1.LaundryWasherControls.SpinSpeedCurrent"] == 1
    ours["1.LaundryWasherControls.SpinSpeedCurrent"] = 0  # changed: back to SimuHome's id of "High"
    exported = device_of(to_simuhome(config, origin), "bathroom_laundry_washer_1")["attributes"]
    assert exported["1.LaundryWasherControls.SpinSpeedCurrent"] == 2
    assert exported["1.LaundryWasherControls.SpinSpeeds"] == [2, 3]


def test_values_without_a_matter_meaning_are_problems_with_their_json_path():
    data = simuhome_config()
    device_of(data, "bathroom_laundry_washer_1")["attributes"]["1.LaundryWasherControls.SpinSpeeds"] = [0, 9]
    device_of(data, "kitchen_freezer_1")["attributes"]["1.Descriptor.TagList"] = [7]
    with pytest.raises(HomeConfigError) as caught:
        from_simuhome(data, source="episode.json")
    assert caught.value.problems == [
        (
            'rooms.bathroom.devices[3].attributes["1.LaundryWasherControls.SpinSpeeds"][1]',
            "spin speed 9 is not one of SimuHome's speed ids 0..3 (Low, Medium, High, Extra High)",
        ),
        (
            'rooms.kitchen.devices[1].attributes["1.Descriptor.TagList"][0]',
            "a tag must be a name or a SemanticTagStruct, got 7",
        ),
    ]


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
    bathroom.environment = bathroom.environment.model_copy(update={"temperature": 2675})  # was 2675.0
    modes = config.device("kitchen_dishwasher_1").attributes["1.DishwasherMode.SupportedModes"]
    for mode in modes:
        mode["mode"] = float(mode["mode"])
    exported = to_simuhome(config, origin)
    assert exported == data
    assert isinstance(exported["rooms"]["bathroom"]["state"]["temperature"], float)


def test_changed_values_are_written_in_simuhome_shapes(loaded):
    config, origin, data = loaded
    attrs = config.device("kitchen_dishwasher_1").attributes
    attrs["1.DishwasherMode.CurrentMode"] = 1
    attrs["1.OperationalState.OperationalError"] = {"errorStateID": 3, "errorStateLabel": None}
    attrs["1.OperationalState.CountdownTime"] = 5300
    attrs["1.DishwasherMode.SupportedModes"] = attrs["1.DishwasherMode.SupportedModes"][:2]
    config.device("living_room_tv_1").attributes["1.Channel.CurrentChannel"] = {
        "majorNumber": 3,
        "minorNumber": 0,
        "name": "MBC",
        "callSign": "MBC",
        "affiliateCallSign": "MBC",
        "identifier": "mbc",
        "type": 2,
    }
    rvc = config.device("living_room_rvc_1").attributes
    rvc["1.RvcRunMode.SupportedModes"] = rvc["1.RvcRunMode.SupportedModes"][:1]
    rvc["1.RvcRunMode.CurrentMode"] = 2
    heat_pump = config.device("utility_room_heat_pump_1").attributes
    heat_pump["3.DeviceEnergyManagement.PowerAdjustmentCapability"] = {"powerAdjustCapability": [], "cause": 1}
    heat_pump["1.Descriptor.TagList"] = [{"mfgCode": 0xFFF1, "namespaceID": 0, "tag": 0, "label": "Mains"}]
    heat_pump["2.ElectricalPowerMeasurement.Accuracy"][0]["accuracyRanges"][0]["percentMax"] = 50
    kitchen = config.room("kitchen")
    kitchen.environment = kitchen.environment.model_copy(update={"pm10": 12})
    bathroom = config.room("bathroom")
    bathroom.environment = bathroom.environment.model_copy(update={"humidity": 7000})

    exported = to_simuhome(config, origin)
    dishwasher = device_of(exported, "kitchen_dishwasher_1")["attributes"]
    assert dishwasher["1.DishwasherMode.CurrentMode"] == 1
    assert dishwasher["1.OperationalState.OperationalError"] == {"error_state_id": 3}
    assert dishwasher["1.OperationalState.CountdownTime"] == 5300
    assert dishwasher["1.DishwasherMode.SupportedModes"] == [
        {"ModeTags": [0x4000], "label": "Normal", "mode": 0},
        {"ModeTags": [0x4001], "label": "Heavy Duty", "mode": 1},
    ]
    assert device_of(exported, "living_room_tv_1")["attributes"]["1.Channel.CurrentChannel"] == {
        "AffiliateCallSign": "MBC",
        "CallSign": "MBC",
        "Identifier": "mbc",
        "MajorNumber": 3,
        "MinorNumber": 0,
        "Name": "MBC",
        "Type": 2,
    }
    rvc_out = device_of(exported, "living_room_rvc_1")["attributes"]
    assert rvc_out["1.RVCRunMode.SupportedModes"] == [{"Label": "Idle", "Mode": 1, "ModeTags": [0x4000]}]
    assert rvc_out["1.RVCRunMode.CurrentMode"] == 2
    heat_pump_out = device_of(exported, "utility_room_heat_pump_1")["attributes"]
    assert heat_pump_out["3.DeviceEnergyManagement.PowerAdjustmentCapability"] == {
        "cause": 1,
        "power_adjust_capability": [],
    }
    assert heat_pump_out["1.Descriptor.TagList"] == ["Mains"]
    accuracy = heat_pump_out["2.ElectricalPowerMeasurement.Accuracy"][0]["AccuracyRanges"][0]
    assert accuracy["PercentMax"] == 50 and accuracy["FixedMax"] is None  # SimuHome's nulls come back
    for path in ("1.DishwasherMode.SupportedModes", "1.OperationalState.OperationalError"):
        assert shape_of(dishwasher[path]) in path_shapes("dishwasher", path).shapes
    assert (
        shape_of(heat_pump_out["2.ElectricalPowerMeasurement.Accuracy"])
        in path_shapes("heat_pump", "2.ElectricalPowerMeasurement.Accuracy").shapes
    )
    assert exported["rooms"]["kitchen"]["state"] == {**data["rooms"]["kitchen"]["state"], "pm10": 12.0}
    assert exported["rooms"]["bathroom"]["state"]["co2"] == 640  # unknown state key kept
    assert exported["rooms"]["bathroom"]["state"]["humidity"] == 7000.0
    # Everything else is untouched.
    assert device_of(exported, "kitchen_freezer_1") == device_of(data, "kitchen_freezer_1")
    assert exported["rooms"]["living_room"]["devices"][0] == data["rooms"]["living_room"]["devices"][0]


def test_attributes_we_did_not_load_or_do_not_hold_are_written_back(loaded):
    config, origin, data = loaded
    fan = config.device("kitchen_fan_1").attributes
    assert "1.fanControl.legacySpeed" in origin.devices["kitchen_fan_1"].not_loaded
    del fan["1.FanControl.FanMode"]  # e.g. a fabric state that does not carry this attribute
    fan["1.FanControl.PercentSetting"] = 70
    fan["1.FanControl.SpeedMax"] = 10  # new: written too
    out = device_of(to_simuhome(config, origin), "kitchen_fan_1")["attributes"]
    expected = {
        **device_of(data, "kitchen_fan_1")["attributes"],
        "1.FanControl.PercentSetting": 70,
        "1.FanControl.SpeedMax": 10,
    }
    assert out == expected and list(out) == list(expected)


def test_global_attributes_stay_in_the_origin(loaded):
    config, origin, data = loaded
    assert "1.KeypadInput.FeatureMap" not in config.device("living_room_tv_1").attributes
    assert "1.KeypadInput.FeatureMap" in origin.devices["living_room_tv_1"].not_loaded
    assert device_of(to_simuhome(config, origin), "living_room_tv_1") == device_of(data, "living_room_tv_1")


def test_a_richer_state_can_be_cut_back_to_simuhome_paths(loaded):
    config, origin, _ = loaded
    light = config.device("living_room_on_off_light_1").attributes
    light["1.OnOff.OnOff"] = True
    light["1.Identify.IdentifyTime"] = 0  # our device model has Identify, SimuHome's does not
    new_device = config.devices[0].model_copy(
        update={"id": "living_room_on_off_light_2", "attributes": {"1.Identify.IdentifyTime": 0}}
    )
    config.devices.append(new_device)
    exported = to_simuhome(config, origin, only_original_attributes=True)
    living = exported["rooms"]["living_room"]["devices"]
    assert living[0]["attributes"]["1.OnOff.OnOff"] is True and "1.Identify.IdentifyTime" not in living[0]["attributes"]
    assert living[-1]["attributes"] == {"1.Identify.IdentifyTime": 0}  # no origin: written as it is
    assert (
        "1.Identify.IdentifyTime" in device_of(to_simuhome(config, origin), "living_room_on_off_light_1")["attributes"]
    )


def test_unknown_fields_are_kept_at_every_level(loaded):
    config, origin, _ = loaded
    exported = to_simuhome(config, origin)
    assert exported["current_tick"] == 0 and exported["x_generator_note"] == {"augment_rounds": 20}
    assert exported["rooms"]["bathroom"]["label"] == "upstairs bath"
    assert device_of(exported, "living_room_tv_1")["ui_hint"] == "wall"
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
    assert office_out["state"] == {"temperature": 2500.0, "humidity": 5000.0, "illuminance": 50.0, "pm10": 35.0}
    assert office_out["devices"] == [
        {"device_id": "office_on_off_light_1", "device_type": "dimmable_light", "attributes": {"1.OnOff.OnOff": True}}
    ]
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
    assert sum(len(room["devices"]) for room in exported["rooms"].values()) == len(home.devices) == 147
    assert all(set(room) == {"state", "devices"} for room in exported["rooms"].values())


# --- spelling helpers ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("simuhome", "ours"),
    [
        ("operational_state_id", "operationalStateID"),
        ("error_state_id", "errorStateID"),
        ("error_state_label", "errorStateLabel"),
        ("ModeTags", "modeTags"),
        ("MajorNumber", "majorNumber"),
        ("AffiliateCallSign", "affiliateCallSign"),
        ("NamespaceID", "namespaceID"),
        ("MfgCode", "mfgCode"),
        ("ESAType", "esaType"),
        ("power_adjust_capability", "powerAdjustCapability"),
        ("label", "label"),
    ],
)
def test_our_key(simuhome: str, ours: str):
    assert our_key(simuhome) == ours


@pytest.mark.parametrize(
    ("ours", "cluster", "simuhome"),
    [
        ("operationalStateID", "OperationalState", "operational_state_id"),
        ("errorStateID", "RvcOperationalState", "error_state_id"),
        ("modeTags", "DishwasherMode", "ModeTags"),
        ("label", "DishwasherMode", "label"),
        ("label", "RvcRunMode", "Label"),
        ("majorNumber", "Channel", "MajorNumber"),
        ("powerAdjustCapability", "DeviceEnergyManagement", "power_adjust_capability"),
        ("deviceType", "Descriptor", "DeviceType"),
    ],
)
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
    ours = spell_ours(original)
    assert ours == [{"label": "Idle", "mode": 1, "modeTags": [{"value": 16384}]}]
    assert to_simuhome_value(ours, "RvcRunMode", original) == original
    # Without a template, the cluster's known style applies and mode tags stay structs.
    assert to_simuhome_value(ours, "RvcRunMode") == [{"Label": "Idle", "Mode": 1, "ModeTags": [{"Value": 16384}]}]
    assert to_simuhome_value(ours, "DishwasherMode") == [{"label": "Idle", "mode": 1, "ModeTags": [{"value": 16384}]}]


def test_export_for_simuhome_leaves_out_the_types_it_does_not_know_and_says_so():
    home = generate_home("complex", 2)
    export = export_for_simuhome(home)
    ours = {d.id: d.type for d in home.devices}
    exported = {d["device_id"]: d["device_type"] for room in export.config["rooms"].values() for d in room["devices"]}
    assert set(exported.values()) <= SIMUHOME_KNOWN_TYPES
    assert {d.device_id for d in export.skipped} == {i for i, t in ours.items() if t not in SIMUHOME_KNOWN_TYPES}
    assert set(exported) | {d.device_id for d in export.skipped} == set(ours)
    assert {"garage_solar_power_1", "garage_evse_1", "basement_water_valve_1"} <= {d.device_id for d in export.skipped}
    assert export.note().startswith(f"left out {len(export.skipped)} device(s)") and "evse" in export.note()
    assert len(export.config["rooms"]) == 31  # rooms stay, even one left empty
    assert export.config == to_simuhome(
        home.model_copy(update={"devices": [d for d in home.devices if d.type in SIMUHOME_KNOWN_TYPES]})
    )
    simuhome_home = generate_home("simuhome", 2)
    assert export_for_simuhome(simuhome_home).skipped == () and export_for_simuhome(simuhome_home).note() == ""
    assert export_for_simuhome(simuhome_home).config == to_simuhome(simuhome_home)
