"""Device compartments (a fridge's or freezer's inside, an oven cavity, a water tank): each approaches its
setpoint while the device runs, or the ambient temperature while it does not, in closed form."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

from clusters.temperature_control import TemperatureControlServer
from emulator.clock import TICK_S, VirtualClock
from emulator.physics_model import Process, Segment
from emulator.physics_terms import PhysicsParams, is_on

if TYPE_CHECKING:
    from emulator.device import Device


class Compartments:
    """Owns the compartment trajectories: (device, endpoint) → (start tick, segment)."""

    def __init__(self, clock: VirtualClock, params: PhysicsParams) -> None:
        self.clock = clock
        self.params = params
        self.trajectories: dict[tuple[str, int], tuple[int, Segment]] = {}

    def start(self, device: Device, endpoint: int, value: float | None) -> None:
        """Begin a compartment's trajectory, from a stored reading when a home file has one."""
        self._restart(device, endpoint, value)

    def value(self, device: Device, endpoint: int) -> float:
        key = (device.device_id, endpoint)
        if key not in self.trajectories:
            self._restart(device, endpoint, None)
        start, segment = self.trajectories[key]
        return segment.value_after(self.clock.tick - start)

    def restart(self, device: Device) -> None:
        """The device changed: each of its compartments heads for its new target from where it is."""
        for role, ep in device.spec.roles:
            if role == "compartment" and (device.device_id, ep) in self.trajectories:
                self._restart(device, ep, self.value(device, ep))

    def of_devices(self, devices: Iterable[Device]) -> Iterable[tuple[tuple[str, int], tuple[int, Segment]]]:
        for device in devices:
            for role, ep in device.spec.roles:
                trajectory = self.trajectories.get((device.device_id, ep)) if role == "compartment" else None
                if trajectory is not None:
                    yield (device.device_id, ep), trajectory

    def _restart(self, device: Device, ep: int, x0: float | None) -> None:
        control = device.find(ep, "TemperatureControl")
        setpoint = control.target_temperature() if isinstance(control, TemperatureControlServer) else None
        if setpoint is None:
            setpoint = device.value(ep, "Thermostat", "OccupiedHeatingSetpoint")
        active = is_on(device, ep)
        for cluster in ("OperationalState", "OvenCavityOperationalState"):
            state = device.value(ep, cluster, "OperationalState")
            if state is not None:
                active = active and state == 1
        target = setpoint if (active and setpoint is not None) else self.params.compartment_ambient
        if x0 is None:  # a fridge arrives cold: start at its setpoint when it is running
            x0 = float(target)
        self.trajectories[(device.device_id, ep)] = (
            self.clock.tick,
            Segment(_approach(self.params.compartment_rate_per_s, target), x0),
        )


# (rate, its sign, target, its type and sign) → the approach process: fridges at one setpoint, in every home, share
# one (processes are immutable); the key tells 0.0 from -0.0 and 700 from 700.0 so a shared one computes the same bits
_APPROACHES: dict[tuple[object, ...], Process] = {}
_APPROACHES_MAX = 256  # distinct (rate, target) remembered


def _approach(rate_per_s: float, target: float) -> Process:
    """A compartment approaching ``target`` at ``rate_per_s`` (no device term: the drift does it)."""
    key = (rate_per_s, math.copysign(1.0, rate_per_s), type(target), target, math.copysign(1.0, target))
    process = _APPROACHES.get(key)
    if process is None:
        if len(_APPROACHES) >= _APPROACHES_MAX:
            _APPROACHES.clear()
        process = _APPROACHES[key] = Process((), rate_per_s * TICK_S, float(target))
    return process
