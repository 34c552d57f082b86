"""The node's event log: numbered, timestamped events a controller reads and subscribes to.

Event numbers increase across restarts (Matter core spec §7.14.2.1): the log reserves numbers in
blocks and persists the end of the current block before using it, so a restart (even after kill -9)
continues above every number ever handed out. Only the newest ``capacity`` events are kept.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import IntEnum

from bridge.matter.codec.kv_store import KeyValueStore
from bridge.matter.im.im_messages import EventPath

RESERVE_BLOCK = 1000
STORE_KEY = "event_number_reserved"


class Priority(IntEnum):
    DEBUG = 0
    INFO = 1
    CRITICAL = 2


@dataclass(frozen=True)
class EventRecord:
    number: int
    endpoint: int
    cluster_id: int
    event_id: int
    priority: int
    epoch_ms: int
    payload: bytes  # the event's fields as one anonymous TLV structure
    fabric_index: int | None = None  # a fabric-scoped event: only that fabric may read it (§7.14.2.4)

    def matches(self, path: EventPath) -> bool:
        return (
            (path.endpoint is None or path.endpoint == self.endpoint)
            and (path.cluster is None or path.cluster == self.cluster_id)
            and (path.event is None or path.event == self.event_id)
        )


EventListener = Callable[[EventRecord], None]


class EventLog:
    def __init__(
        self, store: KeyValueStore | None = None, *, capacity: int = 20000, wall_clock: Callable[[], float] = time.time
    ) -> None:
        self._store = store
        self._wall_clock = wall_clock
        self._records: deque[EventRecord] = deque(maxlen=capacity)
        self._listeners: list[EventListener] = []
        self._lock = threading.Lock()
        start = int(store.get(STORE_KEY, 0) or 0) if store is not None else 0
        self._next = max(start, 0) + 1  # every number below the stored reservation may have been used
        self._reserved = self._next
        self._reserve()

    def _reserve(self) -> None:
        self._reserved = self._next + RESERVE_BLOCK
        if self._store is not None:
            self._store.set(STORE_KEY, self._reserved)

    @property
    def last_number(self) -> int:
        """The number of the newest event (one below the next number)."""
        return self._next - 1

    def emit(
        self,
        endpoint: int,
        cluster_id: int,
        event_id: int,
        priority: int,
        payload: bytes,
        *,
        fabric_index: int | None = None,
    ) -> EventRecord:
        with self._lock:
            if self._next >= self._reserved:
                self._reserve()
            record = EventRecord(
                self._next,
                endpoint,
                cluster_id,
                event_id,
                int(priority),
                int(self._wall_clock() * 1000),
                payload,
                fabric_index,
            )
            self._next += 1
            self._records.append(record)
            listeners = list(self._listeners)
        for listener in listeners:
            listener(record)
        return record

    def query(self, paths: Iterable[EventPath], event_min: int = 0) -> list[EventRecord]:
        """Events matching any of ``paths`` with number >= ``event_min``, oldest first."""
        paths = list(paths)
        with self._lock:
            records = list(self._records)
        return [r for r in records if r.number >= event_min and any(r.matches(p) for p in paths)]

    def add_listener(self, listener: EventListener) -> Callable[[], None]:
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove
