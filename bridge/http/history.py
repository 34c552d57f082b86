"""Room-environment history over virtual time: a bounded ring buffer the charts read, fed by a timer on
the fabric's own clock (so fast-forwarding fills it too) that also publishes each sample to the event hub."""

from __future__ import annotations

from collections import deque
from typing import Any

from emulator.clock import Timer
from emulator.emulated_home import EmulatedHome

DEFAULT_INTERVAL_S = 30.0
DEFAULT_CAPACITY = 2880  # one virtual day at 30 s


class EnvironmentHistory:
    def __init__(self, fabric: EmulatedHome, publish: Any = None, *, interval_s: float = DEFAULT_INTERVAL_S,
                 capacity: int = DEFAULT_CAPACITY) -> None:
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
        entry = {"tick": fabric.tick, "time": fabric.now_text(),
                 "rooms": {r.room_id: fabric.room_state(r.room_id) for r in fabric.rooms()}}
        if not self.samples or self.samples[-1]["tick"] != entry["tick"]:
            self.samples.append(entry)
        if self.publish is not None:
            self.publish({"type": "room_state", **entry})
        if self._timer is not None:
            self._timer.cancel()
        # The fabric's clock runs timers inside its lock, in virtual time: samples stay evenly spaced.
        # The clock drops what a callback returns (its Callable[[], None] could say Callable[[], object]).
        self._timer = fabric.clock.call_later(self.interval_s, self.sample, "http history sample")  # type: ignore[arg-type]
        return entry

    def query(self, room_id: str | None = None, since_tick: int | None = None) -> list[dict[str, Any]]:
        out = []
        for entry in self.samples:
            if since_tick is not None and entry["tick"] <= since_tick:
                continue
            rooms = entry["rooms"] if room_id is None else {room_id: entry["rooms"].get(room_id)}
            out.append({"tick": entry["tick"], "time": entry["time"], "rooms": rooms})
        return out
