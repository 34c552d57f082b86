"""TC3 ambiguous intent: state-level complaints, scene goals, and slot-missing requests (ask, then act)."""

from __future__ import annotations

from benchmark.suites.smh.generate.core import Draft, Rejected, Scene, act
from benchmark.suites.smh.generate.homes import COVERS, LIGHTS
from benchmark.suites.smh.instance import Clarification


def state_ambiguity(s: Scene) -> Draft:
    """A complaint about the room's climate; the gold intervention is the room's AC in the right mode (asking
    first is also accepted: the simulated user then states the intent)."""
    rooms = [s.room_of(d) for d in s.of("climate_sensor") if s.of("air_conditioner", room=s.room_of(d))]
    room = s.pick(sorted(set(rooms)))
    temp = s.value(s.of("climate_sensor", room=room)[0], "current_temperature")
    ac = s.of("air_conditioner", room=room)[0]
    if temp < 21:
        mode, text = (
            "heat",
            s.pick(
                ["It's freezing in the {r}.", "Brr, the {r} is like an icebox.", "I can't feel my toes in the {r}."]
            ),
        )
    elif temp > 25:
        mode, text = "cool", s.pick(["It's boiling in the {r}.", "The {r} is way too hot.", "I'm melting in the {r}."])
    else:
        raise Rejected("the room reads comfortable; a complaint would not fit the state")
    if s.value(ac, "ac_mode") == mode and s.value(ac, "state") == "on":
        raise Rejected("already intervening")
    actions = ([act(ac, "turn_on")] if s.value(ac, "state") == "off" else []) + [act(ac, "set_ac_mode", ac_mode=mode)]
    room_name = s.room_names[room]
    return Draft(
        text.format(r=room_name),
        "execute",
        actions,
        clarify_allowed=True,
        clarification=Clarification(
            slot="mode",
            reply=f"Put the {room_name} AC on {mode}, please.",
            accepts=["ac", "air", mode, "temperature", "heat", "cool"],
        ),
        free=[(ac, "target_temperature")],
        intended_query=f"Switch the {s.name(ac)} on in {mode} mode.",
    )


_SCENES = {
    "movie": ("Movie night in the {r} starts now.", "close", "off"),
    "bed": ("Bedtime in the {r}.", "close", "off"),
    "morning": ("Good morning! I'm up in the {r}.", "open", None),
}
_SCENE_ROOMS = {
    "movie": ("living_room", "media_room", "bedroom"),
    "bed": ("bedroom", "kids_room"),
    "morning": ("bedroom", "kids_room"),
}


def scene_ambiguity(s: Scene) -> Draft:
    key = s.pick(sorted(_SCENES))
    text, cover_service, lights = _SCENES[key]
    types = {r.id: r.type for r in s.home.rooms}
    room = s.pick(sorted({s.room_of(d) for d in s.of(*COVERS) if types[s.room_of(d)] in _SCENE_ROOMS[key]}))
    actions = []
    for cover in s.of(*COVERS, room=room):
        if s.value(cover, "position") != (0 if cover_service == "close" else 100):
            actions.append(act(cover, cover_service))
    if lights == "off":
        actions += [act(d, "turn_off") for d in s.of(*LIGHTS, room=room) if s.value(d, "state") == "on"]
        actions += [act(d, "light.turn_off") for d in s.of("fan_light", room=room) if s.value(d, "light.state") == "on"]
    meaning = {
        "movie": "close the covers and switch the lights off",
        "bed": "close the covers and switch the lights off",
        "morning": "open the covers fully",
    }[key]
    return Draft(
        text.format(r=s.room_names[room]), "execute", actions, intended_query=f"In the {s.room_names[room]}, {meaning}."
    )


def _appliance_slot_missing(s: Scene, kind: str) -> Draft:
    """ "Preheat the oven." → which temperature? / "Heat up water." → mode, quantity, temperature? / "Warm this up
    in the microwave." → for how long?"""
    if kind == "microwave_oven":
        oven = "microwave_steam_oven."
        micro = s.pick(s.of("microwave_oven", where=lambda d: s.value(d, oven + "work_state") == "stopped"))
        seconds = s.pick([t for t in (60, 90, 120, 180) if t != s.value(micro, oven + "target_cooking_time")])
        spoken = {60: "One minute", 90: "Ninety seconds", 120: "Two minutes", 180: "Three minutes"}[seconds]
        return Draft(
            f"Warm my lunch up in the {s.name(micro)}.",
            "clarify",
            [act(micro, oven + "set_cooking_time", target_cooking_time=seconds), act(micro, oven + "start")],
            clarification=Clarification(
                slot="value", reply=f"{spoken}.", accepts=["how long", "minutes", "seconds", "time", "what"]
            ),
            intended_query=f"Warm my lunch up in the {s.name(micro)} for {seconds} seconds.",
        )
    if kind == "oven":
        oven = s.pick(s.of("oven", where=lambda d: s.value(d, "work_state") == "stopped"))
        temp = s.pick([t for t in (160, 180, 200, 220, 240) if t != s.value(oven, "target_temperature")])
        return Draft(
            f"Preheat the {s.name(oven)}.",
            "clarify",
            [act(oven, "set_target_temperature", target_temperature=temp), act(oven, "start")],
            clarification=Clarification(
                slot="value", reply=f"{temp} degrees.", accepts=["temperature", "degrees", "°", "how hot", "what"]
            ),
            intended_query=f"Preheat the {s.name(oven)} to {temp} degrees.",
        )
    heater = s.pick(s.of("water_heater", where=lambda d: s.value(d, "heating_state") == "idle"))
    mode, temp = s.pick(["manual", "timed"]), s.pick([50, 55, 60, 65])
    quantity = s.pick([q for q in (60, 80, 100) if q > s.value(heater, "water_quantity")])  # see smh/heating.py
    return Draft(
        f"Heat up some water on the {s.name(heater)}.",
        "clarify",
        [act(heater, "start_heating", work_mode=mode, target_water_quantity=quantity, target_water_temperature=temp)],
        clarification=Clarification(
            slot="value",
            reply=f"{mode.capitalize()} mode, {quantity} percent of the tank, at {temp} degrees.",
            accepts=["temperature", "degrees", "how much", "quantity", "mode", "what"],
        ),
        intended_query=f"Heat {quantity} percent of the tank on the {s.name(heater)} to {temp} degrees in {mode} mode.",
    )


def slot_missing(s: Scene) -> Draft:
    kind = s.rng.random()
    if kind >= 0.7:
        return _appliance_slot_missing(
            s, "oven" if kind >= 0.9 else "microwave_oven" if kind >= 0.8 else "water_heater"
        )
    if kind < 0.35:
        acs = s.of("air_conditioner", where=lambda d: s.value(d, "state") == "on")
        ac = s.pick(acs)
        temp = s.pick([t for t in (20, 21, 22, 23, 24, 25, 26) if t != s.value(ac, "target_temperature")])
        return Draft(
            f"Change the temperature on the {s.name(ac)}.",
            "clarify",
            [act(ac, "set_target_temperature", target_temperature=float(temp))],
            clarification=Clarification(
                slot="value", reply=f"{temp} degrees.", accepts=["temperature", "degrees", "°", "what", "which"]
            ),
            intended_query=f"Set the {s.name(ac)} to {temp} degrees.",
        )
    rooms = sorted({s.room_of(d) for d in s.of(*LIGHTS)})
    candidates = {r: s.of(*LIGHTS, room=r, where=lambda d: s.value(d, "state") == "off") for r in rooms}
    room = s.pick([r for r, lights in candidates.items() if len(lights) >= 2])  # ≥2 valid targets: must ask
    target = s.pick(candidates[room])
    noun = s.name(target)[len(s.room_names[room]) + 1 :]
    return Draft(
        f"Turn on the light in the {s.room_names[room]}.",
        "clarify",
        [act(target, "turn_on")],
        clarification=Clarification(slot="device", reply=f"The {noun}.", accepts=["which", "light", "lamp"]),
        intended_query=f"Turn on the {s.name(target)}.",
    )


TEMPLATES = {
    "state_ambiguity": (
        (
            ("climate_sensor", "air_conditioner"),
            ("climate_sensor", "air_conditioner"),
            ("climate_sensor", "air_conditioner"),
        ),
        state_ambiguity,
    ),
    "scene_ambiguity": ((("curtain", "on_off_light", "dimmable_light"), ("blind", "dimmable_light")), scene_ambiguity),
    "slot_missing": (
        (
            ("air_conditioner", "on_off_light", "dimmable_light", "color_temperature_light"),
            ("air_conditioner", "dimmable_light", "on_off_light"),
            ("oven", "water_heater", "microwave_oven"),
        ),
        slot_missing,
    ),
}
