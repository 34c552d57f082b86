"""What the homes of one process share, and what each endpoint and server keeps of its own (a home costs what it
holds, issue 24): one Descriptor per endpoint shape for every home's devices, a server's runtime read through its
endpoint, its endpoint as its sole listener and the device as its endpoints' sole sink — with changes told in the same
order as before."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from clusters import ClusterServer, Endpoint, HomeError, Status
from clusters.attribute_values import WriteMark
from clusters.descriptor import DescriptorServer, FixedDescriptorServer
from clusters.on_off import OnOffServer
from emulator.catalogue import device_type_spec
from emulator.clock import VirtualClock
from emulator.device import Device
from tests.emulator.helpers import fabric

TYPES = ("on_off_light", "heat_pump", "laundry_washer")


def _typed(values: dict[str, Any]) -> list[tuple[str, Any, type]]:
    return [(key, value, type(value)) for key, value in values.items()]


def _descriptors(home: Any) -> dict[tuple[str, int], ClusterServer]:
    return {
        (device.device_type, endpoint_id): endpoint.clusters["Descriptor"]
        for device in home.devices()
        for endpoint_id, endpoint in device.endpoints.items()
    }


def test_every_home_shares_one_descriptor_per_endpoint_shape_reading_what_its_endpoint_derives() -> None:
    one = fabric([(f"a_{kind}", kind, "living") for kind in TYPES])
    two = fabric([(f"b_{kind}", kind, "kitchen") for kind in TYPES])
    first, second = _descriptors(one), _descriptors(two)
    assert first.keys() == second.keys() and len(first) > len(TYPES)  # endpoint 0 and the others
    for key, shared in first.items():
        assert type(shared) is FixedDescriptorServer and second[key] is shared, key
        # what a Descriptor of the same device, attached to its endpoint, derives from it live
        device = Device("fresh", device_type_spec(key[0]), "living")
        endpoint = device.endpoints[key[1]]
        live = endpoint.clusters["Descriptor"]
        assert type(live) is DescriptorServer
        live.attach(endpoint, endpoint.runtime)
        assert _typed(shared.read_all()) == _typed(live.read_all()), key
        assert shared.read_all("1.Descriptor.", shared_lists=True) == live.read_all("1.Descriptor.", shared_lists=True)
    assert one.snapshot()["devices"]["a_heat_pump"]["attributes"]["0.Descriptor.PartsList"] == [1, 2, 3, 4]


def test_endpoints_of_one_kind_share_their_device_types_and_parts_and_a_list_of_parts_stays_the_endpoints() -> None:
    one = fabric([("a", "heat_pump", "living")]).device("a")
    two = fabric([("b", "heat_pump", "kitchen")]).device("b")
    for endpoint_id, endpoint in one.endpoints.items():
        other = two.endpoints[endpoint_id]
        assert endpoint._kind is other._kind and endpoint.parts is other.parts, endpoint_id
    assert one.endpoints[0].parts == (1, 2, 3, 4) and one.endpoints[1].parts == ()
    standalone = Endpoint(0, [(0x0016, 3)], [DescriptorServer()])
    parts = [1]
    standalone.parts = parts  # the bridge's: a list it changes later
    parts.append(2)
    assert standalone.parts is parts and standalone.device_types == ((0x0016, 3),)


def test_a_shared_descriptor_never_changes_and_refuses_what_would_change_it() -> None:
    one = fabric([("lamp", "on_off_light", "living")])
    two = fabric([("other", "on_off_light", "living")])
    shared = one.device("lamp").cluster(1, "Descriptor")
    assert two.device("other").cluster(1, "Descriptor") is shared
    before = shared.read_all()
    with pytest.raises(HomeError) as refused:
        one.write("lamp", 1, "Descriptor", "ClientList", [6])
    assert refused.value.status == Status.UNSUPPORTED_WRITE
    shared.restore("ClientList", before["ClientList"])  # the value it holds: nothing to do
    shared.restore("PartsList", [9])  # the endpoint's, as on an attached Descriptor: ignored
    for change in (
        lambda: shared.restore("ClientList", [6]),
        lambda: shared.add_listener(lambda *_: None),
        lambda: shared.add_event_listener(lambda *_: None),
        lambda: shared.bind_source("ClientList", list),
        lambda: shared.attach(one.device("lamp").endpoint(1), None),
    ):
        with pytest.raises(AssertionError):
            change()
    mark = WriteMark()
    assert shared.watch_writes(mark) is False and shared._hooks.write_mark is None
    other = two.device("other").cluster(1, "Descriptor")
    assert _typed(shared.read_all()) == _typed(before) == _typed(other.read_all())


def test_a_descriptor_given_a_value_of_its_own_before_its_device_is_attached_keeps_its_own() -> None:
    clock = VirtualClock(datetime(2025, 8, 23, 9))
    device = Device("lamp", device_type_spec("on_off_light"), "living")
    device.endpoints[1].clusters["Descriptor"].restore("ClientList", [6])
    device.attach(clock)
    own = device.endpoints[1].clusters["Descriptor"]
    assert type(own) is DescriptorServer and own.read("ClientList") == [6] and own.endpoint is device.endpoints[1]
    assert type(device.endpoints[0].clusters["Descriptor"]) is FixedDescriptorServer  # untouched: shared


def test_changes_are_told_to_the_endpoint_first_then_to_added_listeners_in_order() -> None:
    told: list[str] = []
    server = OnOffServer()
    endpoint = Endpoint(1, [(0x0100, 3)], [server])
    endpoint.add_sink(lambda *change: told.append(f"sink {change[2]}"))
    endpoint.add_sink(lambda *change: told.append(f"second sink {change[2]}"))
    endpoint.watch("OnOff", "OnOff", lambda old, new: told.append(f"watcher {old}->{new}"))
    endpoint.watch("OnOff", "OnTime", lambda old, new: told.append("not this one"))
    endpoint.watch("OnOff", "OnOff", lambda old, new: told.append("second watcher"))
    clock = VirtualClock(datetime(2025, 8, 23, 9))
    endpoint.attach(clock)
    server.add_listener(lambda _server, name, old, new: told.append(f"listener {name}"))
    server.add_listeners((lambda *_: told.append("second listener"), lambda *_: told.append("third listener")))
    server.invoke("On")
    assert told[:7] == [
        "sink OnOff",
        "second sink OnOff",
        "watcher False->True",
        "second watcher",
        "listener OnOff",
        "second listener",
        "third listener",
    ]


def test_a_server_runs_on_its_endpoints_runtime() -> None:
    server = OnOffServer()
    endpoint = Endpoint(1, [(0x0100, 3)], [server])
    assert server.runtime is None and endpoint.runtime is None
    clock = VirtualClock(datetime(2025, 8, 23, 9))
    endpoint.attach(clock)
    assert server.runtime is clock and server.now() == clock.now()
    with pytest.raises(AssertionError):
        OnOffServer().attach(endpoint, VirtualClock(datetime(2025, 8, 23, 9)))  # not the endpoint's runtime
