"""The committed shape table (emulator/simuhome/shapes.json) is what scripts/simuhome_shapes.py makes of the
inventory, and the shape notation reads and writes the inventory's own spelling."""

from __future__ import annotations

import json

import pytest

from emulator.simuhome.shapes import SHAPES_FILE, parse_shape, path_shapes, shape_of, shape_table
from scripts.simuhome_shapes import DEFAULT_INVENTORY, parse_inventory

EXCERPT = """\
Top-level keys of a home: {'tick_interval': 600, 'base_time': 600, 'rooms': 600}

## (room state) (0 devices)

| attribute | shape(s) | n | min..max |
|---|---|---|---|
| humidity | `float` | 3000 |  |

## rvc (252 devices)

| attribute | shape(s) | n | min..max |
|---|---|---|---|
| 1.RVCOperationalState.CountdownTime | `null` (212) ; `int` (40) | 252 | 10..1800 |
| 1.RVCRunMode.SupportedModes | `list[{Label: str, Mode: int, ModeTags: list[int]}]` | 252 |  |
"""


def test_the_script_reads_paths_shapes_counts_and_ranges():
    table = parse_inventory(EXCERPT)
    assert table["key_counts"]["home"] == {"tick_interval": 600, "base_time": 600, "rooms": 600}
    assert table["room_state"]["humidity"] == {"shapes": {"float": 3000}, "n": 3000}
    rvc = table["device_types"]["rvc"]
    assert rvc["devices"] == 252
    assert rvc["attributes"]["1.RVCOperationalState.CountdownTime"] == {
        "shapes": {"null": 212, "int": 40},
        "n": 252,
        "min": 10,
        "max": 1800,
    }
    assert rvc["attributes"]["1.RVCRunMode.SupportedModes"]["shapes"] == {
        "list[{Label: str, Mode: int, ModeTags: list[int]}]": 252
    }


def test_a_row_whose_counts_do_not_add_up_is_refused():
    with pytest.raises(ValueError, match="CountdownTime"):
        parse_inventory(EXCERPT.replace("(212)", "(200)"))


def test_committed_table_matches_the_inventory():
    committed = json.loads(SHAPES_FILE.read_text(encoding="utf-8"))
    if DEFAULT_INVENTORY.exists():  # the shared reference sits next to the repository checkouts
        assert parse_inventory(DEFAULT_INVENTORY.read_text(encoding="utf-8")) == committed
    assert len(committed["device_types"]) == 16
    assert sum(len(t["attributes"]) for t in committed["device_types"].values()) == 306
    for device_type, entry in committed["device_types"].items():
        for path, item in entry["attributes"].items():
            assert sum(item["shapes"].values()) == item["n"] <= entry["devices"], (device_type, path)


def test_every_inventory_shape_parses_back_to_its_text():
    for paths in shape_table().values():
        for entry in paths.values():
            for text in entry.shapes:
                assert str(parse_shape(text)) == text


@pytest.mark.parametrize(
    ("value", "shape"),
    [
        (None, "null"),
        (True, "bool"),
        (3, "int"),
        (2.5, "float"),
        ("Grid", "str"),
        ([], "list[]"),
        ([2, 3], "list[int]"),
        ([{"Revision": 1, "DeviceType": 45}], "list[{DeviceType: int, Revision: int}]"),
        ({"power_adjust_capability": [], "cause": 0}, "{cause: int, power_adjust_capability: list[]}"),
        ({"ModeTags": [1], "label": "Normal", "mode": 0}, "{ModeTags: list[int], label: str, mode: int}"),
    ],
)
def test_shape_of_writes_the_inventory_notation(value, shape):
    assert shape_of(value) == shape


def test_lookups():
    entry = path_shapes("dimmable_light", "1.LevelControl.CurrentLevel")
    assert entry is not None and entry.shapes == {"int": 924, "null": 18} and entry.main == "int"
    assert (entry.minimum, entry.maximum) == (1, 251)
    assert path_shapes("dimmable_light", "1.Nope.Nope") is None
    assert path_shapes("smart_plug", "1.OnOff.OnOff") is None


def test_every_struct_label_of_a_snake_or_pascal_cluster_survives_the_simuhome_spelling_and_back() -> None:
    """A home exported in SimuHome's spelling loads again: forecastID was written forecast_id and read back as
    forecastId, which the Forecast struct refused (the charging episodes of the home-systems suite)."""
    from dataclasses import fields

    from chip.clusters import Objects

    from emulator.simuhome.spelling import SIMUHOME_KEY_STYLE, simuhome_key
    from emulator.simuhome.values import our_key

    checked = 0
    for cluster in SIMUHOME_KEY_STYLE:
        structs = getattr(Objects, cluster).Structs
        for name in dir(structs):
            if name.startswith("_"):
                continue
            for field in fields(getattr(structs, name)):
                assert our_key(simuhome_key(field.name, cluster)) == field.name, (cluster, name, field.name)
                checked += 1
    assert checked > 20
