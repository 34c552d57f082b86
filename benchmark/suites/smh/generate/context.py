"""TC5 multi-turn context and TC6 personalised memory. The history's executed actions are the instance's
``setup`` (H0 is the home after them), with each changed value's prior recorded for corrections."""

from __future__ import annotations

from agent_tools.smh.rules import Action
from benchmark.suites.smh.generate.core import Draft, Rejected, Scene, act
from benchmark.suites.smh.generate.homes import DIMMABLE
from benchmark.suites.smh.generate.ops import clear_ops
from benchmark.suites.smh.instance import Memory, Turn


def _history(s: Scene, text: str, actions: list[Action], priors: dict[str, object]) -> list[Turn]:
    return [Turn(role="user", text=text), Turn(role="assistant", text="Done.", actions=actions, prior_values=priors)]


def _on_acs(s: Scene) -> list[str]:
    return s.of("air_conditioner", where=lambda d: s.value(d, "state") == "on")


def context_continuation(s: Scene) -> Draft:
    ac = s.pick(_on_acs(s))
    temp = s.pick([t for t in (21.0, 22.0, 23.0, 24.0) if t != s.value(ac, "target_temperature")])
    first = act(ac, "set_target_temperature", target_temperature=temp)
    mode = s.pick([m for m in ("dry", "fan_only", "cool") if m != s.value(ac, "ac_mode")])
    history = _history(
        s,
        f"Set the {s.name(ac)} to {temp:g} degrees.",
        [first],
        {f"{ac}/target_temperature": s.value(ac, "target_temperature")},
    )
    return Draft(
        f"And make it {mode.replace('_', ' ')} mode.",
        "execute",
        [act(ac, "set_ac_mode", ac_mode=mode)],
        setup=[first],
        history=history,
    )


def topic_shift(s: Scene) -> Draft:
    lamp = s.pick(s.of(*DIMMABLE, where=lambda d: s.value(d, "state") == "on"))
    level = s.pick([b for b in (20, 40, 60) if b != s.value(lamp, "brightness")])
    first = act(lamp, "set_brightness", brightness=level)
    others = [d for d in s.of("door_lock", "curtain", "blind", "rvc") if clear_ops(s, d)]
    phrase, action = s.pick([op for d in others for op in clear_ops(s, d)])
    history = _history(
        s, f"Dim the {s.name(lamp)} to {level} percent.", [first], {f"{lamp}/brightness": s.value(lamp, "brightness")}
    )
    return Draft(f"Thanks. Now {phrase}.", "execute", [action], setup=[first], history=history)


def coreference(s: Scene) -> Draft:
    fan_lights = s.of("fan_light", where=lambda d: s.value(d, "fan.speed_level") != "high")
    if fan_lights and s.rng.random() < 0.6:
        d = s.pick(fan_lights)
        first = act(d, "light.turn_on")
        actions = ([act(d, "fan.turn_on")] if s.value(d, "fan.state") == "off" else []) + [
            act(d, "fan.set_speed_level", speed_level="high")
        ]
        history = _history(
            s, f"Switch on the light of the {s.name(d)}.", [first], {f"{d}/light.state": s.value(d, "light.state")}
        )
        return Draft("Spin its fan as fast as it goes.", "execute", actions, setup=[first], history=history)
    speaker = s.pick(s.of("smart_speaker", "smart_screen", "tv"))
    setup = [] if s.value(speaker, "player.state") == "on" else [act(speaker, "player.turn_on")]
    setup.append(act(speaker, "player.play"))
    volume = s.pick([v for v in (30, 50, 70) if v != s.value(speaker, "player.volume_level")])
    history = _history(
        s,
        f"Play some music on the {s.name(speaker)}.",
        setup,
        {f"{speaker}/player.work_state": s.value(speaker, "player.work_state")},
    )
    return Draft(
        f"Turn it to {volume}.",
        "execute",
        [act(speaker, "player.set_volume", volume_level=volume)],
        setup=setup,
        history=history,
    )


def user_correction(s: Scene) -> Draft:
    acs = _on_acs(s)
    wrong, right = s.sample(acs, 2)
    temp = s.pick(
        [
            t
            for t in (19.0, 24.0, 26.0, 27.0)
            if t not in (s.value(wrong, "target_temperature"), s.value(right, "target_temperature"))
        ]
    )
    first = act(wrong, "set_target_temperature", target_temperature=temp)
    before = s.value(wrong, "target_temperature")
    history = _history(s, f"Set the {s.name(wrong)} to {temp:g}.", [first], {f"{wrong}/target_temperature": before})
    room = s.room_names[s.room_of(wrong)]
    return Draft(
        f"No, I meant the {s.name(right)}; leave the {room} one as it was.",
        "execute",
        [
            act(wrong, "set_target_temperature", target_temperature=before),
            act(right, "set_target_temperature", target_temperature=temp),
        ],
        setup=[first],
        history=history,
    )


def short_term_memory(s: Scene) -> Draft:
    lamps = s.of(*DIMMABLE, where=lambda d: s.value(d, "state") == "on")
    earlier, target = s.sample(lamps, 2)
    level = s.pick(
        [
            b
            for b in (25, 35, 45, 55, 65, 75)
            if b not in (s.value(earlier, "brightness"), s.value(target, "brightness"))
        ]
    )
    memory = Memory(
        short_term=[
            f"18:10 — set the {s.name(earlier)} to {level} percent brightness (it was changed again since).",
            "18:40 — the user asked about the weather.",
        ]
    )
    return Draft(
        f"Give the {s.name(target)} the same brightness you gave the {s.name(earlier)} earlier.",
        "execute",
        [act(target, "set_brightness", brightness=level)],
        memory=memory,
    )


def long_term_memory(s: Scene) -> Draft:
    fans = s.of("fan", where=lambda d: s.value(d, "speed_level") != "high")
    speakers = s.of("smart_speaker")
    if not fans or not speakers:
        raise Rejected("needs a fan and a speaker")
    fan, speaker = s.pick(fans), s.pick(speakers)
    volume = s.pick([v for v in (40, 60, 80) if v != s.value(speaker, "player.volume_level")])
    key = s.pick(["workout", "cardio", "training"])
    actions = ([act(fan, "turn_on")] if s.value(fan, "state") == "off" else []) + [
        act(fan, "set_speed_level", speed_level="high")
    ]
    actions += ([act(speaker, "player.turn_on")] if s.value(speaker, "player.state") == "off" else []) + [
        act(speaker, "player.set_volume", volume_level=volume)
    ]
    memory = Memory(
        long_term={
            key: f"{s.name(fan)} on high; {s.name(speaker)} on at volume {volume}",
            "reading": "reading lamps at 2700 K",
            "away": "lock every door",
        }
    )
    return Draft(s.pick([f"{key.capitalize()} time.", f"Set me up for {key}."]), "execute", actions, memory=memory)


TEMPLATES = {
    "context_continuation": ((("air_conditioner",),), context_continuation),
    "topic_shift": ((("dimmable_light", "door_lock"), ("curtain",)), topic_shift),
    "coreference": ((("fan_light", "smart_speaker"),), coreference),
    "user_correction": ((("air_conditioner",), ("air_conditioner",), ("air_conditioner",)), user_correction),
    "short_term_memory": (
        (("dimmable_light",), ("dimmable_light",), ("color_temperature_light",), ("dimmable_light",)),
        short_term_memory,
    ),
    "long_term_memory": ((("fan", "smart_speaker"),), long_term_memory),
}
