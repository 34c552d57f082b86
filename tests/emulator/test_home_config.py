"""Our home format: validation with JSON paths, deterministic dumps, atomic saves."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from emulator import files
from emulator.home_config import (
    HomeConfig,
    HomeConfigError,
    dump_home,
    load_home,
    loads_home,
    parse_attribute_path,
    save_home,
    validate_home,
)

ENV = {"temperature": 2500, "humidity": 5000, "illuminance": 120.5, "pm10": 30}


def home_data() -> dict[str, Any]:
    return {
        "format": "homefabric-home/1",
        "name": "test home",
        "seed": 3,
        "tier": "simple",
        "base_time": "2025-08-23 10:15:00",
        "rooms": [
            {"id": "living_room", "name": "Living Room", "type": "living_room", "environment": dict(ENV)},
            {
                "id": "bedroom",
                "name": "Bedroom",
                "type": "bedroom",
                "floor": 1,
                "environment": dict(ENV),
                "baseline": {**ENV, "temperature": 2300},
            },
            {
                "id": "ensuite",
                "name": "En-suite",
                "type": "bathroom",
                "floor": 1,
                "parent": "bedroom",
                "environment": dict(ENV),
            },
            {"id": "attic", "name": "Attic", "type": "attic", "floor": 2, "environment": dict(ENV)},
        ],
        "devices": [
            {
                "id": "living_room_fan_1",
                "type": "fan",
                "room": "living_room",
                "attributes": {"1.OnOff.OnOff": True, "1.FanControl.PercentSetting": 40},
            },
            {
                "id": "bedroom_dimmable_light_1",
                "type": "dimmable_light",
                "room": "bedroom",
                "name": "Bed lamp",
                "attributes": {"1.LevelControl.CurrentLevel": 100, "1.OnOff.OnOff": False},
            },
            {"id": "ensuite_on_off_light_1", "type": "on_off_light", "room": "ensuite"},
        ],
        "extensions": {"zeta": 1, "alpha": {"b": 2, "a": 1}},
    }


def problems_of(data: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(HomeConfigError) as caught:
        validate_home(data, "home.json")
    assert str(caught.value).startswith("home.json: invalid home config")
    return caught.value.problems


def paths_of(data: dict[str, Any]) -> list[str]:
    return [path for path, _ in problems_of(data)]


# --- validation ----------------------------------------------------------------------------------


def test_valid_home_loads_with_defaults():
    config = validate_home(home_data())
    living = config.room("living_room")
    assert living.floor == 0 and living.parent is None
    assert living.baseline == living.environment  # baseline defaults to the environment
    assert config.room("bedroom").baseline.temperature == 2300
    assert config.device("ensuite_on_off_light_1").attributes == {}
    assert [d.id for d in config.devices_in_room("bedroom")] == ["bedroom_dimmable_light_1"]
    assert [r.id for r in config.child_rooms("bedroom")] == ["ensuite"]
    with pytest.raises(KeyError):
        config.room("garage")
    with pytest.raises(KeyError):
        config.device("nope")


def test_out_of_range_environment_names_its_json_path():
    data = home_data()
    data["rooms"][3]["environment"]["humidity"] = 10001
    data["rooms"][0]["environment"]["temperature"] = -6000
    data["rooms"][1]["baseline"]["illuminance"] = -1
    problems = dict(problems_of(data))
    assert problems["rooms[3].environment.humidity"] == "10001 is outside the allowed 0..10000"
    assert "rooms[0].environment.temperature" in problems
    assert "rooms[1].baseline.illuminance" in problems


def test_environment_numbers_are_strict():
    data = home_data()
    data["rooms"][0]["environment"]["pm10"] = "30"
    data["rooms"][1]["environment"]["temperature"] = True
    data["rooms"][2]["environment"]["illuminance"] = float("nan")
    assert set(paths_of(data)) >= {
        "rooms[0].environment.pm10",
        "rooms[1].environment.temperature",
        "rooms[2].environment.illuminance",
    }


def test_unknown_room_of_a_device():
    data = home_data()
    data["devices"][2]["room"] = "atic"
    assert problems_of(data) == [("devices[2].room", "unknown room 'atic'")]


def test_duplicate_ids():
    data = home_data()
    data["rooms"].append(copy.deepcopy(data["rooms"][0]))
    data["devices"].append(copy.deepcopy(data["devices"][1]))
    problems = dict(problems_of(data))
    assert problems["rooms[4].id"] == "duplicate room id 'living_room' (first at rooms[0])"
    assert problems["devices[3].id"] == "duplicate device id 'bedroom_dimmable_light_1' (first at devices[1])"


def test_unknown_parent_and_parent_cycles():
    data = home_data()
    data["rooms"][0]["parent"] = "cellar"
    data["rooms"][1]["parent"] = "ensuite"  # bedroom ↔ ensuite
    data["rooms"][3]["parent"] = "attic"  # its own parent
    problems = problems_of(data)
    assert ("rooms[0].parent", "unknown room 'cellar'") in problems
    cycles = [(path, message) for path, message in problems if "cycle" in message]
    assert len(cycles) == 2
    assert any("bedroom" in m and "ensuite" in m for _, m in cycles)
    assert ("rooms[3].parent", "parent cycle attic -> attic") in cycles


def test_id_charset():
    data = home_data()
    data["devices"][0]["id"] = "living room fan"
    data["rooms"][3]["id"] = "attic/1"
    data["devices"][2]["room"] = "ensuite"
    paths = paths_of(data)
    assert "devices[0].id" in paths and "rooms[3].id" in paths


@pytest.mark.parametrize(
    "bad",
    [
        "OnOff.OnOff",
        "1.onOff.OnOff",
        "x.OnOff.OnOff",
        "1.OnOff.OnOff.Extra",
        "01.OnOff.OnOff",
        "70000.OnOff.OnOff",
        "1.On_Off.OnOff",
    ],
)
def test_attribute_paths_are_checked(bad: str):
    data = home_data()
    data["devices"][1]["attributes"][bad] = 1
    ((path, message),) = problems_of(data)
    assert path == f"devices[1].attributes[{json.dumps(bad)}] (key)"
    assert repr(bad) in message


def test_parse_attribute_path():
    assert parse_attribute_path("4.Thermostat.OccupiedHeatingSetpoint") == (4, "Thermostat", "OccupiedHeatingSetpoint")
    with pytest.raises(ValueError):
        parse_attribute_path("4.Thermostat")


def test_missing_and_extra_fields_and_bad_time_and_format():
    data = home_data()
    del data["rooms"][0]["name"]
    data["devices"][0]["colour"] = "red"
    data["base_time"] = "2025-08-23T10:15:00"
    data["format"] = "homefabric-home/2"
    problems = dict(problems_of(data))
    assert problems["rooms[0].name"] == "Field required"
    assert "Extra inputs are not permitted" in problems["devices[0].colour"]
    assert "YYYY-MM-DD HH:MM:SS" in problems["base_time"]
    for bad_time in ("2025-8-23 10:15:00", "2025-02-30 10:00:00"):
        assert paths_of({**home_data(), "base_time": bad_time}) == ["base_time"]
    assert "format" in problems


def test_loads_reports_json_syntax_with_line_and_column():
    text = '{\n  "name": "x",\n  "rooms": [,]\n}'
    with pytest.raises(HomeConfigError) as caught:
        loads_home(text, "broken.json")
    message = str(caught.value)
    assert message.startswith("broken.json:")
    assert "line 3 column 13" in message


def test_load_names_the_file(tmp_path: Path):
    path = tmp_path / "home.json"
    data = home_data()
    data["devices"][1]["room"] = "atic"
    path.write_text(json.dumps(data))
    with pytest.raises(HomeConfigError) as caught:
        load_home(path)
    assert str(path) in str(caught.value)
    assert "devices[1].room: unknown room 'atic'" in str(caught.value)
    with pytest.raises(HomeConfigError, match="cannot read"):
        load_home(tmp_path / "missing.json")


# --- deterministic dumps -------------------------------------------------------------------------


def test_dump_is_deterministic_and_round_trips():
    config = validate_home(home_data())
    text = dump_home(config)
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert dump_home(validate_home(home_data())) == text
    assert loads_home(text) == config
    assert dump_home(loads_home(text)) == text
    # Attribute and extension keys are sorted, whatever order they were given in.
    parsed = json.loads(text)
    assert list(parsed["devices"][1]["attributes"]) == ["1.LevelControl.CurrentLevel", "1.OnOff.OnOff"]
    assert list(parsed["extensions"]) == ["alpha", "zeta"] and list(parsed["extensions"]["alpha"]) == ["a", "b"]
    # Top-level order is the model's; ints stay ints.
    assert list(parsed)[:3] == ["format", "name", "seed"]
    assert '"temperature": 2500,' in text and '"illuminance": 120.5' in text


def test_dump_ignores_input_key_order():
    data = home_data()
    reordered = copy.deepcopy(data)
    reordered["devices"][0]["attributes"] = dict(reversed(list(data["devices"][0]["attributes"].items())))
    reordered["rooms"][0] = dict(reversed(list(data["rooms"][0].items())))
    assert dump_home(validate_home(reordered)) == dump_home(validate_home(data))


# --- atomic saves --------------------------------------------------------------------------------


def test_save_writes_the_file_and_leaves_no_temp_files(tmp_path: Path):
    config = validate_home(home_data())
    path = tmp_path / "home.json"
    save_home(config, path)
    assert path.read_text(encoding="utf-8") == dump_home(config)
    assert load_home(path) == config
    save_home(config.model_copy(update={"name": "renamed"}), path)
    assert load_home(path).name == "renamed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home.json"]


def test_failed_write_keeps_the_old_file_intact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "home.json"
    old = validate_home(home_data())
    save_home(old, path)
    before = path.read_bytes()

    def write_half_then_fail(fd: int, data: bytes) -> None:
        os.write(fd, data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files, "write_all", write_half_then_fail)
    with pytest.raises(OSError, match="No space left"):
        save_home(old.model_copy(update={"name": "new"}), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home.json"]


def test_failed_rename_and_fsync_leave_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "home.json"
    config = validate_home(home_data())

    def fail(*args: object) -> None:
        raise OSError("boom")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="boom"):
        save_home(config, path)
    assert list(tmp_path.iterdir()) == []  # no half-written home.json, no temp file
    monkeypatch.undo()
    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError, match="boom"):
        save_home(config, path)
    assert list(tmp_path.iterdir()) == []


def test_model_construction_validates_directly():
    with pytest.raises(ValueError):
        HomeConfig.model_validate({**home_data(), "rooms": []})  # devices now point at unknown rooms
