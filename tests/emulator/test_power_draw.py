"""Issue #14, item 4: metered power follows the mode — a heat pump in SystemMode Off draws standby watts, not
its rated 3.45 kW — and its energy counter integrates what it really drew. Imported SimuHome homes keep
SimuHome's constant power."""

from __future__ import annotations

from emulator.emulated_home import EmulatedHome
from tests.emulator.helpers import home

RATED_MW, STANDBY_MW = 3_450_000, 8_000


def power(fabric: EmulatedHome) -> int:
    return fabric.read("hp", 2, "ElectricalPowerMeasurement", "ActivePower")


def test_a_heat_pump_draws_its_rated_power_only_while_heating_or_cooling() -> None:
    fabric = EmulatedHome(home([("hp", "heat_pump", "utility")]))
    assert fabric.read("hp", 4, "Thermostat", "SystemMode") == 0
    assert power(fabric) == STANDBY_MW
    assert fabric.read("hp", 2, "ElectricalPowerMeasurement", "ActiveCurrent") == round(STANDBY_MW * 1000 / 230_000)
    fabric.write("hp", 4, "Thermostat", "SystemMode", 4)
    assert power(fabric) == RATED_MW
    fabric.write("hp", 4, "Thermostat", "SystemMode", 3)
    assert power(fabric) == RATED_MW
    fabric.write("hp", 4, "Thermostat", "SystemMode", 0)
    assert power(fabric) == STANDBY_MW


def test_the_stored_mode_decides_the_power_of_a_loaded_home() -> None:
    heating = EmulatedHome(home([("hp", "heat_pump", "utility")], attributes={"hp": {"4.Thermostat.SystemMode": 4}}))
    assert power(heating) == RATED_MW


def test_energy_integrates_the_power_actually_drawn() -> None:
    fabric = EmulatedHome(home([("hp", "heat_pump", "utility")]))
    fabric.advance(3600)  # an hour off
    fabric.write("hp", 4, "Thermostat", "SystemMode", 4)
    fabric.advance(3600)  # an hour heating
    fabric.write("hp", 4, "Thermostat", "SystemMode", 0)
    energy = fabric.read("hp", 2, "ElectricalEnergyMeasurement", "CumulativeEnergyImported")
    assert abs(energy["energy"] - (STANDBY_MW + RATED_MW)) <= 2  # mWh over the two hours


def test_imported_simuhome_homes_keep_a_constant_power() -> None:
    fabric = EmulatedHome(home([("hp", "heat_pump", "utility")], extensions={"physics": {"power_follows_mode": False}}))
    assert power(fabric) == RATED_MW
    fabric.write("hp", 4, "Thermostat", "SystemMode", 4)
    fabric.write("hp", 4, "Thermostat", "SystemMode", 0)
    assert power(fabric) == RATED_MW


def test_an_imported_simuhome_heat_pump_keeps_simuhomes_constant_power() -> None:
    from emulator.simuhome.import_home import from_simuhome
    from tests.emulator.test_simuhome_config import simuhome_config

    fabric = EmulatedHome(from_simuhome(simuhome_config())[0])
    pumps = [d.device_id for d in fabric.devices() if d.device_type == "heat_pump"]
    assert pumps
    for pump in pumps:
        fabric.write(pump, 4, "Thermostat", "SystemMode", 0)
        assert fabric.read(pump, 2, "ElectricalPowerMeasurement", "ActivePower") == RATED_MW


def test_a_smart_plug_that_is_off_meters_no_power() -> None:
    # the other metered type in the catalogue: an open relay passes no current; while on, the load is unknown
    fabric = EmulatedHome(home([("plug", "smart_plug", "utility")], attributes={"plug": {"1.OnOff.OnOff": False}}))
    assert fabric.read("plug", 2, "ElectricalPowerMeasurement", "ActivePower") == 0
    fabric.invoke("plug", 1, "OnOff", "On")
    assert fabric.read("plug", 2, "ElectricalPowerMeasurement", "ActivePower") is None
    fabric.invoke("plug", 1, "OnOff", "Off")
    assert fabric.read("plug", 2, "ElectricalPowerMeasurement", "ActivePower") == 0
    fabric.advance(3600)
    energy = fabric.read("plug", 2, "ElectricalEnergyMeasurement", "CumulativeEnergyImported")
    assert energy is None or energy["energy"] == 0
