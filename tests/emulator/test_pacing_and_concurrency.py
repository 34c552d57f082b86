"""Real-time pacing follows the (injected) wall clock at a speed factor; concurrent asyncio use is safe."""

from __future__ import annotations

import asyncio

import pytest

from emulator.emulated_home import EmulatedHome
from emulator.home_generation.generator import generate_home
from emulator.pacing import RealtimePacer
from emulator.workflows import WorkflowStep
from tests.emulator.helpers import fabric


class FakeWall:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_pacer_maps_wall_time_to_virtual_time_at_its_speed() -> None:
    home = fabric([("light", "on_off_light", "hall")])
    wall = FakeWall()

    async def scenario() -> None:
        pacer = RealtimePacer(home, speed=60, monotonic=wall)
        await pacer.start()
        wall.now += 2.0
        pacer.catch_up()
        assert home.tick == 1200  # 2 wall seconds × 60 = 120 virtual seconds
        pacer.speed = 1
        wall.now += 3.0
        pacer.catch_up()
        assert home.tick == 1230
        await pacer.stop()
        wall.now += 100
        assert home.tick == 1230  # stopped: virtual time is paused again

    asyncio.run(scenario())


def test_pacer_runs_workflows_on_time_with_the_real_clock() -> None:
    home = fabric([("light", "on_off_light", "hall")])
    home.schedule(home.tick + 30, [WorkflowStep("invoke", "light", 1, "OnOff", "On")])  # 3 virtual s

    async def scenario() -> float:
        async with RealtimePacer(home, speed=20, max_step_s=0.02):
            loop = asyncio.get_running_loop()
            started = loop.time()
            while not home.read("light", 1, "OnOff", "OnOff"):
                await asyncio.sleep(0.005)
                assert loop.time() - started < 5, "the workflow never ran"
            return loop.time() - started

    elapsed = asyncio.run(scenario())
    assert 0.1 <= elapsed < 2.0  # 3 virtual s at 20× ≈ 0.15 wall s


def test_bad_speed_is_refused() -> None:
    with pytest.raises(ValueError):
        RealtimePacer(fabric([("light", "on_off_light", "hall")]), speed=0)


def test_concurrent_asyncio_tasks_share_one_fabric_safely() -> None:
    home = EmulatedHome(generate_home("medium", 4))
    lights = [d.device_id for d in home.devices() if d.device_type in ("on_off_light", "dimmable_light")]
    initial = {d: home.read(d, 1, "OnOff", "OnOff") for d in lights}
    events: list[object] = []
    home.subscribe(events.append)

    async def toggler(device_id: str, times: int) -> None:
        for _ in range(times):
            home.invoke(device_id, 1, "OnOff", "Toggle")
            await asyncio.sleep(0)

    async def ticker() -> None:
        for _ in range(50):
            home.advance(1)
            await asyncio.sleep(0)

    async def scenario() -> None:
        await asyncio.gather(ticker(), *(toggler(d, 10) for d in lights))

    asyncio.run(scenario())
    assert home.tick == 500
    for device_id in lights:  # toggled an even number of times: back to where it started
        assert home.read(device_id, 1, "OnOff", "OnOff") is initial[device_id]
    assert sum(1 for e in events if getattr(e, "attribute", None) == "OnOff") == 10 * len(lights)
