"""The home's net power and energy: every metered device added up, read through ``HomeAPI`` only.

A home-level reading rather than a whole-home meter device: the sum needs every device of the home, which no single
device (nor its cluster servers) sees, and a function over ``HomeAPI`` works unchanged on a real Matter home. It reads
each endpoint that serves ElectricalPowerMeasurement (ActivePower, mW: > 0 drawn from the home's supply, < 0 fed
into it — solar panels, a discharging battery) and, beside it, ElectricalEnergyMeasurement's CumulativeEnergyImported
and CumulativeEnergyExported (mWh).

Net power is exact at any moment. Energy is what each meter has reported: a meter integrates its own ActivePower at
each change of that power (clusters/electrical.py), so the totals are exact at the moments every meter's power last
changed and lag by at most (power × time since that change) per meter; :attr:`MeterReading.as_of_s` says when each
meter last counted (virtual seconds since the home started). Devices whose power is unknown (a smart plug's load is
whatever is plugged in: ActivePower null) are listed in :attr:`HomePower.unknown_power` and counted as 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from emulator.home_api import HomeAPI

POWER = "ElectricalPowerMeasurement"
ENERGY = "ElectricalEnergyMeasurement"


@dataclass(frozen=True)
class MeterReading:
    """One metered endpoint of one device."""

    device_id: str
    device_type: str
    endpoint: int
    active_power_mW: int | None  # None: the device does not know (ActivePower null)
    imported_mWh: int | None  # CumulativeEnergyImported.energy; None: not measured or not yet counted
    exported_mWh: int | None
    as_of_s: float | None  # when the meter last counted its energy (its endSystime), virtual seconds

    def as_dict(self) -> dict[str, Any]:
        return {
            "device_id": self.device_id,
            "device_type": self.device_type,
            "endpoint": self.endpoint,
            "active_power_mW": self.active_power_mW,
            "imported_mWh": self.imported_mWh,
            "exported_mWh": self.exported_mWh,
            "as_of_s": self.as_of_s,
        }


@dataclass(frozen=True)
class HomePower:
    """Every metered endpoint of the home, in device order, and their sums."""

    meters: tuple[MeterReading, ...]

    @property
    def active_power_mW(self) -> int:
        """Net power at the home's supply: > 0 the home draws from the grid, < 0 it exports."""
        return sum(m.active_power_mW or 0 for m in self.meters)

    @property
    def consumption_mW(self) -> int:
        return sum(max(m.active_power_mW or 0, 0) for m in self.meters)

    @property
    def production_mW(self) -> int:
        """Power fed into the home by its sources (solar, a discharging battery), as a positive number."""
        return sum(max(-(m.active_power_mW or 0), 0) for m in self.meters)

    @property
    def imported_mWh(self) -> int:
        return sum(m.imported_mWh or 0 for m in self.meters)

    @property
    def exported_mWh(self) -> int:
        return sum(m.exported_mWh or 0 for m in self.meters)

    @property
    def net_energy_mWh(self) -> int:
        """Energy the home has drawn, net of what it fed back (as the meters last counted it)."""
        return self.imported_mWh - self.exported_mWh

    @property
    def unknown_power(self) -> tuple[str, ...]:
        return tuple(m.device_id for m in self.meters if m.active_power_mW is None)

    def of_type(self, device_type: str) -> HomePower:
        return HomePower(tuple(m for m in self.meters if m.device_type == device_type))

    def as_dict(self) -> dict[str, Any]:
        return {
            "active_power_mW": self.active_power_mW,
            "consumption_mW": self.consumption_mW,
            "production_mW": self.production_mW,
            "imported_mWh": self.imported_mWh,
            "exported_mWh": self.exported_mWh,
            "net_energy_mWh": self.net_energy_mWh,
            "unknown_power": list(self.unknown_power),
            "meters": [m.as_dict() for m in self.meters],
        }


def home_power(home: HomeAPI) -> HomePower:
    """Read every meter of ``home`` now."""
    meters: list[MeterReading] = []
    for device in home.devices():
        values = home.read_all(device.device_id)
        endpoints = sorted({int(path.split(".", 1)[0]) for path in values if path.split(".")[1] == POWER})
        for endpoint in endpoints:
            meters.append(_reading(device.device_id, device.device_type, endpoint, values))
    return HomePower(tuple(meters))


def _reading(device_id: str, device_type: str, endpoint: int, values: Mapping[str, Any]) -> MeterReading:
    power = values.get(f"{endpoint}.{POWER}.ActivePower")
    imported = values.get(f"{endpoint}.{ENERGY}.CumulativeEnergyImported")
    exported = values.get(f"{endpoint}.{ENERGY}.CumulativeEnergyExported")
    counted = [m["endSystime"] for m in (imported, exported) if isinstance(m, Mapping) and m.get("endSystime")]
    return MeterReading(
        device_id=device_id,
        device_type=device_type,
        endpoint=endpoint,
        active_power_mW=power if isinstance(power, int) else None,
        imported_mWh=_energy(imported),
        exported_mWh=_energy(exported),
        as_of_s=max(counted) / 1_000_000 if counted else None,
    )


def _energy(measurement: Any) -> int | None:
    if not isinstance(measurement, Mapping):
        return None
    energy = measurement.get("energy")
    return energy if isinstance(energy, int) else None
