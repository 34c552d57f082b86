"""Water Heater Management cluster (0x0094): heat sources, heat demand, tank state and Boost.

A boost lasts ``duration`` seconds of virtual time (one timer). With the TankPercent feature and a
TargetPercentage, the tank percentage rises linearly to the target over the boost (computed lazily)
and a one-shot boost ends as soon as it is reached, i.e. at the end of the ramp.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer, command
from clusters.runtime import TimerHandle
from clusters.status import HomeError, Status
from clusters.values import Constraint

Feature = Objects.WaterHeaterManagement.Bitmaps.Feature
HeatSource = Objects.WaterHeaterManagement.Bitmaps.WaterHeaterHeatSourceBitmap
INACTIVE, ACTIVE = 0, 1


class WaterHeaterManagementServer(ClusterServer):
    """Constructor options: ``heater_types`` (WaterHeaterHeatSourceBitmap, default ImmersionElement1),
    ``tank_volume_l`` (TankVolume, EnergyManagement feature), ``tank_percentage`` (TankPercent
    feature, default 50), plus ``features`` (default EnergyManagement | TankPercent) and ``values``.
    """

    __slots__ = ("_boost_timer", "_demand_before_boost", "_ramp", "_reported_tank", "_tank")

    cluster_name = "WaterHeaterManagement"
    revision = 2
    events = ("BoostStarted", "BoostEnded")
    default_features = int(Feature.kEnergyManagement) | int(Feature.kTankPercent)
    defaults = {
        "HeaterTypes": int(HeatSource.kImmersionElement1),
        "HeatDemand": 0,
        "TankVolume": 200,
        "EstimatedHeatRequired": 0,
        "TankPercentage": 50,
        "BoostState": INACTIVE,
    }
    constraints = {"TankPercentage": Constraint(0, 100)}

    def __init__(
        self,
        *,
        heater_types: int = int(HeatSource.kImmersionElement1),
        tank_volume_l: int = 200,
        tank_percentage: int = 50,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(features=features)
        self._values["HeaterTypes"] = heater_types
        if "TankVolume" in self._held:
            self._values["TankVolume"] = tank_volume_l
        self._tank = float(tank_percentage)
        self._ramp: tuple[float, float, float, float] | None = None  # (start time, start %, target %, duration)
        self._boost_timer: TimerHandle | None = None
        self._demand_before_boost = 0
        if self._tank_percent():
            self.bind_source("TankPercentage", self._tank_percentage)
        self._reported_tank = self._tank_percentage()
        for name, value in (values or {}).items():
            self.restore(name, value)

    def _tank_percent(self) -> bool:
        return self.has_feature(Feature.kTankPercent)

    def initial_values(self) -> dict[str, Any]:
        out = {k: self.defaults[k] for k in ("HeaterTypes", "HeatDemand", "BoostState")}
        if self.has_feature(Feature.kEnergyManagement):
            out.update(TankVolume=self.defaults["TankVolume"], EstimatedHeatRequired=0)
        return out

    # ----------------------------------------------------------------------------- public API
    @property
    def boost_active(self) -> bool:
        return bool(self.read("BoostState") == ACTIVE)

    def set_tank_percentage(self, percent: float) -> None:
        """Physics / scenario: the tank's hot-water fraction changed (ends a running ramp)."""
        self._ramp = None
        self._tank = max(0.0, min(100.0, float(percent)))
        self._publish_tank()

    def restore(self, name: str, value: Any) -> None:
        if name == "TankPercentage" and name in self._sources:
            Constraint(0, 100).check(value, "WaterHeaterManagement.TankPercentage")
            self.set_tank_percentage(value)
            return
        super().restore(name, value)

    # ----------------------------------------------------------------------------- commands
    @command("Boost")
    def boost(self, boostInfo: dict[str, Any]) -> None:
        duration = boostInfo["duration"]
        target = boostInfo.get("targetPercentage")
        reheat = boostInfo.get("targetReheat")
        what = "WaterHeaterManagement.Boost.BoostInfo"
        if duration < 1:
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR, f"{what}.duration must be at least 1 s", allowed={"min": 1, "max": 0xFFFFFFFF}
            )
        if (target is not None or reheat is not None) and not self._tank_percent():
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"{what}: targetPercentage/targetReheat need TankPercent",
                allowed={"fields": ["duration", "oneShot", "emergencyBoost", "temporarySetpoint"]},
            )
        if target is not None and target > 100:
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR, f"{what}.targetPercentage={target} is over 100", allowed={"min": 0, "max": 100}
            )
        if reheat is not None and (target is None or reheat > target):
            raise HomeError.refused(
                Status.INVALID_COMMAND,
                f"{what}.targetReheat needs a targetPercentage ≥ it",
                allowed={"targetReheat": "0..targetPercentage"},
            )
        if boostInfo.get("oneShot") and reheat is not None:
            raise HomeError.refused(Status.INVALID_COMMAND, f"{what}: oneShot and targetReheat exclude each other")
        if not self.boost_active:
            self._demand_before_boost = self.read("HeatDemand")
        self._cancel_timer()
        if target is not None:
            self._start_ramp(target, duration)
        self.set("HeatDemand", self.read("HeaterTypes"))
        self.set("BoostState", ACTIVE)
        self.emit_event("BoostStarted", {"boostInfo": dict(boostInfo)})
        if self.runtime is not None:
            self._boost_timer = self.runtime.call_later(duration, self._end_boost)

    @command("CancelBoost")
    def cancel_boost(self) -> None:
        if self.boost_active:
            self._end_boost()

    # ----------------------------------------------------------------------------- helpers
    def _now(self) -> float:
        return self.runtime.now() if self.runtime is not None else 0.0

    def _tank_percentage(self) -> int:
        if self._ramp is None:
            return round(self._tank)
        start, origin, target, duration = self._ramp
        fraction = min(1.0, (self._now() - start) / duration)
        return round(origin + (target - origin) * fraction)

    def _publish_tank(self) -> None:
        new = self._tank_percentage()
        if self._tank_percent():
            self.notify("TankPercentage", self._reported_tank, new)
        self._reported_tank = new

    def _start_ramp(self, target: float, duration: float) -> None:
        current = self._tank_percentage()
        self._ramp = None
        self._tank = float(current)
        if target > current:
            self._ramp = (self._now(), float(current), float(target), float(duration))

    def _cancel_timer(self) -> None:
        if self._boost_timer is not None:
            self._boost_timer.cancel()
            self._boost_timer = None

    def _end_boost(self) -> None:
        self._cancel_timer()
        if self._ramp is not None:
            self.set_tank_percentage(self._tank_percentage())
        self.set("BoostState", INACTIVE)
        self.set("HeatDemand", self._demand_before_boost)
        self.emit_event("BoostEnded", {})
