"""Pump Configuration and Control cluster (0x0200): a constant-speed circulation or booster pump.

The pump runs while its endpoint's On/Off is on. OperationMode picks its speed — Normal the nominal speed, Minimum
MinConstSpeed, Maximum MaxConstSpeed — and EffectiveOperationMode follows it. What the pump does follows from its
speed in closed form (the pump affinity laws): Capacity is speed / MaxSpeed (in 0.005 % units), the sibling Flow
Measurement reads MaxFlow × speed / MaxSpeed and the sibling Pressure Measurement MaxPressure × (speed / MaxSpeed)².
PumpStatus has Running set while it turns.

Units are the cluster's: speed in rpm, MaxPressure in 0.1 kPa (PressureMeasurement reads kPa), flow in 0.1 m³/h.
Only the ConstantSpeed control mode is implemented (no pressure, flow or temperature control loops, no alarms).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer
from clusters.values import Constraint

Feature = Objects.PumpConfigurationAndControl.Bitmaps.Feature
OperationMode = Objects.PumpConfigurationAndControl.Enums.OperationModeEnum
ControlMode = Objects.PumpConfigurationAndControl.Enums.ControlModeEnum
RUNNING = int(Objects.PumpConfigurationAndControl.Bitmaps.PumpStatusBitmap.kRunning)
NORMAL, MINIMUM, MAXIMUM = int(OperationMode.kNormal), int(OperationMode.kMinimum), int(OperationMode.kMaximum)
CONSTANT_SPEED = int(ControlMode.kConstantSpeed)
FULL_CAPACITY = 20_000  # Capacity is in 0.005 % steps


class PumpConfigurationAndControlServer(ClusterServer):
    """Constructor options: ``normal_speed`` (rpm in Normal mode, default 2000), ``features`` (default
    ConstantSpeed) and ``values`` (MaxSpeed, MaxFlow, MaxPressure, MinConstSpeed, MaxConstSpeed)."""

    __slots__ = ("normal_speed",)

    cluster_name = "PumpConfigurationAndControl"
    revision = 4
    default_features = int(Feature.kConstantSpeed)
    defaults = {
        "MaxPressure": 4000,
        "MaxSpeed": 3000,
        "MaxFlow": 30,
        "MinConstSpeed": 1000,
        "MaxConstSpeed": 3000,
        "PumpStatus": 0,
        "EffectiveOperationMode": NORMAL,
        "EffectiveControlMode": CONSTANT_SPEED,
        "Capacity": 0,
        "Speed": 0,
        "OperationMode": NORMAL,
        "ControlMode": CONSTANT_SPEED,
    }
    constraints = {
        "OperationMode": Constraint(allowed=(NORMAL, MINIMUM, MAXIMUM)),
        "ControlMode": Constraint(allowed=(CONSTANT_SPEED,)),
    }

    def __init__(
        self, *, normal_speed: int = 2000, features: int | None = None, values: Mapping[str, Any] | None = None
    ) -> None:
        self.normal_speed = normal_speed
        super().__init__(features=features, values=values)

    def on_attach(self) -> None:
        if self.endpoint is not None:
            self.endpoint.watch("OnOff", "OnOff", lambda old, new: self.follow())
        self.follow()

    def apply_write(self, name: str, value: Any) -> None:
        self.set(name, value)
        if name in ("OperationMode", "ControlMode"):
            self.follow()

    def target_speed(self) -> int:
        """The speed (rpm) the current OperationMode asks for."""
        mode = self.read("OperationMode")
        if mode == MINIMUM:
            return int(self.read("MinConstSpeed"))
        if mode == MAXIMUM:
            return int(self.read("MaxConstSpeed"))
        return self.normal_speed

    def follow(self) -> None:
        """Bring speed, capacity, status and the sibling meters in line with On/Off and the mode."""
        on_off = self.endpoint.find("OnOff") if self.endpoint is not None else None
        running = on_off is None or bool(on_off.read("OnOff"))
        speed = self.target_speed() if running else 0
        share = speed / max(1, int(self.read("MaxSpeed") or 1))
        self.set("EffectiveOperationMode", self.read("OperationMode"))
        self.set("EffectiveControlMode", self.read("ControlMode"))
        self.set("Speed", speed)
        self.set("Capacity", round(FULL_CAPACITY * share))
        self.set("PumpStatus", (self.read("PumpStatus") & ~RUNNING) | (RUNNING if speed else 0))
        if self.endpoint is None:
            return
        flow = self.endpoint.find("FlowMeasurement")
        if flow is not None:
            flow.set_measured_value((self.read("MaxFlow") or 0) * share)  # type: ignore[attr-defined]
        pressure = self.endpoint.find("PressureMeasurement")
        if pressure is not None:
            pressure.set_measured_value((self.read("MaxPressure") or 0) / 10 * share * share)  # type: ignore[attr-defined]
