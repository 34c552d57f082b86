"""Issue #21 (`http` slow to stop on SIGTERM after many rules): a pacer far behind the wall clock — every-second
rules at a high speed — still stops within seconds, and while behind it leaves its loop free between steps."""

from __future__ import annotations

import asyncio
import time

from emulator.emulated_home import EmulatedHome
from emulator.pacing import STOP_CATCH_UP_S, RealtimePacer
from tests.http.live_api import LIGHT, home

EVERY_SECOND = {
    "name": "every second",
    "trigger": {"kind": "time", "cron": "* * * * * ?"},
    "actions": [{"kind": "invoke", "device_id": LIGHT, "endpoint": 1, "cluster": "OnOff", "command": "Toggle"}],
}


def _busy_home(rules: int) -> EmulatedHome:
    fabric = home()
    for index in range(rules):
        fabric.add_automation({**EVERY_SECOND, "name": f"every second {index}"})
    return fabric


def test_a_pacer_far_behind_stops_promptly_and_keeps_its_loop_free() -> None:
    fabric = _busy_home(300)
    wall = [0.0]

    async def scenario() -> tuple[float, float]:
        pacer = RealtimePacer(fabric, 60.0, monotonic=lambda: wall[0])
        await pacer.start()
        wall[0] = 10 * 3600.0  # ten wall hours behind at ×60: 600 virtual hours of firings
        began = time.perf_counter()
        await asyncio.sleep(0.01)  # the pacer takes one step, then yields: this coroutine runs again
        yielded = time.perf_counter() - began
        began = time.perf_counter()
        await pacer.stop()
        return yielded, time.perf_counter() - began

    start_tick = fabric.tick
    yielded, stopping = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert yielded < 5 and stopping < STOP_CATCH_UP_S + 3
    assert start_tick < fabric.tick < start_tick + 600 * 3600 * 10  # moved on, but did not run it all
