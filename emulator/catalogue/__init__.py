"""The device catalogue: every emulated Matter device type, by its catalogue name."""

from __future__ import annotations

from emulator.catalogue import appliances, climate, controls, energy, lighting, media, security, sensors, water
from emulator.catalogue.spec import ClusterSpec, DeviceTypeSpec, EndpointSpec, PowerDependency

_FAMILIES = (lighting, climate, appliances, media, security, sensors, water, controls, energy)

CATALOGUE: dict[str, DeviceTypeSpec] = {}
for _family in _FAMILIES:
    for _spec in _family.DEVICE_TYPES:
        if _spec.name in CATALOGUE:
            raise TypeError(f"device type {_spec.name!r} defined twice")
        CATALOGUE[_spec.name] = _spec

SIMUHOME_TYPES = tuple(sorted(name for name, spec in CATALOGUE.items() if spec.origin == "simuhome"))


def device_type_spec(name: str) -> DeviceTypeSpec:
    try:
        return CATALOGUE[name]
    except KeyError:
        raise KeyError(f"unknown device type {name!r}; known: {sorted(CATALOGUE)}") from None


__all__ = [
    "CATALOGUE",
    "SIMUHOME_TYPES",
    "ClusterSpec",
    "DeviceTypeSpec",
    "EndpointSpec",
    "PowerDependency",
    "device_type_spec",
]
