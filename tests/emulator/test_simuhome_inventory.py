"""Every shape of SimuHome's published homes (the inventory, emulator/simuhome/shapes.json) loads, runs and
comes back out in its own shape.

For each (device type, attribute path, shape) of the inventory, a home holding one device that carries that
shape is imported, exported unchanged (byte-identical), built into a fabric, run for an hour of virtual time,
and exported again from the fabric's state: every path of the inventory still has one of its published shapes.
"""

from __future__ import annotations

import json

import pytest

from emulator.emulated_home import EmulatedHome
from emulator.simuhome.export_home import to_simuhome
from emulator.simuhome.import_home import from_simuhome
from emulator.simuhome.samples import device, home, inventory_homes, shape_cases
from emulator.simuhome.shapes import shape_disagreements, shape_of, shape_table

CASES = shape_cases()


def test_the_cases_cover_every_inventory_shape():
    listed = {(t, p, s) for t, paths in shape_table().items() for p, e in paths.items() for s in e.shapes}
    assert {(t, p, s) for t, p, s, _ in CASES} == listed
    assert len(listed) == 316


@pytest.mark.parametrize(
    ("device_type", "path", "shape", "attributes"), CASES, ids=[f"{t}-{p}-{s}" for t, p, s, _ in CASES]
)
def test_inventory_shape_loads_runs_and_round_trips(device_type, path, shape, attributes):
    original = home([device(device_type, attributes, "living_room")])
    assert shape_of(original["rooms"]["living_room"]["devices"][0]["attributes"][path]) == shape
    config, origin = from_simuhome(json.loads(json.dumps(original)))
    assert json.dumps(to_simuhome(config, origin)) == json.dumps(original)  # unchanged: byte-identical

    fabric = EmulatedHome(config)
    fabric.advance(3600)
    exported = to_simuhome(fabric.to_config(), origin, only_original_attributes=True)
    out = exported["rooms"]["living_room"]["devices"][0]["attributes"]
    assert list(out) == list(attributes)  # the same paths, in the same order
    assert shape_disagreements(exported) == []


def test_inventory_homes_build_and_keep_their_shapes_over_a_day():
    for data in inventory_homes():
        config, origin = from_simuhome(data)
        fabric = EmulatedHome(config)
        fabric.advance(24 * 3600)
        assert shape_disagreements(to_simuhome(fabric.to_config(), origin, only_original_attributes=True)) == []
