"""Device Energy Management forecasts and start-time adjustment on the EV charger (issue 22): the Forecast shows a
plugged-in vehicle's charge, StartTimeAdjustRequest holds a charge that has not begun until the requested time
(inside its window, else CONSTRAINT_ERROR with nothing changed), CancelRequest undoes it, and a started charge or
no vehicle at all is refused with FAILURE — all through the home's invoke, as a controller meets them."""

from __future__ import annotations

from typing import Any

import pytest

from clusters import HomeError, Status
from emulator.emulated_home import EmulatedHome
from emulator.home_config import dump_home
from emulator.scenarios import plug_in_vehicle, unplug_vehicle
from tests.emulator.helpers import fabric

DEM = "DeviceEnergyManagement"
PLUGGED_IN_DEMAND, PLUGGED_IN_CHARGING = 2, 3
POWER_MW = 230 * 32_000  # 32 A at 230 V


def _charger() -> EmulatedHome:
    return fabric([("car", "evse", "garage")])


def _forecast(home: EmulatedHome) -> Any:
    return home.read("car", 1, DEM, "Forecast")


def _shift(home: EmulatedHome, start: int, cause: int = 0) -> None:
    home.invoke("car", 1, DEM, "StartTimeAdjustRequest", {"RequestedStartTime": start, "Cause": cause})


def _enable(home: EmulatedHome) -> None:
    home.invoke(
        "car",
        1,
        "EnergyEvse",
        "EnableCharging",
        {"ChargingEnabledUntil": None, "MinimumChargeCurrent": 6000, "MaximumChargeCurrent": 32000},
    )


def test_the_forecast_shows_the_charge_of_a_plugged_in_vehicle_and_null_without_one() -> None:
    home = _charger()
    assert _forecast(home) is None
    assert home.read("car", 1, DEM, "FeatureMap") == 0b1011  # PowerAdjustment, PowerForecastReporting, StartTime…
    plug_in_vehicle(home, "car", demand_kWh=10)
    forecast = _forecast(home)
    duration = -(-10_000_000 * 3600 // POWER_MW)  # the time 10 kWh takes at 7.36 kW, whole seconds up
    assert forecast["activeSlotNumber"] is None  # pending: charging is not enabled yet
    assert forecast["endTime"] - forecast["startTime"] == duration
    assert forecast["latestEndTime"] == forecast["startTime"] + 86_400
    assert forecast["slots"][0]["nominalPower"] == POWER_MW and forecast["slots"][0]["remainingSlotTime"] == duration
    _enable(home)
    running = _forecast(home)
    assert running["activeSlotNumber"] == 0 and running["forecastID"] != forecast["forecastID"]
    home.advance(600)
    assert _forecast(home)["slots"][0]["elapsedSlotTime"] == 600
    unplug_vehicle(home, "car")
    assert _forecast(home) is None


def test_a_shifted_start_holds_the_charge_until_then() -> None:
    home = _charger()
    plug_in_vehicle(home, "car", demand_kWh=10)
    start = _forecast(home)["startTime"] + 3600
    _shift(home, start, cause=1)
    forecast = _forecast(home)
    assert forecast["startTime"] == start and forecast["forecastUpdateReason"] == 2  # GridOptimization
    _enable(home)
    home.advance(3599)
    assert home.read("car", 1, "EnergyEvse", "State") == PLUGGED_IN_DEMAND  # enabled, but held
    home.advance(2)
    assert home.read("car", 1, "EnergyEvse", "State") == PLUGGED_IN_CHARGING
    with pytest.raises(HomeError, match="already started") as started:
        _shift(home, start + 3600)
    assert started.value.status == Status.FAILURE


def test_a_saved_home_keeps_a_shifted_start(tmp_path: Any) -> None:
    home = _charger()
    plug_in_vehicle(home, "car", demand_kWh=10)
    start = _forecast(home)["startTime"] + 1800
    _shift(home, start)
    _enable(home)
    home.advance(600)
    path = tmp_path / "home.json"
    home.save(str(path))
    loaded = EmulatedHome.from_file(str(path))
    assert _forecast(loaded)["startTime"] == start and _forecast(loaded)["forecastUpdateReason"] == 1
    loaded.advance(1199)
    assert loaded.read("car", 1, "EnergyEvse", "State") == PLUGGED_IN_DEMAND
    loaded.advance(2)
    assert loaded.read("car", 1, "EnergyEvse", "State") == PLUGGED_IN_CHARGING


def test_cancel_request_undoes_the_shift_and_the_charge_starts_at_once() -> None:
    home = _charger()
    plug_in_vehicle(home, "car", demand_kWh=5)
    now = _forecast(home)["startTime"]
    _shift(home, now + 7200)
    _enable(home)
    assert home.read("car", 1, "EnergyEvse", "State") == PLUGGED_IN_DEMAND
    home.invoke("car", 1, DEM, "CancelRequest", {})
    assert home.read("car", 1, "EnergyEvse", "State") == PLUGGED_IN_CHARGING
    assert _forecast(home)["forecastUpdateReason"] == 0
    with pytest.raises(HomeError, match="no start-time adjustment") as nothing:
        home.invoke("car", 1, DEM, "CancelRequest", {})
    assert nothing.value.status == Status.INVALID_IN_STATE


@pytest.mark.parametrize(("offset", "end_offset"), [(-60, False), (0, True)])
def test_a_start_outside_the_window_is_refused_with_constraint_error(offset: int, end_offset: bool) -> None:
    home = _charger()
    plug_in_vehicle(home, "car", demand_kWh=10)
    forecast = _forecast(home)
    duration = forecast["endTime"] - forecast["startTime"]
    start = (forecast["latestEndTime"] - duration + 1) if end_offset else forecast["startTime"] + offset
    before = dump_home(home.to_config())
    with pytest.raises(HomeError, match="outside the window") as refused:
        _shift(home, start)
    assert refused.value.status == Status.CONSTRAINT_ERROR
    assert dump_home(home.to_config()) == before
    _shift(home, forecast["latestEndTime"] - duration)  # the last start that still ends in time


def test_no_vehicle_or_an_opted_out_user_refuses_the_shift() -> None:
    home = _charger()
    with pytest.raises(HomeError, match="no forecast") as nothing:
        _shift(home, 800_000_000)
    assert nothing.value.status == Status.FAILURE
    plug_in_vehicle(home, "car", demand_kWh=10)
    start = _forecast(home)["startTime"] + 60
    home.device("car").cluster(1, DEM).set("OptOutState", 1)  # the user opted out locally
    with pytest.raises(HomeError, match="opted out"):
        _shift(home, start, cause=0)
    _shift(home, start, cause=1)  # a grid request still goes through


def test_the_battery_offers_no_start_time_adjustment() -> None:
    home = fabric([("battery", "battery_storage", "garage")])
    with pytest.raises(HomeError) as refused:
        home.invoke("battery", 1, DEM, "StartTimeAdjustRequest", {"RequestedStartTime": 1, "Cause": 0})
    assert refused.value.status == Status.UNSUPPORTED_COMMAND
    assert not home.device("battery").cluster(1, DEM).has_attribute("Forecast")
