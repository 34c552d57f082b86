"""HomeDevices.place skips the restores that would change nothing (a value a device of its type holds as built,
emulator/home_devices.py ``_held_as_built``): a home placed so is the home every restore makes — the same values of
the same types, the same behaviour as time runs and as it is written to — and what one home's devices do never
reaches the next home built."""

from __future__ import annotations

import json
from typing import Any

import pytest

import emulator.home_devices as home_devices
from benchmark.generation.generate import generate_episodes
from clusters import HomeError
from clusters.chip_model import GLOBAL_ATTRIBUTE_IDS
from emulator.catalogue import CATALOGUE, device_type_spec
from emulator.emulated_home import EmulatedHome
from emulator.home_config import HomeConfig
from emulator.simuhome.import_home import from_simuhome
from tests.emulator.helpers import home


def _text(snapshot: dict[str, Any]) -> str:
    return json.dumps(snapshot)  # JSON tells true, 1 and 1.0 apart, as equality does not


def _every_restore(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(home_devices, "_held_as_built", lambda spec: {})


def _built_both_ways(config: HomeConfig, monkeypatch: pytest.MonkeyPatch) -> tuple[EmulatedHome, EmulatedHome]:
    skipping = EmulatedHome(config)
    with monkeypatch.context() as patched:
        _every_restore(patched)
        restoring = EmulatedHome(config)
    return skipping, restoring


def _as_listed(device_type: str) -> dict[str, Any]:
    """A fresh device's stored attributes (no globals), as a home file lists them."""
    fresh = EmulatedHome(home([("d", device_type, "room")]))
    return {
        path: value for path, value in fresh.read_all("d").items() if path.split(".")[2] not in GLOBAL_ATTRIBUTE_IDS
    }


@pytest.mark.parametrize("device_type", sorted(CATALOGUE))
def test_a_device_listing_every_attribute_is_placed_as_every_restore_places_it(device_type, monkeypatch):
    config = home([("d", device_type, "room")], attributes={"d": _as_listed(device_type)})
    skipping, restoring = _built_both_ways(config, monkeypatch)
    assert _text(skipping.snapshot()) == _text(restoring.snapshot())
    skipping.run_until(600)
    restoring.run_until(600)
    assert _text(skipping.snapshot()) == _text(restoring.snapshot())


def test_generated_homes_are_placed_as_every_restore_places_them(monkeypatch):
    for data in generate_episodes("all", 1, 5):
        config, _ = from_simuhome(data["initial_home_config"])
        skipping, restoring = _built_both_ways(config, monkeypatch)
        assert _text(skipping.snapshot()) == _text(restoring.snapshot())
        skipping.run_until(1800)
        restoring.run_until(1800)
        assert _text(skipping.snapshot()) == _text(restoring.snapshot())


def test_most_of_a_generated_home_file_is_skipped():
    skipped = listed = 0
    for data in generate_episodes("all", 1, 5)[:4]:
        config, _ = from_simuhome(data["initial_home_config"])
        for device in config.devices:
            held = home_devices._held_as_built(device_type_spec(device.type))
            listed += len(device.attributes)
            skipped += sum(
                1 for path, value in device.attributes.items() if path in held and type(held[path]) is type(value)
            )
    assert skipped > listed / 3


def test_values_that_follow_the_device_are_never_skipped():
    for spec in CATALOGUE.values():
        held = home_devices._held_as_built(spec)
        assert not [path for path in held if path.split(".")[1:] in (["BasicInformation", n] for n in IDENTITY)]
    labelled = EmulatedHome(
        home(
            [("as-built-2", "on_off_light", "room")],
            attributes={"as-built-2": {"0.BasicInformation.NodeLabel": "first"}},
        )
    )
    assert labelled.read_all("as-built-2")["0.BasicInformation.NodeLabel"] == "first"


IDENTITY = ("NodeLabel", "SerialNumber", "UniqueID")


def test_equal_values_of_another_type_are_restored(monkeypatch):
    held = home_devices._held_as_built(device_type_spec("on_off_light"))
    assert held["1.OnOff.OnOff"] is False
    config = home([("l", "on_off_light", "room")], attributes={"l": {"1.OnOff.OnOff": 0}})  # 0 == False
    with pytest.raises(HomeError, match="must be true or false"):  # refused, as every restore refuses it
        EmulatedHome(config)
    with monkeypatch.context() as patched, pytest.raises(HomeError, match="must be true or false"):
        _every_restore(patched)
        EmulatedHome(config)


def test_a_value_changed_in_one_home_never_reaches_the_next(monkeypatch):
    spec = device_type_spec("dimmable_light")
    table_before = dict(home_devices._held_as_built(spec))
    first = EmulatedHome(home([("l", "dimmable_light", "room")], attributes={"l": {"1.OnOff.OnOff": True}}))
    first.write("l", 1, "LevelControl", "OnLevel", 77)
    first.invoke("l", 1, "OnOff", "Off")
    first.run_until(300)
    assert home_devices._held_as_built(spec) == table_before
    listed = {"1.OnOff.OnOff": table_before["1.OnOff.OnOff"], "1.LevelControl.CurrentLevel": 40}
    second, restoring = _built_both_ways(home([("l", "dimmable_light", "room")], attributes={"l": listed}), monkeypatch)
    assert _text(second.snapshot()) == _text(restoring.snapshot())
    assert second.read_all("l")["1.OnOff.OnOff"] is table_before["1.OnOff.OnOff"]
    assert second.read_all("l")["1.LevelControl.OnLevel"] != 77


def test_a_struct_held_as_built_is_skipped_only_when_written_alike(monkeypatch):
    held = home_devices._held_as_built(device_type_spec("on_off_light"))["0.BasicInformation.CapabilityMinima"]
    assert held.alike(dict(held.value)) and held.alike(dict(reversed(held.value.items())))  # any key order
    as_float = {key: float(value) for key, value in held.value.items()}  # equal, not alike: 3.0 is not 3
    assert as_float == held.value and not held.alike(as_float)
    for minima in (dict(held.value), as_float, {**held.value, "caseSessionsPerFabric": 4}):
        listed = {"l": {"0.BasicInformation.CapabilityMinima": minima}}
        config = home([("l", "on_off_light", "room")], attributes=listed)
        skipping, restoring = _built_both_ways(config, monkeypatch)
        assert _text(skipping.snapshot()) == _text(restoring.snapshot())
