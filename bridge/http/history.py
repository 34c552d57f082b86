"""Room-environment history over virtual time: a bounded ring buffer the charts read, fed by a timer on
the fabric's own clock (so fast-forwarding fills it too) that also publishes each sample to the event hub.

A fast-forward to a known tick (``fast_forwarding(target)``) skips the samples the ring would have dropped by then:
only the last ``capacity`` sample times before the target are taken, so the ring ends exactly as if every sample
had been taken, while a week's fast-forward takes one day of samples (and runs one day of sampling timers)
instead of seven.

A sample keeps the rooms' trajectories (``EmulatedHome.room_frame``), and its room states are computed when first
read — by ``query`` (``GET /api/history``) or when the event hub sends the sample — then kept: the values are the
ones ``room_state`` answered at the sample's tick; a day of samples taken in a fast-forward and never read costs
a picture of each, and a coalesced-away ``room_state`` message is never computed."""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from bridge.http.events_ws import ROOM_STATE_KEY, Message
from emulator.clock import Timer, seconds_to_ticks
from emulator.emulated_home import EmulatedHome
from emulator.room_frame import RoomsFrame

DEFAULT_INTERVAL_S = 30.0
DEFAULT_CAPACITY = 2880  # one virtual day at 30 s


class Sample:
    """One history sample: its tick, its time text and the rooms' frame (states computed on first read)."""

    __slots__ = ("frame", "tick", "time")

    def __init__(self, tick: int, time: str, frame: RoomsFrame) -> None:
        self.tick, self.time, self.frame = tick, time, frame

    def entry(self) -> dict[str, Any]:
        return {"tick": self.tick, "time": self.time, "rooms": self.frame.states()}

    def message(self) -> dict[str, Any]:
        """The event hub's ``room_state`` message for this sample."""
        return {"type": "room_state", **self.entry()}


class EnvironmentHistory:
    """``publish`` (``EventHub.publish``) is given each sample's ``room_state`` message as a callable that builds it,
    and the state it stands for."""

    def __init__(
        self,
        fabric: EmulatedHome,
        publish: Callable[[Message, Hashable], None] | None = None,
        *,
        interval_s: float = DEFAULT_INTERVAL_S,
        capacity: int = DEFAULT_CAPACITY,
    ) -> None:
        if interval_s <= 0 or capacity < 1:
            raise ValueError("interval_s must be > 0 and capacity >= 1")
        self.fabric = fabric
        self.publish = publish
        self.interval_s = interval_s
        self.capacity = capacity
        self._ring: deque[Sample] = deque(maxlen=capacity)
        self._timer: Timer | None = None

    def start(self) -> None:
        self.sample()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    @property
    def samples(self) -> list[dict[str, Any]]:
        """The ring's samples, oldest first, as ``{tick, time, rooms}``."""
        return [sample.entry() for sample in self._ring]

    def sample(self) -> Sample:
        """Record every room's state now (and schedule the next sample one interval later)."""
        fabric = self.fabric
        sample = Sample(fabric.tick, fabric.now_text(), fabric.room_frame())
        if not self._ring or self._ring[-1].tick != sample.tick:
            self._ring.append(sample)
        if self.publish is not None:
            self.publish(sample.message, ROOM_STATE_KEY)
        if self._timer is not None:
            self._timer.cancel()
        # The fabric's clock runs timers inside its lock, in virtual time: samples stay evenly spaced.
        self._timer = fabric.clock.call_later(self.interval_s, self.sample, "http history sample")
        return sample

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
        keep_from = target_tick - self.capacity * step
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
        for sample in self._ring:
            if since_tick is not None and sample.tick <= since_tick:
                continue
            states = sample.frame.states()
            rooms = states if room_id is None else {room_id: states.get(room_id)}
            out.append({"tick": sample.tick, "time": sample.time, "rooms": rooms})
        return out
