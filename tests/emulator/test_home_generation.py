"""Seeded home generator: determinism, SimuHome's recipe, tier sizes, initial states, summaries."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from emulator.emulated_home import EmulatedHome
from emulator.home_config import HomeConfig, dump_home
from emulator.home_generation.device_types import (
    ALL_DEVICE_TYPES,
    EXTENDED_EXTRA_CANDIDATES,
    NEW_ROOM_CANDIDATES,
    OUR_DEVICE_TYPES,
    SIMUHOME_CANDIDATES,
    SIMUHOME_DEVICE_TYPES,
    candidate_types,
)
from emulator.home_generation.errors import GeneratorError
from emulator.home_generation.generator import generate, generate_home, initial_attributes
from emulator.home_generation.home_systems import LIGHT_SWITCHES, door_light
from emulator.home_generation.layouts import LAYOUTS
from emulator.home_generation.params import ENVIRONMENT_BOUNDS, TIERS, GeneratorParams, tier_params
from emulator.home_generation.seeds import sub_seed
from emulator.home_generation.summary import summarize_home
from emulator.scenarios import flip_switch

REPO = Path(__file__).resolve().parents[2]


def per_room_type_counts(home: HomeConfig) -> dict[str, Counter[str]]:
    counts: dict[str, Counter[str]] = {room.id: Counter() for room in home.rooms}
    for device in home.devices:
        counts[device.room][device.type] += 1
    return counts


# --- determinism ---------------------------------------------------------------------------------


@pytest.mark.parametrize("tier", sorted(TIERS))
def test_same_seed_same_bytes_other_seed_other_home(tier: str):
    first = dump_home(generate_home(tier, 42))
    assert dump_home(generate_home(tier, 42)) == first
    assert dump_home(generate_home(tier, 43)) != first


def test_determinism_does_not_depend_on_hash_randomisation():
    # Another interpreter with another PYTHONHASHSEED must produce the same bytes (no hash() anywhere).
    code = (
        "import hashlib; from emulator.home_generation.generator import generate_home; from emulator.home_config "
        "import dump_home; print(hashlib.sha256(dump_home(generate_home('medium', 9)).encode()).hexdigest())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == hashlib.sha256(dump_home(generate_home("medium", 9)).encode()).hexdigest()


def test_sub_seed_is_blake2b_of_the_parts():
    digest = hashlib.blake2b(b"7|devices|kitchen", digest_size=8).digest()
    assert sub_seed(7, "devices", "kitchen") == int.from_bytes(digest, "big") % (2**31 - 1)
    assert sub_seed(7, "devices", "kitchen") != sub_seed(7, "devices", "bathroom")


def test_changing_one_room_leaves_the_others_devices_alone():
    # Sub-seeds per room: giving the home a sixth room does not reshuffle the devices of the first five.
    five = generate_home("simuhome", 8)
    six = generate_home("simuhome", 8, room_count=6)
    shared = {room.id for room in five.rooms} & {room.id for room in six.rooms}
    assert {"living_room", "bathroom", "kitchen", "utility_room"} <= shared
    for room_id in ("living_room", "kitchen"):
        assert [d.model_dump() for d in five.devices_in_room(room_id)] == [
            d.model_dump() for d in six.devices_in_room(room_id)
        ]


# --- SimuHome's recipe ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_simuhome_tier_follows_the_recipe(seed: int):
    home = generate_home("simuhome", seed)
    room_ids = [room.id for room in home.rooms]
    assert len(room_ids) == 5
    assert {"living_room", "bathroom", "kitchen", "utility_room"} <= set(room_ids)
    assert set(room_ids) <= set(SIMUHOME_CANDIDATES)
    counts = per_room_type_counts(home)
    required = {
        "living_room": {"on_off_light", "window_covering_controller"},
        "bathroom": {"on_off_light", "air_purifier"},
        "kitchen": {"on_off_light", "dishwasher", "freezer", "refrigerator"},
        "utility_room": {"on_off_light", "laundry_washer", "laundry_dryer"},
    }
    for room in home.rooms:
        types = counts[room.id]
        assert 4 <= sum(types.values()) <= 7
        assert max(types.values()) <= 2
        assert set(types) <= set(SIMUHOME_CANDIDATES[room.id])
        assert required.get(room.id, {"on_off_light"}) <= set(types)
        assert (room.floor, room.parent, room.type) == (0, None, room.id)
    assert {d.type for d in home.devices} <= set(SIMUHOME_DEVICE_TYPES)
    for device in home.devices:
        room_part, _, number = device.id.rpartition("_")
        assert room_part == f"{device.room}_{device.type}" and number in ("1", "2")
    hour = int(home.base_time[11:13])
    assert home.base_time.startswith("2025-08-23 ") and 9 <= hour <= 18


@pytest.mark.parametrize("seed", range(6))
def test_environment_values_are_in_range_and_rounded(seed: int):
    home = generate_home("simuhome", seed)
    ranges = TIERS["simuhome"].environment
    for room in home.rooms:
        env = room.environment
        assert room.baseline == env
        assert isinstance(env.temperature, int) and isinstance(env.humidity, int)
        assert ranges.temperature_c.min * 100 <= env.temperature <= ranges.temperature_c.max * 100
        assert ranges.humidity_pct.min * 100 <= env.humidity <= ranges.humidity_pct.max * 100
        assert ranges.illuminance_lux.min <= env.illuminance <= ranges.illuminance_lux.max
        assert ranges.pm10_ugm3.min <= env.pm10 <= ranges.pm10_ugm3.max
        assert round(env.illuminance, 2) == env.illuminance and round(env.pm10, 2) == env.pm10


def test_rooms_vary_around_a_shared_baseline():
    home = generate_home("stress", 1)
    temperatures = [room.environment.temperature for room in home.rooms]
    spread = max(temperatures) - min(temperatures)
    assert 0 < spread <= 1000  # σ = 8 % of a 10 °C range: rooms differ, but not across the whole range


# --- tiers ---------------------------------------------------------------------------------------


def _systems(home: HomeConfig) -> list[str]:
    """The ids of the home's systems (solar, battery, charger, valve, leak detectors, door buttons): on top of the
    rooms' own draw, which keeps SMH-Bench's sizes."""
    return list(home.extensions.get("generator", {}).get("home_systems", []))


@pytest.mark.parametrize("seed", range(5))
def test_simple_and_medium_sizes(seed: int):
    simple = generate_home("simple", seed)
    assert 5 <= len(simple.rooms) <= 6 and 5 <= len(simple.devices) <= 8
    medium = generate_home("medium", seed)
    systems = len(_systems(medium))
    assert 10 <= len(medium.rooms) <= 11 and 33 <= len(medium.devices) - systems <= 37
    assert {r.floor for r in medium.rooms} == {0, 1}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_complex_tier(seed: int):
    home = generate_home("complex", seed)
    summary = summarize_home(home)
    assert summary.rooms == 31 and summary.devices == 135 + len(_systems(home)) and summary.device_types >= 17
    assert summary.nested_rooms >= 8
    assert set(summary.floors) == {-1, 0, 1, 2}
    assert home.room("master_bathroom").parent == "master_bedroom"
    assert home.room("master_closet").type == "walk_in_closet"
    assert home.room("master_balcony").parent == "master_bedroom"
    assert home.room("basement").floor == -1 and home.room("garage").type == "garage"
    assert {
        "living_room",
        "bathroom",
        "kitchen",
        "utility_room",
        "bedroom",
        "dining_room",
        "study_room",
        "kids_room",
        "office",
    } <= {room.id for room in home.rooms}  # SimuHome's room ids are all there
    counts = per_room_type_counts(home)
    assert {"door_lock", "on_off_light"} <= set(counts["entrance"]) and "door_lock" in counts["garage"]
    assert "oven" in counts["kitchen"] and "water_heater" in counts["basement"]
    assert all(max(types.values(), default=0) <= 2 for types in counts.values())
    systems = set(_systems(home))
    for room in home.rooms:
        drawn = {d.type for d in home.devices if d.room == room.id and d.id not in systems}
        assert drawn <= set(candidate_types(room.type, "extended"))


def test_stress_tier():
    home = generate_home("stress", 5)
    assert len(home.devices) == 1000 and len(home.rooms) == 120
    assert len({device.id for device in home.devices}) == 1000
    summary = summarize_home(home)
    assert len(summary.floors) == 12 and summary.nested_rooms > 0


def test_nesting_can_be_switched_off():
    home = generate_home("complex", 1, nesting=False)
    assert all(room.parent is None for room in home.rooms)
    assert len(home.rooms) == 31


def test_overrides_and_their_errors():
    home = generate_home(
        "simuhome",
        3,
        room_count=6,
        devices_per_room={"min": 2, "max": 3},
        environment={"temperature_c": [18, 20]},
        base_date="2026-01-02",
        base_hours=7,
    )
    assert len(home.rooms) == 6 and home.base_time.startswith("2026-01-02 07:")
    assert all(1800 <= room.environment.temperature <= 2000 for room in home.rooms)
    # Required devices win over a small per-room maximum (kitchen needs 4).
    assert len(home.devices_in_room("kitchen")) == 4
    assert home.extensions["generator"]["params"]["room_count"] == {"min": 6, "max": 6}
    with pytest.raises(GeneratorError, match="unknown tier"):
        generate_home("huge", 1)
    with pytest.raises(GeneratorError, match="temperature_c"):
        generate_home("simuhome", 1, environment={"temperature_c": [10, 20]})
    with pytest.raises(GeneratorError, match="room_count"):
        generate_home("simuhome", 1, room_count=12)
    with pytest.raises(GeneratorError, match="colour"):
        generate_home("simuhome", 1, colour="red")
    with pytest.raises(GeneratorError, match="min 5 is greater than max 3"):
        tier_params("simple", devices_per_room={"min": 5, "max": 3})
    with pytest.raises(GeneratorError, match="cannot place"):
        generate_home("simple", 1, total_devices=500)


def test_generate_from_explicit_params():
    params = GeneratorParams.model_validate(
        {"layout": "house", "device_catalogue": "simuhome", "room_count": 10, "required_devices": "minimal"}
    )
    home = generate(params, 4)
    assert home.tier is None and home.name == "house-4"
    assert {d.type for d in home.devices} <= set(SIMUHOME_DEVICE_TYPES)
    # Rooms SimuHome does not know get only SimuHome types; minimal = one on/off light per room.
    assert all(any(d.type == "on_off_light" for d in home.devices_in_room(r.id)) for r in home.rooms)


def test_environment_bounds_match_simuhome_spec():
    assert ENVIRONMENT_BOUNDS == {
        "temperature_c": (18, 36),
        "humidity_pct": (15, 85),
        "illuminance_lux": (10, 3000),
        "pm10_ugm3": (5, 120),
    }


# --- catalogues ----------------------------------------------------------------------------------


def test_every_device_type_has_a_room():
    placeable = set().union(
        *SIMUHOME_CANDIDATES.values(), *EXTENDED_EXTRA_CANDIDATES.values(), *NEW_ROOM_CANDIDATES.values()
    )
    assert placeable == set(ALL_DEVICE_TYPES)
    assert len(ALL_DEVICE_TYPES) == len(set(ALL_DEVICE_TYPES)) == 37
    assert set(OUR_DEVICE_TYPES).isdisjoint(SIMUHOME_DEVICE_TYPES)


def test_simuhome_catalogue_never_places_our_types_or_the_electrical_sensor():
    for room_type in [*SIMUHOME_CANDIDATES, *NEW_ROOM_CANDIDATES]:
        assert set(candidate_types(room_type, "simuhome")) <= set(SIMUHOME_DEVICE_TYPES)
    assert "water_heater" in candidate_types("utility_room", "extended")
    assert {"oven", "microwave_oven"} <= set(candidate_types("kitchen", "extended"))
    with pytest.raises(GeneratorError, match="unknown room type"):
        candidate_types("ballroom", "extended")


def test_every_layout_is_consistent():
    for name, slots in LAYOUTS.items():
        ids = [slot.id for slot in slots]
        assert len(ids) == len(set(ids)), name
        for i, slot in enumerate(slots):
            assert slot.parent is None or slot.parent in ids[:i], (name, slot.id)
    assert len(LAYOUTS["mansion"]) == 31


# --- initial state -------------------------------------------------------------------------------

ALLOWED_PATHS = {
    "1.OnOff.OnOff",
    "1.LevelControl.CurrentLevel",
    "1.FanControl.PercentSetting",
    "1.FanControl.FanMode",
    "1.FanControl.PercentCurrent",
    "1.Thermostat.SystemMode",
    "1.Thermostat.OccupiedCoolingSetpoint",
    "4.Thermostat.SystemMode",
    "4.Thermostat.OccupiedHeatingSetpoint",
    "1.WindowCovering.CurrentPositionLiftPercent100ths",
    "1.WindowCovering.TargetPositionLiftPercent100ths",
}


def test_initial_attributes_use_only_simuhome_paths_with_valid_values():
    home = generate_home("stress", 2)
    seen: Counter[str] = Counter()
    for device in home.devices:
        attrs = device.attributes
        assert set(attrs) <= ALLOWED_PATHS
        seen.update(attrs)
        if "1.OnOff.OnOff" in attrs:
            assert isinstance(attrs["1.OnOff.OnOff"], bool)
        if "1.LevelControl.CurrentLevel" in attrs:
            assert device.type in ("dimmable_light", "color_temperature_light", "extended_color_light")
            assert 1 <= attrs["1.LevelControl.CurrentLevel"] <= 254
        if "1.FanControl.PercentSetting" in attrs:
            assert 0 <= attrs["1.FanControl.PercentSetting"] <= 100
            if attrs.get("1.OnOff.OnOff"):
                assert attrs["1.FanControl.PercentSetting"] >= 1
        if device.type == "air_conditioner":
            assert attrs["1.Thermostat.SystemMode"] in (0, 3)
            cooling = attrs["1.Thermostat.OccupiedCoolingSetpoint"]
            assert 1600 <= cooling <= 3200 and cooling % 50 == 0
        if device.type == "heat_pump":
            assert "1.OnOff.OnOff" not in attrs
            assert attrs["4.Thermostat.SystemMode"] in (0, 4)
            heating = attrs["4.Thermostat.OccupiedHeatingSetpoint"]
            assert 700 <= heating <= 3000 and heating % 50 == 0
        if device.type == "window_covering_controller":
            current = attrs["1.WindowCovering.CurrentPositionLiftPercent100ths"]
            assert current == attrs["1.WindowCovering.TargetPositionLiftPercent100ths"]
            assert 0 <= current <= 10000 and current % 500 == 0
        if device.type in ("door_lock", "oven", "climate_sensor", "rvc", "dishwasher", "freezer"):
            assert attrs == {}
    assert set(seen) == ALLOWED_PATHS  # every kind of initial state shows up in a big home
    on = sum(1 for d in home.devices if d.attributes.get("1.OnOff.OnOff") is True)
    off = sum(1 for d in home.devices if d.attributes.get("1.OnOff.OnOff") is False)
    assert on > 50 and off > 50  # varied, not all off as in SimuHome's data


def test_initial_state_can_be_left_to_device_defaults():
    home = generate_home("medium", 1, initial_state=False)
    # only the wiring stays: a door's wall switch is bound to the room's light whatever the lights' states
    wired = {d.id: list(d.attributes) for d in home.devices if d.attributes}
    assert wired and all(paths == ["1.Binding.Binding"] for paths in wired.values())
    assert [d.id for d in home.devices] == [d.id for d in generate_home("medium", 1).devices]


def test_initial_attributes_of_an_unknown_type_are_empty():
    import random

    assert initial_attributes("mystery_box", random.Random(1)) == {}


# --- summary -------------------------------------------------------------------------------------


def test_summary_counts():
    home = generate_home("complex", 6)
    summary = summarize_home(home)
    assert summary.name == "complex-6" and summary.tier == "complex" and summary.seed == 6
    total = 135 + len(_systems(home))
    assert sum(summary.devices_by_type.values()) == total
    assert sum(f.rooms for f in summary.floors.values()) == 31
    assert sum(f.devices for f in summary.floors.values()) == total
    assert summary.floors[-1].rooms == 4 and summary.floors[2].rooms == 2
    assert list(summary.floors) == sorted(summary.floors)
    counts = list(summary.devices_by_type.values())
    assert counts == sorted(counts, reverse=True)
    assert summary.rooms_by_type["bathroom"] == 3
    lines = summary.lines()
    assert lines[0] == "home complex-6 (tier complex, seed 6)"
    assert "rooms: 31 (9 nested)" in lines and any(line.startswith("  floor -1: 4 rooms") for line in lines)
    json.dumps(summary.model_dump(mode="json"))  # printable as JSON by the CLI


# --- the home's systems --------------------------------------------------------------------------


@pytest.mark.parametrize(("tier", "seed"), [("medium", s) for s in range(6)] + [("complex", s) for s in range(3)])
def test_houses_get_energy_water_and_buttons_where_they_belong(tier: str, seed: int):
    home = generate_home(tier, seed)
    systems = set(_systems(home))
    by_id = {d.id: d for d in home.devices}
    room_types = {r.id: r.type for r in home.rooms}
    placed = Counter(by_id[i].type for i in systems)
    assert all(placed[t] == 1 for t in ("solar_power", "battery_storage", "evse", "water_valve"))
    garage = "garage" in room_types
    energy_rooms = {room_types[by_id[i].room] for i in systems if by_id[i].type in ("solar_power", "evse")}
    assert energy_rooms == ({"garage"} if garage else {"utility_room", "entrance"})
    valve = next(by_id[i] for i in systems if by_id[i].type == "water_valve")
    assert room_types[valve.room] == ("basement" if "basement" in room_types else "utility_room")
    for room in home.rooms:
        types = {d.type for d in home.devices if d.room == room.id}
        if types & {"dishwasher", "laundry_washer", "water_heater"}:  # a leak detector beside every water user
            assert "water_leak_detector" in types
        if "door_lock" in types:  # a button by every locked door
            assert "generic_switch" in types
    assert all(i in by_id for i in systems) and len(systems) == len(_systems(home))


@pytest.mark.parametrize(("tier", "seed"), [("medium", s) for s in range(6)] + [("complex", s) for s in range(3)])
def test_a_wall_switch_by_each_locked_door_drives_that_rooms_light(tier: str, seed: int):
    config = generate_home(tier, seed)
    home = EmulatedHome(config)
    switches = 0
    for room in config.rooms:
        types = [d.type for d in config.devices if d.room == room.id]
        switched = door_light(types) if "door_lock" in types else None
        here = [d for d in config.devices if d.room == room.id and d.type in {s for _, s in LIGHT_SWITCHES}]
        assert len(here) == (switched is not None)
        if switched is None:
            continue
        switches += 1
        light = f"{room.id}_{switched[0]}_1"
        assert here[0].type == switched[1]
        before = home.read(light, 1, "OnOff", "OnOff")
        assert [s.device_id for s in flip_switch(home, here[0].id)] == [light]
        assert home.read(light, 1, "OnOff", "OnOff") is (not before)
    assert switches >= 1


@pytest.mark.parametrize("tier", ["simuhome", "simple", "stress"])
def test_flats_and_simuhome_homes_get_no_systems(tier: str):
    home = generate_home(tier, 2)
    assert "home_systems" not in home.extensions["generator"]
    assert not {"solar_power", "battery_storage", "evse", "water_valve", "generic_switch", "dimmer_switch"} & {
        d.type for d in home.devices
    }
