"""Snapshots read every server in one pass (``ClusterServer.read_all`` with its per-shape read plan): the values are
exactly what ``read`` gives attribute by attribute — stored values, live values (sensors fed by room physics,
countdowns, moving colours and covers) and the globals — and a live value that changed without an event shows in
the diff of two snapshots."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

import clusters.base as cluster_base
from clusters import Endpoint
from clusters.descriptor import DescriptorServer
from clusters.device_types import ROOT_NODE
from clusters.on_off import OnOffServer
from emulator.catalogue import CATALOGUE
from emulator.clock import VirtualClock
from emulator.emulated_home import EmulatedHome
from tests.emulator.helpers import MOVING_COMMANDS, every_type_home, fabric


def _every_type_home() -> EmulatedHome:
    home = every_type_home()
    for device_id, endpoint, cluster, command, args in MOVING_COMMANDS:
        home.invoke(device_id, endpoint, cluster, command, args)
    home.run_until(home.tick + 100)  # 10 s: the colour and the blind are still moving, the washer counts down
    return home


def _typed(values: dict[str, Any]) -> list[tuple[str, Any, type]]:
    return [(key, value, type(value)) for key, value in values.items()]


def test_read_all_gives_what_read_gives_for_every_server_of_every_catalogue_type():
    home = _every_type_home()
    servers = 0
    for device in home.devices():
        for endpoint_id, endpoint in device.endpoints.items():
            for name, server in endpoint.clusters.items():
                expected = {attribute: server.read(attribute) for attribute in server.attribute_names()}
                assert _typed(server.read_all()) == _typed(expected), f"{device.device_id} {endpoint_id}.{name}"
                prefixed = server.read_all(f"{endpoint_id}.{name}.")
                assert list(prefixed) == [f"{endpoint_id}.{name}.{a}" for a in expected]
                servers += 1
        by_path = {f"{e}.{c}.{a}": home.read(device.device_id, e, c, a) for e, c, a in device.paths()}
        assert _typed(home.read_all(device.device_id)) == _typed(by_path), device.device_id
    assert servers > 5 * len(CATALOGUE)


def test_read_all_hands_out_lists_of_the_callers_own():
    home = _every_type_home()
    server = home.device("extended_color_light").cluster(1, "ColorControl")
    first = server.read_all()
    first["AcceptedCommandList"].append(-1)
    first["AttributeList"].clear()
    again = server.read_all()
    assert -1 not in again["AcceptedCommandList"] and again["AttributeList"] == server.read("AttributeList") != []


def test_the_derived_command_and_event_lists_do_not_depend_on_state(monkeypatch: pytest.MonkeyPatch):
    """AcceptedCommandList, GeneratedCommandList and EventList are derived once per (class, features): derived
    afresh on a home whose devices moved on, they are the same."""
    home = _every_type_home()
    kept = {
        (device.device_id, endpoint_id, name): server.read_all()
        for device in home.devices()
        for endpoint_id, endpoint in device.endpoints.items()
        for name, server in endpoint.clusters.items()
    }
    monkeypatch.setattr(cluster_base, "_COMMAND_AND_EVENT_LISTS", {})
    monkeypatch.setattr(cluster_base, "_READ_PLANS", {})
    for (device_id, endpoint_id, name), values in kept.items():
        server = home.device(device_id).cluster(endpoint_id, name)
        for attribute in ("AcceptedCommandList", "GeneratedCommandList", "EventList"):
            if attribute in values:
                assert server.read(attribute) == values[attribute], f"{device_id} {endpoint_id}.{name}.{attribute}"


def test_a_live_sensor_reading_that_moved_without_an_event_shows_in_the_diff():
    home = fabric([("ac", "air_conditioner", "living"), ("sensor", "temperature_sensor", "living")])
    home.invoke("ac", 1, "OnOff", "On", {})
    before = home.snapshot()
    path = "1.TemperatureMeasurement.MeasuredValue"
    home.run_until(home.tick + 20 * 60 * 10)  # 20 minutes of cooling: the reading is a live value of the room
    after = home.snapshot()
    assert home.physics_source("sensor", path) is not None  # a reading derived from the room, not a stored value
    assert after["devices"]["sensor"]["attributes"][path] == home.read(
        "sensor", 1, "TemperatureMeasurement", "MeasuredValue"
    )
    moved = [c for c in EmulatedHome.diff(before, after) if c.get("device_id") == "sensor" and c.get("path") == path]
    assert moved and moved[0]["old"] != moved[0]["new"]


def test_a_moving_colour_shows_its_value_now_in_every_snapshot():
    home = fabric([("lamp", "extended_color_light", "living")])
    home.invoke("lamp", 1, "OnOff", "On", {})
    home.invoke("lamp", 1, "ColorControl", "MoveToHue", {"hue": 200, "direction": 0, "transitionTime": 100})
    seen = []
    for _ in range(3):
        home.run_until(home.tick + 20)  # 2 s of a 10 s move
        snapshot = home.snapshot()["devices"]["lamp"]["attributes"]
        assert snapshot["1.ColorControl.CurrentHue"] == home.read("lamp", 1, "ColorControl", "CurrentHue")
        seen.append((snapshot["1.ColorControl.CurrentHue"], snapshot["1.ColorControl.RemainingTime"]))
    assert len(set(seen)) == 3 and seen[-1][1] < seen[0][1]


def test_the_descriptor_lists_are_read_live_in_the_one_pass():
    """A Descriptor on an endpoint that may still change (the Matter bridge's root and aggregator) derives
    DeviceTypeList/ServerList/PartsList from it (its live_reads): read_all reads the rest in one pass and asks ``read``
    for those three alone, so a part added later shows at once. (A device's endpoints are fixed once attached: they
    share a FixedDescriptorServer, tests/emulator/test_shared_structure.py.)"""
    descriptor = DescriptorServer()
    endpoint = Endpoint(0, [ROOT_NODE], [descriptor, OnOffServer()])
    endpoint.parts = (1, 2)
    endpoint.attach(VirtualClock(datetime(2025, 8, 23, 9)))
    assert descriptor._read_plan().own is not None and len(descriptor._read_plan().live) == 3
    before = descriptor.read_all()
    assert before["PartsList"] == descriptor.read("PartsList") == [1, 2]
    endpoint.parts = [1, 2, 99]
    assert descriptor.read_all()["PartsList"] == [1, 2, 99]
