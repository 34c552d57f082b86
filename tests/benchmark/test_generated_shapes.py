"""Generated episodes speak SimuHome's shapes: on every (device type, path) the published-shape inventory lists,
the exported ``initial_home_config`` uses one of SimuHome's own shapes, and it writes every such path
(except the Descriptor tag lists of the heat pump, fridge and freezer: our endpoints carry no semantic tags)."""

from __future__ import annotations

from benchmark.generation.generate import generate_episodes
from emulator.simuhome.shapes import shape_disagreements, shape_table, shared_paths

NOT_WRITTEN = {("heat_pump", f"{endpoint}.Descriptor.TagList") for endpoint in (1, 2, 3, 4)} | {
    ("freezer", "1.Descriptor.TagList"),
    ("refrigerator", "1.Descriptor.TagList"),
}


def test_generated_homes_agree_with_the_inventory_on_every_shared_path():
    episodes = generate_episodes("all", 2, 5)
    assert len(episodes) == 24
    disagreements = [
        f"{e['meta']['query_type']}_{e['meta']['case']}_seed_{e['meta']['seed']}: {problem}"
        for e in episodes
        for problem in shape_disagreements(e["initial_home_config"])
    ]
    assert disagreements == []
    assert sum(shared_paths(e["initial_home_config"]) for e in episodes) > 8000
    types_seen: set[str] = set()
    for episode in episodes:
        for room in episode["initial_home_config"]["rooms"].values():
            assert isinstance(room["state"]["temperature"], float)
            for device in room["devices"]:
                types_seen.add(device["device_type"])
                listed = set(shape_table()[device["device_type"]])
                missing = {(device["device_type"], p) for p in listed - set(device["attributes"])}
                assert missing <= NOT_WRITTEN, (device["device_id"], missing)
                assert set(device["attributes"]) <= listed  # nothing SimuHome's device lacks
    assert types_seen == set(shape_table())
