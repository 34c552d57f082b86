"""Daylight that follows the sun, as a piecewise-linear curve in time (so the physics stay closed-form).

Clear-sky light on a surface is close to proportional to the sine of the sun's elevation. We evaluate that sine
(declination from the day of the year, hour angle from the clock read as local solar time, the home's latitude)
at knots every ``KNOT_S`` seconds and interpolate linearly between them: a room's illuminance is algebraic
(daylight × coverings + lights), so any instant is a closed-form value, and light sensors only need a report at
each knot — one event per 15 virtual minutes, whatever the fast-forward distance.
"""

from __future__ import annotations

import functools
import math
from datetime import date, datetime, time, timedelta

DEFAULT_LATITUDE_DEG = 37.57  # Seoul, SimuHome's home: where the sun is unless a home says otherwise
KNOT_S = 900  # 15 minutes: the curve's segments, and how often light sensors report a changed sky
_YEAR_DAYS = 365.0
_TILT_RAD = math.radians(23.44)


def sun_sine(when: datetime, latitude_deg: float) -> float:
    """sin(solar elevation) at ``when`` (local solar time), clamped at 0 below the horizon."""
    day = when.timetuple().tm_yday
    declination = -_TILT_RAD * math.cos(2 * math.pi * (day + 10) / _YEAR_DAYS)
    hours = when.hour + when.minute / 60 + when.second / 3600 + when.microsecond / 3.6e9
    hour_angle = math.radians(15.0 * (hours - 12.0))
    latitude = math.radians(latitude_deg)
    value = math.sin(latitude) * math.sin(declination) + math.cos(latitude) * math.cos(declination) * math.cos(
        hour_angle
    )
    return max(0.0, value)


def knot_start(when: datetime) -> datetime:
    """The 15-minute knot ``when`` falls in (knots start at midnight)."""
    midnight = datetime.combine(when.date(), time())
    seconds = (when - midnight).total_seconds()
    return midnight + timedelta(seconds=KNOT_S * math.floor(seconds / KNOT_S))


# (latitude, its sign, reference day, knot) → the knot's daylight relative to the reference noon, shared by every
# home's curve (homes under one sky ask for the same knots: one value each, not one per home)
_KNOT_VALUES: dict[tuple[float, float, date, datetime], float] = {}
_KNOT_VALUES_MAX = 64 * 96  # values remembered: 64 days' worth for one latitude (time only moves forward, mostly)


class SunCurve:
    """Daylight relative to solar noon of ``reference`` (1.0 there), linear between 15-minute knots."""

    __slots__ = ("_key", "latitude_deg", "noon")

    def __init__(self, latitude_deg: float, reference: date) -> None:
        self.latitude_deg = latitude_deg
        self.noon = sun_sine(datetime.combine(reference, time(12)), latitude_deg)
        self._key = (latitude_deg, math.copysign(1.0, latitude_deg), reference)  # 0.0 and -0.0 stay apart

    def knot_before(self, when: datetime) -> datetime:
        return knot_start(when)

    def _at_knot(self, knot: datetime) -> float:
        key = (*self._key, knot)
        value = _KNOT_VALUES.get(key)
        if value is None:  # each knot's sine is asked for by every room at every report: compute it once
            if len(_KNOT_VALUES) >= _KNOT_VALUES_MAX:
                _KNOT_VALUES.clear()
            value = _KNOT_VALUES[key] = sun_sine(knot, self.latitude_deg) / self.noon if self.noon > 0 else 0.0
        return value

    def relative(self, when: datetime) -> float:
        """This instant's daylight as a fraction of the reference noon's (0 at night)."""
        start = self.knot_before(when)
        share = (when - start).total_seconds() / KNOT_S
        first, second = self._at_knot(start), self._at_knot(start + timedelta(seconds=KNOT_S))
        return first + (second - first) * share


def shared_sun_curve(latitude_deg: float, reference: date) -> SunCurve:
    """The curve at ``latitude_deg`` for ``reference``, one object for every home that asks for the same: a curve is
    immutable, so homes under one sky share one (memory per home)."""
    return _sun_curve(latitude_deg, math.copysign(1.0, latitude_deg), reference)  # the sign keeps 0.0 and -0.0 apart


@functools.lru_cache(maxsize=64)  # distinct skies remembered
def _sun_curve(latitude_deg: float, _sign: float, reference: date) -> SunCurve:
    return SunCurve(latitude_deg, reference)
