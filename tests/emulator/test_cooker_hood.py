"""The extractor hood follows the cooktop in its room while in FanMode Auto (issue 22): the hottest surface that is
on sets its speed, it runs on five minutes after the hob goes off, a hood in another mode or room ignores the hob,
and the world act that switches a surface on refuses what is not a cook surface."""

from __future__ import annotations

import pytest

from clusters import HomeError
from emulator.cooker_hoods import RUN_ON_S
from emulator.emulated_home import EmulatedHome
from emulator.scenarios import turn_on_cook_surface
from tests.emulator.helpers import fabric

AUTO, HIGH = 5, 3


def _kitchen() -> EmulatedHome:
    home = fabric(
        [("hob", "cooktop", "kitchen"), ("hood", "extractor_hood", "kitchen"), ("other", "extractor_hood", "hall")]
    )
    for hood in ("hood", "other"):
        home.write(hood, 1, "FanControl", "FanMode", AUTO)
    return home


def _speed(home: EmulatedHome, hood: str = "hood") -> int:
    return int(home.read(hood, 1, "FanControl", "PercentCurrent"))


def test_an_auto_hood_runs_at_the_hottest_surface_level_and_runs_on_after_the_hob_goes_off() -> None:
    home = _kitchen()
    assert _speed(home) == 0 and home.read("hood", 1, "FanControl", "PercentSetting") is None
    turn_on_cook_surface(home, "hob", 2, level=0)
    assert _speed(home) == 33
    turn_on_cook_surface(home, "hob", 3, level=2)
    assert _speed(home) == 100
    home.invoke("hob", 3, "OnOff", "Off", {})
    assert _speed(home) == 33  # the other surface is still on, at Low
    home.invoke("hob", 2, "TemperatureControl", "SetTemperature", {"TargetTemperatureLevel": 1})
    assert _speed(home) == 66
    home.invoke("hob", 1, "OnOff", "Off", {})  # the whole hob off
    home.advance(RUN_ON_S - 1)
    assert _speed(home) == 66  # still clearing the air
    home.advance(2)
    assert _speed(home) == 0
    assert _speed(home, "other") == 0  # another room's hood never followed this hob


def test_cooking_again_during_the_run_on_keeps_the_hood_going() -> None:
    home = _kitchen()
    turn_on_cook_surface(home, "hob", 2, level=2)
    home.invoke("hob", 2, "OnOff", "Off", {})
    home.advance(RUN_ON_S / 2)
    turn_on_cook_surface(home, "hob", 2, level=0)
    home.advance(RUN_ON_S)
    assert _speed(home) == 33


def test_a_hood_not_in_auto_ignores_the_hob_and_leaving_auto_stops_the_run_on() -> None:
    home = _kitchen()
    home.write("hood", 1, "FanControl", "FanMode", HIGH)
    turn_on_cook_surface(home, "hob", 2, level=0)
    assert _speed(home) == 100  # the user's High, not the hob's Low
    home.write("hood", 1, "FanControl", "FanMode", AUTO)
    assert _speed(home) == 33  # back on the hob
    home.invoke("hob", 1, "OnOff", "Off", {})
    home.write("hood", 1, "FanControl", "FanMode", 0)
    home.advance(RUN_ON_S + 1)
    assert _speed(home) == 0 and home.read("hood", 1, "FanControl", "FanMode") == 0


def test_removing_the_cooktop_lets_the_hood_run_on_and_stop() -> None:
    home = _kitchen()
    turn_on_cook_surface(home, "hob", 2, level=1)
    home.remove_device("hob")
    home.advance(RUN_ON_S + 1)
    assert _speed(home) == 0


def test_turn_on_cook_surface_refuses_what_is_not_a_cook_surface() -> None:
    home = _kitchen()
    with pytest.raises(HomeError, match="no cook surface on endpoint 1") as refused:
        turn_on_cook_surface(home, "hob", 1)
    assert refused.value.allowed == {"surfaces": [2, 3]}
    with pytest.raises(HomeError, match="extractor_hood"):
        turn_on_cook_surface(home, "hood", 2)
    with pytest.raises(HomeError):
        turn_on_cook_surface(home, "hob", 2, level=7)
    assert home.read("hob", 2, "OnOff", "OnOff") is False and _speed(home) == 0
