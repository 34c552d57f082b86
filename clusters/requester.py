"""Who a command comes from, for fabric-scoped cluster state (Groups, Scenes).

A wire bridge sets the requester around each request (``acting_as``); everything else — agents, tools,
the HTTP API — acts as the home itself: no fabric (index 0) and no group-key check. Clusters read it
with :func:`current_requester`; they never import the bridge.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

LOCAL_FABRIC = 0  # the home's own callers: not a Matter fabric


@dataclass(frozen=True)
class Requester:
    fabric_index: int = LOCAL_FABRIC
    # Whether the accessing fabric holds a key for a group (GroupKeyMap); None: no keys to check.
    has_group_key: Callable[[int], bool] | None = None

    def may_use_group(self, group_id: int) -> bool:
        return self.has_group_key is None or self.has_group_key(group_id)


_HOME = Requester()
_current: ContextVar[Requester | None] = ContextVar("requester", default=None)


def current_requester() -> Requester:
    return _current.get() or _HOME


@contextlib.contextmanager
def acting_as(requester: Requester) -> Iterator[None]:
    token = _current.set(requester)
    try:
        yield
    finally:
        _current.reset(token)
