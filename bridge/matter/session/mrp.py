"""Message Reliability Protocol parameters and timing (spec §4.12).

Every message we send on UDP carries the R flag; it is retransmitted (same bytes, so the same
message counter) until acknowledged, with ``i * MARGIN * BASE^max(0, n - THRESHOLD) * (1 + r *
JITTER)`` between transmissions, and given up after ``MAX_TRANSMISSIONS``. Received R-flagged
messages are acknowledged within ``STANDALONE_ACK_TIMEOUT_S``: piggybacked on our next message on
the exchange, else in a standalone ack.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from bridge.matter.session.secure_channel import SessionParameters

__all__ = [
    "MAX_TRANSMISSIONS",
    "STANDALONE_ACK_TIMEOUT_S",
    "LoopClock",
    "MrpClock",
    "MrpTiming",
    "TimerHandle",
    "backoff_s",
]

MAX_TRANSMISSIONS = 5  # MRP_MAX_TRANSMISSIONS: the first send plus 4 retransmissions
BACKOFF_BASE = 1.6
BACKOFF_JITTER = 0.25
BACKOFF_MARGIN = 1.1
BACKOFF_THRESHOLD = 1
STANDALONE_ACK_TIMEOUT_S = 0.2
DEFAULT_IDLE_MS = 500  # SESSION_IDLE_INTERVAL default
DEFAULT_ACTIVE_MS = 300  # SESSION_ACTIVE_INTERVAL default
DEFAULT_ACTIVE_THRESHOLD_MS = 4000

# Our own advertised parameters (mDNS SII/SAI and the PASE/CASE session parameters).
LOCAL_PARAMETERS = SessionParameters(
    idle_interval_ms=DEFAULT_IDLE_MS,
    active_interval_ms=DEFAULT_ACTIVE_MS,
    active_threshold_ms=DEFAULT_ACTIVE_THRESHOLD_MS,
    data_model_revision=17,
    interaction_model_revision=11,
    specification_version=0x01030000,
    max_paths_per_invoke=1,
)


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


class MrpClock(Protocol):
    """The time source and timers MRP runs on, injected so tests can step time instead of sleeping."""

    def now(self) -> float: ...

    def call_later(self, delay_s: float, callback: Callable[[], None]) -> TimerHandle: ...


class LoopClock:
    """Production clock: the monotonic clock and the running asyncio loop's timers."""

    def now(self) -> float:
        return time.monotonic()

    def call_later(self, delay_s: float, callback: Callable[[], None]) -> TimerHandle:
        return asyncio.get_running_loop().call_later(delay_s, callback)


def backoff_s(base_interval_s: float, retransmissions: int, jitter: float) -> float:
    """Delay before the next transmission; ``retransmissions`` already done (0 after the first send)."""
    exponent = max(0, retransmissions - BACKOFF_THRESHOLD)
    return base_interval_s * BACKOFF_MARGIN * BACKOFF_BASE**exponent * (1.0 + jitter * BACKOFF_JITTER)


@dataclass
class MrpTiming:
    """The peer's intervals (from its session parameters or the defaults) and a jitter source.

    Jitter is not security relevant, so a seeded PRNG keeps behaviour reproducible.
    """

    idle_ms: int = DEFAULT_IDLE_MS
    active_ms: int = DEFAULT_ACTIVE_MS
    active_threshold_ms: int = DEFAULT_ACTIVE_THRESHOLD_MS
    jitter: Callable[[], float] = random.Random(0x4D5250).random

    @classmethod
    def from_parameters(cls, params: SessionParameters | None) -> MrpTiming:
        params = params or SessionParameters()
        return cls(
            idle_ms=params.idle_interval_ms or DEFAULT_IDLE_MS,
            active_ms=params.active_interval_ms or DEFAULT_ACTIVE_MS,
            active_threshold_ms=params.active_threshold_ms or DEFAULT_ACTIVE_THRESHOLD_MS,
        )

    def delay_s(self, retransmissions: int, since_peer_activity_s: float) -> float:
        # The peer is "active" shortly after it sent us something; then its shorter interval applies.
        active = since_peer_activity_s * 1000 < self.active_threshold_ms
        base = (self.active_ms if active else self.idle_ms) / 1000
        return backoff_s(base, retransmissions, self.jitter())
