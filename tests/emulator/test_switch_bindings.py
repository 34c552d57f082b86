"""Light switches drive the lights they are bound to (issue 22): the Binding list is written through the home
(validated against the home's devices, refused with CONSTRAINT_ERROR and no change), saved with the home file, and
the acts that flip, turn or tint a switch send OnOff / LevelControl / ColorControl commands to each bound light."""

from __future__ import annotations

import json
from typing import Any

import pytest

from clusters import HomeError, Status
from clusters.requester import Requester, acting_as
from emulator.emulated_home import EmulatedHome
from emulator.home_config import dump_home
from emulator.scenarios import dim_switch, flip_switch, press_button, tint_switch
from tests.emulator.helpers import fabric

DEVICES = [
    ("switch", "on_off_light_switch", "hall"),
    ("dimmer", "dimmer_switch", "hall"),
    ("colour", "color_dimmer_switch", "hall"),
    ("lamp", "dimmable_light", "hall"),
    ("bulb", "extended_color_light", "hall"),
    ("sensor", "temperature_sensor", "hall"),
    ("button", "generic_switch", "hall"),
]
ON_OFF, LEVEL, COLOUR = 6, 8, 768


def _home() -> EmulatedHome:
    return fabric(DEVICES)


def _bind(home: EmulatedHome, switch: str, *targets: tuple[str, int | None]) -> list[dict[str, Any]]:
    entries = [
        {"node": home.node_id(device), "endpoint": 1, **({} if cluster is None else {"cluster": cluster})}
        for device, cluster in targets
    ]
    return home.write(switch, 1, "Binding", "Binding", entries).new_value


def test_a_bound_light_switch_toggles_its_light_and_an_unbound_one_nothing() -> None:
    home = _home()
    assert flip_switch(home, "switch") == []  # nothing bound: a switch on a bare wire
    assert home.read("lamp", 1, "OnOff", "OnOff") is False
    _bind(home, "switch", ("lamp", ON_OFF))
    sent = flip_switch(home, "switch")
    assert [s.to_dict() for s in sent] == [
        {"device_id": "lamp", "endpoint": 1, "cluster": "OnOff", "command": "Toggle", "response": None, "refused": None}
    ]
    assert home.read("lamp", 1, "OnOff", "OnOff") is True
    flip_switch(home, "switch")
    assert home.read("lamp", 1, "OnOff", "OnOff") is False
    flip_switch(home, "switch", on=True)
    flip_switch(home, "switch", on=True)
    assert home.read("lamp", 1, "OnOff", "OnOff") is True
    assert home.read("bulb", 1, "OnOff", "OnOff") is False  # not bound


def test_dimmer_and_colour_dimmer_send_level_and_colour_to_every_bound_light() -> None:
    home = _home()
    _bind(home, "dimmer", ("lamp", None), ("bulb", LEVEL))  # no cluster: every cluster of that light
    dim_switch(home, "dimmer", 120)
    assert home.read("lamp", 1, "LevelControl", "CurrentLevel") == 120
    assert home.read("bulb", 1, "LevelControl", "CurrentLevel") == 120
    assert home.read("lamp", 1, "OnOff", "OnOff") is True  # MoveToLevelWithOnOff
    assert [s.device_id for s in flip_switch(home, "dimmer")] == ["lamp"]  # the bulb is bound for LevelControl only
    _bind(home, "colour", ("bulb", COLOUR))
    tint_switch(home, "colour", 300)
    assert home.read("bulb", 1, "ColorControl", "ColorTemperatureMireds") == 300


def test_a_light_that_refuses_is_reported_and_the_others_still_follow() -> None:
    home = _home()
    _bind(home, "dimmer", ("lamp", LEVEL), ("bulb", LEVEL))
    sent = dim_switch(home, "dimmer", 255)  # above MaxLevel (254): each light refuses on its own
    assert [s.device_id for s in sent] == ["lamp", "bulb"]
    assert all(s.refused is not None and s.refused["matter_status"] == "CONSTRAINT_ERROR" for s in sent)


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ({"node": 123, "endpoint": 1}, "no device of this home has node id 123"),
        ({"endpoint": 1, "cluster": ON_OFF, "node": "lamp"}, "has no endpoint 7"),
        ({"cluster": COLOUR, "node": "lamp", "endpoint": 1}, "serves no cluster 768"),
        ({"cluster": ON_OFF, "node": "sensor", "endpoint": 1}, "serves no cluster 6"),
        ({"group": 0}, "group id ≥ 1"),
        ({"endpoint": 1}, "without its node"),
        ({"node": "lamp", "endpoint": 1, "group": 3}, "either node and endpoint"),
    ],
)
def test_a_binding_to_a_target_that_cannot_take_it_is_refused_with_constraint_error(
    entry: dict[str, Any], says: str
) -> None:
    home = _home()
    _bind(home, "switch", ("bulb", ON_OFF))
    before = dump_home(home.to_config())
    if isinstance(entry.get("node"), str):  # a device id here, its node id in the entry
        entry = {**entry, "node": home.node_id(entry["node"])}
        if says.startswith("has no endpoint"):
            entry["endpoint"] = 7
    with pytest.raises(HomeError, match=says) as refused:
        home.write("switch", 1, "Binding", "Binding", [entry])
    assert refused.value.status == Status.CONSTRAINT_ERROR
    assert dump_home(home.to_config()) == before


def test_bindings_are_saved_in_the_home_file_and_drive_the_light_after_a_load(tmp_path: Any) -> None:
    home = _home()
    _bind(home, "switch", ("lamp", ON_OFF))
    path = tmp_path / "home.json"
    home.save(str(path))
    saved = {d["id"]: d for d in json.loads(path.read_text())["devices"]}
    assert saved["switch"]["attributes"]["1.Binding.Binding"] == [
        {"node": home.node_id("lamp"), "endpoint": 1, "cluster": ON_OFF, "fabricIndex": 0}
    ]
    loaded = EmulatedHome.from_file(str(path))
    assert loaded.node_id("lamp") == home.node_id("lamp")  # node ids follow the device ids: nothing else to store
    flip_switch(loaded, "switch")
    assert loaded.read("lamp", 1, "OnOff", "OnOff") is True


def test_a_fabric_writes_only_its_own_entries() -> None:
    home = _home()
    _bind(home, "switch", ("lamp", ON_OFF))
    with acting_as(Requester(fabric_index=2)):
        home.write("switch", 1, "Binding", "Binding", [{"node": home.node_id("bulb"), "endpoint": 1}])
    entries = home.read("switch", 1, "Binding", "Binding")
    assert [(e["fabricIndex"], e["node"]) for e in entries] == [
        (0, home.node_id("lamp")),
        (2, home.node_id("bulb")),
    ]
    flip_switch(home, "switch")
    assert home.read("lamp", 1, "OnOff", "OnOff") is True and home.read("bulb", 1, "OnOff", "OnOff") is True


def test_switch_acts_refuse_devices_that_do_not_send_the_command() -> None:
    home = _home()
    with pytest.raises(HomeError, match="does not send LevelControl") as refused:
        dim_switch(home, "switch", 100)
    assert refused.value.allowed == ["color_dimmer_switch", "dimmer_switch"]
    with pytest.raises(HomeError, match="does not send ColorControl"):
        tint_switch(home, "dimmer", 300)
    with pytest.raises(HomeError, match="does not send OnOff"):
        flip_switch(home, "button")
    with pytest.raises(HomeError, match="not a button"):
        press_button(home, "switch")
    with pytest.raises(HomeError, match="no device"):
        home.node_id("nowhere")


def test_switches_list_their_client_clusters_and_serve_binding() -> None:
    home = _home()
    assert home.read("switch", 1, "Descriptor", "ClientList") == [3, ON_OFF]
    assert home.read("dimmer", 1, "Descriptor", "ClientList") == [3, ON_OFF, LEVEL]
    assert home.read("colour", 1, "Descriptor", "ClientList") == [3, ON_OFF, LEVEL, COLOUR]
    assert 30 in home.read("colour", 1, "Descriptor", "ServerList")
