"""Behaviour of the device library's newer types (issue 22), in virtual time: button presses as Switch events,
the water valve and its flow meter, the pump's modes, the EV charger's session, the home battery's state of
charge, solar output over a day, the mode selector and the cooktop's surfaces."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

import pytest

from clusters import ClusterServer, HomeError, Status
from clusters.electrical import ElectricalEnergyMeasurementServer
from clusters.energy_evse import EnergyEvseServer
from clusters.switch import SwitchServer
from emulator.catalogue import CATALOGUE
from emulator.clock import TICKS_PER_SECOND, VirtualClock
from emulator.device import Device
from emulator.role_behaviour import BATTERY_CAPACITY_MWH, HomeBattery
from emulator.scenarios import plug_in_vehicle, press_button, sense_water, unplug_vehicle
from tests.emulator.helpers import fabric

ServerT = TypeVar("ServerT", bound=ClusterServer)

START = datetime(2025, 8, 23, 9)


def _device(type_name: str, start: datetime = START) -> tuple[Device, VirtualClock]:
    device = Device(f"{type_name}_1", CATALOGUE[type_name], "room")
    clock = VirtualClock(start)
    device.attach(clock)
    return device, clock


def _server(device: Device, endpoint_id: int, cluster: str, kind: type[ServerT]) -> ServerT:
    """The device's cluster server, as the class the catalogue gives that cluster."""
    server = device.cluster(endpoint_id, cluster)
    assert isinstance(server, kind)
    return server


def _events(server: ClusterServer, clock: VirtualClock) -> list[tuple[float, str, dict[str, Any]]]:
    seen: list[tuple[float, str, dict[str, Any]]] = []
    server.add_event_listener(lambda s, name, fields, priority: seen.append((clock.now(), name, fields)))
    return seen


def _run(clock: VirtualClock, seconds: float) -> None:
    clock.advance_to(clock.tick + round(seconds * TICKS_PER_SECOND))


# ----------------------------------------------------------------------------------------------- button
def test_double_press_is_initial_press_release_ongoing_and_complete_events() -> None:
    device, clock = _device("generic_switch")
    switch = _server(device, 1, "Switch", SwitchServer)
    events = _events(switch, clock)
    assert switch.press(2) == pytest.approx(1.2)
    _run(clock, 0.1)
    assert switch.read("CurrentPosition") == 1
    _run(clock, 2)
    assert [(t, name) for t, name, _ in events] == [
        (0.0, "InitialPress"),
        (0.2, "ShortRelease"),
        (0.5, "InitialPress"),
        (0.5, "MultiPressOngoing"),
        (0.7, "ShortRelease"),
        (1.2, "MultiPressComplete"),
    ]
    assert events[-1][2] == {"previousPosition": 1, "totalNumberOfPressesCounted": 2}
    assert switch.read("CurrentPosition") == 0


def test_long_press_reports_long_press_and_long_release_only() -> None:
    device, clock = _device("generic_switch")
    switch = _server(device, 1, "Switch", SwitchServer)
    events = _events(switch, clock)
    switch.press(long=True, hold_s=3)
    _run(clock, 5)
    assert [(t, name) for t, name, _ in events] == [(0.0, "InitialPress"), (1.0, "LongPress"), (3.0, "LongRelease")]


def test_switch_refuses_overlapping_or_impossible_presses() -> None:
    device, clock = _device("generic_switch")
    switch = _server(device, 1, "Switch", SwitchServer)
    with pytest.raises(HomeError) as error:
        switch.press(4)
    assert error.value.status == Status.CONSTRAINT_ERROR and "1..3" in str(error.value)
    switch.press(1)
    with pytest.raises(HomeError) as busy:
        switch.press(1)
    assert busy.value.status == Status.BUSY
    _run(clock, 1)
    switch.press(1)  # the first sequence is over


def test_switch_event_list_follows_its_features() -> None:
    device, _ = _device("generic_switch")
    switch = _server(device, 1, "Switch", SwitchServer)
    assert set(switch.supported_events()) == {
        "InitialPress",
        "LongPress",
        "ShortRelease",
        "LongRelease",
        "MultiPressOngoing",
        "MultiPressComplete",
    }
    assert len(switch.read("EventList")) == 6


# ----------------------------------------------------------------------------------------------- water
def test_valve_opens_for_its_duration_then_closes_by_itself_and_the_flow_follows() -> None:
    device, clock = _device("water_valve")
    valve, meter = device.cluster(1, "ValveConfigurationAndControl"), device.cluster(2, "FlowMeasurement")
    events = _events(valve, clock)
    assert meter.read("MeasuredValue") == 0
    valve.invoke("Open", {"OpenDuration": 60})
    assert (valve.read("CurrentState"), valve.read("TargetState")) == (2, 1)  # transitioning towards open
    assert meter.read("MeasuredValue") == 12
    _run(clock, 3)
    assert (valve.read("CurrentState"), valve.read("TargetState")) == (1, None)
    assert valve.read("OpenDuration") == 60 and valve.read("RemainingDuration") == 57
    _run(clock, 57)
    assert valve.read("TargetState") == 0 and valve.read("RemainingDuration") is None
    _run(clock, 3)
    assert valve.read("CurrentState") == 0 and meter.read("MeasuredValue") == 0
    assert [(t, name, f["valveState"]) for t, name, f in events] == [
        (3.0, "ValveStateChanged", 1),
        (63.0, "ValveStateChanged", 0),
    ]


def test_valve_open_without_duration_uses_default_and_close_stops_it() -> None:
    device, clock = _device("water_valve")
    valve = device.cluster(1, "ValveConfigurationAndControl")
    valve.invoke("Open", {})
    _run(clock, 3600)
    assert valve.read("CurrentState") == 1 and valve.read("OpenDuration") is None  # open until closed
    valve.write("DefaultOpenDuration", 10)
    valve.invoke("Close", {})
    _run(clock, 3)
    valve.invoke("Open", {})
    _run(clock, 14)
    assert valve.read("CurrentState") == 0  # 10 s open, then 3 s to close
    with pytest.raises(HomeError) as error:
        valve.invoke("Open", {"OpenDuration": 0})
    assert error.value.status == Status.CONSTRAINT_ERROR


def test_pump_speed_flow_and_pressure_follow_on_off_and_operation_mode() -> None:
    device, _ = _device("pump")
    pump, flow, pressure = (
        device.cluster(1, c) for c in ("PumpConfigurationAndControl", "FlowMeasurement", "PressureMeasurement")
    )
    assert (pump.read("Speed"), pump.read("Capacity"), flow.read("MeasuredValue")) == (0, 0, 0)
    device.cluster(1, "OnOff").invoke("On", {})
    assert pump.read("Speed") == 2000 and pump.read("PumpStatus") & 0x20
    assert flow.read("MeasuredValue") == 20 and pressure.read("MeasuredValue") == round(400 * (2 / 3) ** 2)
    pump.write("OperationMode", 2)  # Maximum
    assert (pump.read("EffectiveOperationMode"), pump.read("Speed"), pump.read("Capacity")) == (2, 3000, 20000)
    assert (flow.read("MeasuredValue"), pressure.read("MeasuredValue")) == (30, 400)
    with pytest.raises(HomeError) as error:
        pump.write("OperationMode", 3)  # Local: needs the LocalOperation feature
    assert error.value.status == Status.CONSTRAINT_ERROR and pump.read("OperationMode") == 2
    device.cluster(1, "OnOff").invoke("Off", {})
    assert (pump.read("Speed"), pump.read("PumpStatus") & 0x20, flow.read("MeasuredValue")) == (0, 0, 0)


# ----------------------------------------------------------------------------------------------- energy
def test_evse_session_charges_until_the_vehicle_is_full() -> None:
    device, clock = _device("evse")
    evse, meter = _server(device, 1, "EnergyEvse", EnergyEvseServer), device.cluster(1, "ElectricalPowerMeasurement")
    energy = _server(device, 1, "ElectricalEnergyMeasurement", ElectricalEnergyMeasurementServer)
    events = _events(evse, clock)
    assert evse.plug_in(demand_mWh=7_360_000) == 0  # 7.36 kWh: two hours at 16 A
    assert evse.read("State") == 2  # PluggedInDemand: nothing flows until charging is enabled
    evse.invoke(
        "EnableCharging", {"ChargingEnabledUntil": None, "MinimumChargeCurrent": 6000, "MaximumChargeCurrent": 16000}
    )
    assert evse.read("State") == 3 and meter.read("ActivePower") == 3_680_000
    _run(clock, 3600)
    assert evse.read("SessionEnergyCharged") == 3_680_000 and evse.read("SessionDuration") == 3600
    _run(clock, 3600)
    assert evse.read("State") == 1 and meter.read("ActivePower") == 0  # full: PluggedInNoDemand
    assert evse.read("SessionEnergyCharged") == 7_360_000
    energy.flush()
    assert energy.read("CumulativeEnergyImported")["energy"] == 7_360_000
    evse.unplug()
    assert [name for _, name, _ in events] == [
        "EVConnected",
        "EnergyTransferStarted",
        "EnergyTransferStopped",
        "EVNotDetected",
    ]
    stopped, gone = events[2][2], events[3][2]
    assert stopped["reason"] == 0 and stopped["energyTransferred"] == 7_360_000  # EVStopped
    assert gone["sessionDuration"] == 7200 and gone["sessionEnergyCharged"] == 7_360_000


def test_evse_disable_stops_the_transfer_and_limits_are_checked() -> None:
    device, clock = _device("evse")
    evse = _server(device, 1, "EnergyEvse", EnergyEvseServer)
    events = _events(evse, clock)
    evse.plug_in()
    with pytest.raises(HomeError) as error:
        evse.invoke(
            "EnableCharging",
            {"ChargingEnabledUntil": None, "MinimumChargeCurrent": 16000, "MaximumChargeCurrent": 8000},
        )
    assert error.value.status == Status.CONSTRAINT_ERROR and evse.read("SupplyState") == 0
    evse.invoke(
        "EnableCharging", {"ChargingEnabledUntil": None, "MinimumChargeCurrent": 6000, "MaximumChargeCurrent": 64000}
    )
    assert evse.read("MaximumChargeCurrent") == 32000  # capped by the circuit
    _run(clock, 600)
    evse.invoke("Disable", {})
    assert evse.read("State") == 2 and events[-1][1] == "EnergyTransferStopped" and events[-1][2]["reason"] == 1
    assert events[-1][2]["energyTransferred"] == round(230 * 32000 * 600 / 3600)
    with pytest.raises(HomeError):
        evse.plug_in()  # already plugged in


def test_battery_charges_to_full_with_losses_and_stops_at_its_reserve() -> None:
    device, clock = _device("battery_storage")
    esa, source = device.cluster(1, "DeviceEnergyManagement"), device.cluster(1, "PowerSource")
    meter = device.cluster(1, "ElectricalPowerMeasurement")
    assert source.read("BatPercentRemaining") == 100  # 50 %
    esa.invoke("PowerAdjustRequest", {"Power": 5_000_000, "Duration": 86_400, "Cause": 0})
    assert meter.read("ActivePower") == 5_000_000 and source.read("BatChargeState") == 1
    _run(clock, 1800)
    assert source.read("BatPercentRemaining") == round(200 * (5_000_000 + 2_500_000 * 0.95) / BATTERY_CAPACITY_MWH)
    _run(clock, 3 * 3600)
    assert source.read("BatPercentRemaining") == 200 and meter.read("ActivePower") == 0
    assert source.read("BatChargeState") == 2  # IsAtFullCharge
    esa.invoke("CancelPowerAdjustRequest", {})
    esa.invoke("PowerAdjustRequest", {"Power": -5_000_000, "Duration": 86_400, "Cause": 0})
    assert meter.read("ActivePower") == -5_000_000
    hours = 9_000_000 * 0.95 / 5_000_000  # 90 % of 10 kWh out of the cells, 95 % of it delivered
    _run(clock, hours * 3600 + 1)
    assert source.read("BatPercentRemaining") == 20 and meter.read("ActivePower") == 0
    behaviour = next(b for b in device.behaviour if isinstance(b, HomeBattery))
    assert behaviour.stored_mWh() == pytest.approx(1_000_000)


def test_battery_follows_the_end_of_a_power_adjustment() -> None:
    device, clock = _device("battery_storage")
    esa, meter = device.cluster(1, "DeviceEnergyManagement"), device.cluster(1, "ElectricalPowerMeasurement")
    esa.invoke("PowerAdjustRequest", {"Power": 2_000_000, "Duration": 600, "Cause": 0})
    _run(clock, 600)
    assert meter.read("ActivePower") == 0 and device.cluster(1, "PowerSource").read("BatPercentRemaining") == round(
        200 * (5_000_000 + 2_000_000 * 600 / 3600 * 0.95) / BATTERY_CAPACITY_MWH
    )


def test_solar_output_follows_the_sun_and_exports_energy() -> None:
    device, clock = _device("solar_power", datetime(2025, 6, 21, 0))
    meter = device.cluster(1, "ElectricalPowerMeasurement")
    energy = _server(device, 1, "ElectricalEnergyMeasurement", ElectricalEnergyMeasurementServer)
    assert meter.read("ActivePower") == 0  # midnight
    readings = {}
    for hour in (6, 9, 12, 15, 21):
        clock.advance_to(hour * 3600 * TICKS_PER_SECOND)
        readings[hour] = meter.read("ActivePower")
    assert readings[21] == 0 and readings[6] < 0
    assert readings[12] < readings[9] < readings[6]  # more export towards noon …
    assert readings[12] < readings[15]  # … and less after
    assert -4_000_000 < readings[12] < -3_500_000  # 5 kWp × 0.8 near the solstice noon at 37.6° N
    clock.advance_to(24 * 3600 * TICKS_PER_SECOND)
    energy.flush()
    exported = energy.read("CumulativeEnergyExported")["energy"]
    assert 30_000_000 < exported < 40_000_000  # a clear June day: 6–8 kWh per kWp
    assert not energy.has_attribute("CumulativeEnergyImported")  # a generator only exports


# ----------------------------------------------------------------------------------------------- others
def test_mode_select_changes_only_to_its_modes() -> None:
    device, _ = _device("mode_select")
    modes = device.cluster(1, "ModeSelect")
    modes.invoke("ChangeToMode", {"NewMode": 2})
    assert modes.read("CurrentMode") == 2
    with pytest.raises(HomeError) as error:
        modes.invoke("ChangeToMode", {"NewMode": 7})
    assert error.value.status == Status.CONSTRAINT_ERROR and modes.read("CurrentMode") == 2


def test_cook_surface_heats_towards_its_level_while_on() -> None:
    home = fabric([("hob", "cooktop", "kitchen")])
    surface = 2
    assert home.read("hob", surface, "TemperatureMeasurement", "MeasuredValue") == 2200  # off: ambient
    with pytest.raises(HomeError, match="On"):
        home.invoke("hob", surface, "OnOff", "On", {})  # OffOnly: switched on at the hob only
    home.invoke("hob", surface, "TemperatureControl", "SetTemperature", {"TargetTemperatureLevel": 2})
    device = next(d for d in home.devices() if d.device_id == "hob")
    device.cluster(surface, "OnOff").set("OnOff", True)  # someone switches the surface on at the hob
    home.advance(1800)
    hot = home.read("hob", surface, "TemperatureMeasurement", "MeasuredValue")
    assert 20000 < hot <= 22000
    assert home.read("hob", 3, "TemperatureMeasurement", "MeasuredValue") == 2200  # the other surface stays off
    home.invoke("hob", surface, "OnOff", "Off", {})
    home.advance(1800)
    assert home.read("hob", surface, "TemperatureMeasurement", "MeasuredValue") < hot - 10000


# ----------------------------------------------------------------------------------------------- world acts
def test_world_acts_drive_buttons_chargers_and_water_detectors_and_refuse_the_wrong_device() -> None:
    home = fabric(
        [
            ("button", "generic_switch", "hall"),
            ("car", "evse", "garage"),
            ("leak", "water_leak_detector", "kitchen"),
            ("rain", "rain_sensor", "garden"),
        ]
    )
    assert press_button(home, "button", 3) == pytest.approx(1.7)
    with pytest.raises(HomeError) as busy:
        press_button(home, "button")
    assert busy.value.code == "BUSY"
    home.advance(2)
    assert plug_in_vehicle(home, "car", demand_kWh=10) == 0
    assert home.read("car", 1, "EnergyEvse", "State") == 2
    with pytest.raises(HomeError):
        plug_in_vehicle(home, "car")
    unplug_vehicle(home, "car")
    assert home.read("car", 1, "EnergyEvse", "State") == 0
    sense_water(home, "leak", True)
    sense_water(home, "rain", True)
    assert home.read("leak", 1, "BooleanState", "StateValue") is True
    before = home.snapshot()
    for act in (
        lambda: sense_water(home, "button", True),
        lambda: press_button(home, "leak"),
        lambda: plug_in_vehicle(home, "rain"),
    ):
        with pytest.raises(HomeError) as wrong:
            act()
        assert wrong.value.code == "WRONG_DEVICE_TYPE"
    assert home.snapshot() == before


def test_a_home_saved_mid_session_resumes_the_charger_and_the_valve() -> None:
    from emulator.emulated_home import EmulatedHome

    home = fabric([("car", "evse", "garage"), ("main", "water_valve", "utility")])
    plug_in_vehicle(home, "car", demand_kWh=5)
    home.invoke(
        "car",
        1,
        "EnergyEvse",
        "EnableCharging",
        {"ChargingEnabledUntil": None, "MinimumChargeCurrent": 6000, "MaximumChargeCurrent": 16000},
    )
    home.invoke("main", 1, "ValveConfigurationAndControl", "Open", {"OpenDuration": 600})
    home.advance(1.5)  # the valve is half-way open
    again = EmulatedHome(home.to_config())
    assert again.read("car", 1, "EnergyEvse", "State") == 3  # still charging
    assert again.read("car", 1, "ElectricalPowerMeasurement", "ActivePower") == 3_680_000
    unplug_vehicle(again, "car")  # the session is a real one
    assert again.read("car", 1, "EnergyEvse", "State") == 0
    assert again.read("main", 1, "ValveConfigurationAndControl", "CurrentState") == 2  # on its way again
    again.advance(3)
    assert again.read("main", 1, "ValveConfigurationAndControl", "CurrentState") == 1
    assert again.read("main", 1, "ValveConfigurationAndControl", "RemainingDuration") == 597
    again.advance(600)
    assert again.read("main", 1, "ValveConfigurationAndControl", "CurrentState") == 0


def test_evse_mode_changes_to_its_modes_only() -> None:
    device, _ = _device("evse")
    mode = device.cluster(1, "EnergyEvseMode")
    assert [m["label"] for m in mode.read("SupportedModes")] == ["Manual", "Time of Use", "Solar Charging"]
    assert mode.invoke("ChangeToMode", {"NewMode": 2})["status"] == 0 and mode.read("CurrentMode") == 2
    with pytest.raises(HomeError) as error:
        mode.invoke("ChangeToMode", {"NewMode": 9})
    assert error.value.status == Status.CONSTRAINT_ERROR and mode.read("CurrentMode") == 2


def test_a_button_press_triggers_an_automation_and_a_leak_closes_the_main_valve() -> None:
    home = fabric(
        [
            ("button", "generic_switch", "hall"),
            ("lamp", "on_off_light", "hall"),
            ("leak", "water_leak_detector", "kitchen"),
            ("main", "water_valve", "utility"),
        ]
    )
    home.invoke("main", 1, "ValveConfigurationAndControl", "Open", {})
    home.add_automation(
        {
            "name": "button lamp",
            "trigger": {
                "kind": "state",
                "condition": {"device_id": "button", "path": "1.Switch.CurrentPosition", "op": "==", "value": 1},
            },
            "actions": [
                {
                    "kind": "invoke",
                    "device_id": "lamp",
                    "endpoint": 1,
                    "cluster": "OnOff",
                    "command": "Toggle",
                    "args": {},
                }
            ],
        }
    )
    home.add_automation(
        {
            "name": "leak shut-off",
            "trigger": {
                "kind": "state",
                "condition": {"device_id": "leak", "path": "1.BooleanState.StateValue", "op": "==", "value": True},
            },
            "actions": [
                {
                    "kind": "invoke",
                    "device_id": "main",
                    "endpoint": 1,
                    "cluster": "ValveConfigurationAndControl",
                    "command": "Close",
                    "args": {},
                }
            ],
        }
    )
    home.advance(5)
    assert (
        home.read("lamp", 1, "OnOff", "OnOff") is False
        and home.read("main", 1, "ValveConfigurationAndControl", "CurrentState") == 1
    )
    press_button(home, "button")
    home.advance(1)
    assert home.read("lamp", 1, "OnOff", "OnOff") is True  # the press toggled it (once)
    sense_water(home, "leak", True)
    home.advance(5)
    assert home.read("main", 1, "ValveConfigurationAndControl", "CurrentState") == 0
    assert home.read("main", 2, "FlowMeasurement", "MeasuredValue") == 0


def test_an_energy_managers_power_adjustment_caps_the_charger_while_it_lasts() -> None:
    device, clock = _device("evse")
    evse, esa = _server(device, 1, "EnergyEvse", EnergyEvseServer), device.cluster(1, "DeviceEnergyManagement")
    meter = device.cluster(1, "ElectricalPowerMeasurement")
    events = _events(evse, clock)
    evse.plug_in()
    evse.invoke(
        "EnableCharging", {"ChargingEnabledUntil": None, "MinimumChargeCurrent": 6000, "MaximumChargeCurrent": 32000}
    )
    assert meter.read("ActivePower") == 7_360_000
    esa.invoke("PowerAdjustRequest", {"Power": 2_300_000, "Duration": 600, "Cause": 0})
    assert meter.read("ActivePower") == 2_300_000 and evse.read("State") == 3  # 10 A, still charging
    _run(clock, 600)
    assert meter.read("ActivePower") == 7_360_000  # the adjustment ended: full current again
    assert evse.read("SessionEnergyCharged") == round(2_300_000 * 600 / 3600)
    with pytest.raises(HomeError):
        esa.invoke("PowerAdjustRequest", {"Power": 500_000, "Duration": 600, "Cause": 0})  # below 6 A: refused
    assert [name for _, name, _ in events] == ["EVConnected", "EnergyTransferStarted"]  # one transfer, re-rated
