"""What homes share to cost less memory (issue 24) is truly shared and truly immutable: equal physics constants are
one PhysicsParams, rooms under the same sky one outdoor-exchange term, processes one drift float; a change in one
room or home never reaches another."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from emulator.clock import TICK_S
from emulator.emulated_home import EmulatedHome
from emulator.home_config import HomeConfig
from emulator.home_generation.generator import generate_home
from emulator.physics_model import NEG_INF, Process, Term, same_float
from emulator.physics_terms import PhysicsParams, room_process, shared_params


def _home(seed: int = 3) -> EmulatedHome:
    return EmulatedHome(generate_home("simuhome", seed))


def _physics_readings(home: EmulatedHome) -> dict[tuple[str, str], object]:
    """Every attribute the home's physics feeds, as read now."""
    return {
        (view.device_id, path): value
        for view in home.devices()
        for path, value in home.read_all(view.device_id).items()
        if home.physics_source(view.device_id, path) is not None
    }


def test_homes_with_equal_constants_share_one_params_and_it_cannot_change() -> None:
    first, second = _home(3), _home(3)
    assert first.physics.params is second.physics.params
    with pytest.raises(ValidationError):
        first.physics.params.outdoor_mean = 0.0


def test_params_that_differ_in_any_bit_or_in_what_was_given_are_not_shared() -> None:
    base = PhysicsParams(outdoor_mean=0.0)
    assert shared_params(PhysicsParams(outdoor_mean=0.0)) is shared_params(base)
    assert shared_params(PhysicsParams(outdoor_mean=-0.0)) is not shared_params(base)  # 0.0 == -0.0, other bits
    assert shared_params(PhysicsParams(outdoor_mean=2200.0)) is not shared_params(PhysicsParams())  # given vs default
    different = shared_params(PhysicsParams(outdoor_mean=1.0))
    assert different.outdoor_mean == 1.0 and shared_params(base).outdoor_mean == 0.0


def test_rooms_under_one_sky_share_the_exchange_term_and_one_drift_float() -> None:
    first, second = _home(3), _home(3)
    processes = [home.physics.process(room.room_id, "temperature") for home in (first, second) for room in home.rooms()]
    exchanges = {id(process.terms[-1]) for process in processes}
    assert len(exchanges) == 1  # every room of both homes (same base time: same outdoor temperature)
    assert len({id(process.drift) for process in processes}) == 1
    alone = [p for p in processes if len(p.terms) == 1]
    assert alone and len({id(p.terms) for p in alone}) == 1  # rooms with no device term share the tuple too
    assert len({process.baseline for process in processes[: len(first.rooms())]}) > 1  # rooms still differ


def test_shared_terms_compute_what_fresh_ones_do() -> None:
    params = PhysicsParams(outdoor="daily")
    k = params.outdoor_exchange_per_s * TICK_S
    fresh = Process((Term([(NEG_INF, -k, k * 1234.5)]),), params.temperature_drift_per_s * TICK_S, 2500.0)
    shared = room_process(params, [], 2500.0, "temperature", 1234.5)
    assert room_process(params, [], 2600.0, "temperature", 1234.5).terms is shared.terms
    assert room_process(params, [], 2500.0, "temperature", 1300.0).terms is not shared.terms  # another sky
    for x in (1800.0, 2500.0, 3300.0):
        assert shared.affine_at(x) == fresh.affine_at(x) and shared.step(x) == fresh.step(x)


def test_same_float_tells_the_bits_apart() -> None:
    assert same_float(0.25, 0.25) and same_float(-math.inf, NEG_INF)
    assert not same_float(0.0, -0.0) and not same_float(math.nan, math.nan) and not same_float(1.0, 1.0000000001)


def test_a_change_in_one_room_reaches_neither_another_room_nor_another_home() -> None:
    first, second = _home(3), _home(3)
    before_first, before_second = _physics_readings(first), _physics_readings(second)
    assert before_first == before_second
    others = {room.room_id: first.room_state(room.room_id) for room in first.rooms() if room.room_id != "bathroom"}
    first.set_room_state("bathroom", "temperature", 1500)
    first.set_room_state("bathroom", "humidity", 2000, baseline=True)
    after = _physics_readings(first)
    changed = {key for key in after if after[key] != before_first[key]}
    assert changed and {first.physics_source(device, path) for device, path in changed} == {("bathroom", "temperature")}
    assert {room_id: first.room_state(room_id) for room_id in others} == others
    assert first.physics.rooms["bathroom"].baseline["humidity"] == 2000.0
    assert second.physics.rooms["bathroom"].baseline["humidity"] != 2000.0
    assert _physics_readings(second) == before_second  # the twin home shares params and terms, not state


def test_a_room_baseline_is_a_read_only_view_and_set_baseline_moves_one_variable() -> None:
    home = _home(3)
    room = home.physics.rooms["kitchen"]
    before = dict(room.baseline)
    with pytest.raises(TypeError):
        room.baseline["pm10"] = 1.0
    home.set_room_state("kitchen", "pm10", 10.0, baseline=True)
    assert dict(room.baseline) == {**before, "pm10": 10.0}
    assert home.to_config().rooms[[r.id for r in home.to_config().rooms].index("kitchen")].baseline.pm10 == 10.0


def test_a_room_starts_once() -> None:
    home = _home(3)
    with pytest.raises(RuntimeError, match="already started"):
        home.physics.start("kitchen")


def test_sensor_feeds_keep_their_own_last_report_and_compartments_stay_apart() -> None:
    home = _home(3)
    assert home.physics_source("kitchen_freezer_1", "1.TemperatureMeasurement.MeasuredValue") == (
        "kitchen",
        "compartment",
    )
    assert home.physics_source("bathroom_humidifier_1", "2.RelativeHumidityMeasurement.MeasuredValue") == (
        "bathroom",
        "humidity",
    )
    events: list[object] = []
    home.subscribe(events.append)
    home.set_room_state("bathroom", "humidity", 5000)
    reported = [e for e in events if "RelativeHumidityMeasurement" in str(e)]
    assert reported and home.read_path("bathroom_humidifier_1", "2.RelativeHumidityMeasurement.MeasuredValue") == 5000
    events.clear()
    home.set_room_state("bathroom", "humidity", 5000)  # the same value again: nothing new to report
    assert not [e for e in events if "RelativeHumidityMeasurement" in str(e)]


def test_homes_from_one_config_are_built_independently() -> None:
    config = generate_home("simuhome", 5)
    first, second = EmulatedHome(config), EmulatedHome(HomeConfig.model_validate(config.model_dump()))
    room_id = first.rooms()[0].room_id
    first.set_room_state(room_id, "pm10", 5.0)
    assert second.room_state(room_id)["pm10"] != 5.0


def test_compartments_at_one_setpoint_share_a_process_but_not_their_trajectory() -> None:
    first, second = _home(3), _home(3)
    key = ("kitchen_freezer_1", 1)
    (_, mine), (_, twin) = first.physics.compartments.trajectories[key], second.physics.compartments.trajectories[key]
    assert mine is not twin and mine.process is twin.process  # one immutable process, two trajectories
    fridge = first.physics.compartments.trajectories[("kitchen_refrigerator_1", 1)][1]
    assert fridge.process is not mine.process and fridge.process.baseline != mine.process.baseline
    path = "1.TemperatureMeasurement.MeasuredValue"
    before = second.read_path("kitchen_freezer_1", path)
    first.invoke("kitchen_freezer_1", 1, "TemperatureControl", "SetTemperature", {"TargetTemperature": -2000})
    first.advance(3600)
    second.advance(3600)
    assert first.read_path("kitchen_freezer_1", path) < before  # heads for its new setpoint
    assert second.read_path("kitchen_freezer_1", path) == before


def test_rooms_share_alpha_floats_but_each_segment_is_its_own_and_computes_what_a_fresh_one_does() -> None:
    first, second = _home(3), _home(3)
    segments = [
        home.physics.rooms[room.room_id].segment(variable)
        for home in (first, second)
        for room in home.rooms()
        for variable in ("temperature", "humidity", "pm10")
    ]
    assert len({id(segment) for segment in segments}) == len(segments)  # no trajectory is shared
    drift_only = [s for s in segments if not s.process.terms]
    assert len({id(s.alpha) for s in drift_only if s.process.drift == drift_only[0].process.drift}) == 1
    for segment in segments:  # the same floats as a segment built on a memo-free map
        fresh = Process(segment.process.terms, segment.process.drift, segment.process.baseline)
        alpha, beta, _low, _high = fresh.affine_at(segment.x0)
        slope = sum(term.locate(segment.x0)[2] for term in fresh.terms)
        assert alpha == (1.0 + slope) * (1.0 - fresh.drift) and (segment.alpha, segment.beta) == (alpha, beta)
        assert segment.fixed == (segment.x0 if segment.stepwise else beta / (1.0 - alpha))


def test_a_segment_keeps_its_start_and_a_room_hands_out_read_only_snapshots() -> None:
    home = _home(3)
    home.advance(600)
    home.set_room_state("bathroom", "temperature", 1500)
    room = home.physics.rooms["bathroom"]
    segment = room.segment("temperature")
    assert segment.start == home.clock.tick > 0 and segment.value_at(segment.start) == 1500.0
    assert room.segments["temperature"] == (segment.start, segment)
    with pytest.raises(TypeError):
        room.segments["temperature"] = (0, segment)
    room.current_segments().pop("temperature")  # a copy: the room still follows it
    assert room.segment("temperature") is segment
    with pytest.raises(KeyError):
        room.segment("daylight")  # a slot of the room, not a variable


def test_twin_homes_share_one_sun_curve_but_not_the_sky_or_sensor_state() -> None:
    first, second = _home(3), _home(3)
    assert first.physics.params.daylight == "sun"
    assert first.physics.sun is second.physics.sun and first.physics.weather is not second.physics.weather
    first_room, second_room = first.physics.rooms["bathroom"], second.physics.rooms["bathroom"]
    assert first_room.feeds and first_room.feeds is not second_room.feeds
    assert first_room.reported is not second_room.reported
    lux = second.room_state("bathroom")["illuminance"]
    first.advance(3 * 3600)  # one home's sky moves on: the other's stays where its clock is
    assert second.room_state("bathroom")["illuminance"] == lux
    assert first.room_state("bathroom")["illuminance"] != lux


def test_a_room_without_sensors_holds_the_shared_empty_feeds_and_unbinding_leaves_others() -> None:
    home = _home(3)
    bare = [room for room in home.physics.rooms.values() if not room.feeds]
    assert bare and all(room.feeds == () and not isinstance(room.feeds, list) for room in bare)
    bathroom = home.physics.rooms["bathroom"]
    servers = {id(feed.server) for feed in bathroom.feeds[:1]}
    kept = [feed for feed in bathroom.feeds if id(feed.server) not in servers]
    home.physics.unbind_sensors("bathroom", servers)
    assert list(bathroom.feeds) == kept and home.physics.rooms["kitchen"].feeds
