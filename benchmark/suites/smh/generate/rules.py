"""TC4 automated task scheduling: time, state and time-and-state rules, written as SMH rules."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agent_tools.smh.rules import SmhAutomation, SmhCondition, SmhTrigger
from benchmark.suites.smh.generate.core import Draft, Scene, act
from benchmark.suites.smh.generate.homes import COVERS, LIGHTS
from emulator.clock import TIME_FORMAT

_DAYS = (
    ("Weekdays", "? * MON-FRI *"),
    ("Every day", "* * ? *"),
    ("Every Saturday", "? * SAT *"),
    ("On weekends", "? * SAT,SUN *"),
)


def _time(s: Scene) -> tuple[str, str]:
    """(wording, Quartz cron) for a recurring time or a one-off tonight."""
    hour, minute = s.pick([(6, 45), (7, 0), (7, 30), (18, 15), (21, 0), (22, 30)])
    clock = f"{hour % 12 or 12}:{minute:02d} {'am' if hour < 12 else 'pm'}"
    if s.rng.random() < 0.25:
        now = datetime.strptime(s.home.base_time, TIME_FORMAT)
        hour = s.pick([h for h in (21, 22, 23) if h > now.hour])
        return f"Tonight at {hour - 12}:{minute:02d} pm", f"0 {minute} {hour} {now.day} {now.month} ? {now.year}"
    words, tail = s.pick(_DAYS)
    return f"{words} at {clock}", f"0 {minute} {hour} {tail}"


def _action(s: Scene) -> tuple[str, list[Any]]:
    cover = s.of(*COVERS)
    lights = s.of(*LIGHTS)
    if cover and s.rng.random() < 0.5:
        d = s.pick(cover)
        p = s.pick([0, 50, 100])
        words = {0: f"close the {s.name(d)}", 50: f"open the {s.name(d)} halfway", 100: f"open the {s.name(d)}"}[p]
        return words, [act(d, "set_position", position=p)]
    d = s.pick(lights)
    return f"turn on the {s.name(d)}", [act(d, "turn_on")]


def time_specific(s: Scene) -> Draft:
    when, cron = _time(s)
    what, actions = _action(s)
    rule = SmhAutomation(name="scheduled", trigger=SmhTrigger(time_cron=cron), actions=actions)
    return Draft(f"{when}, {what}.", "automate", automations=[rule])


def _leak_rule(s: Scene) -> Draft:
    """Water safety: a leak sensor that detects water closes the main valve (water homes only)."""
    sensor, valve = s.pick(s.of("water_leak_detector")), s.pick(s.of("water_valve"))
    rule = SmhAutomation(
        name="leak",
        trigger=SmhTrigger(state=SmhCondition(did=sensor, attribute="leak_detected", op="==", value="yes")),
        actions=[act(valve, "close")],
    )
    wording = s.pick(
        [
            f"If the {s.name(sensor)} detects a leak, close the {s.name(valve)}.",
            f"Whenever the {s.name(sensor)} finds water, shut the {s.name(valve)}.",
        ]
    )
    return Draft(wording, "automate", automations=[rule])


def state_driven(s: Scene) -> Draft:
    if s.of("water_leak_detector") and s.of("water_valve") and s.rng.random() < 0.5:
        return _leak_rule(s)
    pairs = [(c, f) for c in s.of("climate_sensor") for f in s.of("fan", room=s.room_of(c))]
    if pairs and s.rng.random() < 0.6:
        sensor, fan = s.pick(pairs)
        limit = s.pick([60, 65, 70, 75, 80])
        room = s.room_names[s.room_of(sensor)]
        rule = SmhAutomation(
            name="humid",
            trigger=SmhTrigger(
                state=SmhCondition(did=sensor, attribute="current_humidity", op=">", value=float(limit))
            ),
            actions=[act(fan, "turn_on"), act(fan, "set_speed_level", speed_level="high")],
        )
        return Draft(
            f"When the {room} humidity goes above {limit} percent, run the {s.name(fan)} on high.",
            "automate",
            automations=[rule],
        )
    sensor = s.pick(s.of("occupancy_sensor"))
    light = s.pick(s.of(*LIGHTS, room=s.room_of(sensor)))
    rule = SmhAutomation(
        name="presence",
        trigger=SmhTrigger(state=SmhCondition(did=sensor, attribute="human_detected", op="==", value="yes")),
        actions=[act(light, "turn_on")],
    )
    return Draft(
        f"Whenever the {s.name(sensor)} notices someone, turn on the {s.name(light)}.", "automate", automations=[rule]
    )


def time_and_state(s: Scene) -> Draft:
    sensor = s.pick(s.of("occupancy_sensor"))
    room = s.room_of(sensor)
    players = s.of("smart_speaker", "smart_screen", "tv", room=room)
    when, cron = _time(s)
    if players:
        d = s.pick(players)
        what, actions = f"stop the {s.name(d)}", [act(d, "player.stop")]
    else:
        d = s.pick(s.of(*LIGHTS, room=room))
        what, actions = f"turn off the {s.name(d)}", [act(d, "turn_off")]
    rule = SmhAutomation(
        name="gated",
        trigger=SmhTrigger(time_cron=cron),
        actions=actions,
        conditions=[SmhCondition(did=sensor, attribute="human_detected", op="==", value="no")],
    )
    return Draft(f"{when}, if nobody is in the {s.room_names[room]}, {what}.", "automate", automations=[rule])


TEMPLATES = {
    "time_specific": ((("curtain", "on_off_light"),), time_specific),
    "state_driven": ((("climate_sensor", "fan"), ("occupancy_sensor", "on_off_light")), state_driven),
    "time_and_state": ((("occupancy_sensor", "smart_speaker", "on_off_light"),), time_and_state),
}
