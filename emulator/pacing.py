"""Real-time pacing: let virtual time follow the wall clock at a speed factor, for live serving.

Only this module reads the wall clock, and only when a user asks for pacing. The home itself
stays paused and deterministic; the pacer just calls ``advance`` on an asyncio schedule.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

from emulator.clock import TICKS_PER_SECOND
from emulator.emulated_home import EmulatedHome

STOP_CATCH_UP_S = 2.0  # wall seconds a stopping pacer may spend catching virtual time up


class RealtimePacer:
    """Advance ``home`` by ``speed`` virtual seconds per wall second while running.

    It wakes at the next due timer (so workflows and cycle ends happen on time) or after
    ``max_step_s`` of wall time, whichever is first; speed can change while running.
    """

    def __init__(
        self,
        home: EmulatedHome,
        speed: float = 1.0,
        *,
        max_step_s: float = 0.5,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be > 0, got {speed!r}")
        self.home = home
        self._speed = float(speed)
        self.max_step_s = max_step_s
        self._monotonic = monotonic
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._anchor_wall = 0.0
        self._anchor_tick = 0

    @property
    def speed(self) -> float:
        return self._speed

    @speed.setter
    def speed(self, value: float) -> None:
        if value <= 0:
            raise ValueError(f"speed must be > 0, got {value!r}")
        self.catch_up()
        self._speed = float(value)
        self._wake.set()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def target_tick(self) -> int:
        elapsed = self._monotonic() - self._anchor_wall
        return self._anchor_tick + int(elapsed * self._speed * TICKS_PER_SECOND)

    def catch_up(self) -> int:
        """Bring virtual time up to the wall clock now (also re-anchors the speed)."""
        if not self.running:
            return 0
        target = max(self.target_tick(), self.home.tick)
        ran = self.home.run_until(target)
        self._anchor_wall, self._anchor_tick = self._monotonic(), target
        return ran

    async def start(self) -> None:
        if self.running:
            return
        self._anchor_wall, self._anchor_tick = self._monotonic(), self.home.tick
        self._task = asyncio.create_task(self._loop(), name="homefabric-pacer")

    async def stop(self) -> None:
        """Stop pacing, catching virtual time up to the wall clock for at most STOP_CATCH_UP_S of wall time: a
        pacer far behind (a flood of rules at a high speed) must not hold a SIGTERM'd server for minutes."""
        if self._task is None:
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None
        target = max(self.target_tick(), self.home.tick)
        deadline = time.perf_counter() + STOP_CATCH_UP_S
        while self.home.tick < target and time.perf_counter() < deadline:
            self.home.run_until(min(target, self.home.tick + TICKS_PER_SECOND))

    async def __aenter__(self) -> RealtimePacer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _loop(self) -> None:
        while True:
            target = self.target_tick()
            if target > self.home.tick:  # one step's worth at a time: the loop stays free for signals, requests
                step = max(TICKS_PER_SECOND, int(self._speed * self.max_step_s * TICKS_PER_SECOND))
                self.home.run_until(min(target, self.home.tick + step))
            next_due = self.home.clock.next_due()
            wait = self.max_step_s
            if next_due is not None:
                wall_until_due = (next_due - self.home.tick) / TICKS_PER_SECOND / self._speed
                wait = max(0.0, min(wait, wall_until_due))
            if self.home.tick < target:
                wait = 0.0  # still behind: only yield to the loop, then the next step
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=wait if wait > 0 else 0.001)
