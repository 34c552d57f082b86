"""Log lines for refused datagrams and handshakes, rate-limited per reason, with counters.

A flood of bad datagrams must not turn into a flood of log lines (a disk filled by a peer). Per reason, the
first ``burst`` refusals in each ``window_s`` are logged as they come; later ones are only counted, and the
first refusal after the window closes logs one summary line with how many were not logged. ``counts`` keeps
every refusal per reason for diagnostics, logged or not.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RefusalLog"]

DEFAULT_BURST = 10
DEFAULT_WINDOW_S = 60.0


@dataclass
class _Window:
    started: float
    logged: int = 0
    suppressed: int = 0


@dataclass
class RefusalLog:
    burst: int = DEFAULT_BURST
    window_s: float = DEFAULT_WINDOW_S
    clock: Callable[[], float] = time.monotonic
    counts: Counter[str] = field(default_factory=Counter)
    _windows: dict[str, _Window] = field(default_factory=dict)

    def refused(
        self, logger: logging.Logger, level: int, reason: str, message: str, *args: Any, exc_info: bool = False
    ) -> None:
        """Count one refusal of ``reason``; log ``message % args`` unless this reason is over its burst."""
        self.counts[reason] += 1
        if not logger.isEnabledFor(level):
            return
        now = self.clock()
        window = self._windows.get(reason)
        if window is None or now - window.started >= self.window_s:
            if window is not None and window.suppressed:
                logger.log(
                    level,
                    "%d more refusals (%s) were not logged in the last %.0f s; %d in all",
                    window.suppressed,
                    reason,
                    now - window.started,
                    self.counts[reason] - 1,
                )
            window = self._windows[reason] = _Window(now)
        if window.logged < self.burst:
            window.logged += 1
            logger.log(level, message, *args, exc_info=exc_info)
            if window.logged == self.burst:
                logger.log(
                    level,
                    "further refusals (%s) in the next %.0f s are counted, not logged",
                    reason,
                    self.window_s - (now - window.started),
                )
        else:
            window.suppressed += 1
