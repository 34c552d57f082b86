"""SimuHome-format episodes, one or more of each of the 12 kinds. The homes carry SimuHome's published value
shapes: every device starts from an inventory-built attribute set (``emulator.simuhome.samples``: every path
and shape of SimuHome's 600 published homes) and only its state values (power, levels, setpoints, a cycle
under way) are set here for the goals; queries and goals are written from the facts §5.

``python -m tests.benchmark.fixture_episodes`` rewrites ``tests/benchmark/episodes/``; a test checks the files
still equal what this module builds.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from emulator.simuhome.samples import device_attributes

BASE_TIME = "2025-08-23 14:00:00"
EPISODE_DIR = Path(__file__).parent / "episodes"


def _channel(major: int, name: str) -> dict[str, Any]:
    return {
        "MajorNumber": major,
        "MinorNumber": 0,
        "Name": name,
        "CallSign": name,
        "AffiliateCallSign": name[:3],
        "Identifier": name.lower(),
        "Type": 2,
    }


def home() -> dict[str, Any]:
    return {
        "tick_interval": 0.1,
        "base_time": BASE_TIME,
        "rooms": {
            "living_room": {
                "state": {"temperature": 2650.0, "humidity": 4800.0, "illuminance": 420.5, "pm10": 38.2},
                "devices": [
                    {
                        "device_id": "living_room_on_off_light_1",
                        "device_type": "on_off_light",
                        "attributes": {"1.OnOff.OnOff": False},
                    },
                    {
                        "device_id": "living_room_dimmable_light_1",
                        "device_type": "dimmable_light",
                        "attributes": {"1.OnOff.OnOff": False, "1.LevelControl.CurrentLevel": 1},
                    },
                    {
                        "device_id": "living_room_window_covering_controller_1",
                        "device_type": "window_covering_controller",
                        "attributes": {
                            "1.WindowCovering.CurrentPositionLiftPercent100ths": 2500,
                            "1.WindowCovering.TargetPositionLiftPercent100ths": 2500,
                        },
                    },
                    {
                        "device_id": "living_room_tv_1",
                        "device_type": "tv",
                        "attributes": {
                            "1.OnOff.OnOff": True,
                            "1.Channel.ChannelList": [
                                _channel(1, "KBS1"),
                                _channel(2, "KBS2"),
                                _channel(3, "MBC"),
                                _channel(4, "SBS"),
                            ],
                            "1.Channel.CurrentChannel": _channel(1, "KBS1"),
                            "1.MediaPlayback.CurrentState": 2,
                        },
                    },
                    {
                        "device_id": "living_room_fan_1",
                        "device_type": "fan",
                        "attributes": {"1.OnOff.OnOff": False, "1.FanControl.PercentSetting": 0},
                    },
                    {
                        "device_id": "living_room_rvc_1",
                        "device_type": "rvc",
                        "attributes": {"1.RVCRunMode.CurrentMode": 1, "1.RVCOperationalState.OperationalState": 66},
                    },
                ],
            },
            "kitchen": {
                "state": {"temperature": 2841.0, "humidity": 5210.0, "illuminance": 610.0, "pm10": 52.4},
                "devices": [
                    {
                        "device_id": "kitchen_on_off_light_1",
                        "device_type": "on_off_light",
                        "attributes": {"1.OnOff.OnOff": False},
                    },
                    {
                        "device_id": "kitchen_air_conditioner_1",
                        "device_type": "air_conditioner",
                        "attributes": {
                            "1.OnOff.OnOff": True,
                            "1.Thermostat.OccupiedCoolingSetpoint": 2000,
                            "1.Thermostat.OccupiedHeatingSetpoint": 2800,
                            "1.Thermostat.SystemMode": 3,
                            "1.FanControl.FanMode": 0,
                            "1.FanControl.PercentSetting": 0,
                        },
                    },
                    {
                        "device_id": "kitchen_dishwasher_1",
                        "device_type": "dishwasher",
                        "attributes": {
                            "1.OnOff.OnOff": True,
                            "1.OperationalState.CurrentPhase": 2,
                            "1.OperationalState.CountdownTime": 1180,
                            "1.OperationalState.OperationalState": 1,
                            "1.DishwasherMode.CurrentMode": 3,
                        },
                    },
                    {
                        "device_id": "kitchen_freezer_1",
                        "device_type": "freezer",
                        "attributes": {"1.TemperatureControl.TemperatureSetpoint": -1800},
                    },
                    {
                        "device_id": "kitchen_refrigerator_1",
                        "device_type": "refrigerator",
                        "attributes": {"1.TemperatureControl.TemperatureSetpoint": 400},
                    },
                ],
            },
            "bathroom": {
                "state": {"temperature": 2590.0, "humidity": 6830.0, "illuminance": 300.0, "pm10": 61.7},
                "devices": [
                    {
                        "device_id": "bathroom_on_off_light_1",
                        "device_type": "on_off_light",
                        "attributes": {"1.OnOff.OnOff": False},
                    },
                    {
                        "device_id": "bathroom_air_purifier_1",
                        "device_type": "air_purifier",
                        "attributes": {"1.OnOff.OnOff": False, "1.FanControl.PercentSetting": 0},
                    },
                    {
                        "device_id": "bathroom_dehumidifier_1",
                        "device_type": "dehumidifier",
                        "attributes": {"1.OnOff.OnOff": False, "1.FanControl.PercentSetting": 0},
                    },
                    {
                        "device_id": "bathroom_laundry_washer_1",
                        "device_type": "laundry_washer",
                        "attributes": {
                            "1.OnOff.OnOff": True,
                            "1.OperationalState.CurrentPhase": 1,
                            "1.OperationalState.CountdownTime": 2410,
                            "1.OperationalState.OperationalState": 1,
                            "1.LaundryWasherMode.CurrentMode": 0,
                        },
                    },
                    {
                        "device_id": "bathroom_laundry_dryer_1",
                        "device_type": "laundry_dryer",
                        "attributes": {
                            "1.OnOff.OnOff": False,
                            "1.OperationalState.OperationalState": 0,
                            "1.LaundryDryerControls.SelectedDrynessLevel": 1,
                        },
                    },
                ],
            },
            "utility_room": {
                "state": {"temperature": 2480.0, "humidity": 5530.0, "illuminance": 250.0, "pm10": 44.0},
                "devices": [
                    {
                        "device_id": "utility_room_on_off_light_1",
                        "device_type": "on_off_light",
                        "attributes": {"1.OnOff.OnOff": True},
                    },
                    {
                        "device_id": "utility_room_heat_pump_1",
                        "device_type": "heat_pump",
                        "attributes": {
                            "4.Thermostat.SystemMode": 0,
                            "4.Thermostat.OccupiedHeatingSetpoint": 1900,
                            "4.Thermostat.OccupiedCoolingSetpoint": 2000,
                        },
                    },
                    {
                        "device_id": "utility_room_humidifier_1",
                        "device_type": "humidifier",
                        "attributes": {"1.OnOff.OnOff": False, "1.FanControl.PercentSetting": 0},
                    },
                ],
            },
            "office": {
                "state": {"temperature": 2700.0, "humidity": 4500.0, "illuminance": 180.0, "pm10": 72.3},
                "devices": [
                    {
                        "device_id": "office_on_off_light_1",
                        "device_type": "on_off_light",
                        "attributes": {"1.OnOff.OnOff": False},
                    },
                    {
                        "device_id": "office_fan_1",
                        "device_type": "fan",
                        "attributes": {"1.OnOff.OnOff": True, "1.FanControl.PercentSetting": 33},
                    },
                ],
            },
        },
    }


def _with_inventory_shapes(config: dict[str, Any]) -> dict[str, Any]:
    """Every device: its type's inventory-built attributes (variant 0), then the state values set above."""
    for room in config["rooms"].values():
        for device in room["devices"]:
            device["attributes"] = {**device_attributes(device["device_type"], 0), **device["attributes"]}
    return config


def _episode(
    qt: str,
    case: str,
    seed: int,
    query: str,
    location: str,
    required: list[dict[str, Any]],
    goals: list[dict[str, Any]],
    meta: dict[str, Any] | None = None,
    *,
    remove: tuple[str, ...] = (),
    conflict: dict[str, Any] | None = None,
) -> dict[str, Any]:
    config = _with_inventory_shapes(home())
    for room in config["rooms"].values():
        room["devices"] = [d for d in room["devices"] if d["device_id"] not in remove]
    episode: dict[str, Any] = {
        "meta": {
            "seed": seed,
            "query_type": qt,
            "case": case,
            "num_rooms": len(config["rooms"]),
            "num_devices": sum(len(r["devices"]) for r in config["rooms"].values()),
            **(meta or {}),
        },
        "query": query,
        "user_location": location,
        "eval": {"required_actions": required, "goals": goals},
        "initial_home_config": config,
    }
    if conflict is not None:
        episode["temporal_conflict"] = conflict
    return episode


def _devices(room: str) -> dict[str, Any]:
    return {"tool": "get_room_devices", "params": {"room_id": room}}


def _states(room: str) -> dict[str, Any]:
    return {"tool": "get_room_states", "params": {"room_id": room}}


def _target(room: str, device: str, kind: str, *asserts: tuple[str, Any]) -> dict[str, Any]:
    return {
        "room_id": room,
        "device_id": device,
        "device_type": kind,
        "asserts": [{"attribute": path, "value": value} for path, value in asserts],
    }


def _when(reference: int, relation: str, offset: int, tolerance: int = 300) -> dict[str, Any]:
    at = reference + offset if relation == "after" else reference - offset
    return {
        "reference_tick": reference,
        "reference_minutes": round(reference * 0.1 / 60),
        "relation": relation,
        "offset_ticks": offset,
        "offset_minutes": round(offset * 0.1 / 60),
        "at_tick": at,
        "at_minutes": round(at * 0.1 / 60),
        "tolerance_ticks": tolerance,
    }


DRYER = ("bathroom", "bathroom_laundry_dryer_1", "laundry_dryer")
WASHER_ANCHOR = {"room_id": "bathroom", "device_id": "bathroom_laundry_washer_1", "device_type": "laundry_washer"}
DISH_ANCHOR = {"room_id": "kitchen", "device_id": "kitchen_dishwasher_1", "device_type": "dishwasher"}
WASHER_END = 24100  # CountdownTime 2410 s


def build_all() -> dict[str, dict[str, Any]]:
    episodes = {
        "qt1_feasible_seed_1": _episode(
            "qt1",
            "feasible",
            1,
            "how warm is it in the kitchen and who made the fan in the living room?",
            "living_room",
            [_states("kitchen"), _devices("living_room")],
            [
                {
                    "variant": "room_state",
                    "room_id": "kitchen",
                    "room_state": "temperature",
                    "current_value": 28.41,
                    "unit": "°C",
                },
                {
                    "variant": "device_attribute",
                    "room_id": "living_room",
                    "device_id": "living_room_fan_1",
                    "device_type": "fan",
                    "attribute": "0.BasicInformation.VendorName",
                },
            ],
            {"num_target_device_attributes": 1, "num_target_room_states": 1},
        ),
        "qt1_infeasible_seed_2": _episode(
            "qt1",
            "infeasible",
            2,
            "what model is the tv in the office and how humid is the bathroom?",
            "office",
            [_devices("office"), _states("bathroom")],
            [
                {
                    "variant": "device_attribute",
                    "room_id": "office",
                    "device_id": "office_tv_1",
                    "device_type": "tv",
                    "attribute": "0.BasicInformation.ProductName",
                },
                {
                    "variant": "room_state",
                    "room_id": "bathroom",
                    "room_state": "humidity",
                    "current_value": 68.3,
                    "unit": "%",
                },
            ],
            {"num_target_device_attributes": 1, "num_target_room_states": 1},
        ),
        "qt2_feasible_seed_3": _episode(
            "qt2",
            "feasible",
            3,
            "ugh the kitchen is like a sauna and the living room is so gloomy",
            "kitchen",
            [_devices("kitchen"), _devices("living_room")],
            [
                {"room_id": "kitchen", "room_state": "temperature", "direction": "decrease", "feasibility": True},
                {"room_id": "living_room", "room_state": "illuminance", "direction": "increase", "feasibility": True},
            ],
            {"num_target_metrics": 2, "feasibility": True},
        ),
        "qt2_feasible_seed_4": _episode(
            "qt2",
            "feasible",
            4,
            "my throat feels scratchy in the bathroom, and it's so muggy in here",
            "bathroom",
            [_devices("bathroom")],
            [
                {"room_id": "bathroom", "room_state": "pm10", "direction": "decrease", "feasibility": True},
                {"room_id": "bathroom", "room_state": "humidity", "direction": "decrease", "feasibility": True},
            ],
            {"num_target_metrics": 2, "feasibility": True},
        ),
        "qt2_infeasible_seed_5": _episode(
            "qt2",
            "infeasible",
            5,
            "it's a bit too bright in the office for my eyes",
            "office",
            [_devices("office")],
            [{"room_id": "office", "room_state": "illuminance", "direction": "decrease", "feasibility": False}],
            {"num_target_metrics": 1, "feasibility": False, "infeasible_family": "contextual_saturation"},
        ),
        "qt2_infeasible_seed_6": _episode(
            "qt2",
            "infeasible",
            6,
            "the air in the office smells so dusty",
            "office",
            [_devices("office")],
            [
                {
                    "room_id": "office",
                    "device_id": "office_air_purifier_1",
                    "device_type": "air_purifier",
                    "room_state": "pm10",
                    "direction": "decrease",
                }
            ],
            {"num_target_metrics": 1, "infeasible_family": "nonexistence"},
        ),
        "qt3_feasible_seed_7": _episode(
            "qt3",
            "feasible",
            7,
            "turn on fan 1 in the living room at 60 percent, start dryer 1 in the bathroom on "
            "max dryness and put the living room tv on channel 3",
            "living_room",
            [_devices("living_room"), _devices("bathroom")],
            [
                _target(
                    "living_room",
                    "living_room_fan_1",
                    "fan",
                    ("1.OnOff.OnOff", True),
                    ("1.FanControl.PercentSetting", 60),
                ),
                _target(
                    *DRYER,
                    ("1.OnOff.OnOff", True),
                    ("1.LaundryDryerControls.SelectedDrynessLevel", 3),
                    ("1.OperationalState.OperationalState", 1),
                ),
                _target("living_room", "living_room_tv_1", "tv", ("1.Channel.CurrentChannel.MajorNumber", 3)),
            ],
            {"devices_count": 3},
        ),
        "qt3_feasible_seed_8": _episode(
            "qt3",
            "feasible",
            8,
            "heat the utility room with the heat pump at 19.5 degrees, dim the living room "
            "light to 80, close the living room blinds halfway, start the robot vacuum and set the freezer to -20",
            "utility_room",
            [_devices("utility_room"), _devices("living_room"), _devices("kitchen")],
            [
                _target(
                    "utility_room",
                    "utility_room_heat_pump_1",
                    "heat_pump",
                    ("4.Thermostat.SystemMode", 4),
                    ("4.Thermostat.OccupiedHeatingSetpoint", 1950),
                ),
                _target(
                    "living_room",
                    "living_room_dimmable_light_1",
                    "dimmable_light",
                    ("1.OnOff.OnOff", True),
                    ("1.LevelControl.CurrentLevel", 80),
                ),
                _target(
                    "living_room",
                    "living_room_window_covering_controller_1",
                    "window_covering_controller",
                    ("1.WindowCovering.TargetPositionLiftPercent100ths", 5000),
                ),
                _target("living_room", "living_room_rvc_1", "rvc", ("1.RVCOperationalState.OperationalState", 1)),
                _target("kitchen", "kitchen_freezer_1", "freezer", ("1.TemperatureControl.TemperatureSetpoint", -2000)),
                _target(
                    "kitchen",
                    "kitchen_air_conditioner_1",
                    "air_conditioner",
                    ("1.OnOff.OnOff", True),
                    ("1.Thermostat.OccupiedCoolingSetpoint", 2400),
                    ("1.FanControl.PercentSetting", 50),
                ),
            ],
            {"devices_count": 6},
        ),
        "qt3_infeasible_seed_9": _episode(
            "qt3",
            "infeasible",
            9,
            "start dryer 2 in the utility room please",
            "utility_room",
            [_devices("utility_room")],
            [
                _target(
                    "utility_room",
                    "utility_room_laundry_dryer_2",
                    "laundry_dryer",
                    ("1.OnOff.OnOff", True),
                    ("1.OperationalState.OperationalState", 1),
                )
            ],
            {"devices_count": 1},
        ),
        "qt4-1_feasible_seed_10": _episode(
            "qt4-1",
            "feasible",
            10,
            "in 12 minutes turn on the living room dimmer at level 40, 8 minutes after "
            "that turn it off, and close the living room blinds in 20 minutes",
            "living_room",
            [_devices("living_room")],
            [
                {
                    "when": _when(0, "after", 7200),
                    "anchor": {},
                    "targets": [
                        _target(
                            "living_room",
                            "living_room_dimmable_light_1",
                            "dimmable_light",
                            ("1.OnOff.OnOff", True),
                            ("1.LevelControl.CurrentLevel", 40),
                        )
                    ],
                },
                {
                    "when": _when(0, "after", 12000),
                    "anchor": {},
                    "targets": [
                        _target(
                            "living_room",
                            "living_room_window_covering_controller_1",
                            "window_covering_controller",
                            ("1.WindowCovering.TargetPositionLiftPercent100ths", 10000),
                        )
                    ],
                },
                {
                    "when": _when(7200, "after", 4800),
                    "anchor": {},
                    "targets": [
                        _target(
                            "living_room", "living_room_dimmable_light_1", "dimmable_light", ("1.OnOff.OnOff", False)
                        )
                    ],
                },
            ],
        ),
        "qt4-1_infeasible_seed_11": _episode(
            "qt4-1",
            "infeasible",
            11,
            "at 1:57 PM, that's 12 minutes from now, turn on the kitchen light",
            "kitchen",
            [],
            [
                {
                    "when": _when(0, "after", 7200),
                    "anchor": {},
                    "targets": [_target("kitchen", "kitchen_on_off_light_1", "on_off_light", ("1.OnOff.OnOff", True))],
                }
            ],
            {"conflict_type": "absolute_time_mismatch_nonop_multi"},
            conflict={
                "type": "absolute_time_mismatch_nonop_multi",
                "expected_at": 12,
                "conflict_at": -3,
                "base_time": BASE_TIME,
                "expected_time": "14:12:00",
                "conflict_time": "13:57:00",
            },
        ),
        "qt4-2_feasible_seed_12": _episode(
            "qt4-2",
            "feasible",
            12,
            "10 minutes after the dishwasher finishes turn on the kitchen light, and 5 "
            "minutes before it finishes turn on the office light",
            "kitchen",
            [_devices("kitchen"), _devices("office")],
            [
                {
                    "when": _when(11800, "before", 3000),
                    "anchor": DISH_ANCHOR,
                    "targets": [_target("office", "office_on_off_light_1", "on_off_light", ("1.OnOff.OnOff", True))],
                },
                {
                    "when": _when(11800, "after", 6000),
                    "anchor": DISH_ANCHOR,
                    "targets": [_target("kitchen", "kitchen_on_off_light_1", "on_off_light", ("1.OnOff.OnOff", True))],
                },
            ],
        ),
        "qt4-2_infeasible_seed_13": _episode(
            "qt4-2",
            "infeasible",
            13,
            "at 2:45 PM, 10 minutes after the dishwasher is done, switch on the kitchen light",
            "kitchen",
            [],
            [
                {
                    "when": _when(11800, "after", 6000),
                    "anchor": DISH_ANCHOR,
                    "targets": [_target("kitchen", "kitchen_on_off_light_1", "on_off_light", ("1.OnOff.OnOff", True))],
                }
            ],
            {"conflict_type": "timing_mismatch_op_nonop"},
            conflict={
                "type": "timing_mismatch_op_nonop",
                "relation": "after",
                "offset_minutes": 10,
                "anchor_end_at": 20,
                "expected_at": 30,
                "conflict_at": 45,
                "base_time": BASE_TIME,
                "anchor_end_time": "14:19:40",
                "expected_time": "14:29:40",
                "conflict_time": "14:45:00",
            },
        ),
        "qt4-3_feasible_seed_14": _episode(
            "qt4-3",
            "feasible",
            14,
            "start the dryer now on max dryness and pause it when the washer is done",
            "bathroom",
            [_devices("bathroom")],
            [
                {
                    "when": _when(WASHER_END, "before", 600, 0),
                    "anchor": WASHER_ANCHOR,
                    "targets": [
                        _target(
                            *DRYER,
                            ("1.OperationalState.OperationalState", 1),
                            ("1.LaundryDryerControls.SelectedDrynessLevel", 3),
                        )
                    ],
                },
                {
                    "when": _when(WASHER_END, "after", 0),
                    "anchor": WASHER_ANCHOR,
                    "targets": [_target(*DRYER, ("1.OperationalState.OperationalState", 2))],
                },
            ],
            {"scenario": "pause_at_anchor_end"},
        ),
        "qt4-3_feasible_seed_15": _episode(
            "qt4-3",
            "feasible",
            15,
            "wait 10 minutes after the washer finishes, then start the dryer on low",
            "bathroom",
            [_devices("bathroom")],
            [
                {
                    "when": _when(WASHER_END + 6000, "before", 600, 0),
                    "anchor": WASHER_ANCHOR,
                    "targets": [_target(*DRYER, ("1.OperationalState.OperationalState", 0))],
                },
                {
                    "when": _when(WASHER_END, "after", 6000),
                    "anchor": WASHER_ANCHOR,
                    "targets": [
                        _target(
                            *DRYER,
                            ("1.OperationalState.OperationalState", 1),
                            ("1.LaundryDryerControls.SelectedDrynessLevel", 0),
                        )
                    ],
                },
            ],
            {"scenario": "delayed_start"},
        ),
        "qt4-3_feasible_seed_16": _episode(
            "qt4-3",
            "feasible",
            16,
            "run the dryer on low so that it is done when the washer finishes",
            "bathroom",
            [_devices("bathroom")],
            [
                {
                    "when": _when(WASHER_END, "before", 600, 0),
                    "anchor": WASHER_ANCHOR,
                    "targets": [
                        _target(
                            *DRYER,
                            ("1.OperationalState.OperationalState", 1),
                            ("1.LaundryDryerControls.SelectedDrynessLevel", 0),
                        )
                    ],
                },
                {
                    "when": _when(WASHER_END, "after", 0),
                    "anchor": WASHER_ANCHOR,
                    "targets": [_target(*DRYER, ("1.OperationalState.OperationalState", 0))],
                },
            ],
            {"scenario": "align_end_with_anchor"},
        ),
        "qt4-3_infeasible_seed_17": _episode(
            "qt4-3",
            "infeasible",
            17,
            "start the dryer on max so both it and the washer finish together",
            "bathroom",
            [],
            [
                {
                    "when": _when(WASHER_END, "before", 600, 0),
                    "anchor": WASHER_ANCHOR,
                    "targets": [_target(*DRYER, ("1.OperationalState.OperationalState", 1))],
                },
                {
                    "when": _when(WASHER_END, "after", 0),
                    "anchor": WASHER_ANCHOR,
                    "targets": [_target(*DRYER, ("1.OperationalState.OperationalState", 2))],
                },
            ],
            {"scenario": "pause_at_anchor_end", "conflict_type": "completion_vs_pause"},
            conflict={
                "type": "completion_vs_pause",
                "anchor_end_at": 40,
                "requested_action": "completion",
                "base_time": BASE_TIME,
                "anchor_end_time": "14:40:10",
            },
        ),
    }
    # qt1 infeasible and qt2 nonexistence need the named devices gone (they never were in this home);
    # qt3 infeasible likewise. Keep a copy per episode so tests may mutate freely.
    return copy.deepcopy(episodes)


def write_all(directory: Path = EPISODE_DIR) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, episode in build_all().items():
        (directory / f"{name}.json").write_text(
            json.dumps(episode, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )


if __name__ == "__main__":
    write_all()
