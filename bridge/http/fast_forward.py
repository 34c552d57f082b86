"""Fast-forward in bounded slices: a week of virtual time runs as many short ``run_until`` steps, each about
``SLICE_BUDGET_S`` of wall time, with the event loop free in between, so the API keeps answering (and the
event stream shows ``fast_forward`` progress) while a long fast-forward runs.

Slices are sized adaptively: a quiet stretch of virtual time grows the next slice, a dense one (many timers)
shrinks it. Virtual time still moves through every timer in order: slicing changes only when the loop may
breathe, never what happens (the result is the same as one ``advance``).

While it runs, the faces coalesce: the event hub keeps only each attribute's newest event (and the newest
room-state sample and progress) per client, sent at most every ``COALESCE_INTERVAL_S`` of wall time, and the
history skips the samples its ring would drop before the target and keeps each sample as the rooms' trajectories,
computing its room states only when read (a coalesced-away sample never is). What a client finally sees (every
attribute's last value, the last samples, the final progress) is what it would have seen event by event.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from bridge.http.errors import ApiError
from emulator.clock import TICKS_PER_SECOND, seconds_to_ticks
from emulator.emulated_home import EmulatedHome

if TYPE_CHECKING:
    from bridge.http.events_ws import EventHub
    from bridge.http.history import EnvironmentHistory

SLICE_BUDGET_S = 0.02  # wall time one slice may take before the loop serves other requests
FIRST_SLICE_TICKS = 600 * TICKS_PER_SECOND
PROGRESS_EVERY_S = 0.25  # wall time between progress events


class FastForward:
    """At most one fast-forward at a time per API; ``run`` returns the number of timer events run."""

    def __init__(self, fabric: EmulatedHome, hub: EventHub, history: EnvironmentHistory) -> None:
        self.fabric = fabric
        self.hub = hub
        self.history = history
        self.running = False

    async def run(self, seconds: float) -> int:
        if self.running:
            raise ApiError(
                "FAST_FORWARD_RUNNING",
                "a fast-forward is already running; wait for its end (the event stream reports its progress)",
                status=409,
            )
        self.running = True
        try:
            target = self.fabric.tick + seconds_to_ticks(seconds)
            with self.hub.coalescing(), self.history.fast_forwarding(target):
                return await self._run(target)
        finally:
            self.running = False

    async def _run(self, target: int) -> int:
        fabric = self.fabric
        start = fabric.tick
        step = FIRST_SLICE_TICKS
        ran = 0
        last_progress = time.monotonic()
        while fabric.tick < target:
            began = time.perf_counter()
            ran += fabric.run_until(min(target, fabric.tick + step))
            took = time.perf_counter() - began
            if took < SLICE_BUDGET_S / 2:
                step *= 2
            elif took > SLICE_BUDGET_S:
                step = max(1, step // 2)
            if fabric.tick < target and time.monotonic() - last_progress >= PROGRESS_EVERY_S:
                last_progress = time.monotonic()
                self.hub.publish(self._progress(start, target, ran, done=False))
            await asyncio.sleep(0)  # let every waiting request in before the next slice
        self.hub.publish(self._progress(start, target, ran, done=True))
        return ran

    def _progress(self, start: int, target: int, ran: int, *, done: bool) -> dict[str, Any]:
        tick = self.fabric.tick
        return {
            "type": "fast_forward",
            "done": done,
            "virtual_s": (tick - start) / TICKS_PER_SECOND,
            "total_s": (target - start) / TICKS_PER_SECOND,
            "events_run": ran,
            "time": self.fabric.now_text(),
            "tick": tick,
        }
