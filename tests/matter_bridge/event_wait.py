"""Waiting on a controller's event list (python-matter-server's and matter.js's test clients share it)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


async def wait_event(
    events: list[dict[str, Any]],
    added: asyncio.Condition,
    predicate: Callable[[dict[str, Any]], bool],
    timeout_s: float,
    since: int = 0,
) -> dict[str, Any]:
    """The first event at index ≥ ``since`` matching ``predicate``; ``added`` is notified on every new event."""

    async def find() -> dict[str, Any]:
        async with added:
            index = since
            while True:
                for event in events[index:]:
                    if predicate(event):
                        return event
                index = len(events)
                await added.wait()

    return await asyncio.wait_for(find(), timeout_s)
