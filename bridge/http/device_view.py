"""What the API and dashboard show of a device: its identity and the few live attributes a person looks at
(on/off, level, setpoints, positions, appliance state and countdown, sensor readings)."""

from __future__ import annotations

import re
from typing import Any

from emulator.device import DeviceView
from emulator.emulated_home import EmulatedHome, Room

# Cluster → the attributes worth showing live (only those the device's server has are read).
SHOWN_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "OnOff": ("OnOff", "AcceptedCommandList"),  # an OffOnly switch (a cooktop's) accepts Off alone
    "LevelControl": ("CurrentLevel", "MinLevel", "MaxLevel"),
    "ColorControl": (
        "ColorTemperatureMireds",
        "ColorTempPhysicalMinMireds",
        "ColorTempPhysicalMaxMireds",
        "CurrentHue",
        "CurrentSaturation",
        "ColorMode",
    ),
    "Thermostat": (
        "SystemMode",
        "LocalTemperature",
        "OccupiedHeatingSetpoint",
        "OccupiedCoolingSetpoint",
        "MinHeatSetpointLimit",
        "MaxHeatSetpointLimit",
        "MinCoolSetpointLimit",
        "MaxCoolSetpointLimit",
    ),
    "FanControl": ("FanMode", "FanModeSequence", "PercentSetting", "PercentCurrent"),
    "WindowCovering": ("CurrentPositionLiftPercent100ths", "TargetPositionLiftPercent100ths"),
    "OperationalState": ("OperationalState", "CountdownTime", "AcceptedCommandList"),
    "OvenCavityOperationalState": ("OperationalState", "CountdownTime", "AcceptedCommandList"),
    "RvcOperationalState": ("OperationalState", "AcceptedCommandList"),
    # appliance modes the dashboard offers (wash programme, oven mode, RVC run/clean mode …)
    **dict.fromkeys(
        (
            "LaundryWasherMode",
            "DishwasherMode",
            "OvenMode",
            "RvcRunMode",
            "RvcCleanMode",
            "RefrigeratorAndTemperatureControlledCabinetMode",
            "MicrowaveOvenMode",
            "WaterHeaterMode",
            "ModeSelect",
            "EnergyEvseMode",
        ),
        ("SupportedModes", "CurrentMode"),
    ),
    "DoorLock": ("LockState",),
    "TemperatureControl": ("TemperatureSetpoint", "MinTemperature", "MaxTemperature", "Step"),
    "TemperatureMeasurement": ("MeasuredValue",),
    "RelativeHumidityMeasurement": ("MeasuredValue",),
    "IlluminanceMeasurement": ("MeasuredValue",),
    "Pm10ConcentrationMeasurement": ("MeasuredValue",),
    "Pm25ConcentrationMeasurement": ("MeasuredValue",),
    "AirQuality": ("AirQuality",),
    "OccupancySensing": ("Occupancy",),
    "BooleanState": ("StateValue",),
    "SmokeCoAlarm": ("ExpressedState",),
    "MediaPlayback": ("CurrentState",),
    "ElectricalPowerMeasurement": ("ActivePower",),
    "ValveConfigurationAndControl": ("CurrentState", "TargetState"),
    "PumpConfigurationAndControl": ("OperationMode", "EffectiveOperationMode"),
    "PressureMeasurement": ("MeasuredValue",),
    "FlowMeasurement": ("MeasuredValue",),
    "EnergyEvse": ("State", "SupplyState"),
    "PowerSource": ("BatPercentRemaining",),
}


def shown_paths(device: DeviceView) -> list[tuple[int, str, str]]:
    paths = []
    for ep_id, endpoint in sorted(device.endpoints.items()):
        for cluster, server in endpoint.clusters.items():
            for attribute in SHOWN_ATTRIBUTES.get(cluster, ()):
                if server.has_attribute(attribute):
                    paths.append((ep_id, cluster, attribute))
    return paths


def display_name(device: DeviceView) -> str:
    """The device's name, or its catalogue label with the id's number ("On/off light 2") when it has none."""
    if device.name:
        return device.name
    number = re.search(r"_(\d+)$", device.device_id)
    return f"{device.spec.label} {number.group(1)}" if number else device.spec.label


def device_view(fabric: EmulatedHome, device: DeviceView) -> dict[str, Any]:
    state = {f"{ep}.{cl}.{at}": fabric.read(device.device_id, ep, cl, at) for ep, cl, at in shown_paths(device)}
    return {
        "device_id": device.device_id,
        "name": display_name(device),
        "label": device.spec.label,
        "device_type": device.device_type,
        "room_id": device.room_id,
        "roles": list(device.spec.roles),
        "state": state,
    }


def room_view(fabric: EmulatedHome, room: Room) -> dict[str, Any]:
    return {
        "room_id": room.room_id,
        "name": room.name,
        "type": room.type,
        "floor": room.floor,
        "parent": room.parent,
        "state": fabric.room_state(room.room_id),
        "device_ids": [d.device_id for d in fabric.devices(room.room_id)],
    }


def home_view(fabric: EmulatedHome) -> dict[str, Any]:
    rooms = fabric.rooms()
    return {
        "name": fabric.name,
        "tier": fabric.tier,
        "seed": fabric.seed,
        "time": fabric.now_text(),
        "tick": fabric.tick,
        "floors": sorted({r.floor for r in rooms}),
        "rooms": [room_view(fabric, r) for r in rooms],
        "devices": [device_view(fabric, d) for d in fabric.devices()],
    }
