"""Room-environment history over virtual time: a bounded ring buffer the charts read, fed by a timer on
the fabric's own clock (so fast-forwarding fills it too) that also publishes each sample to the event hub.

A fast-forward to a known tick (``fast_forwarding(target)``) skips the samples the ring would have dropped by then:
only the last ``capacity`` sample times before the target are taken, so the ring ends exactly as if every sample
had been taken, while a week's fast-forward computes one day of samples (and runs one day of sampling timers)
instead of seven."""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Iterator
from typing import Any

from emulator.clock import Timer, seconds_to_ticks
from emulator.emulated_home import EmulatedHome

DEFAULT_INTERVAL_S = 30.0
DEFAULT_CAPACITY = 2880  # one virtual day at 30 s


class EnvironmentHistory:
    def __init__(
        self,
        fabric: EmulatedHome,
        publish: Any = None,
        *,
        interval_s: float = DEFAULT_INTERVAL_S,
        capacity: int = DEFAULT_CAPACITY,
    ) -> None:
        if interval_s <= 0 or capacity < 1:
            raise ValueError("interval_s must be > 0 and capacity >= 1")
        self.fabric = fabric
        self.publish = publish
        self.interval_s = interval_s
        self.samples: deque[dict[str, Any]] = deque(maxlen=capacity)
        self._timer: Timer | None = None

    def start(self) -> None:
        self.sample()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def sample(self) -> dict[str, Any]:
        """Record every room's state now (and schedule the next sample one interval later)."""
        fabric = self.fabric
        entry = {
            "tick": fabric.tick,
            "time": fabric.now_text(),
            "rooms": {r.room_id: fabric.room_state(r.room_id) for r in fabric.rooms()},
        }
        if not self.samples or self.samples[-1]["tick"] != entry["tick"]:
            self.samples.append(entry)
        if self.publish is not None:
            self.publish({"type": "room_state", **entry})
        if self._timer is not None:
            self._timer.cancel()
        # The fabric's clock runs timers inside its lock, in virtual time: samples stay evenly spaced.
        self._timer = fabric.clock.call_later(self.interval_s, self.sample, "http history sample")
        return entry

    @contextlib.contextmanager
    def fast_forwarding(self, target_tick: int) -> Iterator[None]:
        """While the clock runs to ``target_tick``, skip the sample times whose samples the ring would drop before
        then. The sampling timer jumps straight to one interval before the first kept sample time, where it arms
        that sample as ``sample`` would have (same tick, same interval), so kept samples and the ring's end state
        are the ones every sample would have given. Left early (a fast-forward that stopped short), sampling
        resumes at its next regular time from now."""
        timer = self._timer
        step = seconds_to_ticks(self.interval_s)
        if timer is None or timer.cancelled or step <= 0:
            yield
            return
        keep_from = target_tick - self.samples.maxlen * step  # type: ignore[operator]  # maxlen is set
        first = timer.due
        arm_at = max(0, -(-(keep_from - first) // step) - 1)  # the sample time, counted from the next, that arms
        if arm_at == 0:
            yield
            return
        timer.cancel()
        self._timer = self.fabric.clock.call_at_tick(first + arm_at * step, self._arm_next, "http history resume")
        try:
            yield
        finally:
            if self._timer is not None and not self._timer.cancelled and self._timer.callback == self._arm_next:
                tick = self.fabric.tick  # stopped short: the next regular sample time from now
                due = first + max(0, -(-(tick - first) // step)) * step
                self._timer.cancel()
                self._timer = self.fabric.clock.call_at_tick(due, self.sample, "http history sample")

    def _arm_next(self) -> None:
        """One interval before the first kept sample time: arm that sample, as the skipped sample here would."""
        self._timer = self.fabric.clock.call_later(self.interval_s, self.sample, "http history sample")

    def query(self, room_id: str | None = None, since_tick: int | None = None) -> list[dict[str, Any]]:
        out = []
        for entry in self.samples:
            if since_tick is not None and entry["tick"] <= since_tick:
                continue
            rooms = entry["rooms"] if room_id is None else {room_id: entry["rooms"].get(room_id)}
            out.append({"tick": entry["tick"], "time": entry["time"], "rooms": rooms})
        return out
