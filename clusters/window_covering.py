"""Window Covering cluster (0x0102): lift and tilt motion that takes virtual time.

Positions are in 0.01 % closed: 0 = fully open, 10000 = fully closed. The current position of a
moving axis is computed lazily from the motion's start time (Matter gives the position attributes
"Q" quality); one timer ends each motion. TargetPosition* attributes are read-only as in Matter
(SimuHome lets them be written; we do not).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer, command
from clusters.runtime import TimerHandle
from clusters.status import HomeError, Status
from clusters.values import Constraint, coerce

Feature = Objects.WindowCovering.Bitmaps.Feature
ConfigStatus = Objects.WindowCovering.Bitmaps.ConfigStatus
ModeBits = Objects.WindowCovering.Bitmaps.Mode
CoveringType = Objects.WindowCovering.Enums.Type
EndProduct = Objects.WindowCovering.Enums.EndProductType

FULLY_OPEN = 0
FULLY_CLOSED = 10000
STOPPED, OPENING, CLOSING = 0, 1, 2
LIFT_SHIFT, TILT_SHIFT = 2, 4  # OperationalStatus: global bits 0-1, lift bits 2-3, tilt bits 4-5

# A plausible EndProductType for each Type, unless the constructor names one.
_END_PRODUCT_FOR_TYPE = {
    int(CoveringType.kDrapery): int(EndProduct.kCentralCurtain),
    int(CoveringType.kAwning): int(EndProduct.kAwningTerracePatio),
    int(CoveringType.kShutter): int(EndProduct.kRollerShutter),
    int(CoveringType.kTiltBlindTiltOnly): int(EndProduct.kTiltOnlyInteriorBlind),
    int(CoveringType.kTiltBlindLiftAndTilt): int(EndProduct.kInteriorBlind),
}


@dataclass(slots=True)
class _Motion:
    start_position: int
    target: int
    start_time: float
    duration_s: float
    timer: TimerHandle | None


class _Axis:
    """One motor (lift or tilt): a resting position or a motion in progress."""

    __slots__ = ("motion", "position", "travel_s")  # two per covering in every home: no instance dict

    def __init__(self, travel_s: float) -> None:
        self.travel_s = travel_s
        self.position: int | None = FULLY_OPEN
        self.motion: _Motion | None = None

    def current(self, now: float) -> int | None:
        motion = self.motion
        if motion is None:
            return self.position
        fraction = 1.0 if motion.duration_s <= 0 else min(1.0, max(0.0, (now - motion.start_time) / motion.duration_s))
        return round(motion.start_position + (motion.target - motion.start_position) * fraction)

    def direction(self) -> int:
        if self.motion is None:
            return STOPPED
        return OPENING if self.motion.target < self.motion.start_position else CLOSING

    def halt(self, now: float) -> None:
        if self.motion is not None:
            self.position = self.current(now)
            if self.motion.timer is not None:
                self.motion.timer.cancel()
            self.motion = None


class WindowCoveringServer(ClusterServer):
    """Blinds, shades and curtains.

    Constructor options: ``covering_type`` (Type enum value or name, default "RollerShade"; use
    "Drapery" for a curtain), ``end_product_type`` (default derived from the type),
    ``full_travel_s`` (seconds from fully open to fully closed, default 30), ``tilt_travel_s``
    (default 3), plus the usual ``features`` (default Lift | PositionAwareLift) and ``values``.
    """

    __slots__ = ("_lift", "_reported", "_tilt")

    cluster_name = "WindowCovering"
    revision = 5
    default_features = int(Feature.kLift) | int(Feature.kPositionAwareLift)
    defaults = {
        "Type": 0,
        "ConfigStatus": int(ConfigStatus.kOperational),
        "OperationalStatus": 0,
        "EndProductType": 0,
        "Mode": 0,
        "SafetyStatus": 0,
        "NumberOfActuationsLift": 0,
        "TargetPositionLiftPercent100ths": FULLY_OPEN,
        "NumberOfActuationsTilt": 0,
        "TargetPositionTiltPercent100ths": FULLY_OPEN,
    }
    constraints = {
        "TargetPositionLiftPercent100ths": Constraint(FULLY_OPEN, FULLY_CLOSED),
        "TargetPositionTiltPercent100ths": Constraint(FULLY_OPEN, FULLY_CLOSED),
    }

    def __init__(
        self,
        *,
        covering_type: int | str = "RollerShade",
        end_product_type: int | str | None = None,
        full_travel_s: float = 30.0,
        tilt_travel_s: float = 3.0,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(features=features)
        if full_travel_s <= 0 or tilt_travel_s <= 0:
            raise ValueError("travel times must be positive")
        model = self.model.attributes
        kind = coerce(covering_type, model["Type"].type, "WindowCovering.Type", status=Status.CONSTRAINT_ERROR)
        product = (
            _END_PRODUCT_FOR_TYPE.get(kind, int(EndProduct.kRollerShade))
            if end_product_type is None
            else coerce(end_product_type, model["EndProductType"].type, "WindowCovering.EndProductType")
        )
        self._values["Type"] = kind
        self._values["EndProductType"] = product
        self._values["ConfigStatus"] = self._config_status(0)
        self._lift = _Axis(full_travel_s)
        self._tilt = _Axis(tilt_travel_s)
        self._reported: dict[str, Any] = {}
        if self._lift_aware():
            self.bind_source("CurrentPositionLiftPercent100ths", lambda: self._lift.current(self._now()))
            self.bind_source("CurrentPositionLiftPercentage", lambda: _percent(self._lift.current(self._now())))
        if self._tilt_aware():
            self.bind_source("CurrentPositionTiltPercent100ths", lambda: self._tilt.current(self._now()))
            self.bind_source("CurrentPositionTiltPercentage", lambda: _percent(self._tilt.current(self._now())))
        self._reported = self._live_values()
        for name, value in (values or {}).items():
            self.restore(name, value)

    # ----------------------------------------------------------------------------- features
    def _lift_aware(self) -> bool:
        return self.has_feature(Feature.kLift) and self.has_feature(Feature.kPositionAwareLift)

    def _tilt_aware(self) -> bool:
        return self.has_feature(Feature.kTilt) and self.has_feature(Feature.kPositionAwareTilt)

    def initial_values(self) -> dict[str, Any]:
        out = {
            k: self.defaults[k]
            for k in ("Type", "ConfigStatus", "OperationalStatus", "EndProductType", "Mode", "SafetyStatus")
        }
        if self.has_feature(Feature.kLift):
            out["NumberOfActuationsLift"] = 0
        if self._lift_aware():
            out["TargetPositionLiftPercent100ths"] = FULLY_OPEN
        if self.has_feature(Feature.kTilt):
            out["NumberOfActuationsTilt"] = 0
        if self._tilt_aware():
            out["TargetPositionTiltPercent100ths"] = FULLY_OPEN
        return out

    def accepts(self, command_name: str) -> bool:
        if command_name == "GoToLiftPercentage":
            return self._lift_aware()
        if command_name == "GoToTiltPercentage":
            return self._tilt_aware()
        return True

    def _config_status(self, mode: int) -> int:
        bits = (
            0
            if mode & (int(ModeBits.kMaintenanceMode) | int(ModeBits.kCalibrationMode))
            else int(ConfigStatus.kOperational)
        )
        if self._lift_aware():
            bits |= int(ConfigStatus.kLiftPositionAware)
        if self._tilt_aware():
            bits |= int(ConfigStatus.kTiltPositionAware)
        if mode & int(ModeBits.kMotorDirectionReversed):
            bits |= int(ConfigStatus.kLiftMovementReversed)
        return bits

    # ----------------------------------------------------------------------------- public API
    def closed_fraction(self) -> float:
        """Current lift closedness, 0.0 (open) .. 1.0 (closed); used by room physics for daylight."""
        position = self._lift.current(self._now())
        return 0.0 if position is None else position / FULLY_CLOSED

    @property
    def is_moving(self) -> bool:
        return self._lift.motion is not None or self._tilt.motion is not None

    def set_safety_status(self, bits: int) -> None:
        """Scenario injection (obstacle, thermal protection …): a non-zero status stops all motion."""
        bits = coerce(bits, self.model.attributes["SafetyStatus"].type, "WindowCovering.SafetyStatus")
        if bits:
            self._halt_all()
        self.set("SafetyStatus", bits)

    def restore(self, name: str, value: object) -> None:
        axes = {"CurrentPositionLiftPercent100ths": self._lift, "CurrentPositionTiltPercent100ths": self._tilt}
        axis = axes.get(name)
        if axis is None or name not in self._sources:
            super().restore(name, value)
            return
        position = coerce(value, self.model.attributes[name].type, f"WindowCovering.{name}")
        Constraint(FULLY_OPEN, FULLY_CLOSED).check(position, f"WindowCovering.{name}")
        axis.halt(self._now())
        axis.position = position
        self._publish()

    # ----------------------------------------------------------------------------- writes
    def apply_write(self, name: str, value: Any) -> None:
        if name == "Mode":
            self.set("Mode", value)
            if value & (int(ModeBits.kMaintenanceMode) | int(ModeBits.kCalibrationMode)):
                self._halt_all()
            self.set("ConfigStatus", self._config_status(value))
            return
        super().apply_write(name, value)

    # ----------------------------------------------------------------------------- commands
    @command("UpOrOpen")
    def up_or_open(self) -> None:
        self._check_can_move()
        self._start_moves(FULLY_OPEN, FULLY_OPEN)

    @command("DownOrClose")
    def down_or_close(self) -> None:
        self._check_can_move()
        self._start_moves(FULLY_CLOSED, FULLY_CLOSED)

    @command("StopMotion")
    def stop_motion(self) -> None:
        self._check_can_move()
        self._halt_all()

    @command(
        "GoToLiftPercentage",
        aliases={"lift_percent_100ths": "liftPercent100thsValue"},
        constraints={"liftPercent100thsValue": Constraint(FULLY_OPEN, FULLY_CLOSED)},
    )
    def go_to_lift_percentage(self, liftPercent100thsValue: int) -> None:
        self._check_can_move()
        self._start_moves(liftPercent100thsValue, None)

    @command(
        "GoToTiltPercentage",
        aliases={"tilt_percent_100ths": "tiltPercent100thsValue"},
        constraints={"tiltPercent100thsValue": Constraint(FULLY_OPEN, FULLY_CLOSED)},
    )
    def go_to_tilt_percentage(self, tiltPercent100thsValue: int) -> None:
        self._check_can_move()
        self._start_moves(None, tiltPercent100thsValue)

    # ----------------------------------------------------------------------------- motion
    def _check_can_move(self) -> None:
        safety = self.read("SafetyStatus")
        if safety:
            raise HomeError.refused(
                Status.INVALID_IN_STATE,
                f"WindowCovering cannot move: SafetyStatus={safety:#x}",
                allowed={"SafetyStatus": 0},
                reason="SAFETY_STATUS",
            )
        mode = self.read("Mode")
        if mode & (int(ModeBits.kMaintenanceMode) | int(ModeBits.kCalibrationMode)):
            raise HomeError.refused(
                Status.BUSY,
                f"WindowCovering is in maintenance/calibration (Mode={mode:#x})",
                allowed={"Mode": "without MaintenanceMode/CalibrationMode bits"},
                reason="MODE",
            )

    def _now(self) -> float:
        return self.runtime.now() if self.runtime is not None else 0.0

    def _start_moves(self, lift_target: int | None, tilt_target: int | None) -> None:
        if lift_target is not None and self.has_feature(Feature.kLift):
            self._start(self._lift, lift_target, "Lift")
        if tilt_target is not None and self.has_feature(Feature.kTilt):
            self._start(self._tilt, tilt_target, "Tilt")
        self._publish()

    def _start(self, axis: _Axis, target: int, which: str) -> None:
        now = self._now()
        axis.halt(now)
        start = axis.position
        if start is None:  # unknown position: assume the far end, the longest possible travel
            start = FULLY_CLOSED if target <= FULLY_CLOSED // 2 else FULLY_OPEN
        if f"TargetPosition{which}Percent100ths" in self._held:
            self.set(f"TargetPosition{which}Percent100ths", target)
        if start == target:
            axis.position = target
            return
        duration = axis.travel_s * abs(target - start) / FULLY_CLOSED
        motion = _Motion(start, target, now, duration, None)
        axis.motion = motion
        if self.runtime is not None:
            motion.timer = self.runtime.call_later(duration, lambda: self._arrive(axis, motion))
        else:
            axis.halt(now + duration)  # detached (no clock): the move completes at once
        counter = f"NumberOfActuations{which}"
        if counter in self._held:
            self.set(counter, min(self.read(counter) + 1, 0xFFFF))

    def _arrive(self, axis: _Axis, motion: _Motion) -> None:
        if axis.motion is motion:
            axis.motion = None
            axis.position = motion.target
            self._publish()

    def _halt_all(self) -> None:
        now = self._now()
        for axis, which in ((self._lift, "Lift"), (self._tilt, "Tilt")):
            if axis.motion is not None:
                axis.halt(now)
            target = f"TargetPosition{which}Percent100ths"
            if target in self._held and axis.position is not None:
                self.set(target, axis.position)
        self._publish()

    def _live_values(self) -> dict[str, Any]:
        return {name: source() for name, source in self._sources.items()}

    def _publish(self) -> None:
        """Announce moved positions and set OperationalStatus to the axes' directions."""
        lift, tilt = self._lift.direction(), self._tilt.direction()
        overall = lift or tilt
        self.set("OperationalStatus", overall | lift << LIFT_SHIFT | tilt << TILT_SHIFT)
        live = self._live_values()
        for name, new in live.items():
            self.notify(name, self._reported.get(name), new)
        self._reported = live


def _percent(position: int | None) -> int | None:
    return None if position is None else position // 100
