"""Issue #14, item 4: our own homes have days and nights — daylight follows the sun (date, the home's latitude,
window coverings) as a piecewise-linear curve (closed form, one event per 15-minute knot); imported SimuHome
homes keep SimuHome's constant daylight."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from emulator.daylight import KNOT_S, SunCurve, sun_sine
from emulator.emulated_home import EmulatedHome
from emulator.home_generation.generator import generate_home
from tests.emulator.helpers import home

SUN = {"physics": {"daylight": "sun", "latitude_deg": 48.0}}


def lux_at(fabric: EmulatedHome, room: str, when: str) -> float:
    target = fabric.clock.tick_of(datetime.fromisoformat(when))
    fabric.advance((target - fabric.tick) / 10)
    return fabric.room_state(room, exact=True)["illuminance"]


def test_a_generated_home_is_dark_at_night_and_bright_at_noon() -> None:
    config = generate_home("complex", 7)
    assert config.extensions["physics"]["daylight"] == "sun"
    fabric = EmulatedHome(config)
    for device in fabric.devices():  # lights off: daylight only
        if fabric.read(device.device_id, 1, "OnOff", "OnOff") if device.find(1, "OnOff") else False:
            fabric.invoke(device.device_id, 1, "OnOff", "Off")
    room = next(r.room_id for r in fabric.rooms())
    night = lux_at(fabric, room, "2025-08-24 03:11:00")
    noon = lux_at(fabric, room, "2025-08-24 12:00:00")
    evening = lux_at(fabric, room, "2025-08-24 18:30:00")
    assert night == 0.0  # the issue: 1,446 lx at 03:11
    assert noon > 300 and 0 < evening < noon


def test_window_coverings_dim_the_daylight() -> None:
    fabric = EmulatedHome(
        home([("blind", "window_covering_controller", "hall")], extensions=SUN, rooms={"hall": {"illuminance": 800}})
    )
    open_lux = lux_at(fabric, "hall", "2025-08-23 12:00:00")
    fabric.invoke("blind", 1, "WindowCovering", "DownOrClose")
    fabric.advance(120)
    assert fabric.room_state("hall", exact=True)["illuminance"] < 0.5 * open_lux


def test_the_season_and_the_latitude_shape_the_day() -> None:
    def day_length(latitude: float, day: date) -> float:
        return sum(
            KNOT_S
            for k in range(96)
            if sun_sine(datetime.combine(day, datetime.min.time()).replace(hour=k // 4, minute=15 * (k % 4)), latitude)
            > 0
        )

    assert day_length(60.0, date(2025, 6, 21)) > day_length(60.0, date(2025, 12, 21)) + 8 * 3600
    assert day_length(0.0, date(2025, 6, 21)) == pytest.approx(12 * 3600, abs=3600)
    assert sun_sine(datetime(2025, 6, 21, 12), 37.0) > sun_sine(datetime(2025, 12, 21, 12), 37.0)


def test_the_curve_is_linear_between_knots() -> None:
    curve = SunCurve(48.0, date(2025, 8, 23))
    a, b = datetime(2025, 8, 23, 10, 0), datetime(2025, 8, 23, 10, 15)
    middle = datetime(2025, 8, 23, 10, 7, 30)
    assert curve.relative(middle) == pytest.approx((curve.relative(a) + curve.relative(b)) / 2, rel=1e-12)
    assert curve.relative(datetime(2025, 8, 23, 12)) == pytest.approx(1.0)


def test_curves_of_one_sky_share_knot_values_that_equal_a_fresh_computation() -> None:
    first, second = SunCurve(48.0, date(2025, 8, 23)), SunCurve(48.0, date(2025, 8, 23))
    knot = datetime(2025, 8, 23, 9, 15)
    expected = sun_sine(knot, 48.0) / sun_sine(datetime(2025, 8, 23, 12), 48.0)
    assert first.relative(knot) == expected and second._at_knot(knot) is first._at_knot(knot)  # shared
    other_day, equator, south = (
        SunCurve(48.0, date(2025, 12, 21)),
        SunCurve(0.0, date(2025, 8, 23)),
        SunCurve(-0.0, date(2025, 8, 23)),
    )
    assert other_day.relative(knot) != expected  # another reference noon, another value
    assert equator.relative(knot) == sun_sine(knot, 0.0) / sun_sine(datetime(2025, 8, 23, 12), 0.0)
    assert south.relative(knot) == sun_sine(knot, -0.0) / sun_sine(datetime(2025, 8, 23, 12), -0.0)


def test_fast_forward_costs_one_event_per_knot_and_is_exact() -> None:
    config = home([("sensor", "light_sensor", "hall")], extensions=SUN, rooms={"hall": {"illuminance": 600}})
    constant = EmulatedHome(home([("sensor", "light_sensor", "hall")], rooms={"hall": {"illuminance": 600}}))
    sunny, stepped = EmulatedHome(config), EmulatedHome(config)
    extra = sunny.advance(86400) - constant.advance(86400)
    assert 0 < extra <= 86400 // KNOT_S + 1  # the sky's events: one per knot, not per tick
    for _ in range(24):
        stepped.advance(3600)
    assert stepped.room_state("hall", exact=True) == sunny.room_state("hall", exact=True)
    readings = []
    sunny.subscribe(lambda event: readings.append(event) if event.attribute == "MeasuredValue" else None)
    sunny.advance(6 * 3600)
    assert len(readings) >= 6  # the light sensor reports the sky as it moves


def test_imported_simuhome_homes_keep_constant_daylight() -> None:
    from emulator.simuhome.import_home import from_simuhome
    from tests.emulator.test_simuhome_config import simuhome_config

    fabric = EmulatedHome(from_simuhome(simuhome_config())[0])
    room = fabric.rooms()[0].room_id
    before = fabric.room_state(room)["illuminance"]
    fabric.advance(12 * 3600)
    assert fabric.room_state(room)["illuminance"] == before


OUTDOOR = {
    "physics": {
        "daylight": "sun",
        "latitude_deg": 48.0,
        "outdoor": "daily",
        "outdoor_mean": 2000,
        "outdoor_amplitude": 800,
    }
}


def test_rooms_exchange_heat_with_a_daily_outdoor_swing() -> None:
    config = home([("sensor", "climate_sensor", "hall")], extensions=OUTDOOR, rooms={"hall": {"temperature": 2000}})
    fabric = EmulatedHome(config)
    outdoor = {}
    for when in ("2025-08-24 03:07:00", "2025-08-24 15:07:00"):
        lux_at(fabric, "hall", when)
        room = fabric.room_state("hall", exact=True)["temperature"]
        outdoor[when[11:13]] = (fabric.physics.weather.outdoor_temperature(), room)
    assert outdoor["03"][0] == pytest.approx(1200, abs=20) and outdoor["15"][0] == pytest.approx(2800, abs=20)
    assert outdoor["15"][1] > outdoor["03"][1] + 50  # the room is warmer in the afternoon than before dawn
    generated = generate_home("simple", 2)
    assert generated.extensions["physics"]["outdoor"] == "daily"


def test_the_outdoor_swing_stays_exact_and_costs_events_per_knot_only() -> None:
    config = home(
        [("sensor", "climate_sensor", "hall"), ("ac", "air_conditioner", "hall")],
        extensions=OUTDOOR,
        rooms={"hall": {"temperature": 2600}},
    )
    once, stepped = EmulatedHome(config), EmulatedHome(config)
    for fabric in (once, stepped):
        fabric.invoke("ac", 1, "OnOff", "On")
        fabric.write("ac", 1, "Thermostat", "SystemMode", 3)
    events = once.advance(86400)
    for _ in range(96):
        stepped.advance(900)
    assert once.room_state("hall", exact=True) == pytest.approx(stepped.room_state("hall", exact=True), rel=1e-9)
    assert events <= 4 * (86400 // KNOT_S)  # a handful of events per 15-minute knot, not per tick
