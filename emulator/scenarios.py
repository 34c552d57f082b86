"""Ready-made activity for demos and benchmarks: a busy day in a home, through the public API only."""

from __future__ import annotations

from typing import Any

from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.workflows import WorkflowStep

# (device type, [(kind, endpoint, cluster, name, args-or-value)]) — what "a busy day" does to each type.
_ACTIONS: dict[str, list[tuple[str, int, str, str, Any]]] = {
    "air_conditioner": [("invoke", 1, "OnOff", "On", {}), ("write", 1, "Thermostat", "SystemMode", 3),
                        ("write", 1, "Thermostat", "OccupiedCoolingSetpoint", 2300),
                        ("write", 1, "FanControl", "PercentSetting", 60)],
    "heat_pump": [("write", 4, "Thermostat", "SystemMode", 4),
                  ("write", 4, "Thermostat", "OccupiedHeatingSetpoint", 2100)],
    "air_purifier": [("invoke", 1, "OnOff", "On", {}), ("write", 1, "FanControl", "PercentSetting", 50)],
    "fan": [("invoke", 1, "OnOff", "On", {}), ("write", 1, "FanControl", "PercentSetting", 40)],
    "dehumidifier": [("invoke", 1, "OnOff", "On", {}), ("write", 1, "FanControl", "PercentSetting", 70)],
    "humidifier": [("invoke", 1, "OnOff", "On", {}), ("write", 1, "FanControl", "PercentSetting", 30)],
    "dimmable_light": [("invoke", 1, "LevelControl", "MoveToLevelWithOnOff", {"Level": 180, "TransitionTime": 20})],
    "on_off_light": [("invoke", 1, "OnOff", "On", {})],
    "dishwasher": [("invoke", 1, "OnOff", "On", {}), ("invoke", 1, "OperationalState", "Start", {})],
    "laundry_washer": [("invoke", 1, "OnOff", "On", {}), ("invoke", 1, "OperationalState", "Start", {})],
    "laundry_dryer": [("invoke", 1, "OnOff", "On", {}), ("invoke", 1, "OperationalState", "Start", {})],
    "rvc": [("invoke", 1, "RvcRunMode", "ChangeToMode", {"NewMode": 2})],
    "window_covering_controller": [("invoke", 1, "WindowCovering", "GoToLiftPercentage",
                                    {"LiftPercent100thsValue": 5000})],
    "refrigerator": [("invoke", 1, "TemperatureControl", "SetTemperature", {"TargetTemperature": 400})],
}


def start_typical_day(home: EmulatedHome) -> list[dict[str, Any]]:
    """Switch on climate devices, start every appliance, light the rooms. Returns what succeeded."""
    done: list[dict[str, Any]] = []
    for device in home.devices():
        for kind, endpoint, cluster, name, payload in _ACTIONS.get(device.device_type, []):
            step = (WorkflowStep.invoke(device.device_id, endpoint, cluster, name, payload) if kind == "invoke" else
                    WorkflowStep.write(device.device_id, endpoint, cluster, name, payload))
            try:
                home.apply(step)
            except HomeError:
                continue  # e.g. already running: a busy day tolerates it
            done.append({"device_id": device.device_id, "kind": kind, "path": f"{endpoint}.{cluster}.{name}"})
    return done
