"""The sky over the home: daylight relative to noon (the sun's curve, once per tick) and the outdoor temperature
over the current knot. Owned by the physics engine; rooms read it, it reads only the clock and the parameters."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from emulator.clock import VirtualClock
from emulator.daylight import KNOT_S, knot_start, shared_sun_curve
from emulator.physics_terms import PhysicsParams


class Sky:
    __slots__ = ("_at", "clock", "params", "sun")  # one per home: no instance dict (memory per home)

    def __init__(self, clock: VirtualClock, params: PhysicsParams) -> None:
        self.clock = clock
        self.params = params
        sun = params.daylight == "sun"
        self.sun = shared_sun_curve(params.latitude_deg, clock.now_datetime.date()) if sun else None
        self._at: tuple[tuple[int, datetime] | None, float] = (None, 1.0)  # (tick, base time) → daylight then

    def relative_daylight(self) -> float:
        """Daylight now relative to a room's noon daylight (always 1 with constant daylight); computed once per
        tick (every room's illuminance at one instant reads the same sky)."""
        if self.sun is None:
            return 1.0
        instant = (self.clock.tick, self.clock.base_time)
        if self._at[0] != instant:
            self._at = (instant, self.sun.relative(self.clock.now_datetime))
        return self._at[1]

    def outdoor_temperature(self) -> float | None:
        """The outdoor temperature (centi-°C) over the current knot, or None without an outdoor model."""
        if self.params.outdoor != "daily":
            return None
        middle = knot_start(self.clock.now_datetime) + timedelta(seconds=KNOT_S / 2)
        hours = middle.hour + middle.minute / 60
        return self.params.outdoor_mean + self.params.outdoor_amplitude * math.cos(2 * math.pi * (hours - 15) / 24)
