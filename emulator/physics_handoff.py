"""The hand-offs between devices and room physics: sensor attributes fed by a room's (or a compartment's)
trajectory, and device changes that restart a room's trajectories or move its power draw."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from clusters import ClusterServer
from emulator.compartments import Compartments
from emulator.device import Device
from emulator.errors import HomeError
from emulator.home_devices import parse_path
from emulator.physics import ENVIRONMENT_KEYS, PhysicsEngine, SensorFeed
from emulator.power_draw import apply_power_draw, drives_power
from emulator.room_frame import reading


class PhysicsHandoff:
    """Owns which device attributes read room physics, and tells physics when a device changes."""

    def __init__(self, physics: PhysicsEngine) -> None:
        self.physics = physics

    def room_state(self, room_id: str, *, exact: bool = False) -> dict[str, float]:
        """Temperature (centi-°C), humidity (centi-%), illuminance (lux), pm10 (µg/m³) now."""
        state = self.physics.state(room_id)
        return state if exact else {k: reading(v) for k, v in state.items()}

    def set_room_state(self, room_id: str, variable: str, value: float, *, baseline: bool) -> None:
        if variable not in ENVIRONMENT_KEYS:
            raise HomeError("INVALID_ARGUMENT", f"unknown room variable {variable!r}", allowed=list(ENVIRONMENT_KEYS))
        if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
            raise HomeError("INVALID_ARGUMENT", f"{variable} must be a finite number, got {value!r}")
        if baseline:
            self.physics.set_baseline(room_id, variable, value)
        else:
            self.physics.set_value(room_id, variable, value)

    def bind(self, device: Device, stored: Mapping[str, Any]) -> None:
        """Feed the device's sensor attributes from its room (or its own compartment, from a stored reading)."""
        physics = self.physics
        if physics.params.power_follows_mode:
            apply_power_draw(device)  # a stored or default ActivePower must match the stored mode
        room_id = device.room_id
        compartments = {ep for role, ep in device.spec.roles if role == "compartment"}
        for ep_id, endpoint in device.endpoints.items():
            for name, server in endpoint.clusters.items():
                if ep_id in compartments and name in ("TemperatureMeasurement", "Thermostat"):
                    attribute = "MeasuredValue" if name == "TemperatureMeasurement" else "LocalTemperature"
                    physics.compartments.start(device, ep_id, stored.get(f"{ep_id}.{name}.{attribute}"))
                    physics.bind_sensor(
                        room_id, CompartmentReading(server, attribute, physics.compartments, device, ep_id)
                    )
                    continue
                attribute = _SENSOR_ATTRIBUTES.get(name, "MeasuredValue")
                binding = _ROOM_SENSORS.get((name, attribute))
                if binding is not None and server.has_attribute(attribute):
                    variable, convert = binding
                    physics.bind_sensor(room_id, RoomReading(server, attribute, variable, physics, room_id, convert))

    def unbind(self, device: Device) -> None:
        servers = {id(s) for ep in device.endpoints.values() for s in ep.clusters.values()}
        self.physics.unbind_sensors(device.room_id, servers)
        self.physics.resegment(device.room_id)

    def device_changed(self, device: Device, endpoint: int, cluster: str, attribute: str) -> None:
        self.physics.device_changed(device, cluster, attribute)
        if self.physics.params.power_follows_mode and drives_power(device, endpoint, cluster, attribute):
            apply_power_draw(device)

    def source(self, device: Device | None, path: str) -> tuple[str, str] | None:
        """(room, variable) when an attribute is a reading derived from room physics ("compartment" for one
        fed by a device's own compartment), else None (a discrete attribute that changes by events)."""
        endpoint, cluster, attribute = parse_path(path)
        server = device.find(endpoint, cluster) if device is not None else None
        if device is None or server is None:
            return None
        if self.physics.is_compartment_sensor(server, attribute):
            return device.room_id, "compartment"
        binding = _ROOM_SENSORS.get((cluster, attribute))
        if binding is not None and (id(server), attribute) in self.physics.sensor_keys():
            return device.room_id, binding[0]
        return None


class RoomReading(SensorFeed):
    """A sensor attribute that reads a room variable now, converted to the attribute's encoding."""

    __slots__ = ("convert", "physics", "room_id", "variable")
    variable: str

    def __init__(
        self,
        server: ClusterServer,
        attribute: str,
        variable: str,
        physics: PhysicsEngine,
        room_id: str,
        convert: Callable[[float, ClusterServer], Any],
    ) -> None:
        super().__init__(server, attribute)
        self.variable = variable
        self.physics = physics
        self.room_id = room_id
        self.convert = convert

    def __call__(self) -> Any:
        return self.convert(self.physics.value(self.room_id, self.variable), self.server)


class CompartmentReading(SensorFeed):
    """A temperature attribute that reads a device's own compartment (a fridge's inside), in whole centi-°C."""

    __slots__ = ("compartments", "device", "endpoint")
    compartment = True

    def __init__(
        self, server: ClusterServer, attribute: str, compartments: Compartments, device: Device, endpoint: int
    ) -> None:
        super().__init__(server, attribute)
        self.compartments = compartments
        self.device = device
        self.endpoint = endpoint

    def __call__(self) -> int:
        return int(self.compartments.value(self.device, self.endpoint))


_SENSOR_ATTRIBUTES = {"Thermostat": "LocalTemperature", "AirQuality": "AirQuality"}  # else MeasuredValue


def _clamped(value: float, server: ClusterServer) -> float:
    low = server.read("MinMeasuredValue") if server.has_attribute("MinMeasuredValue") else None
    high = server.read("MaxMeasuredValue") if server.has_attribute("MaxMeasuredValue") else None
    if low is not None:
        value = max(value, low)
    if high is not None:
        value = min(value, high)
    return value


def _as_int(value: float, server: ClusterServer) -> int:
    return int(_clamped(int(value), server))


def _as_float(value: float, server: ClusterServer) -> float:
    return round(_clamped(value, server), 2) + 0.0


def _as_pm25(pm10: float, server: ClusterServer) -> float:
    return _as_float(0.6 * pm10, server)


def _as_lux_measurement(lux: float, server: ClusterServer) -> int:
    # Matter encodes illuminance as 10000·log10(lux) + 1 (0 = too dark to measure)
    value = int(10000 * math.log10(lux) + 1) if lux >= 1 else 0
    return int(_clamped(min(value, 0xFFFE), server))


def _as_air_quality(pm10: float, server: ClusterServer) -> int:
    # AirQualityEnum from PM10: Good 1 ≤ 30, Fair 2 ≤ 50, Moderate 3 ≤ 80, Poor 4 ≤ 150, VeryPoor 5, else 6
    for limit, level in ((30, 1), (50, 2), (80, 3), (150, 4), (250, 5)):
        if pm10 <= limit:
            return level
    return 6


_ROOM_SENSORS: dict[tuple[str, str], tuple[str, Callable[[float, ClusterServer], Any]]] = {
    ("Thermostat", "LocalTemperature"): ("temperature", _as_int),
    ("TemperatureMeasurement", "MeasuredValue"): ("temperature", _as_int),
    ("RelativeHumidityMeasurement", "MeasuredValue"): ("humidity", _as_int),
    ("IlluminanceMeasurement", "MeasuredValue"): ("illuminance", _as_lux_measurement),
    ("Pm10ConcentrationMeasurement", "MeasuredValue"): ("pm10", _as_float),
    ("Pm25ConcentrationMeasurement", "MeasuredValue"): ("pm10", _as_pm25),
    ("AirQuality", "AirQuality"): ("pm10", _as_air_quality),
}
