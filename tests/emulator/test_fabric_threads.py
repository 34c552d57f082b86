"""The fabric's lock, tested where it matters: many OS threads driving one fabric at once.

Toggle is a read-modify-write of OnOff plus a change event; ticks run device rules and bump the
tick counter. Without the fabric's lock, threads interleave inside those (the switch interval is
shortened so they do so often) and updates or events are lost — this test then fails.
"""

from __future__ import annotations

import itertools
import sys
import threading
from collections.abc import Iterator

import pytest

from emulator.clock import TICKS_PER_SECOND
from emulator.events import AttributeEvent
from tests.emulator.helpers import fabric

THREADS = 8
TOGGLES = 400
TICKS = 400


@pytest.fixture
def tiny_switch_interval() -> Iterator[None]:
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as CPython allows: races show up at once
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


def test_threads_toggling_and_ticking_one_fabric_lose_nothing(tiny_switch_interval: None) -> None:
    home = fabric([("lamp", "on_off_light", "hall")])
    initial = home.read("lamp", 1, "OnOff", "OnOff")
    changes: list[AttributeEvent] = []
    home.subscribe(lambda event: changes.append(event) if getattr(event, "attribute", None) == "OnOff" else None)
    start_tick = home.tick
    start = threading.Barrier(THREADS + 1)

    def toggler() -> None:
        start.wait()
        for _ in range(TOGGLES):
            home.invoke("lamp", 1, "OnOff", "Toggle")

    def ticker() -> None:
        start.wait()
        for _ in range(TICKS):
            home.advance(1)

    threads = [threading.Thread(target=toggler) for _ in range(THREADS)] + [threading.Thread(target=ticker)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert home.tick == start_tick + TICKS * TICKS_PER_SECOND
    assert len(changes) == THREADS * TOGGLES  # every toggle changed the value exactly once
    assert home.read("lamp", 1, "OnOff", "OnOff") is initial  # an even number of toggles
    for before, after in itertools.pairwise(changes):  # one chain: each change starts where the last ended
        assert after.old == before.new != after.new
