"""What a cluster server may ask of the world it runs in: the time and a timer.

The emulator's virtual clock implements this protocol; clusters never import it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


class Runtime(Protocol):
    def now(self) -> float:
        """Seconds since the home's base time (0.1 s resolution)."""
        ...

    def call_later(self, delay_s: float, callback: Callable[[], None]) -> TimerHandle:
        """Run ``callback`` once after ``delay_s`` seconds of virtual time."""
        ...
