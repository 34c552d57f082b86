"""The deterministic virtual clock and the single event queue every timer lives on.

Time is an integer number of ticks (0.1 s) since the home's base time, so no float rounding can
reorder events. The clock is paused: it only moves when someone calls :meth:`advance_to`.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from datetime import datetime, timedelta

TICKS_PER_SECOND = 10  # the one tick rate: everything else derives from it
TICK_S = 1 / TICKS_PER_SECOND  # seconds per tick (SimuHome's "tick_interval")
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def seconds_to_ticks(seconds: float) -> int:
    """Round a duration up to whole ticks (a timer never fires early); tolerant of float noise."""
    return max(0, math.ceil(round(seconds * TICKS_PER_SECOND, 6)))


class Timer:
    __slots__ = ("callback", "cancelled", "due", "label")

    def __init__(self, due: int, callback: Callable[[], object], label: str) -> None:
        self.due = due
        self.callback = callback
        self.cancelled = False
        self.label = label

    def cancel(self) -> None:
        self.cancelled = True


class VirtualClock:
    """Implements ``clusters.runtime.Runtime`` over virtual ticks."""

    def __init__(self, base_time: datetime) -> None:
        self.base_time = base_time.replace(microsecond=0)
        self.tick = 0
        self._queue: list[tuple[int, int, Timer]] = []
        self._sequence = 0
        self.events_run = 0

    # Runtime protocol -------------------------------------------------------------------------
    def now(self) -> float:
        return self.tick / TICKS_PER_SECOND

    def call_later(self, delay_s: float, callback: Callable[[], object], label: str = "") -> Timer:
        return self.call_at_tick(self.tick + seconds_to_ticks(delay_s), callback, label)

    # ------------------------------------------------------------------------------------------
    def call_at_tick(self, tick: int, callback: Callable[[], object], label: str = "") -> Timer:
        timer = Timer(max(tick, self.tick), callback, label)
        self._sequence += 1
        heapq.heappush(self._queue, (timer.due, self._sequence, timer))
        return timer

    def next_due(self) -> int | None:
        while self._queue and self._queue[0][2].cancelled:
            heapq.heappop(self._queue)
        return self._queue[0][0] if self._queue else None

    def pending(self) -> int:
        return sum(1 for _, _, t in self._queue if not t.cancelled)

    def advance_to(self, target_tick: int) -> int:
        """Run every timer due up to ``target_tick`` in (tick, scheduling order); return events run."""
        if target_tick < self.tick:
            raise ValueError(f"cannot go back in time: now tick {self.tick}, asked {target_tick}")
        ran = 0
        while True:
            due = self.next_due()
            if due is None or due > target_tick:
                break
            _, _, timer = heapq.heappop(self._queue)
            self.tick = due
            timer.callback()
            ran += 1
        self.tick = target_tick
        self.events_run += ran
        return ran

    # Wall-clock style views of virtual time ----------------------------------------------------
    def datetime_at(self, tick: int) -> datetime:
        return self.base_time + timedelta(seconds=tick / TICKS_PER_SECOND)

    @property
    def now_datetime(self) -> datetime:
        return self.datetime_at(self.tick)

    def now_text(self) -> str:
        return self.now_datetime.strftime(TIME_FORMAT)

    def time_text(self, tick: int, *, tenths: bool = False) -> str:
        """The virtual time of ``tick`` as "YYYY-MM-DD HH:MM:SS" (with ".d" tenths when asked)."""
        text = self.datetime_at(tick).strftime(TIME_FORMAT)
        return f"{text}.{tick % TICKS_PER_SECOND}" if tenths else text

    def tick_of(self, when: datetime) -> int:
        """The tick at wall-style time ``when`` (rounded up to the next tick)."""
        return seconds_to_ticks((when - self.base_time).total_seconds())
