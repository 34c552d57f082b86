"""The home's net power and energy (emulator/home_power.py): every metered device added up, checked against the
closed form of each device's behaviour — solar's 15-minute staircase, a battery charging at a fixed power, an EV
charger at 16 A, a heat pump's rated draw — and a plug whose load is unknown."""

from __future__ import annotations

from datetime import datetime, timedelta

from emulator.daylight import DEFAULT_LATITUDE_DEG, KNOT_S, sun_sine
from emulator.emulated_home import EmulatedHome
from emulator.home_power import home_power
from emulator.role_behaviour import SOLAR_PEAK_MW, SOLAR_PERFORMANCE_RATIO
from emulator.scenarios import plug_in_vehicle
from tests.emulator.helpers import home

START = datetime(2025, 8, 23, 9)  # the helper's base time: a knot boundary
HEAT_PUMP_MW, BATTERY_MW, CHARGER_MW = 3_450_000, 3_000_000, 230 * 16_000


def _solar_mW(knot: int) -> int:
    middle = START + timedelta(seconds=knot * KNOT_S + KNOT_S / 2)
    return -round(SOLAR_PEAK_MW * SOLAR_PERFORMANCE_RATIO * sun_sine(middle, DEFAULT_LATITUDE_DEG))


def _home() -> EmulatedHome:
    fabric = EmulatedHome(
        home(
            [
                ("pv", "solar_power", "garage"),
                ("bat", "battery_storage", "garage"),
                ("car", "evse", "garage"),
                ("hp", "heat_pump", "utility"),
                ("plug", "smart_plug", "utility"),
                ("lamp", "on_off_light", "utility"),
            ],
            attributes={"hp": {"4.Thermostat.SystemMode": 4}, "plug": {"1.OnOff.OnOff": True}},
        )
    )
    fabric.invoke(
        "bat", 1, "DeviceEnergyManagement", "PowerAdjustRequest", {"Power": BATTERY_MW, "Duration": 3600, "Cause": 0}
    )
    plug_in_vehicle(fabric, "car", demand_kWh=30)
    fabric.invoke(
        "car",
        1,
        "EnergyEvse",
        "EnableCharging",
        {"ChargingEnabledUntil": None, "MinimumChargeCurrent": 6000, "MaximumChargeCurrent": 16000},
    )
    return fabric


def test_net_power_adds_every_metered_device_with_solar_negative() -> None:
    fabric = _home()
    reading = home_power(fabric)
    by_device = {m.device_id: m.active_power_mW for m in reading.meters}
    assert by_device == {"pv": _solar_mW(0), "bat": BATTERY_MW, "car": CHARGER_MW, "hp": HEAT_PUMP_MW, "plug": None}
    assert _solar_mW(0) < 0
    assert reading.active_power_mW == _solar_mW(0) + BATTERY_MW + CHARGER_MW + HEAT_PUMP_MW
    assert reading.production_mW == -_solar_mW(0)
    assert reading.consumption_mW == BATTERY_MW + CHARGER_MW + HEAT_PUMP_MW
    assert reading.unknown_power == ("plug",)  # a plug's load is whatever is plugged in: listed, counted as 0
    fabric.advance(KNOT_S)  # the next knot: only the panels change
    assert home_power(fabric).active_power_mW == _solar_mW(1) + BATTERY_MW + CHARGER_MW + HEAT_PUMP_MW


def test_net_energy_is_the_integral_of_every_meter_once_each_has_counted() -> None:
    fabric = _home()
    fabric.advance(3600)  # the battery's adjustment ends by itself at 10:00 (its meter counts then) …
    fabric.invoke("car", 1, "EnergyEvse", "Disable", {})  # … and the charger and heat pump stop now
    fabric.write("hp", 4, "Thermostat", "SystemMode", 0)
    reading = home_power(fabric)
    solar_mWh = sum(-_solar_mW(k) * KNOT_S / 3600 for k in range(4))  # four knots, each held 15 minutes
    assert abs(reading.exported_mWh - solar_mWh) <= 4  # each knot's chunk rounded to the mWh
    assert reading.imported_mWh == BATTERY_MW + CHARGER_MW + HEAT_PUMP_MW  # one hour each: mW → mWh
    assert reading.net_energy_mWh == reading.imported_mWh - reading.exported_mWh
    assert {m.device_id: m.as_of_s for m in reading.meters if m.as_of_s is not None} == {
        "pv": 3600.0,
        "bat": 3600.0,
        "car": 3600.0,
        "hp": 3600.0,
    }
    assert reading.of_type("solar_power").exported_mWh == reading.exported_mWh
    listed = [m["device_id"] for m in reading.as_dict()["meters"]]
    assert listed == [d.device_id for d in fabric.devices() if d.device_id in {"pv", "bat", "car", "hp", "plug"}]


def test_a_home_without_meters_reads_zero() -> None:
    fabric = EmulatedHome(home([("lamp", "on_off_light", "hall")]))
    reading = home_power(fabric)
    assert reading.meters == () and reading.active_power_mW == 0 and reading.net_energy_mWh == 0


def test_agents_read_it_with_the_get_home_energy_tool_of_the_extended_profile() -> None:
    from agent_tools.toolbox import ToolBox

    fabric = _home()
    envelope = ToolBox(fabric, profile="simuhome_ext").call("get_home_energy", {})
    assert envelope["error"] is None and envelope["data"] == home_power(fabric).as_dict()
    assert envelope["data"]["active_power_mW"] == _solar_mW(0) + BATTERY_MW + CHARGER_MW + HEAT_PUMP_MW
    assert "get_home_energy" not in ToolBox(fabric, profile="simuhome").names()  # SimuHome's own 16 tools stay
