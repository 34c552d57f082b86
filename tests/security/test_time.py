"""Issue #15 case 8: a long fast-forward must not freeze the API, and a subscriber must not make virtual time
cost O(time). Counts of timer events and the order of answers are asserted, never wall-clock times (the
figures are in perf/soak.py)."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import httpx
import pytest
import websockets

from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.home_generation.generator import generate_home
from tests.http.live_api import running_api

WEEK_S = 7 * 86400


def _still_home(tier: str, seed: int) -> Any:
    """A generated home without days and nights (#14): its rooms come to rest, so sampling must stop."""
    config = generate_home(tier, seed)
    config.extensions["physics"] = {**config.extensions.get("physics", {}), "daylight": "constant", "outdoor": "none"}
    return config


def test_a_week_with_a_subscriber_runs_timer_events_in_proportion_to_what_happens() -> None:
    fabric = EmulatedHome(_still_home("complex", 7))
    events: list[Any] = []
    fabric.subscribe(events.append)
    ran = fabric.advance(WEEK_S)
    # sampling every 10 s for a week was 60,480 timer events; since #14 the generated fans, purifiers and ACs really
    # run, so rooms move until they rest: a few thousand events, sampled only while they move
    assert ran < 6_000, ran
    for device in fabric.devices():  # and what was reported last is what a read says now
        last: dict[tuple[int, str, str], Any] = {}
        for event in events:
            if event.device_id == device.device_id:
                last[(event.endpoint, event.cluster, event.attribute)] = event.new
        for (endpoint, cluster, attribute), value in last.items():
            assert fabric.read(device.device_id, endpoint, cluster, attribute) == value


def test_a_moving_room_is_sampled_at_the_subscribers_cadence_and_stops_when_it_rests() -> None:
    fabric = EmulatedHome(_still_home("complex", 7))  # no 15-minute sky/outdoor knots between the samples
    ac = next(d for d in fabric.devices() if d.device_type == "air_conditioner")
    fabric.invoke(ac.device_id, 1, "OnOff", "On")
    fabric.write(ac.device_id, 1, "Thermostat", "SystemMode", 3)
    fabric.write(ac.device_id, 1, "Thermostat", "OccupiedCoolingSetpoint", 1800)
    fabric.write(ac.device_id, 1, "FanControl", "PercentSetting", 100)
    events: list[Any] = []
    fabric.subscribe(events.append, sample_interval_s=60)
    fabric.advance(1800)
    readings = [e for e in events if e.device_id == ac.device_id and e.attribute == "LocalTemperature"]
    # woken once per reportable change (0.1 °C), not once a minute, and never sooner than the cadence
    assert len(readings) >= 5
    assert all(later.tick - earlier.tick >= 600 for earlier, later in itertools.pairwise(readings))
    assert all(abs(event.new - event.old) >= 10 for event in readings), [(e.old, e.new) for e in readings]
    ran = fabric.advance(WEEK_S)
    assert ran < 5000  # at rest: no more sampling (a minute's cadence for a week would be 10,080 events)
    assert (
        fabric.read(ac.device_id, 1, "Thermostat", "LocalTemperature")
        == [e.new for e in events if e.device_id == ac.device_id and e.attribute == "LocalTemperature"][-1]
    )


def test_boundary_only_subscribers_and_the_cadence_bound() -> None:
    fabric = EmulatedHome(_still_home("medium", 3))
    events: list[Any] = []
    fabric.subscribe(events.append, sample_interval_s=None)
    assert fabric.advance(WEEK_S) == WEEK_S // 900  # at rest but for the house's solar panels: one knot a 15 min
    days_and_nights = EmulatedHome(generate_home("medium", 3))  # #14: one sky/outdoor knot every 15 minutes, no more
    days_and_nights.subscribe(events.append, sample_interval_s=None)
    assert days_and_nights.advance(WEEK_S) == 2 * (WEEK_S // 900)  # and the panels' knot beside the sky's
    with pytest.raises(HomeError) as refused:
        fabric.subscribe(events.append, sample_interval_s=0.01)
    assert "1.0" in refused.value.message


def test_the_api_answers_during_a_week_long_fast_forward_and_streams_progress() -> None:
    async def scenario() -> None:
        fabric = EmulatedHome(generate_home("complex", 7))
        start = fabric.tick
        async with (
            running_api(fabric, history_interval_s=300) as api,
            httpx.AsyncClient(base_url=api.url, timeout=60) as client,
            websockets.connect(api.ws_url + "/ws/events?queue=10000", open_timeout=5) as ws,
        ):
            forward = asyncio.create_task(client.post("/api/clock/fast-forward", json={"seconds": WEEK_S}))
            ticks: list[int] = []
            while not forward.done():
                ticks.append((await client.get("/api/clock")).json()["tick"])
                if len(ticks) == 1:
                    second = await client.post("/api/clock/fast-forward", json={"seconds": 1})
                    assert second.status_code in (200, 409)
            response = await forward
            assert response.status_code == 200, response.text
            end = response.json()["clock"]["tick"]
            assert end == start + WEEK_S * 10
            assert any(start < tick < end for tick in ticks), ticks[:5]  # answered mid-way, between slices
            progress = []
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if message["type"] == "fast_forward":
                    progress.append(message)
                    if message["done"]:
                        break
            assert progress[-1]["virtual_s"] == WEEK_S and len(progress) >= 2

    asyncio.run(scenario())


_REPORTABLE = {
    "LocalTemperature": 11,
    "TemperatureMeasurement": 11,
    "RelativeHumidityMeasurement": 101,
    "IlluminanceMeasurement": 201,
    "Pm10ConcentrationMeasurement": 1.01,
    "Pm25ConcentrationMeasurement": 0.61,
    "AirQuality": 0,
}  # reportable change + the reading's rounding


def _days_and_nights_week(cadence_s: float) -> tuple[EmulatedHome, list[Any], list[int]]:
    fabric = EmulatedHome(generate_home("complex", 7))  # daylight follows the sun, rooms exchange heat outdoors
    events: list[Any] = []
    fabric.subscribe(events.append, sample_interval_s=cadence_s)
    ran = [fabric.advance(86400 - 361) for _ in range(7)]  # ends mid-knot: no sky knot just reported
    return fabric, events, ran


def test_days_and_nights_wake_a_subscriber_per_reportable_change_and_it_never_lags_further() -> None:
    fabric, events, ran = _days_and_nights_week(10)
    knots = WEEK_S // 900
    # was one sample of every moving room each 10 s (60,480 wake-ups a week); now a crossing's tick is computed
    assert sum(ran) - knots < 3 * knots, sum(ran)  # less the house's solar panels, one knot each 15 minutes
    last: dict[tuple[str, int, str, str], Any] = {}
    for event in events:
        last[(event.device_id, event.endpoint, event.cluster, event.attribute)] = event.new
    checked = 0
    for (device_id, endpoint, cluster, attribute), reported in last.items():
        limit = _REPORTABLE.get(attribute if attribute in ("LocalTemperature", "AirQuality") else cluster)
        if limit is None or attribute not in ("LocalTemperature", "MeasuredValue", "AirQuality"):
            continue
        now = fabric.read(device_id, endpoint, cluster, attribute)
        assert abs(now - reported) <= limit, (device_id, cluster, attribute, reported, now)
        checked += 1
    assert checked >= 20
    _, events_again, ran_again = _days_and_nights_week(10)  # determinism: the same reports at the same ticks
    assert ran_again == ran
    assert [(e.device_id, e.attribute, e.new, e.tick) for e in events_again] == [
        (e.device_id, e.attribute, e.new, e.tick) for e in events
    ]


def test_rooms_are_sampled_from_the_first_subscriber_on_however_long_the_home_ran_before() -> None:
    fabric = EmulatedHome(_still_home("complex", 7))
    ac = next(d for d in fabric.devices() if d.device_type == "air_conditioner")
    fabric.invoke(ac.device_id, 1, "OnOff", "On")
    fabric.write(ac.device_id, 1, "Thermostat", "SystemMode", 3)
    fabric.write(ac.device_id, 1, "Thermostat", "OccupiedCoolingSetpoint", 1800)
    fabric.write(ac.device_id, 1, "FanControl", "PercentSetting", 100)
    fabric.advance(120)
    assert fabric._reports._moving_rooms is None  # never sampled: every room counts as moving, no set held yet
    events: list[Any] = []
    fabric.subscribe(events.append, sample_interval_s=60)
    fabric.advance(1800)
    readings = [e for e in events if e.device_id == ac.device_id and e.attribute == "LocalTemperature"]
    assert len(readings) >= 5  # the moving room is sampled as soon as a subscriber asks for a cadence
    moving = fabric._reports._moving_rooms
    assert moving is not None and moving <= set(r.room_id for r in fabric.rooms())
