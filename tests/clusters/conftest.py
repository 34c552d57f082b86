"""Fixtures for cluster-server tests: a virtual clock and a one-endpoint mount."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

from clusters import ClusterServer, Endpoint
from emulator.clock import VirtualClock


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock(datetime(2025, 8, 23, 9, 0, 0))


class RecordedEndpoint(Endpoint):
    """An endpoint with a test-only record of its changes (Endpoint itself has slots, no such attribute)."""

    changes: list[tuple[float, str, str, Any, Any]]


@pytest.fixture
def mount(clock: VirtualClock) -> Callable[..., Endpoint]:
    """mount(server, ...) → an attached endpoint 1 holding the servers; changes are recorded."""

    def _mount(*servers: ClusterServer, device_types: tuple[tuple[int, int], ...] = ()) -> Endpoint:
        endpoint = RecordedEndpoint(1, device_types, servers)
        changes: list[tuple[float, str, str, Any, Any]] = []
        endpoint.changes = changes
        endpoint.add_sink(lambda ep, cl, at, old, new: changes.append((clock.now(), cl, at, old, new)))
        endpoint.attach(clock)
        return endpoint

    return _mount
