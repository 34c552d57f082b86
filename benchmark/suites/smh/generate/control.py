"""TC1 atomic control and TC2 compositional control (set-valued targets)."""

from __future__ import annotations

from benchmark.suites.smh.generate.core import Draft, Rejected, Scene, act
from benchmark.suites.smh.generate.homes import ALL_NOUNS, COVERS, DIMMABLE, LIGHTS
from benchmark.suites.smh.generate.ops import clear_ops, colloquial_ops

ANY_TYPE = tuple(ALL_NOUNS)  # the water types are in homes generated with water=True only


def _cap(text: str) -> str:
    return text[0].upper() + text[1:]


def clear_command(s: Scene) -> Draft:
    valves = s.of("water_valve")  # water homes: "close the main valve" is one of a few clear commands, not 1 of 60
    if valves and s.rng.random() < 0.2:
        phrase, action = s.pick(clear_ops(s, valves[0]))
        return Draft(_cap(phrase) + s.pick([".", ", please.", " now."]), "execute", [action])
    phrase, action = s.pick([op for d in s.of(*ANY_TYPE) for op in clear_ops(s, d)])
    return Draft(_cap(phrase) + s.pick([".", ", please.", " now."]), "execute", [action])


def colloquial_request(s: Scene) -> Draft:
    phrase, action = s.pick([op for d in s.of(*ANY_TYPE) for op in colloquial_ops(s, d)])
    return Draft(_cap(phrase) + s.pick([".", "!", ", would you?"]), "execute", [action])


def noisy_utterance(s: Scene) -> Draft:
    """Fillers, repetition, or a mid-sentence self-correction: only the corrected target counts."""
    target = s.pick([d for d in s.of(*ANY_TYPE) if clear_ops(s, d)])
    phrase, action = s.pick(clear_ops(s, target))
    same_kind = [d for d in s.of(s.type_of(target)) if d != target]
    verb, _, rest = phrase.partition(f"the {s.name(target)}")
    if same_kind and s.rng.random() < 0.7:
        decoy = s.pick(same_kind)
        text = f"uh {verb}the {s.name(decoy)}— no wait, the {s.name(target)}{rest}"
    else:
        text = f"um, {verb}the, the {s.name(target)}{rest}... yeah, {verb}the {s.name(target)}{rest}"
    return Draft(text + ".", "execute", [action])


def explicit_multi_device(s: Scene) -> Draft:
    devices = s.sample([d for d in s.of(*ANY_TYPE) if clear_ops(s, d)], s.rng.choice((2, 3)))
    ops = [s.pick(clear_ops(s, d)) for d in devices]
    phrases = [p for p, _ in ops]
    text = ", ".join(phrases[:-1]) + f" and {phrases[-1]}"
    return Draft(_cap(text) + ".", "execute", [a for _, a in ops])


_BATCH = (
    ("curtain", ("curtain",)),
    ("blind", ("blind",)),
    ("lamp", ("dimmable_light", "color_temperature_light")),
    ("ceiling light", ("on_off_light",)),
    ("AC", ("air_conditioner",)),
    ("speaker", ("smart_speaker",)),
    ("fan", ("fan",)),
)


def _scope(s: Scene) -> tuple[str, int | None]:
    floors = sorted(set(s.floors.values()))
    if len(floors) > 1 and s.rng.random() < 0.4:
        floor = s.pick(floors)
        return ("on the ground floor" if floor == 0 else f"on floor {floor}"), floor
    return s.pick(["in the house", "in the whole place", "everywhere"]), None


def batch_operation(s: Scene) -> Draft:
    noun, types = s.pick(_BATCH)
    where, floor = _scope(s)
    members = s.of(*types, where=lambda d: floor is None or s.floors[s.room_of(d)] == floor)
    if len(members) < 2:
        raise Rejected("a batch needs two or more members")
    first = s.type_of(members[0])
    if first in COVERS:
        text, actions = f"Close every {noun} {where}.", [act(d, "close") for d in members if s.value(d, "position")]
    elif first in DIMMABLE:
        b = s.pick([20, 30, 40, 50])
        text = f"Set every {noun} {where} to {b} percent."
        actions = [act(d, "set_brightness", brightness=b) for d in members if s.value(d, "brightness") != b]
    elif first == "smart_speaker":
        text = f"Turn off every {noun} {where}."
        actions = [act(d, "player.turn_off") for d in members if s.value(d, "player.state") == "on"]
    else:
        text = f"Switch off every {noun} {where}."
        actions = [act(d, "turn_off") for d in members if s.value(d, "state") == "on"]
    return Draft(text, "execute", actions)


def state_dependent(s: Scene) -> Draft:
    if s.rng.random() < 0.5:
        covers = s.of(*COVERS)
        limit = s.pick([30, 50, 70])
        chosen = [d for d in covers if s.value(d, "position") > limit]
        if not chosen or len(chosen) == len(covers):
            raise Rejected("the predicate must split the set")
        return Draft(
            f"Any curtain or blind that is more than {limit} percent open — shut it.",
            "execute",
            [act(d, "close") for d in chosen],
        )
    lamps = s.of(*DIMMABLE, where=lambda d: s.value(d, "state") == "on")
    limit = s.pick([50, 60, 70, 80])
    chosen = [d for d in lamps if s.value(d, "brightness") > limit]
    if not chosen or len(chosen) == len(s.of(*DIMMABLE)):
        raise Rejected("the predicate must split the set")
    return Draft(
        f"Every lamp, reading lamp or light strip that is on and brighter than {limit} percent: bring it "
        f"down to {limit}.",
        "execute",
        [act(d, "set_brightness", brightness=limit) for d in chosen],
    )


def room_dependent(s: Scene) -> Draft:
    sensed = sorted({s.room_of(d) for d in s.of("climate_sensor")})
    if s.rng.random() < 0.5:
        rooms = [r for r in sensed if s.of("air_conditioner", room=r)]
        temps = {r: s.value(s.of("climate_sensor", room=r)[0], "current_temperature") for r in rooms}
        limit = s.pick([22, 24, 26, 27])
        hot = [r for r in rooms if temps[r] > limit]
        excluded = s.pick(hot) if len(hot) > 1 and s.rng.random() < 0.5 else None
        chosen = [r for r in hot if r != excluded]
        if not chosen:
            raise Rejected("no qualifying room")
        actions = []
        for room in chosen:
            for ac in s.of("air_conditioner", room=room):
                if s.value(ac, "state") == "off":
                    actions.append(act(ac, "turn_on"))
                if s.value(ac, "ac_mode") != "cool":
                    actions.append(act(ac, "set_ac_mode", ac_mode="cool"))
        but = f" except the {s.room_names[excluded]}" if excluded else ""
        return Draft(
            f"In every room whose climate sensor reads above {limit} °C{but}, run the AC in cool mode.",
            "execute",
            actions,
        )
    rooms = sorted({s.room_of(d) for d in s.of("occupancy_sensor")})
    empty = [r for r in rooms if s.value(s.of("occupancy_sensor", room=r)[0], "human_detected") == "no"]
    actions = [act(d, "turn_off") for r in empty for d in s.of(*LIGHTS, room=r) if s.value(d, "state") == "on"]
    actions += [
        act(d, "light.turn_off") for r in empty for d in s.of("fan_light", room=r) if s.value(d, "light.state") == "on"
    ]
    return Draft("Turn off the lights in every room where the motion sensor sees nobody.", "execute", actions)


_COUNT = {2: "two", 3: "three"}


def top_n_selection(s: Scene) -> Draft:
    n = s.rng.choice((2, 3))
    if s.rng.random() < 0.5:
        lamps = sorted(
            s.of(*DIMMABLE, where=lambda d: s.value(d, "state") == "on"), key=lambda d: -s.value(d, "brightness")
        )
        if len(lamps) <= n or s.value(lamps[n - 1], "brightness") == s.value(lamps[n], "brightness"):
            raise Rejected("top-N must be unique")
        return Draft(
            f"Of the lamps, reading lamps and light strips that are on, dim the {_COUNT[n]} brightest to 30 percent.",
            "execute",
            [act(d, "set_brightness", brightness=30) for d in lamps[:n]],
        )
    covers = sorted(s.of(*COVERS), key=lambda d: -s.value(d, "position"))
    if len(covers) <= n or s.value(covers[n - 1], "position") == s.value(covers[n], "position"):
        raise Rejected("top-N must be unique")
    return Draft(
        f"Close the {_COUNT[n]} most open curtains or blinds.",
        "execute",
        [act(d, "close") for d in covers[:n] if s.value(d, "position")],
    )


TEMPLATES = {
    # Kitchen and laundry appliances stand in the small and medium homes of these two (the complex home keeps
    # its 17 types, see complex_home).
    "clear_command": ((("microwave_oven", "refrigerator"),), clear_command),
    "colloquial_request": (
        (("dimmable_light", "curtain", "rvc"), ("freezer",), ("laundry_washer",)),
        colloquial_request,
    ),
    "noisy_utterance": ((("dimmable_light",), ("dimmable_light",), ("curtain",)), noisy_utterance),
    "explicit_multi_device": (
        (("dimmable_light", "air_conditioner"), ("curtain", "smart_speaker")),
        explicit_multi_device,
    ),
    "batch_operation": (
        (
            ("curtain", "dimmable_light", "air_conditioner"),
            ("curtain", "dimmable_light", "fan"),
            ("curtain", "dimmable_light", "air_conditioner", "smart_speaker"),
        ),
        batch_operation,
    ),
    "state_dependent": (
        (("curtain", "dimmable_light"), ("blind", "dimmable_light"), ("curtain", "dimmable_light"), ("blind",)),
        state_dependent,
    ),
    "room_dependent": (
        (
            ("climate_sensor", "air_conditioner", "occupancy_sensor", "on_off_light"),
            ("climate_sensor", "air_conditioner", "occupancy_sensor", "dimmable_light"),
            ("climate_sensor", "air_conditioner", "on_off_light"),
        ),
        room_dependent,
    ),
    "top_n_selection": (
        (
            ("dimmable_light", "curtain"),
            ("dimmable_light", "blind"),
            ("dimmable_light", "curtain"),
            ("color_temperature_light", "blind"),
        ),
        top_n_selection,
    ),
}
