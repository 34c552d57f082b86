"""Reportable change: how far a sensor reading must move before a sampling subscriber is woken, and when it will.

Matter keeps ZCL's idea that a measurement is reported when it has moved by more than a *reportable change* from
the last reported value (ZCL Configure Reporting's "Reportable Change"; Matter's subscriptions expose only
min/max intervals, and its measurement attributes leave the change threshold to the server). We use the values
commonly configured for sensors, per attribute kind, in the attribute's own units:

* temperature (TemperatureMeasurement.MeasuredValue, Thermostat.LocalTemperature, 0.01 °C): 10 = 0.1 °C,
  the resolution thermostats display;
* relative humidity (0.01 %): 100 = 1 %RH;
* illuminance (MeasuredValue = 10000·log10(lux) + 1): 200 ≈ a 4.7 % change of the light, the eye's scale;
* PM10/PM2.5 concentration (µg/m³): 1 µg/m³; AirQuality is an enum, reported whenever its band changes.

The room physics are closed-form, so the first tick at which a reading moves that far is computed, not sampled:
a subscriber costs one wake-up per reportable change, not one per sampling period.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from emulator.physics_model import Segment

# room variable → reportable change in the variable's units (centi-°C, centi-%, µg/m³)
REPORTABLE_CHANGE: dict[str, float] = {"temperature": 10.0, "humidity": 100.0, "pm10": 1.0}
ILLUMINANCE_REPORTABLE_CHANGE = 200  # in MeasuredValue units (10000·log10 lux)
ILLUMINANCE_FACTOR = 10 ** (ILLUMINANCE_REPORTABLE_CHANGE / 10000)  # the same as a ratio of lux
# AirQuality's PM10 band edges (emulator/emulated_home.py _as_air_quality): crossing one changes the enum
AIR_QUALITY_EDGES: tuple[float, ...] = (30.0, 50.0, 80.0, 150.0, 250.0)


def segment_crossing(
    segment: Segment, start: int, now: int, reported: float, change: float, edges: Iterable[float] = ()
) -> int | None:
    """The first tick ≥ ``now`` at which the trajectory (begun at tick ``start``) lies more than ``change`` from
    ``reported`` or has crossed one of ``edges``; None when that does not happen before the segment ends (its
    boundary reports anyway) or ever."""
    if segment.stepwise:
        return None  # a one-tick segment: its boundary next tick reports
    x_now = segment.value_after(now - start)
    if abs(x_now - reported) > change:
        return now  # it has moved far enough already (e.g. since a report of another room's boundary)
    fixed, x0 = segment.fixed, segment.x0
    if x_now == fixed or x0 == fixed:
        return None
    rising = fixed > x_now
    if rising:
        candidates = [reported + change, *(edge for edge in edges if edge >= x_now)]
        target = min(candidates)
        if target >= min(fixed, segment.process.upper):
            return None
    else:
        candidates = [reported - change, *(edge for edge in edges if edge < x_now)]
        target = max(candidates)
        if target <= max(fixed, segment.process.lower):
            return None

    def beyond(n: int) -> bool:
        value = segment.value_after(n)
        return value > target if rising else value < target

    # x(n) = fixed + (x0 − fixed)·αⁿ, monotone toward fixed: solve for n, then settle float rounding
    ratio = (target - fixed) / (x0 - fixed)
    n = max(now - start, math.ceil(math.log(ratio) / math.log(segment.alpha))) if 0 < ratio < 1 else now - start
    while not beyond(n):
        n += 1
    while n > now - start and beyond(n - 1):
        n -= 1
    if segment.exit_after is not None and n >= segment.exit_after:
        return None
    return start + n


def linear_crossing(value_now: float, value_end: float, now: int, end: int, reported: float) -> int | None:
    """Illuminance between two sky knots is linear in time: the first tick in [now, end) at which it is more than
    the reportable change (as a ratio) from ``reported``; None if not before ``end`` (the knot reports)."""
    high = max(reported, 1.0) * ILLUMINANCE_FACTOR  # below 1 lx the reading is 0: any light above 1 lx counts
    low = reported / ILLUMINANCE_FACTOR if reported >= 1.0 else -math.inf
    if not low <= value_now <= high:
        return now
    if value_end == value_now or end <= now:
        return None
    target = high if value_end > value_now else low
    if not min(value_now, value_end) <= target <= max(value_now, value_end):
        return None
    slope = (value_end - value_now) / (end - now)
    n = max(0, math.floor((target - value_now) / slope))
    while n < end - now and not _past(value_now + slope * n, target, slope > 0):
        n += 1
    return now + n if n < end - now else None


def _past(value: float, target: float, rising: bool) -> bool:
    return value > target if rising else value < target
