"""Where a state condition flips: its value read now or "as of" a future tick, and the first tick the comparison
changes, found by bisection on the closed-form physics trajectory (monotone until the segment's boundary)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from emulator.automations.host import RuleHost
from emulator.automations.model import StateCondition, compare
from emulator.clock import TICKS_PER_SECOND
from emulator.errors import HomeError

PLAN_HORIZON_TICKS = 30 * 86400 * TICKS_PER_SECOND  # a converging segment is re-planned after 30 days
# Monotone comparisons whose flips bound those of each operator (== and != flip where >= or <= do).
_MONOTONE_PARTS = {">": (">",), ">=": (">=",), "<": ("<",), "<=": ("<=",), "==": (">=", "<="), "!=": (">=", "<=")}


@dataclass
class Watch:
    """What a state condition reads, found once: a discrete attribute or a trajectory in a room."""

    room_id: str | None  # the room whose physics drive the value (None: discrete)
    device_id: str | None
    variable: str | None  # the room variable it follows ("illuminance": any resegment of the room)


class CrossingPlanner:
    """Reads state conditions on a home and finds when they will flip (no state of its own)."""

    __slots__ = ("clock", "host")

    def __init__(self, host: RuleHost) -> None:
        self.host = host
        self.clock = host.clock

    def watch_of(self, condition: StateCondition) -> Watch:
        if condition.room_id is not None:
            return Watch(condition.room_id, None, condition.variable)
        source = self.host.physics_source(condition.device_id or "", condition.path or "")
        if source is None:
            return Watch(None, condition.device_id, None)
        room_id, variable = source
        return Watch(room_id, condition.device_id, variable)

    def read(self, condition: StateCondition) -> Any:
        """The compared value now (exact room values; None when the device or room has gone)."""
        try:
            if condition.room_id is not None:
                return self.host.physics.value(condition.room_id, condition.variable or "")
            endpoint, cluster, attribute = condition.path.split(".")  # type: ignore[union-attr]  # a device condition has its path
            return self.host.read(condition.device_id or "", int(endpoint), cluster, attribute)
        except (HomeError, KeyError):
            return None

    def holds(self, condition: StateCondition) -> bool:
        return condition.holds(self.read(condition))

    @contextlib.contextmanager
    def _as_of(self, tick: int) -> Iterator[None]:
        """Read the home as it will be at ``tick`` (valid while no event lies in between)."""
        saved = self.clock.tick
        self.clock.tick = tick
        try:
            yield
        finally:
            self.clock.tick = saved

    def _value_at(self, condition: StateCondition, tick: int) -> Any:
        with self._as_of(tick):
            return self.read(condition)

    def _segment_end(self, watch: Watch) -> int | None:
        """The variable's next physics boundary: its value is closed-form and monotone until then."""
        room = self.host.physics.rooms.get(watch.room_id or "")
        timer = room.timers.get(watch.variable or "") if room is not None else None
        return timer.due if timer is not None and not timer.cancelled else None

    def next_flip(
        self, condition: StateCondition, watch: Watch, current: bool, hint: int | None = None
    ) -> tuple[int, bool] | None:
        """(tick, is-a-real-flip) of the first tick the comparison changes, or a re-plan tick at the horizon.

        ``hint``: the flip planned before the segment restarted; when a device change did not alter this
        variable's trajectory the flip is still there, and two reads confirm it instead of a bisection."""
        now = self.clock.tick
        if watch.variable == "illuminance":
            return None  # algebraic: it moves only when the room resegments, which re-plans
        end = self._segment_end(watch)
        horizon = min(end, now + PLAN_HORIZON_TICKS) if end is not None else now + PLAN_HORIZON_TICKS
        if horizon <= now:
            return None
        candidates = []
        for op in _MONOTONE_PARTS[condition.op]:

            def part(tick: int, op: str = op) -> bool:
                return compare(self._value_at(condition, tick), op, condition.value)

            start = part(now)
            if hint is not None and now < hint <= horizon and part(hint) != start and part(hint - 1) == start:
                candidates.append(hint)
                continue
            if part(horizon) == start:
                continue
            low, high = now, horizon  # part(low) == start != part(high): bisect to the first change
            while high - low > 1:
                middle = (low + high) // 2
                if part(middle) == start:
                    low = middle
                else:
                    high = middle
            candidates.append(high)
        for tick in sorted(candidates):
            if condition.holds(self._value_at(condition, tick)) != current:
                return tick, True
        if end is None or end > now + PLAN_HORIZON_TICKS:
            return horizon, False
        return None  # the segment boundary re-plans

    def dynamics(self, watch: Watch) -> tuple[float, ...] | None:
        """The followed segment's map (a re-plan is needed only when it changed)."""
        room = self.host.physics.rooms.get(watch.room_id or "")
        if room is None:
            return None
        try:
            segment = room.segment(watch.variable or "")  # the room's own slot: no snapshot of all its segments
        except KeyError:  # not a variable with segments (illuminance), or none begun
            return None
        if segment.stepwise:
            return None
        return (segment.alpha, segment.beta, segment.low, segment.high, segment.process.lower, segment.process.upper)
