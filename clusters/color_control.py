"""Color Control cluster (0x0300): colour temperature, hue/saturation and CIE xy, moving over virtual time.

Moving values are computed lazily from the start of the move (Matter gives them "Q" quality): a
read always sees the live value, and one timer at the end of the move stores the final values.
A MoveHue runs until stopped and needs no timer at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer, command
from clusters.level_control import options_allow, sibling_is_off
from clusters.runtime import TimerHandle
from clusters.status import HomeError, Status
from clusters.values import Constraint

Feature = Objects.ColorControl.Bitmaps.Feature
EXECUTE_IF_OFF = int(Objects.ColorControl.Bitmaps.OptionsBitmap.kExecuteIfOff)
SUPPORTED_FEATURES = int(Feature.kHueAndSaturation | Feature.kXy | Feature.kColorTemperature)
MODE_HS, MODE_XY, MODE_CT = 0, 1, 2  # ColorModeEnum (EnhancedColorModeEnum shares these values)
MOVE_STOP, MOVE_UP, MOVE_DOWN = 0, 1, 3  # MoveModeEnum; StepModeEnum uses Up 1 / Down 3 too
DIR_SHORTEST, DIR_LONGEST, DIR_UP, DIR_DOWN = 0, 1, 2, 3
HUE_STEPS = 255  # CurrentHue 0..254 on a circle
MAX_HUE_SAT = 254
MAX_XY = 0xFEFF
SUPPRESSED: dict[str, Any] = {"suppressed": True}

U8 = Constraint(0, 0xFF)
U16 = Constraint(0, 0xFFFF)
I16 = Constraint(-0x8000, 0x7FFF)
HUE_SAT = Constraint(0, MAX_HUE_SAT)
XY = Constraint(0, MAX_XY)
TRANSITION = Constraint(0, 0xFFFE)
OPTS = {"optionsMask": U8, "optionsOverride": U8}
FEATURE_OF_COMMAND = {
    **dict.fromkeys(
        (
            "MoveToHue",
            "MoveHue",
            "StepHue",
            "MoveToSaturation",
            "MoveSaturation",
            "StepSaturation",
            "MoveToHueAndSaturation",
        ),
        Feature.kHueAndSaturation,
    ),
    **dict.fromkeys(("MoveToColor", "MoveColor", "StepColor"), Feature.kXy),
    **dict.fromkeys(
        ("MoveToColorTemperature", "MoveColorTemperature", "StepColorTemperature"), Feature.kColorTemperature
    ),
}


@dataclass
class Motion:
    """One attribute moving at ``rate`` units/s from ``start`` at ``t0`` until ``end`` (None: until stopped)."""

    start: float
    rate: float
    t0: float
    end: float | None
    low: float
    high: float
    final: int | None = None  # exact value stored when the move ends
    wrap: bool = False

    def value(self, now: float) -> int:
        if self.end is not None and now >= self.end and self.final is not None:
            return self.final
        until = now if self.end is None else min(now, self.end)
        raw = self.start + self.rate * (until - self.t0)
        if self.wrap:
            return round(raw) % HUE_STEPS
        return round(min(self.high, max(self.low, raw)))


class ColorControlServer(ClusterServer):
    __slots__ = ("_motions", "_timer", "physical_max_mireds", "physical_min_mireds")
    cluster_name = "ColorControl"
    revision = 7
    default_features = int(Feature.kColorTemperature)
    defaults = {
        "CurrentHue": 0,
        "CurrentSaturation": 0,
        "RemainingTime": 0,
        "CurrentX": 0x616B,
        "CurrentY": 0x607D,
        "ColorTemperatureMireds": 250,
        "ColorMode": MODE_XY,
        "Options": 0,
        "NumberOfPrimaries": 0,
        "EnhancedColorMode": MODE_XY,
        "ColorCapabilities": 0,
        "ColorTempPhysicalMinMireds": 153,
        "ColorTempPhysicalMaxMireds": 500,
        "CoupleColorTempToLevelMinMireds": 153,
        "StartUpColorTemperatureMireds": None,
    }
    constraints = {"Options": Constraint(0, 1), "StartUpColorTemperatureMireds": Constraint(1, MAX_XY)}
    # Hue travels as EnhancedCurrentHue (CurrentHue << 8), as the SDK does without the EnhancedHue feature.
    scene_attributes = {
        "CurrentX": "valueUnsigned16",
        "CurrentY": "valueUnsigned16",
        "EnhancedCurrentHue": "valueUnsigned16",
        "CurrentSaturation": "valueUnsigned8",
        "ColorTemperatureMireds": "valueUnsigned16",
        "EnhancedColorMode": "valueUnsigned8",
    }

    def __init__(self, *, physical_min_mireds: int = 153, physical_max_mireds: int = 500, **kwargs: Any) -> None:
        if not 1 <= physical_min_mireds <= physical_max_mireds <= MAX_XY:
            raise ValueError(f"colour temperature range {physical_min_mireds}..{physical_max_mireds} is not valid")
        self.physical_min_mireds = physical_min_mireds
        self.physical_max_mireds = physical_max_mireds
        super().__init__(**kwargs)
        unsupported = self.feature_map & ~SUPPORTED_FEATURES
        if unsupported:
            raise ValueError(f"ColorControl features {unsupported:#x} (EnhancedHue/ColorLoop) are not implemented")
        self._motions: dict[str, Motion] = {}
        self._timer: TimerHandle | None = None

    def initial_values(self) -> dict[str, Any]:
        values = {
            k: self.defaults[k]
            for k in ("RemainingTime", "Options", "NumberOfPrimaries", "ColorMode", "EnhancedColorMode")
        }
        values["ColorCapabilities"] = self.feature_map
        if self.has_feature(Feature.kHueAndSaturation):
            values.update(CurrentHue=0, CurrentSaturation=0)
        if self.has_feature(Feature.kXy):
            values.update(CurrentX=self.defaults["CurrentX"], CurrentY=self.defaults["CurrentY"])
        if self.has_feature(Feature.kColorTemperature):
            values.update(
                ColorTemperatureMireds=min(self.physical_max_mireds, max(self.physical_min_mireds, 250)),
                ColorTempPhysicalMinMireds=self.physical_min_mireds,
                ColorTempPhysicalMaxMireds=self.physical_max_mireds,
                CoupleColorTempToLevelMinMireds=self.physical_min_mireds,
                StartUpColorTemperatureMireds=None,
            )
        mode = (
            MODE_XY
            if self.has_feature(Feature.kXy)
            else (MODE_HS if self.has_feature(Feature.kHueAndSaturation) else MODE_CT)
        )
        values.update(ColorMode=mode, EnhancedColorMode=mode)
        return values

    def accepts(self, command_name: str) -> bool:
        feature = FEATURE_OF_COMMAND.get(command_name)
        return feature is None or self.has_feature(feature)

    # ----------------------------------------------------------------------------- live values
    def read(self, name: str) -> Any:
        if self._motions and self.runtime is not None:
            now = self.runtime.now()
            motion = self._motions.get(name)
            if motion is not None:
                return motion.value(now)
            if name == "RemainingTime":
                ends = [m.end for m in self._motions.values() if m.end is not None]
                return max(0, round((max(ends) - now) * 10)) if ends else 0
        return super().read(name)

    def stop_motion(self) -> None:
        """Freeze every move at its current value."""
        frozen = {name: self.read(name) for name in self._motions}
        self._clear()
        for name, value in frozen.items():
            self.set(name, value)
        self.set("RemainingTime", 0)

    def _clear(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        self._motions = {}

    def _finish(self) -> None:
        finals = {name: m.final for name, m in self._motions.items()}
        self._timer = None
        self._motions = {}
        for name, value in finals.items():
            self.set(name, value)
        self.set("RemainingTime", 0)

    def _begin(self, mode: int, moves: dict[str, Motion]) -> None:
        """Start moves (replacing any running ones) and switch ColorMode."""
        self.stop_motion()
        self.set("ColorMode", mode)
        self.set("EnhancedColorMode", mode)
        if self.runtime is None:
            moves = {n: m for n, m in moves.items() if m.end is not None}
            for name, motion in moves.items():
                self.set(name, motion.final if motion.final is not None else motion.value(float("inf")))
            return
        immediate = {n: m for n, m in moves.items() if m.end is not None and m.end <= m.t0}
        for name, motion in immediate.items():
            self.set(name, motion.final)
        self._motions = {n: m for n, m in moves.items() if n not in immediate}
        ends = [m.end for m in self._motions.values() if m.end is not None]
        if ends:
            self._timer = self.runtime.call_later(max(ends) - self.runtime.now(), self._finish)

    def _now(self) -> float:
        return self.runtime.now() if self.runtime is not None else 0.0

    def _to(self, start: float, target: float, tenths: int, low: float, high: float) -> Motion:
        seconds = tenths / 10
        rate = (target - start) / seconds if seconds > 0 else 0.0
        return Motion(start, rate, self._now(), self._now() + seconds, low, high, final=int(target))

    def _at_rate(self, start: float, rate: float, low: float, high: float) -> Motion:
        limit = high if rate > 0 else low
        seconds = abs(limit - start) / abs(rate)
        return Motion(start, rate, self._now(), self._now() + seconds, low, high, final=int(limit))

    def _hue_to(self, target: int, direction: int, tenths: int) -> Motion:
        current = self.read("CurrentHue")
        up = (target - current) % HUE_STEPS
        down = up - HUE_STEPS if up else 0
        if direction == DIR_SHORTEST:
            delta = up if up <= HUE_STEPS // 2 else down
        elif direction == DIR_LONGEST:
            delta = down if up <= HUE_STEPS // 2 else up
        else:
            delta = up if direction == DIR_UP else down
        motion = self._to(current, current + delta, tenths, 0, MAX_HUE_SAT)
        motion.final, motion.wrap = target, True
        return motion

    # ----------------------------------------------------------------------------- scenes
    def scene_values(self) -> dict[str, Any]:
        values = {name: self.read(name) for name in self.scene_attributes if self.has_attribute(name)}
        if self.has_attribute("CurrentHue"):
            values["EnhancedCurrentHue"] = int(self.read("CurrentHue")) << 8
        return values

    def apply_scene(self, values: Any, transition_s: float) -> None:
        tenths = round(transition_s * 10)
        mode = values.get("EnhancedColorMode", self.read("EnhancedColorMode"))
        if (
            mode == MODE_CT
            and values.get("ColorTemperatureMireds") is not None
            and self.has_feature(Feature.kColorTemperature)
        ):
            low, high = self.physical_min_mireds, self.physical_max_mireds
            target = min(high, max(low, int(values["ColorTemperatureMireds"])))
            start = self.read("ColorTemperatureMireds")
            self._begin(MODE_CT, {"ColorTemperatureMireds": self._to(start, target, tenths, low, high)})
        elif mode == MODE_XY and self.has_feature(Feature.kXy) and "CurrentX" in values and "CurrentY" in values:
            self._begin(
                MODE_XY,
                {
                    "CurrentX": self._to(self.read("CurrentX"), int(values["CurrentX"]), tenths, 0, MAX_XY),
                    "CurrentY": self._to(self.read("CurrentY"), int(values["CurrentY"]), tenths, 0, MAX_XY),
                },
            )
        elif mode == MODE_HS and self.has_feature(Feature.kHueAndSaturation) and "EnhancedCurrentHue" in values:
            hue = min(MAX_HUE_SAT, int(values["EnhancedCurrentHue"]) >> 8)
            saturation = int(values.get("CurrentSaturation", self.read("CurrentSaturation")))
            self._begin(
                MODE_HS,
                {
                    "CurrentHue": self._hue_to(hue, DIR_SHORTEST, tenths),
                    "CurrentSaturation": self._to(
                        self.read("CurrentSaturation"), min(MAX_HUE_SAT, saturation), tenths, 0, MAX_HUE_SAT
                    ),
                },
            )

    # ----------------------------------------------------------------------------- checks
    def _suppressed(self, mask: int, override: int) -> bool:
        return sibling_is_off(self) and not options_allow(self.read("Options"), mask, override, EXECUTE_IF_OFF)

    @staticmethod
    def _nonzero(value: int, what: str) -> None:
        if value == 0:
            raise HomeError.refused(Status.INVALID_COMMAND, f"ColorControl.{what}=0 has no effect", allowed={"min": 1})

    def _mireds_bounds(self, low: int, high: int) -> tuple[int, int]:
        low = max(self.physical_min_mireds, low) if low else self.physical_min_mireds
        high = min(self.physical_max_mireds, high) if high else self.physical_max_mireds
        if low > high:
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"ColorControl colour temperature bounds {low}..{high} are empty",
                allowed={"min": self.physical_min_mireds, "max": self.physical_max_mireds},
            )
        return low, high

    # ----------------------------------------------------------------------------- colour temperature
    @command("MoveToColorTemperature", constraints={"colorTemperatureMireds": XY, "transitionTime": TRANSITION, **OPTS})
    def move_to_color_temperature(
        self, colorTemperatureMireds: int, transitionTime: int = 0, optionsMask: int = 0, optionsOverride: int = 0
    ) -> dict[str, Any] | None:
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        low, high = self.physical_min_mireds, self.physical_max_mireds
        target = min(high, max(low, colorTemperatureMireds))
        start = self.read("ColorTemperatureMireds")
        self._begin(MODE_CT, {"ColorTemperatureMireds": self._to(start, target, transitionTime, low, high)})
        return None

    @command(
        "MoveColorTemperature",
        constraints={"rate": U16, "colorTemperatureMinimumMireds": XY, "colorTemperatureMaximumMireds": XY, **OPTS},
    )
    def move_color_temperature(
        self,
        moveMode: int,
        rate: int,
        colorTemperatureMinimumMireds: int = 0,
        colorTemperatureMaximumMireds: int = 0,
        optionsMask: int = 0,
        optionsOverride: int = 0,
    ) -> dict[str, Any] | None:
        if moveMode != MOVE_STOP:
            self._nonzero(rate, "MoveColorTemperature.Rate")
        low, high = self._mireds_bounds(colorTemperatureMinimumMireds, colorTemperatureMaximumMireds)
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        if moveMode == MOVE_STOP:
            self.stop_motion()
            return None
        start = min(high, max(low, self.read("ColorTemperatureMireds")))
        signed = rate if moveMode == MOVE_UP else -rate
        self._begin(MODE_CT, {"ColorTemperatureMireds": self._at_rate(start, signed, low, high)})
        return None

    @command(
        "StepColorTemperature",
        constraints={
            "stepSize": U16,
            "transitionTime": TRANSITION,
            "colorTemperatureMinimumMireds": XY,
            "colorTemperatureMaximumMireds": XY,
            **OPTS,
        },
    )
    def step_color_temperature(
        self,
        stepMode: int,
        stepSize: int,
        transitionTime: int = 0,
        colorTemperatureMinimumMireds: int = 0,
        colorTemperatureMaximumMireds: int = 0,
        optionsMask: int = 0,
        optionsOverride: int = 0,
    ) -> dict[str, Any] | None:
        self._nonzero(stepSize, "StepColorTemperature.StepSize")
        low, high = self._mireds_bounds(colorTemperatureMinimumMireds, colorTemperatureMaximumMireds)
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        start = self.read("ColorTemperatureMireds")
        target = min(high, max(low, start + (stepSize if stepMode == MOVE_UP else -stepSize)))
        self._begin(MODE_CT, {"ColorTemperatureMireds": self._to(start, target, transitionTime, low, high)})
        return None

    @command("StopMoveStep", constraints=OPTS)
    def stop_move_step(self, optionsMask: int = 0, optionsOverride: int = 0) -> dict[str, Any] | None:
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        self.stop_motion()
        return None

    # ----------------------------------------------------------------------------- hue / saturation
    @command("MoveToHue", constraints={"hue": HUE_SAT, "transitionTime": TRANSITION, **OPTS})
    def move_to_hue(
        self,
        hue: int,
        direction: int = DIR_SHORTEST,
        transitionTime: int = 0,
        optionsMask: int = 0,
        optionsOverride: int = 0,
    ) -> dict[str, Any] | None:
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        self._begin(MODE_HS, {"CurrentHue": self._hue_to(hue, direction, transitionTime)})
        return None

    @command("MoveHue", constraints={"rate": U8, **OPTS})
    def move_hue(
        self, moveMode: int, rate: int, optionsMask: int = 0, optionsOverride: int = 0
    ) -> dict[str, Any] | None:
        if moveMode != MOVE_STOP:
            self._nonzero(rate, "MoveHue.Rate")
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        if moveMode == MOVE_STOP:
            self.stop_motion()
            return None
        signed = rate if moveMode == MOVE_UP else -rate
        endless = Motion(self.read("CurrentHue"), signed, self._now(), None, 0, MAX_HUE_SAT, wrap=True)
        self._begin(MODE_HS, {"CurrentHue": endless})
        return None

    @command("StepHue", constraints={"stepSize": U8, "transitionTime": Constraint(0, 0xFF), **OPTS})
    def step_hue(
        self, stepMode: int, stepSize: int, transitionTime: int = 0, optionsMask: int = 0, optionsOverride: int = 0
    ) -> dict[str, Any] | None:
        self._nonzero(stepSize, "StepHue.StepSize")
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        start = self.read("CurrentHue")
        delta = stepSize if stepMode == MOVE_UP else -stepSize
        motion = self._to(start, start + delta, transitionTime, 0, MAX_HUE_SAT)
        motion.final, motion.wrap = (start + delta) % HUE_STEPS, True
        self._begin(MODE_HS, {"CurrentHue": motion})
        return None

    @command("MoveToSaturation", constraints={"saturation": HUE_SAT, "transitionTime": TRANSITION, **OPTS})
    def move_to_saturation(
        self, saturation: int, transitionTime: int = 0, optionsMask: int = 0, optionsOverride: int = 0
    ) -> dict[str, Any] | None:
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        start = self.read("CurrentSaturation")
        self._begin(MODE_HS, {"CurrentSaturation": self._to(start, saturation, transitionTime, 0, MAX_HUE_SAT)})
        return None

    @command("MoveSaturation", constraints={"rate": U8, **OPTS})
    def move_saturation(
        self, moveMode: int, rate: int, optionsMask: int = 0, optionsOverride: int = 0
    ) -> dict[str, Any] | None:
        if moveMode != MOVE_STOP:
            self._nonzero(rate, "MoveSaturation.Rate")
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        if moveMode == MOVE_STOP:
            self.stop_motion()
            return None
        signed = rate if moveMode == MOVE_UP else -rate
        motion = self._at_rate(self.read("CurrentSaturation"), signed, 0, MAX_HUE_SAT)
        self._begin(MODE_HS, {"CurrentSaturation": motion})
        return None

    @command("StepSaturation", constraints={"stepSize": U8, "transitionTime": Constraint(0, 0xFF), **OPTS})
    def step_saturation(
        self, stepMode: int, stepSize: int, transitionTime: int = 0, optionsMask: int = 0, optionsOverride: int = 0
    ) -> dict[str, Any] | None:
        self._nonzero(stepSize, "StepSaturation.StepSize")
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        start = self.read("CurrentSaturation")
        target = min(MAX_HUE_SAT, max(0, start + (stepSize if stepMode == MOVE_UP else -stepSize)))
        self._begin(MODE_HS, {"CurrentSaturation": self._to(start, target, transitionTime, 0, MAX_HUE_SAT)})
        return None

    @command(
        "MoveToHueAndSaturation",
        constraints={"hue": HUE_SAT, "saturation": HUE_SAT, "transitionTime": TRANSITION, **OPTS},
    )
    def move_to_hue_and_saturation(
        self, hue: int, saturation: int, transitionTime: int = 0, optionsMask: int = 0, optionsOverride: int = 0
    ) -> dict[str, Any] | None:
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        start = self.read("CurrentSaturation")
        self._begin(
            MODE_HS,
            {
                "CurrentHue": self._hue_to(hue, DIR_SHORTEST, transitionTime),
                "CurrentSaturation": self._to(start, saturation, transitionTime, 0, MAX_HUE_SAT),
            },
        )
        return None

    # ----------------------------------------------------------------------------- CIE xy
    @command("MoveToColor", constraints={"colorX": XY, "colorY": XY, "transitionTime": TRANSITION, **OPTS})
    def move_to_color(
        self, colorX: int, colorY: int, transitionTime: int = 0, optionsMask: int = 0, optionsOverride: int = 0
    ) -> dict[str, Any] | None:
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        x, y = self.read("CurrentX"), self.read("CurrentY")
        self._begin(
            MODE_XY,
            {
                "CurrentX": self._to(x, colorX, transitionTime, 0, MAX_XY),
                "CurrentY": self._to(y, colorY, transitionTime, 0, MAX_XY),
            },
        )
        return None

    @command("MoveColor", constraints={"rateX": I16, "rateY": I16, **OPTS})
    def move_color(
        self, rateX: int, rateY: int, optionsMask: int = 0, optionsOverride: int = 0
    ) -> dict[str, Any] | None:
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        if rateX == 0 and rateY == 0:
            self.stop_motion()  # both rates zero: stop moving
            return None
        moves = {
            name: self._at_rate(self.read(name), rate, 0, MAX_XY)
            for name, rate in (("CurrentX", rateX), ("CurrentY", rateY))
            if rate
        }
        self._begin(MODE_XY, moves)
        return None

    @command("StepColor", constraints={"stepX": I16, "stepY": I16, "transitionTime": TRANSITION, **OPTS})
    def step_color(
        self, stepX: int, stepY: int, transitionTime: int = 0, optionsMask: int = 0, optionsOverride: int = 0
    ) -> dict[str, Any] | None:
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        moves = {}
        for name, step in (("CurrentX", stepX), ("CurrentY", stepY)):
            start = self.read(name)
            moves[name] = self._to(start, min(MAX_XY, max(0, start + step)), transitionTime, 0, MAX_XY)
        self._begin(MODE_XY, moves)
        return None
