"""Fan Control cluster (0x0202): FanMode ↔ PercentSetting coupling, Step, multi-speed, rocking, wind.

Percent bands and mode percentages follow SimuHome (0 Off, 1–33 Low, 34–66 Medium, 67–100 High;
Low/Medium/High = 33/66/100 %), which Matter leaves to the manufacturer.
"""

from __future__ import annotations

import math
from typing import Any

import clusters.official as Objects
from clusters.absent_attributes import served_or_absent
from clusters.base import ClusterServer, command
from clusters.status import HomeError, Status
from clusters.values import Constraint

Feature = Objects.FanControl.Bitmaps.Feature
FanMode = Objects.FanControl.Enums.FanModeEnum
OFF, LOW, MEDIUM, HIGH, ON, AUTO, SMART = (
    int(m)
    for m in (FanMode.kOff, FanMode.kLow, FanMode.kMedium, FanMode.kHigh, FanMode.kOn, FanMode.kAuto, FanMode.kSmart)
)
MODE_PERCENT = {OFF: 0, LOW: 33, MEDIUM: 66, HIGH: 100}
SEQUENCES_WITH_AUTO = (2, 3, 4)  # FanModeSequenceEnum: OffLowMedHighAuto, OffLowHighAuto, OffHighAuto
INCREASE = 0  # StepDirectionEnum kIncrease

FEATURE_ATTRIBUTES = {
    Feature.kMultiSpeed: ("SpeedMax", "SpeedSetting", "SpeedCurrent"),
    Feature.kRocking: ("RockSupport", "RockSetting"),
    Feature.kWind: ("WindSupport", "WindSetting"),
    Feature.kAirflowDirection: ("AirflowDirection",),
}


def mode_for_percent(percent: int) -> int:
    if percent == 0:
        return OFF
    if percent <= 33:
        return LOW
    return MEDIUM if percent <= 66 else HIGH


class FanControlServer(ClusterServer):
    __slots__ = ()
    cluster_name = "FanControl"
    revision = 4
    default_features = int(Feature.kStep)
    defaults = {
        "FanMode": OFF,
        "FanModeSequence": 0,
        "PercentSetting": 0,
        "PercentCurrent": 0,
        "SpeedMax": 10,
        "SpeedSetting": 0,
        "SpeedCurrent": 0,
        "RockSupport": 0b111,
        "RockSetting": 0,
        "WindSupport": 0b11,
        "WindSetting": 0,
        "AirflowDirection": 0,
    }
    constraints = {
        "PercentSetting": Constraint(0, 100),
        "PercentCurrent": Constraint(0, 100),
        "SpeedMax": Constraint(1, 100),
        "SpeedSetting": Constraint(0, 100),
        "RockSetting": Constraint(0, 0b111),
        "WindSetting": Constraint(0, 0b11),
    }

    def initial_values(self) -> dict[str, Any]:
        values = dict(self.defaults)
        for feature, names in FEATURE_ATTRIBUTES.items():
            if not self.has_feature(feature):
                for name in names:
                    values.pop(name)
        return values

    def accepts(self, command_name: str) -> bool:
        return command_name != "Step" or self.has_feature(Feature.kStep)

    @property
    def multi_speed(self) -> bool:
        return self.has_feature(Feature.kMultiSpeed)

    def _has_auto(self) -> bool:
        return self.read("FanModeSequence") in SEQUENCES_WITH_AUTO

    # ----------------------------------------------------------------------------- writes
    def check_write(self, name: str, value: object) -> None:
        if name == "FanMode" and value == AUTO and not self._has_auto():
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"FanControl.FanMode=Auto is not in FanModeSequence {self.read('FanModeSequence')}",
                allowed=[OFF, LOW, MEDIUM, HIGH, ON, SMART],
            )
        top = served_or_absent(self, "SpeedMax")
        if name == "SpeedSetting" and isinstance(value, int) and value > top:
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"FanControl.SpeedSetting={value} is above SpeedMax {top}",
                allowed={"min": 0, "max": top},
            )
        for setting, support in (("RockSetting", "RockSupport"), ("WindSetting", "WindSupport")):
            if name == setting and value & ~self.read(support):
                raise HomeError.refused(
                    Status.CONSTRAINT_ERROR,
                    f"FanControl.{setting}={value:#x} sets bits outside {support} {self.read(support):#x}",
                    allowed={"mask": self.read(support)},
                )

    def apply_write(self, name: str, value: Any) -> None:
        if name == "FanMode":
            self.set_fan_mode(value)
        elif name == "PercentSetting":
            if value is not None:  # a null write leaves everything as it is (SimuHome, Matter)
                self.set_percent(value)
        elif name == "SpeedSetting":
            if value is not None:
                self.set_speed(value)
        else:
            self.set(name, value)

    # ----------------------------------------------------------------------------- state changes
    def set_percent(self, percent: int, *, mode: int | None = None) -> None:
        """Run the fan at ``percent``: PercentSetting/Current, FanMode by band and speeds follow."""
        self.set("PercentSetting", percent)
        self.set("PercentCurrent", percent)
        self.set("FanMode", mode_for_percent(percent) if mode is None else mode)
        if self.multi_speed:
            speed = math.ceil(percent * served_or_absent(self, "SpeedMax") / 100)
            self.set("SpeedSetting", speed)
            self.set("SpeedCurrent", speed)

    def set_speed(self, speed: int) -> None:
        speed_max = served_or_absent(self, "SpeedMax")
        self.set_percent(speed * 100 // speed_max)
        self.set("SpeedSetting", speed)
        self.set("SpeedCurrent", speed)

    def set_fan_mode(self, mode: int) -> None:
        if mode == ON:
            mode = HIGH  # Matter: On is written as High
        elif mode == SMART:
            mode = AUTO if self._has_auto() else HIGH
        if mode == AUTO:
            self.set("FanMode", AUTO)
            self.set("PercentSetting", None)  # the fan chooses its own speed
            if self.multi_speed:
                self.set("SpeedSetting", None)
            return
        self.set_percent(MODE_PERCENT[mode], mode=mode)

    # ----------------------------------------------------------------------------- commands
    @command("Step")
    def step(self, direction: int, wrap: bool = True, lowestOff: bool = True) -> None:
        # Defaults of Wrap/LowestOff are SimuHome's (Matter's Wrap default is false).
        if self.multi_speed:
            self._step_speed(direction, wrap, lowestOff)
            return
        steps = [0, 33, 66, 100] if lowestOff else [33, 66, 100]
        self.set_percent(self._next(steps, self._current_percent(), direction, wrap))

    def _current_percent(self) -> int:
        setting: int | None = self.read("PercentSetting")
        current: int = self.read("PercentCurrent") if setting is None else setting
        return current

    def _step_speed(self, direction: int, wrap: bool, lowest_off: bool) -> None:
        speeds = list(range(0 if lowest_off else 1, served_or_absent(self, "SpeedMax") + 1))
        current = self.read("SpeedSetting")
        current = self.read("SpeedCurrent") if current is None else current
        self.set_speed(self._next(speeds, current, direction, wrap))

    @staticmethod
    def _next(steps: list[int], current: int, direction: int, wrap: bool) -> int:
        if current < steps[0]:
            return steps[0] if direction == INCREASE or not wrap else steps[-1]
        index = min(range(len(steps)), key=lambda i: abs(steps[i] - current))
        index += 1 if direction == INCREASE else -1
        if 0 <= index < len(steps):
            return steps[index]
        if wrap:
            return steps[0] if index >= len(steps) else steps[-1]
        return steps[-1] if index >= len(steps) else steps[0]
