"""One subscription's state: its paths, intervals, pending changes, and a clock to pace it.

The Interaction Model owns the task that sends the reports; this module only keeps what changed and
decides when the next report is due (MinInterval after the last one when something changed, shortly
before MaxInterval otherwise: the keep-alive).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from bridge.matter.im.im_messages import AttributePath, DataVersionFilter, EventPath
from bridge.matter.session.context import RequestContext


class Clock(Protocol):
    def now(self) -> float:
        """Monotonic seconds."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class MonotonicClock:
    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def keepalive_after(min_interval: float, max_interval: float) -> float:
    """Seconds of silence before an empty report: a little under MaxInterval, never under MinInterval."""
    return max(min_interval, max_interval - min(5.0, max_interval * 0.1))


@dataclass
class Subscription:
    subscription_id: int
    ctx: RequestContext
    session: Any  # bridge.matter.session.exchange_api.ReportSession
    attributes: tuple[AttributePath, ...]
    events: tuple[EventPath, ...]
    fabric_filtered: bool
    min_interval: int
    max_interval: int
    data_version_filters: tuple[DataVersionFilter, ...] = ()
    event_min: int = 0
    last_report: float = 0.0
    dirty: set[tuple[int, int, int]] = field(default_factory=set)  # (endpoint, cluster id, attribute id)
    events_pending: bool = False
    task: asyncio.Task[None] | None = None
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    reports_sent: int = 0

    def matches_attribute(self, endpoint: int, cluster: int, attribute: int) -> bool:
        return any(
            _match(p.endpoint, endpoint) and _match(p.cluster, cluster) and _match(p.attribute, attribute)
            for p in self.attributes
        )

    def matches_event(self, endpoint: int, cluster: int, event: int) -> bool:
        return any(
            _match(p.endpoint, endpoint) and _match(p.cluster, cluster) and _match(p.event, event) for p in self.events
        )

    def mark(self, key: tuple[int, int, int]) -> None:
        self.dirty.add(key)
        self.wake.set()

    def mark_events(self) -> None:
        self.events_pending = True
        self.wake.set()

    @property
    def pending(self) -> bool:
        return bool(self.dirty) or self.events_pending

    def due(self) -> float:
        """When the next report is due (clock seconds)."""
        if self.pending:
            return self.last_report + self.min_interval
        return self.last_report + keepalive_after(self.min_interval, self.max_interval)

    def take(self) -> tuple[list[tuple[int, int, int]], bool]:
        dirty, events = sorted(self.dirty), self.events_pending
        self.dirty = set()
        self.events_pending = False
        self.wake.clear()
        return dirty, events


def _match(wanted: int | None, actual: int) -> bool:
    return wanted is None or wanted == actual
