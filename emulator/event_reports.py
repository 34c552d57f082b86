"""The home's events: every attribute change on the bus, and sensor readings reported as rooms move."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Collection
from typing import Any

from emulator.clock import Timer, VirtualClock, seconds_to_ticks
from emulator.errors import HomeError
from emulator.events import AttributeEvent, EventBus, Listener
from emulator.physics import PhysicsEngine

MIN_SAMPLE_INTERVAL_S = 1.0  # a subscriber's sampling cadence is bounded: at most one sample a virtual second


class LeftOut:
    """Marks an argument left out (None means something else)."""


LEFT_OUT = LeftOut()


class EventReports:
    """Owns the event bus and the sampling of sensor readings for its subscribers.

    Sensor readings are reported at every segment boundary of the room physics and, while a room is still
    moving, at the next reportable change (computed in closed form), bounded by the subscribers' cadence.

    Every home has one: slots, and the set of moving rooms is made when sampling first runs (most homes are never
    sampled)."""

    __slots__ = (
        "_lock",
        "_moving_rooms",
        "_report_due",
        "_room_generation",
        "_rooms",
        "_sample_intervals",
        "_sampler",
        "_subscriptions",
        "bus",
        "clock",
        "physics",
        "sensor_report_interval_s",
    )

    def __init__(
        self,
        clock: VirtualClock,
        physics: PhysicsEngine,
        rooms: Collection[str],
        lock: threading.RLock,
        sensor_report_interval_s: float,
    ) -> None:
        self.clock = clock
        self.physics = physics
        self.bus = EventBus()
        self.sensor_report_interval_s = sensor_report_interval_s
        self._rooms = rooms
        self._lock = lock
        self._sampler: Timer | None = None  # the one pending wake-up of sensor sampling
        self._report_due: dict[str, int | None] = {}  # moving room → its next reportable change (None: boundary)
        self._sample_intervals: dict[int, float] = {}  # subscription → the sampling cadence it asked for
        # Rooms whose readings may still change (sampled); None until first sampled: every room, as each began its
        # first segment when the home was built (rooms are not added later) and none has been sampled to rest
        self._moving_rooms: set[str] | None = None
        self._room_generation: dict[str, int] = {}  # segments begun per room (a final report checks it)
        self._subscriptions = 0

    def publish_change(self, device_id: str, endpoint: int, cluster: str, attribute: str, old: Any, new: Any) -> None:
        tick = self.clock.tick
        self.bus.publish(
            AttributeEvent(
                device_id, endpoint, cluster, attribute, old, new, tick, self.clock.time_text(tick, tenths=True)
            )
        )

    def subscribe(self, listener: Listener, sample_interval_s: float | LeftOut | None) -> Callable[[], None]:
        interval = self.sensor_report_interval_s if isinstance(sample_interval_s, LeftOut) else sample_interval_s
        if interval is not None and (
            not isinstance(interval, int | float)
            or isinstance(interval, bool)
            or not math.isfinite(interval)
            or interval < MIN_SAMPLE_INTERVAL_S
        ):
            raise HomeError(
                "INVALID_ARGUMENT",
                f"sample_interval_s must be None or a number >= {MIN_SAMPLE_INTERVAL_S}, got {interval!r}",
            )
        unsubscribe_bus = self.bus.subscribe(listener)
        self._subscriptions += 1
        key = self._subscriptions
        if interval is not None:
            self._sample_intervals[key] = float(interval)
            self._arm_sampler()

        def unsubscribe() -> None:
            with self._lock:
                unsubscribe_bus()
                self._sample_intervals.pop(key, None)

        return unsubscribe

    def _sample_interval(self) -> float | None:
        return min(self._sample_intervals.values()) if self._sample_intervals and self.bus.has_listeners else None

    def _arm_sampler(self, tick: int | None = None) -> None:
        """Wake the sampler at ``tick`` but not before one cadence from now (Matter's min interval), unless it is
        already due sooner."""
        interval = self._sample_interval()
        if interval is None:
            return
        due = max(tick or 0, self.clock.tick + seconds_to_ticks(interval))
        if self._sampler is not None and not self._sampler.cancelled:
            if self._sampler.due <= due:
                return
            self._sampler.cancel()
        self._sampler = self.clock.call_at_tick(due, self._sample_sensors, "sensor sampling")

    def segment_began(self, room_id: str) -> None:
        """A room's trajectory starts anew: its readings may move (sampling)."""
        self._room_generation[room_id] = self._room_generation.get(room_id, 0) + 1
        if self._moving_rooms is not None:
            self._moving_rooms.add(room_id)
        self._report_due.pop(room_id, None)  # its next reportable change is computed afresh
        if self._sample_intervals:
            self._arm_sampler()

    def _sample_sensors(self) -> None:
        """Report the rooms whose readings have moved by more than their reportable change, and sleep until the
        next such crossing (computed in closed form, emulator/reportable_change.py): one wake-up per reportable
        change, however long the virtual time in between."""
        self._sampler = None
        if self._sample_interval() is None:
            return
        now = self.clock.tick
        moving = self._moving_rooms
        if moving is None:
            moving = self._moving_rooms = set(self._rooms)
        for room_id in sorted(moving):
            if room_id not in self._rooms:
                moving.discard(room_id)
                self._report_due.pop(room_id, None)
                continue
            due = self._report_due[room_id] if room_id in self._report_due else self.physics.next_report_tick(room_id)
            if due is not None and due <= now:
                self.physics.publish_sensors(room_id)
                due = self.physics.next_report_tick(room_id)
                if due is not None and due <= now:  # moved again within this tick (a boundary): report next time
                    due = now + 1
            self._report_due[room_id] = due
            if due is None:  # nothing to report before the room's next boundary, which re-arms the sampler
                moving.discard(room_id)
                self._report_due.pop(room_id, None)
                self._final_report(room_id)
        upcoming = [due for due in self._report_due.values() if due is not None]
        if upcoming:
            self._arm_sampler(min(upcoming))

    def _final_report(self, room_id: str) -> None:
        """One last report once the room is all but at rest (a reading may still flip by one unit close to
        rest), unless a new segment starts first: one event per settling, not one per sample."""
        if self.physics.next_knot_tick() is not None:
            return  # a sky knot reports every room within 15 virtual minutes anyway (and begins a new segment)
        after = self.physics.at_rest_after(room_id)
        if not after:
            return
        generation = self._room_generation.get(room_id, 0)

        def report() -> None:
            if self._room_generation.get(room_id, 0) == generation and room_id in self._rooms:
                self.physics.publish_sensors(room_id)

        self.clock.call_at_tick(self.clock.tick + after, report, f"sensor settle {room_id}")
