"""Every cluster server class, by its official cluster name.

The classes are imported on first lookup (SERVER_MODULES names each one's module): a process imports the cluster
modules its homes use, not all ~50 of them (a bench run starts ~4 MiB smaller). tests/clusters/test_registry.py
checks the table against the servers the package's modules define.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, Mapping
from pathlib import Path

from clusters.base import ClusterServer

# Framework modules; every other module of the package holds cluster servers.
_FRAMEWORK = {
    "attribute_values",
    "base",
    "chip_model",
    "endpoint",
    "official",
    "registry",
    "runtime",
    "status",
    "values",
}

# The module serving each cluster (a new server adds its line here: the registry test names a missing one).
SERVER_MODULES: dict[str, str] = {
    "AirQuality": "clusters.air_quality",
    "BasicInformation": "clusters.basic_information",
    "Binding": "clusters.binding",
    "BooleanState": "clusters.boolean_state",
    "BridgedDeviceBasicInformation": "clusters.basic_information",
    "Channel": "clusters.channel",
    "ColorControl": "clusters.color_control",
    "ContentLauncher": "clusters.content_launcher",
    "Descriptor": "clusters.descriptor",
    "DeviceEnergyManagement": "clusters.electrical",
    "DishwasherAlarm": "clusters.dishwasher_alarm",
    "DishwasherMode": "clusters.modes",
    "DoorLock": "clusters.door_lock",
    "ElectricalEnergyMeasurement": "clusters.electrical",
    "ElectricalPowerMeasurement": "clusters.electrical",
    "EnergyEvse": "clusters.energy_evse",
    "EnergyEvseMode": "clusters.energy_evse",
    "FanControl": "clusters.fan_control",
    "FlowMeasurement": "clusters.fluid_measurement",
    "GeneralDiagnostics": "clusters.general_diagnostics",
    "Groups": "clusters.groups",
    "Identify": "clusters.identify",
    "IlluminanceMeasurement": "clusters.measurement",
    "KeypadInput": "clusters.keypad_input",
    "LaundryDryerControls": "clusters.laundry_controls",
    "LaundryWasherControls": "clusters.laundry_controls",
    "LaundryWasherMode": "clusters.modes",
    "LevelControl": "clusters.level_control",
    "MediaPlayback": "clusters.media_playback",
    "MicrowaveOvenControl": "clusters.microwave_oven_control",
    "MicrowaveOvenMode": "clusters.modes",
    "ModeSelect": "clusters.mode_select",
    "OccupancySensing": "clusters.occupancy_sensing",
    "OnOff": "clusters.on_off",
    "OperationalState": "clusters.operational_state",
    "OvenCavityOperationalState": "clusters.operational_state",
    "OvenMode": "clusters.modes",
    "Pm10ConcentrationMeasurement": "clusters.measurement",
    "Pm25ConcentrationMeasurement": "clusters.measurement",
    "PowerSource": "clusters.power_source",
    "PowerTopology": "clusters.electrical",
    "PressureMeasurement": "clusters.fluid_measurement",
    "PumpConfigurationAndControl": "clusters.pump",
    "RefrigeratorAndTemperatureControlledCabinetMode": "clusters.modes",
    "RelativeHumidityMeasurement": "clusters.measurement",
    "RvcCleanMode": "clusters.modes",
    "RvcOperationalState": "clusters.operational_state",
    "RvcRunMode": "clusters.modes",
    "ScenesManagement": "clusters.scenes_management",
    "SmokeCoAlarm": "clusters.smoke_co_alarm",
    "Switch": "clusters.switch",
    "TemperatureControl": "clusters.temperature_control",
    "TemperatureMeasurement": "clusters.measurement",
    "Thermostat": "clusters.thermostat",
    "ValveConfigurationAndControl": "clusters.valve",
    "WaterHeaterManagement": "clusters.water_heater_management",
    "WaterHeaterMode": "clusters.modes",
    "WindowCovering": "clusters.window_covering",
}


def server_modules() -> tuple[str, ...]:
    """Every module of the package that holds cluster servers (a walk of the package directory)."""
    return tuple(
        f"clusters.{info.name}"
        for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda i: i.name)
        if info.name not in _FRAMEWORK and not info.name.startswith("_")
    )


def defined_servers(module_name: str) -> dict[str, type[ClusterServer]]:
    """The cluster servers ``module_name`` defines, by cluster name."""
    module = importlib.import_module(module_name)
    return {
        value.cluster_name: value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, ClusterServer)
        and value is not ClusterServer
        and value.__module__ == module_name
        and "cluster_name" in value.__dict__
    }


def check_listed(module_name: str, servers: Mapping[str, type[ClusterServer]]) -> None:
    """TypeError unless SERVER_MODULES gives every server ``module_name`` defines to that module: checked as each
    module's classes are loaded, so a server missing from the table, or a cluster served by two modules, fails at
    once instead of the lookup silently taking the table's one."""
    for cluster_name, server in servers.items():
        listed = SERVER_MODULES.get(cluster_name)
        if listed != module_name:
            raise TypeError(
                f"{server.__name__} in {module_name} serves {cluster_name}, which SERVER_MODULES gives to {listed!r}"
            )


class _LazyServers(Mapping[str, type[ClusterServer]]):
    """SERVER_MODULES' classes, each imported on its first lookup."""

    def __init__(self) -> None:
        self._loaded: dict[str, type[ClusterServer]] = {}

    def __getitem__(self, cluster_name: str) -> type[ClusterServer]:
        found = self._loaded.get(cluster_name)
        if found is None:
            module_name = SERVER_MODULES[cluster_name]  # KeyError: no server for that cluster
            servers = defined_servers(module_name)
            check_listed(module_name, servers)
            found = self._loaded[cluster_name] = servers[cluster_name]
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(SERVER_MODULES)

    def __len__(self) -> int:
        return len(SERVER_MODULES)

    def __contains__(self, cluster_name: object) -> bool:
        return cluster_name in SERVER_MODULES


SERVER_CLASSES: Mapping[str, type[ClusterServer]] = _LazyServers()


def server_class(cluster_name: str) -> type[ClusterServer]:
    try:
        return SERVER_CLASSES[cluster_name]
    except KeyError:
        raise KeyError(f"no server for cluster {cluster_name!r}; known: {sorted(SERVER_CLASSES)}") from None
