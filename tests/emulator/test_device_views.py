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
