"""Measurement clusters: temperature, relative humidity, illuminance, PM10 and PM2.5 concentration.

All are read-only data holders: the fabric feeds them with ``bind_source`` or with the small
``set_*`` methods here, which clamp to MinMeasuredValue..MaxMeasuredValue as a real sensor would.
"""

from __future__ import annotations

import math
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer

ConcentrationFeature = Objects.Pm25ConcentrationMeasurement.Bitmaps.Feature
LevelValue = Objects.Pm25ConcentrationMeasurement.Enums.LevelValueEnum
UNIT_UGM3 = int(Objects.Pm25ConcentrationMeasurement.Enums.MeasurementUnitEnum.kUgm3)
MEDIUM_AIR = int(Objects.Pm25ConcentrationMeasurement.Enums.MeasurementMediumEnum.kAir)


class NumericSensor(ClusterServer):
    """Shared behaviour of the MeasuredValue/MinMeasuredValue/MaxMeasuredValue clusters."""

    __slots__ = ()

    def clamp_measurement(self, value: float | None) -> float | None:
        if value is None:
            return None
        low, high = self.read("MinMeasuredValue"), self.read("MaxMeasuredValue")
        if low is not None:
            value = max(low, value)
        if high is not None:
            value = min(high, value)
        return value

    def set_measured_value(self, value: float | None) -> None:
        """Store a reading (None: unknown), clamped to the sensor's range."""
        clamped = self.clamp_measurement(value)
        self.set("MeasuredValue", None if clamped is None else self._typed(clamped))

    def _typed(self, value: float) -> Any:
        return round(value)


class TemperatureMeasurementServer(NumericSensor):
    """MeasuredValue in 0.01 °C."""

    __slots__ = ()

    cluster_name = "TemperatureMeasurement"
    revision = 4
    defaults = {"MeasuredValue": None, "MinMeasuredValue": -27315, "MaxMeasuredValue": 32766, "Tolerance": 0}


class RelativeHumidityMeasurementServer(NumericSensor):
    """MeasuredValue in 0.01 %."""

    __slots__ = ()

    cluster_name = "RelativeHumidityMeasurement"
    revision = 3
    defaults = {"MeasuredValue": None, "MinMeasuredValue": 0, "MaxMeasuredValue": 10000, "Tolerance": 0}


def lux_to_measured_value(lux: float) -> int:
    """Matter's logarithmic illuminance encoding: 10000 × log10(lux) + 1; 0 means too dark to measure."""
    if lux < 1:
        return 0
    return min(0xFFFE, round(10000 * math.log10(lux) + 1))


def measured_value_to_lux(value: int) -> float:
    return 0.0 if value <= 0 else 10 ** ((value - 1) / 10000)


class IlluminanceMeasurementServer(NumericSensor):
    """MeasuredValue is log-encoded (see :func:`lux_to_measured_value`); use :meth:`set_lux`."""

    __slots__ = ()

    cluster_name = "IlluminanceMeasurement"
    revision = 3
    defaults = {"MeasuredValue": None, "MinMeasuredValue": 1, "MaxMeasuredValue": 0xFFFE, "Tolerance": 0}

    def set_lux(self, lux: float | None) -> None:
        if lux is None:
            self.set("MeasuredValue", None)
            return
        encoded = lux_to_measured_value(lux)
        # 0 ("too low to measure") stays 0 rather than being lifted to MinMeasuredValue
        self.set("MeasuredValue", 0 if encoded == 0 else self.clamp_measurement(encoded))


class ConcentrationSensor(NumericSensor):
    """Concentration Measurement clusters (features NumericMeasurement, LevelIndication, …)."""

    __slots__ = ("level_thresholds",)

    default_features = int(
        ConcentrationFeature.kNumericMeasurement
        | ConcentrationFeature.kLevelIndication
        | ConcentrationFeature.kMediumLevel
        | ConcentrationFeature.kCriticalLevel
    )
    defaults = {
        "MeasuredValue": None,
        "MinMeasuredValue": 0.0,
        "MaxMeasuredValue": 1000.0,
        "Uncertainty": 0.0,
        "MeasurementUnit": UNIT_UGM3,
        "MeasurementMedium": MEDIUM_AIR,
        "LevelValue": int(LevelValue.kUnknown),
        "PeakMeasuredValue": None,
        "PeakMeasuredValueWindow": 3600,
        "AverageMeasuredValue": None,
        "AverageMeasuredValueWindow": 3600,
    }
    default_thresholds: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def __init__(self, *, level_thresholds: tuple[float, float, float] | None = None, **kwargs: Any) -> None:
        # Upper bounds (µg/m³) of the Low, Medium and High levels; above the last one is Critical.
        self.level_thresholds = level_thresholds or self.default_thresholds
        super().__init__(**kwargs)

    def initial_values(self) -> dict[str, Any]:
        values: dict[str, Any] = {"MeasurementMedium": MEDIUM_AIR}
        if self.has_feature(ConcentrationFeature.kNumericMeasurement):
            for name in ("MeasuredValue", "MinMeasuredValue", "MaxMeasuredValue", "Uncertainty", "MeasurementUnit"):
                values[name] = self.defaults[name]
        if self.has_feature(ConcentrationFeature.kLevelIndication):
            values["LevelValue"] = self.defaults["LevelValue"]
        if self.has_feature(ConcentrationFeature.kPeakMeasurement):
            values.update(PeakMeasuredValue=None, PeakMeasuredValueWindow=3600)
        if self.has_feature(ConcentrationFeature.kAverageMeasurement):
            values.update(AverageMeasuredValue=None, AverageMeasuredValueWindow=3600)
        return values

    def _typed(self, value: float) -> Any:
        return float(value)

    def level_for(self, value: float | None) -> int:
        if value is None:
            return int(LevelValue.kUnknown)
        low, medium, high = self.level_thresholds
        if value <= low:
            return int(LevelValue.kLow)
        if value <= medium and self.has_feature(ConcentrationFeature.kMediumLevel):
            return int(LevelValue.kMedium)
        if value <= high or not self.has_feature(ConcentrationFeature.kCriticalLevel):
            return int(LevelValue.kHigh)
        return int(LevelValue.kCritical)

    def set_measured_value(self, value: float | None) -> None:
        """Store a reading; LevelValue and PeakMeasuredValue follow where those features exist."""
        if self.has_feature(ConcentrationFeature.kNumericMeasurement):
            super().set_measured_value(value)
        if self.has_feature(ConcentrationFeature.kLevelIndication):
            self.set("LevelValue", self.level_for(value))
        if self.has_feature(ConcentrationFeature.kPeakMeasurement) and value is not None:
            peak = self.read("PeakMeasuredValue")
            self.set("PeakMeasuredValue", float(value) if peak is None else max(peak, float(value)))


class Pm10ConcentrationMeasurementServer(ConcentrationSensor):
    __slots__ = ()
    cluster_name = "Pm10ConcentrationMeasurement"
    revision = 3
    default_thresholds = (30.0, 80.0, 150.0)  # SimuHome's good / normal / bad bands


class Pm25ConcentrationMeasurementServer(ConcentrationSensor):
    __slots__ = ()
    cluster_name = "Pm25ConcentrationMeasurement"
    revision = 3
    default_thresholds = (15.0, 35.0, 75.0)
