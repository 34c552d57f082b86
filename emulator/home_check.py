"""Every attribute of a home file that a fresh device of its type refuses to restore, found at once.

``EmulatedHome`` stops at the first bad value; an importer (``homefabric episodes import``) names them all,
each by device and attribute path, so the benchmark need not build devices itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.catalogue import device_type_spec
from emulator.device import Device
from emulator.errors import HomeError
from emulator.home_config import HomeConfig


@dataclass(frozen=True)
class AttributeProblem:
    """``attribute_path`` (``endpoint.Cluster.Attribute``) is None when the device type itself is unknown."""

    device_id: str
    attribute_path: str | None
    message: str


def attribute_problems(config: HomeConfig) -> list[AttributeProblem]:
    """Each device's attributes restored on a fresh device of its type: every refusal, in file order."""
    problems: list[AttributeProblem] = []
    for device_config in config.devices:
        try:
            spec = device_type_spec(device_config.type)
        except KeyError:
            problems.append(AttributeProblem(device_config.id, None, f"unknown device type {device_config.type!r}"))
            continue
        device = Device(device_config.id, spec, device_config.room, device_config.name)
        for path, value in device_config.attributes.items():
            endpoint, cluster, attribute = path.split(".")
            try:
                device.cluster(int(endpoint), cluster).restore(attribute, value)
            except HomeError as error:
                problems.append(AttributeProblem(device_config.id, path, error.message))
    return problems
