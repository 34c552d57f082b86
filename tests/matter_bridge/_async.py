"""Run coroutine tests without a pytest plugin (the project does not depend on pytest-asyncio)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any


def run_async(fn: Callable[[], Coroutine[Any, Any, None]]) -> Callable[[], None]:
    @functools.wraps(fn)
    def wrapper() -> None:
        asyncio.run(asyncio.wait_for(fn(), 30))

    del wrapper.__wrapped__  # pytest must not see the coroutine
    return wrapper
