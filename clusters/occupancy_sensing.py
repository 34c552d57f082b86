"""Occupancy Sensing cluster (0x0406): Occupancy with a hold time, sensor type derived from the features."""

from __future__ import annotations

from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer
from clusters.runtime import TimerHandle
from clusters.status import HomeError, Status
from clusters.values import Constraint

Feature = Objects.OccupancySensing.Bitmaps.Feature
SensorType = Objects.OccupancySensing.Enums.OccupancySensorTypeEnum
TypeBitmap = Objects.OccupancySensing.Bitmaps.OccupancySensorTypeBitmap
# technology feature → the prefix of its timing attributes
TIMING = {
    Feature.kPassiveInfrared: "PIR",
    Feature.kUltrasonic: "Ultrasonic",
    Feature.kPhysicalContact: "PhysicalContact",
}
HOLD_TIME_NAMES = {"HoldTime", *(f"{p}OccupiedToUnoccupiedDelay" for p in TIMING.values())}
DELAY = Constraint(0, 0xFFFF)
THRESHOLD = Constraint(1, 254)


class OccupancySensingServer(ClusterServer):
    __slots__ = ("_vacate",)
    cluster_name = "OccupancySensing"
    revision = 4
    default_features = int(Feature.kPassiveInfrared)
    defaults = {
        "Occupancy": 0,
        "OccupancySensorType": int(SensorType.kPir),
        "OccupancySensorTypeBitmap": int(TypeBitmap.kPir),
        "HoldTime": 10,
        "HoldTimeLimits": {"holdTimeMin": 1, "holdTimeMax": 300, "holdTimeDefault": 10},
        **{f"{p}OccupiedToUnoccupiedDelay": 10 for p in TIMING.values()},
        **{f"{p}UnoccupiedToOccupiedDelay": 0 for p in TIMING.values()},
        **{f"{p}UnoccupiedToOccupiedThreshold": 1 for p in TIMING.values()},
    }
    constraints = {
        **{f"{p}OccupiedToUnoccupiedDelay": DELAY for p in TIMING.values()},
        **{f"{p}UnoccupiedToOccupiedDelay": DELAY for p in TIMING.values()},
        **{f"{p}UnoccupiedToOccupiedThreshold": THRESHOLD for p in TIMING.values()},
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._vacate: TimerHandle | None = None

    def initial_values(self) -> dict[str, Any]:
        values = {k: v for k, v in self.defaults.items() if not any(k.startswith(p) for p in TIMING.values())}
        for feature, prefix in TIMING.items():
            if self.has_feature(feature):
                values.update({k: v for k, v in self.defaults.items() if k.startswith(prefix)})
        pir, ultrasonic = self.has_feature(Feature.kPassiveInfrared), self.has_feature(Feature.kUltrasonic)
        contact = self.has_feature(Feature.kPhysicalContact)
        if pir and ultrasonic:
            values["OccupancySensorType"] = int(SensorType.kPIRAndUltrasonic)
        elif ultrasonic:
            values["OccupancySensorType"] = int(SensorType.kUltrasonic)
        elif contact and not pir:
            values["OccupancySensorType"] = int(SensorType.kPhysicalContact)
        values["OccupancySensorTypeBitmap"] = (
            (int(TypeBitmap.kPir) if pir else 0)
            | (int(TypeBitmap.kUltrasonic) if ultrasonic else 0)
            | (int(TypeBitmap.kPhysicalContact) if contact else 0)
        )
        return values

    # ----------------------------------------------------------------------------- writes
    def check_write(self, name: str, value: object) -> None:
        if name in HOLD_TIME_NAMES:
            limits = self.read("HoldTimeLimits")
            low, high = limits["holdTimeMin"], limits["holdTimeMax"]
            if not low <= value <= high:
                raise HomeError.refused(
                    Status.CONSTRAINT_ERROR,
                    f"OccupancySensing.{name}={value} is outside HoldTimeLimits {low}..{high}",
                    allowed={"min": low, "max": high},
                )

    def apply_write(self, name: str, value: object) -> None:
        if name in HOLD_TIME_NAMES:
            # The per-technology delays are older names of HoldTime: they always agree.
            self.set("HoldTime", value)
            for prefix in TIMING.values():
                if self.has_attribute(f"{prefix}OccupiedToUnoccupiedDelay"):
                    self.set(f"{prefix}OccupiedToUnoccupiedDelay", value)
            return
        self.set(name, value)

    # ----------------------------------------------------------------------------- the fabric's input
    @property
    def occupied(self) -> bool:
        return bool(self.read("Occupancy") & 1)

    def set_occupied(self, occupied: bool, *, immediate: bool = False) -> None:
        """Presence detected (True) or gone (False). "Gone" shows after HoldTime seconds unless ``immediate``."""
        if occupied:
            self._cancel()
            self.set("Occupancy", 1)
            return
        if not self.occupied or self._vacate is not None:
            return
        hold = self.read("HoldTime")
        if immediate or hold == 0 or self.runtime is None:
            self.set("Occupancy", 0)
            return
        self._vacate = self.runtime.call_later(hold, self._vacated)

    def _vacated(self) -> None:
        self._vacate = None
        self.set("Occupancy", 0)

    def _cancel(self) -> None:
        if self._vacate is not None:
            self._vacate.cancel()
            self._vacate = None
