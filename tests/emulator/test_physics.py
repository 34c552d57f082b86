"""Closed-form physics equals stepping the same per-tick rule tick by tick (0.1 s)."""

from __future__ import annotations

import random

import pytest

from emulator.physics import VARIABLES
from emulator.physics_model import Process, Segment, constant_term, push_down_above, push_up_below
from emulator.workflows import WorkflowStep
from tests.emulator.helpers import fabric

INF = float("inf")


def _closed_form(process: Process, x0: float, ticks: int) -> float:
    elapsed, segment = 0, Segment(process, x0)
    while segment.exit_after is not None and elapsed + segment.exit_after <= ticks:
        elapsed += segment.exit_after
        segment = Segment(process, segment.value_after(segment.exit_after))
    return segment.value_after(ticks - elapsed)


@pytest.mark.parametrize("seed", range(40))
def test_segments_equal_tick_stepping_on_random_processes(seed: int) -> None:
    rng = random.Random(seed)
    terms = []
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(["down", "up", "constant"])
        threshold = rng.uniform(1500, 3000)
        if kind == "down":
            terms.append(push_down_above(threshold, rng.uniform(1e-3, 1e-2), rng.uniform(1e-2, 1e-1)))
        elif kind == "up":
            terms.append(push_up_below(threshold, rng.uniform(1e-3, 1e-2), rng.uniform(1e-2, 1e-1)))
        else:
            terms.append(constant_term(rng.uniform(-1e-2, 1e-2)))
    process = Process(
        tuple(terms), 2e-5, rng.uniform(1800, 3200), lower=rng.choice([-INF, 0.0]), upper=rng.choice([INF, 2600.0])
    )
    x0 = process.clamp(rng.uniform(1500, 3500))
    ticks = rng.randint(1, 50_000)
    stepped = x0
    for _ in range(ticks):
        stepped = process.step(stepped)
    assert _closed_form(process, x0, ticks) == pytest.approx(stepped, rel=1e-9, abs=1e-7)


def test_clamped_humidity_holds_at_the_bound() -> None:
    # A strong constant push against the upper clamp: stays at 10000, no event storm.
    process = Process((constant_term(50.0),), 0.001, 5000.0, 0.0, 10000.0)
    segment = Segment(process, 10000.0)
    assert segment.exit_after is None and segment.value_after(10**6) == 10000.0


def test_fabric_physics_equals_tick_stepping_with_device_events() -> None:
    """A room with every kind of climate device, devices changing over two hours: the fabric's
    closed-form values equal a reference that steps the same rule every 0.1 s."""
    f = fabric(
        [
            ("ac", "air_conditioner", "lab"),
            ("hp", "heat_pump", "lab"),
            ("fan", "fan", "lab"),
            ("hum", "humidifier", "lab"),
            ("deh", "dehumidifier", "lab"),
            ("pur", "air_purifier", "lab"),
            ("light", "dimmable_light", "lab"),
        ],
        rooms={"lab": {"temperature": 2650, "humidity": 3000, "pm10": 140}},
    )
    f.invoke("ac", 1, "OnOff", "On")
    f.write("ac", 1, "Thermostat", "SystemMode", 3)
    f.write("ac", 1, "Thermostat", "OccupiedCoolingSetpoint", 2600)
    f.write("ac", 1, "FanControl", "PercentSetting", 80)
    f.invoke("hum", 1, "OnOff", "On")
    f.write("hum", 1, "FanControl", "PercentSetting", 100)
    f.invoke("pur", 1, "OnOff", "On")
    f.write("pur", 1, "FanControl", "PercentSetting", 30)

    def at(minutes: float) -> str:
        return f.clock.datetime_at(int(minutes * 600)).strftime("%Y-%m-%d %H:%M:%S")

    f.schedule(
        at(10),
        [
            WorkflowStep("invoke", "fan", 1, "OnOff", "On"),
            WorkflowStep("write", "fan", 1, "FanControl", "PercentSetting", value=100),
        ],
    )
    f.schedule(
        at(25),
        [
            WorkflowStep("write", "hp", 4, "Thermostat", "SystemMode", value=4),
            WorkflowStep("write", "hp", 4, "Thermostat", "OccupiedHeatingSetpoint", value=2900),
        ],
    )
    f.schedule(
        at(40),
        [
            WorkflowStep("invoke", "hum", 1, "OnOff", "Off"),
            WorkflowStep("invoke", "deh", 1, "OnOff", "On"),
            WorkflowStep("write", "deh", 1, "FanControl", "PercentSetting", value=60),
        ],
    )
    f.schedule(
        at(70),
        [
            WorkflowStep("write", "ac", 1, "Thermostat", "SystemMode", value=4),
            WorkflowStep("write", "ac", 1, "Thermostat", "OccupiedHeatingSetpoint", value=2700),
        ],
    )
    f.schedule(at(90), [WorkflowStep("write", "pur", 1, "FanControl", "PercentSetting", value=100)])

    # Reference: an identical fabric driven one tick at a time, integrating with Process.step.
    reference = fabric(
        [(d.device_id, d.device_type, d.room_id) for d in f.devices()],
        rooms={"lab": {"temperature": 2650, "humidity": 3000, "pm10": 140}},
    )
    for device_id, kind, ep, cluster, name, value in [
        ("ac", "invoke", 1, "OnOff", "On", None),
        ("ac", "write", 1, "Thermostat", "SystemMode", 3),
        ("ac", "write", 1, "Thermostat", "OccupiedCoolingSetpoint", 2600),
        ("ac", "write", 1, "FanControl", "PercentSetting", 80),
        ("hum", "invoke", 1, "OnOff", "On", None),
        ("hum", "write", 1, "FanControl", "PercentSetting", 100),
        ("pur", "invoke", 1, "OnOff", "On", None),
        ("pur", "write", 1, "FanControl", "PercentSetting", 30),
    ]:
        if kind == "invoke":
            reference.invoke(device_id, ep, cluster, name)
        else:
            reference.write(device_id, ep, cluster, name, value)
    for workflow in f.workflows():
        reference.schedule(workflow.start_tick, workflow.steps)
    engine = reference.physics
    values = {v: engine.value("lab", v) for v in VARIABLES}
    total = 120 * 600
    checkpoints = {600 * m for m in (5, 10, 11, 30, 45, 60, 89, 91, 120)}
    event_ticks = {w.start_tick for w in f.workflows()}
    processes = {v: engine.process("lab", v) for v in VARIABLES}
    for tick in range(total):
        reference.clock.advance_to(tick)  # device events due at this tick happen first
        if tick in event_ticks:
            processes = {v: engine.process("lab", v) for v in VARIABLES}
        values = {v: processes[v].step(values[v]) for v in VARIABLES}
        if tick + 1 in checkpoints:
            f.run_until(tick + 1)
            exact = f.room_state("lab", exact=True)
            for v in VARIABLES:
                assert exact[v] == pytest.approx(values[v], rel=1e-9, abs=1e-6), (v, tick + 1)
    assert f.physics.segment_count < 200  # closed form: a handful of segments, not 72,000 steps
