"""TC7 environment-grounded queries: read-only; the expected answer is computed from the state."""

from __future__ import annotations

from benchmark.suites.smh.generate.core import Draft, Rejected, Scene
from benchmark.suites.smh.generate.homes import COVERS, LIGHTS
from benchmark.suites.smh.instance import ExpectedAnswer


def _answer(text: str, *facts: str) -> ExpectedAnswer:
    return ExpectedAnswer(text=text, facts=list(facts))


def _water_inquiry(s: Scene) -> Draft:
    """Is there a leak in a room / is the main valve open (water homes only)."""
    if s.rng.random() < 0.5:
        sensor = s.pick(s.of("water_leak_detector"))
        room = s.room_names[s.room_of(sensor)]
        leak = s.value(sensor, "leak_detected")
        found = "detects water" if leak == "yes" else "is dry"
        text = f"{'Yes' if leak == 'yes' else 'No'}, the {s.name(sensor)} {found}."
        return Draft(f"Is there a water leak in the {room}?", "answer", answer=_answer(text, leak))
    valve = s.pick(s.of("water_valve"))
    state = s.value(valve, "state")
    return Draft(
        f"Is the {s.name(valve)} open?",
        "answer",
        answer=_answer(f"{'Yes' if state == 'open' else 'No'}, it is {state}.", "yes" if state == "open" else "no"),
    )


def status_inquiry(s: Scene) -> Draft:
    if s.of("water_leak_detector") and s.rng.random() < 0.4:
        return _water_inquiry(s)
    kind = s.rng.randrange(3)
    if kind == 0:
        lock = s.pick(s.of("door_lock"))
        locked = s.value(lock, "state") == "locked"
        return Draft(
            f"Is the {s.name(lock)} locked?",
            "answer",
            answer=_answer(
                f"{'Yes' if locked else 'No'}, the {s.name(lock)} is {s.value(lock, 'state')}.",
                "yes" if locked else "no",
            ),
        )
    if kind == 1:
        floors = sorted({s.floors[s.room_of(d)] for d in s.of(*COVERS)})
        floor = s.pick(floors)
        open_ones = s.of(*COVERS, where=lambda d: s.floors[s.room_of(d)] == floor and s.value(d, "position") > 0)
        where = "on the ground floor" if floor == 0 else f"on floor {floor}"
        if len(open_ones) > 1:
            raise Rejected("keep the answer to one name")
        facts = ["yes", s.name(open_ones[0])] if open_ones else ["no"]
        return Draft(
            f"Is any curtain or blind {where} still open? Which one?",
            "answer",
            answer=_answer(", ".join(facts), *facts),
        )
    device = s.pick(s.of(*LIGHTS, "fan", "air_conditioner", "smart_plug"))
    on = s.value(device, "state") == "on"
    return Draft(
        f"Did I leave the {s.name(device)} on?",
        "answer",
        answer=_answer(f"{'Yes' if on else 'No'}, it is {s.value(device, 'state')}.", "yes" if on else "no"),
    )


_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def quantity_query(s: Scene) -> Draft:
    kind = s.rng.randrange(3)
    if kind == 0:
        room = s.pick(sorted({s.room_of(d) for d in s.of(*LIGHTS)}))
        count = len(s.of(*LIGHTS, room=room, where=lambda d: s.value(d, "state") == "on"))
        count += len(s.of("fan_light", room=room, where=lambda d: s.value(d, "light.state") == "on"))
        return Draft(
            f"How many lights are on in the {s.room_names[room]}?", "answer", answer=_answer(f"{count}.", str(count))
        )
    sensors = s.of("climate_sensor")
    if kind == 1:
        if len(sensors) < 2:
            raise Rejected("an extremum needs two rooms")
        quantity, word = s.pick([("current_temperature", "warmest"), ("current_humidity", "most humid")])
        ranked = sorted(sensors, key=lambda d: -s.value(d, quantity))
        if s.value(ranked[0], quantity) == s.value(ranked[1], quantity):
            raise Rejected("tie")
        room = s.room_names[s.room_of(ranked[0])]
        return Draft(f"Which room is the {word} right now?", "answer", answer=_answer(f"The {room}.", room))
    if len(sensors) < 2:
        raise Rejected("a comparison needs two rooms")
    a, b = s.sample(sensors, 2)
    ta, tb = s.value(a, "current_temperature"), s.value(b, "current_temperature")
    if ta == tb:
        raise Rejected("tie")
    ra, rb = s.room_names[s.room_of(a)], s.room_names[s.room_of(b)]
    return Draft(
        f"Is the {ra} warmer than the {rb}?",
        "answer",
        answer=_answer(f"{'Yes' if ta > tb else 'No'}: {ta:g} °C against {tb:g} °C.", "yes" if ta > tb else "no"),
    )


TEMPLATES = {
    "status_inquiry": ((("door_lock", "curtain", "on_off_light"),), status_inquiry),
    "quantity_query": ((("climate_sensor", "on_off_light", "dimmable_light"), ("climate_sensor",)), quantity_query),
}
