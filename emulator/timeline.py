"""The home's time: one paused virtual clock with its event queue, and the ways callers name a moment."""

from __future__ import annotations

import math
from datetime import datetime

from emulator.clock import TIME_FORMAT, VirtualClock, seconds_to_ticks
from emulator.errors import HomeError


class Timeline:
    """Owns the virtual clock: reading the time, naming moments, and fast-forwarding (every due timer runs)."""

    __slots__ = ("clock",)  # one per home: no instance dict

    def __init__(self, base_time: datetime) -> None:
        self.clock = VirtualClock(base_time)

    def time_text(self, tick: int, *, tenths: bool = False) -> str:
        return self.clock.time_text(tick, tenths=tenths)

    def advance(self, seconds: float) -> int:
        """Move virtual time forward; every timer due on the way runs. Returns events run."""
        if (
            not isinstance(seconds, int | float)
            or isinstance(seconds, bool)
            or not math.isfinite(seconds)
            or seconds < 0
        ):
            raise HomeError("INVALID_ARGUMENT", f"seconds must be a finite number >= 0, got {seconds!r}")
        return self.clock.advance_to(self.clock.tick + seconds_to_ticks(seconds))

    def run_until(self, when: datetime | str | int) -> int:
        """Advance to an absolute time: a datetime, "YYYY-MM-DD HH:MM:SS", or a tick number."""
        tick = self.to_tick(when)
        if tick < self.clock.tick:
            raise HomeError("INVALID_ARGUMENT", f"{when!r} is in the past (now {self.clock.now_text()})")
        return self.clock.advance_to(tick)

    def to_tick(self, when: datetime | str | int) -> int:
        if isinstance(when, bool):
            raise HomeError("INVALID_ARGUMENT", f"not a time: {when!r}")
        if isinstance(when, int):
            return when
        if isinstance(when, str):
            try:
                when = datetime.strptime(when, TIME_FORMAT)
            except ValueError:
                raise HomeError("INVALID_ARGUMENT", f"time {when!r} is not 'YYYY-MM-DD HH:MM:SS'") from None
        if isinstance(when, datetime):
            return self.clock.tick_of(when)
        raise HomeError("INVALID_ARGUMENT", f"not a time: {when!r}")
