"""``EmulatedHome.device()`` / ``devices()`` / ``add_device()`` hand out read-only views: what a caller reads is the
device now, and nothing outside the fabric can rename, move or re-hook a device through them."""

from __future__ import annotations

import pytest

from emulator.device import DeviceView
from emulator.home_config import DeviceConfig
from tests.emulator.helpers import fabric


def test_views_follow_the_device_and_refuse_every_change() -> None:
    home = fabric([("lamp", "dimmable_light", "living_room")])
    view = home.device("lamp")
    assert isinstance(view, DeviceView) and view is home.device("lamp") and home.devices() == [view]
    assert (view.device_id, view.device_type, view.room_id) == ("lamp", "dimmable_light", "living_room")
    home.rename_device("lamp", "Reading lamp")  # the fabric's own method changes it; the view shows it
    assert view.name == "Reading lamp"
    home.invoke("lamp", 1, "OnOff", "On")
    assert view.value(1, "OnOff", "OnOff") is True and view.find(1, "LevelControl") is not None
    for field, value in (("name", "x"), ("room_id", "kitchen"), ("device_id", "other"), ("endpoints", {})):
        with pytest.raises(AttributeError):
            setattr(view, field, value)
    with pytest.raises(TypeError):
        view.endpoints[9] = view.endpoints[1]
    assert 9 not in home.device("lamp").endpoints
    for hook in ("add_sink", "clear_sinks", "attach", "check_power"):
        assert not hasattr(view, hook), hook


def test_an_added_device_comes_back_as_a_view() -> None:
    home = fabric([("lamp", "on_off_light", "living_room")])
    added = home.add_device(DeviceConfig(id="fan", type="fan", room="living_room"))
    assert isinstance(added, DeviceView) and added is home.device("fan")


def test_a_devices_endpoints_are_a_read_only_map_in_build_order() -> None:
    import dataclasses

    from emulator.catalogue import device_type_spec
    from emulator.device import Device, EndpointMap

    spec = device_type_spec("heat_pump")
    device = Device("purifier", spec, "living_room")
    endpoints = device.endpoints
    assert isinstance(endpoints, EndpointMap)
    ids = [0, *(e.endpoint_id for e in spec.endpoints)]  # the root first, then the catalogue's order
    assert len(ids) > 2 and list(endpoints) == ids and len(endpoints) == len(ids) and list(endpoints.keys()) == ids
    assert [e.endpoint_id for e in endpoints.values()] == ids == [k for k, _ in endpoints.items()]
    assert all(endpoints[i] is endpoints.get(i) is device.endpoint(i) is device.find_endpoint(i) for i in ids)
    assert 0 in endpoints and 99 not in endpoints and "0" not in endpoints  # type: ignore[comparison-overlap]
    assert endpoints.get(99) is None and endpoints.get(99, "none") == "none" and device.find_endpoint(99) is None
    assert endpoints.get("1") is None  # type: ignore[call-overload]  # as a dict: a key of another type is not found
    with pytest.raises(KeyError):
        endpoints[99]
    assert endpoints == {i: device.endpoint(i) for i in ids} == device.endpoints  # equal to the dict it stands for
    assert device.endpoint(0).parts == tuple(ids[1:])
    with pytest.raises(TypeError):
        endpoints[99] = endpoints[0]
    with pytest.raises(AttributeError):
        endpoints.pop(0)  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        endpoints.extra = 1  # type: ignore[attr-defined]  # slots: no instance dict
    with pytest.raises(AttributeError):
        device.endpoints = endpoints  # type: ignore[misc]  # a view of what the device holds, not an attribute
    # the ids are one tuple, its type's, for every device of the type; the endpoints are each device's own
    twin = Device("purifier", spec, "bedroom")
    assert twin.endpoints._ids is endpoints._ids is spec.device_endpoint_ids
    assert twin.endpoint(1) is not device.endpoint(1)
    with pytest.raises(ValueError, match="repeat"):
        Device("twice", dataclasses.replace(spec, endpoints=spec.endpoints * 2), "living_room")
