"""A clock that only moves when the test says so, for MRP's injected ``MrpClock``."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable


class _Timer:
    def __init__(self, callback: Callable[[], None]) -> None:
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class SteppedClock:
    def __init__(self) -> None:
        self._now = 0.0
        self._due: list[tuple[float, int, _Timer]] = []
        self._order = itertools.count()  # equal deadlines fire in scheduling order

    def now(self) -> float:
        return self._now

    def call_later(self, delay_s: float, callback: Callable[[], None]) -> _Timer:
        timer = _Timer(callback)
        heapq.heappush(self._due, (self._now + delay_s, next(self._order), timer))
        return timer

    def advance(self, seconds: float) -> None:
        """Move time forward, firing every timer that falls due (including ones armed while firing)."""
        end = self._now + seconds
        while self._due and self._due[0][0] <= end:
            when, _, timer = heapq.heappop(self._due)
            self._now = when
            if not timer.cancelled:
                timer.callback()
        self._now = end


async def settle(rounds: int = 20) -> None:
    """Let every ready task run (yields to the loop; no time passes)."""
    for _ in range(rounds):
        await asyncio.sleep(0)
