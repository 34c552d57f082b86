"""Hand a call over to one asyncio loop from whatever thread the home runs on.

The home calls its subscribers on the thread that changed the home, inside its lock: the pacer's loop, a
worker thread running a tool call, a test's own thread. A wire (MQTT, the HTTP event hub, a Matter
subscription) keeps its state on its asyncio loop, so its subscriber hands the work over: run at once when
already on that loop's thread, queued with ``call_soon_threadsafe`` from any other, dropped once the loop has
closed (nobody is left to serve).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any


class LoopHandoff:
    """``bind()`` on the loop (when the wire starts); then ``call(f, *args)`` from any thread runs ``f`` there.

    Before ``bind()`` there is no loop to hand over to, so ``call`` runs ``f`` at once on the caller's thread.
    """

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: int | None = None

    def bind(self) -> None:
        """Take the running loop (and its thread) as the one calls go to."""
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()

    @property
    def bound(self) -> bool:
        return self._loop is not None

    def call(self, callback: Callable[..., Any], *args: Any) -> None:
        loop = self._loop
        if loop is None or threading.get_ident() == self._thread:
            callback(*args)
        elif not loop.is_closed():
            loop.call_soon_threadsafe(callback, *args)
