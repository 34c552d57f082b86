"""Temperature Control (0x0056): an appliance's setpoint as a number (TN, optional STEP) or a level (TL).

The setpoint is read-only; SetTemperature changes it. Typical ranges (centi-°C): refrigerator
100..700, freezer -2300..-1500, laundry washer 500..9500.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer, command
from clusters.status import HomeError, Status

_Feature = Objects.TemperatureControl.Bitmaps.Feature
TEMPERATURE_NUMBER = int(_Feature.kTemperatureNumber)
TEMPERATURE_LEVEL = int(_Feature.kTemperatureLevel)
TEMPERATURE_STEP = int(_Feature.kTemperatureStep)
_NUMBER_ATTRIBUTES = ("TemperatureSetpoint", "MinTemperature", "MaxTemperature")
_LEVEL_ATTRIBUTES = ("SelectedTemperatureLevel", "SupportedTemperatureLevels")


class TemperatureControlServer(ClusterServer):
    __slots__ = ("level_temperatures",)
    cluster_name = "TemperatureControl"
    revision = 1
    default_features = TEMPERATURE_NUMBER
    defaults = {
        "TemperatureSetpoint": 2000,
        "MinTemperature": 500,
        "MaxTemperature": 9500,
        "Step": 100,
        "SelectedTemperatureLevel": 0,
        "SupportedTemperatureLevels": ["Cold", "Warm", "Hot"],
    }

    def __init__(
        self,
        *,
        min_temperature: int | None = None,
        max_temperature: int | None = None,
        setpoint: int | None = None,
        step: int | None = None,
        levels: Sequence[str] | None = None,
        selected_level: int | None = None,
        level_temperatures: Sequence[int] | None = None,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        # The temperature (centi-°C) each level stands for, where the device has one (a cook surface's Low/High).
        self.level_temperatures = None if level_temperatures is None else tuple(level_temperatures)
        if features is None:  # infer the features from the options given
            numeric = any(v is not None for v in (min_temperature, max_temperature, setpoint, step))
            features = (
                (TEMPERATURE_NUMBER if numeric or levels is None else 0)
                | (TEMPERATURE_LEVEL if levels is not None else 0)
                | (TEMPERATURE_STEP if step is not None else 0)
            )
        super().__init__(features=features, values=values)
        for name, value in (
            ("MinTemperature", min_temperature),
            ("MaxTemperature", max_temperature),
            ("Step", step),
            ("SupportedTemperatureLevels", None if levels is None else list(levels)),
            ("SelectedTemperatureLevel", selected_level),
        ):
            if value is not None and self.has_attribute(name):
                self.restore(name, value)
        if self.has_feature(TEMPERATURE_NUMBER):
            low, high = self.read("MinTemperature"), self.read("MaxTemperature")
            if setpoint is None and "TemperatureSetpoint" not in (values or {}):  # keep the default inside the range
                setpoint = min(max(self.read("TemperatureSetpoint"), low), high)
            if setpoint is not None:
                self.restore("TemperatureSetpoint", setpoint)
            if low >= high:
                raise ValueError(f"TemperatureControl: MinTemperature {low} must be below MaxTemperature {high}")

    def target_temperature(self) -> int | None:
        """The temperature (centi-°C) the device aims at: its setpoint, or its selected level's temperature."""
        if self.has_feature(TEMPERATURE_NUMBER):
            return int(self.read("TemperatureSetpoint"))
        level = self.read("SelectedTemperatureLevel") if self.has_feature(TEMPERATURE_LEVEL) else None
        if self.level_temperatures is None or level is None or not 0 <= level < len(self.level_temperatures):
            return None
        return self.level_temperatures[int(level)]

    def initial_values(self) -> dict[str, Any]:
        names: list[str] = []
        if self.has_feature(TEMPERATURE_NUMBER):
            names += _NUMBER_ATTRIBUTES
        if self.has_feature(TEMPERATURE_STEP):
            names.append("Step")
        if self.has_feature(TEMPERATURE_LEVEL):
            names += _LEVEL_ATTRIBUTES
        return {n: self.defaults[n] for n in names}

    @command("SetTemperature")
    def set_temperature(self, targetTemperature: int | None = None, targetTemperatureLevel: int | None = None) -> None:
        if targetTemperature is None and targetTemperatureLevel is None:
            raise HomeError.refused(
                Status.INVALID_COMMAND,
                "TemperatureControl.SetTemperature needs TargetTemperature or TargetTemperatureLevel",
                allowed=self.command_spec("SetTemperature").describe_args(),
            )
        if targetTemperature is not None:
            self._check_number(targetTemperature)
        if targetTemperatureLevel is not None:
            self._check_level(targetTemperatureLevel)
        if targetTemperature is not None:
            self.set("TemperatureSetpoint", targetTemperature)
        if targetTemperatureLevel is not None:
            self.set("SelectedTemperatureLevel", targetTemperatureLevel)

    def _check_number(self, target: int) -> None:
        if not self.has_feature(TEMPERATURE_NUMBER):
            raise HomeError.refused(
                Status.INVALID_COMMAND,
                "this device sets temperature levels, not numbers: give TargetTemperatureLevel",
                allowed={"levels": self.read("SupportedTemperatureLevels")},
            )
        low, high = self.read("MinTemperature"), self.read("MaxTemperature")
        step = self.read("Step") if self.has_feature(TEMPERATURE_STEP) else None
        allowed = {"min": low, "max": high, **({"step": step} if step else {})}
        if not low <= target <= high:
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"TemperatureControl.TargetTemperature={target} is out of range {low}..{high} (centi-°C)",
                allowed=allowed,
            )
        if step and (target - low) % step:
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"TemperatureControl.TargetTemperature={target} is not {low} + a multiple of Step {step}",
                allowed=allowed,
            )

    def _check_level(self, level: int) -> None:
        if not self.has_feature(TEMPERATURE_LEVEL):
            raise HomeError.refused(
                Status.INVALID_COMMAND,
                "this device sets temperature numbers, not levels: give TargetTemperature",
                allowed={"min": self.read("MinTemperature"), "max": self.read("MaxTemperature")},
            )
        levels = self.read("SupportedTemperatureLevels")
        if level >= len(levels):
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"TemperatureControl.TargetTemperatureLevel={level} is not an index into SupportedTemperatureLevels",
                allowed=dict(enumerate(levels)),
            )
