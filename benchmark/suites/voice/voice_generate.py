"""Seeded generation of the voice suite (MIST-style spoken dialogues): same seed → byte-identical files.

Each episode gets its own home (rooms with several lights at named anchors, a kitchen occupancy sensor, a
washer and dryer) and one of the task families:

- spatial: "turn on the light next to me / in here / behind me / by the window", resolved from where the
  user stands (:mod:`benchmark.suites.voice.spatial`); half of them have a second turn from another place;
- temporal: "in N minutes …" (a one-off time trigger), "when I leave the kitchen …" (occupancy cleared in
  virtual time), "when the washer finishes, start the dryer" (an operational-state trigger), "every
  weekday at seven …" (a recurring cron, checked on seven mornings, the weekend included): gold via
  ``create_automation``, checked before and after the moment in virtual time;
- clarify: "turn on the light" with several in the room, "dim the light in here" without a level: the
  assistant must ask; the user answers by voice;
- home_systems (only when named, never in "all"): "when I press the button by the front door turn on the hallway
  light", "if the kitchen leak sensor gets wet close the main water valve" — the home gains a button, a leak
  sensor and the main valve; the world presses / wets them in virtual time.

Every reference is resolved when generated and only unambiguous ones are kept (else another draw).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any, cast

from benchmark.suites.voice.spatial import Placed, Reference, Unresolved, resolve
from benchmark.suites.voice.voice_episode import (
    OPT_IN_TASK_TYPES,
    TASK_TYPES,
    StateCheck,
    TaskType,
    ToolCall,
    VoiceEpisode,
    VoiceTurn,
    WorldEvent,
)
from benchmark.suites.voice.voices import seeded_rng
from emulator.clock import TIME_FORMAT
from emulator.home_config import HomeConfig, validate_home
from emulator.placement import PLACEMENT_KEY, DevicePlacement, UserPosition

MAX_PER_TYPE = 999
MAX_DRAWS = 200
ON, LEVEL, OCCUPANCY, OPSTATE = (
    "1.OnOff.OnOff",
    "1.LevelControl.CurrentLevel",
    "1.OccupancySensing.Occupancy",
    "1.OperationalState.OperationalState",
)
RUNNING, STOPPED = 1, 0
ENVIRONMENT = {"temperature": 2100, "humidity": 4500, "illuminance": 150, "pm10": 12}
# room id → (width, depth) in metres (as benchmark.suites.voice.room_acoustics sizes them), lights, anchors
ROOMS: dict[str, tuple[float, float, int, tuple[str, ...]]] = {
    "living_room": (
        6.0,
        4.5,
        3,
        ("by the window", "next to the sofa", "by the bookshelf", "next to the TV", "by the door"),
    ),
    "bedroom": (4.0, 3.5, 2, ("by the bed", "by the window", "next to the wardrobe", "by the desk")),
    "kitchen": (4.0, 3.5, 2, ("over the counter", "by the window", "over the table", "by the fridge")),
    "hallway": (5.0, 1.6, 1, ("by the front door",)),
    "office": (3.5, 3.0, 1, ("on the desk",)),
    "utility_room": (3.0, 2.5, 0, ()),
}
SPOKEN_ROOM = {room: room.replace("_", " ") for room in ROOMS}
NUMBERS = {5: "five", 10: "ten", 15: "fifteen", 20: "twenty", 30: "thirty", 40: "forty", 60: "sixty"}


class VoiceGenerationError(ValueError):
    """Bad generator arguments (count out of range, unknown task type)."""


# --- tool calls --------------------------------------------------------------------------------------------


def command(device_id: str, cluster: str, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"device_id": device_id, "endpoint_id": 1, "cluster_id": cluster, "command_id": name, "args": args or {}}


def run_command(device_id: str, cluster: str, name: str, args: dict[str, Any] | None = None) -> ToolCall:
    return ToolCall(tool="execute_command", args=command(device_id, cluster, name, args))


def percent_level(percent: int) -> int:
    """Matter CurrentLevel (1..254) for a brightness in percent."""
    return max(1, round(percent * 254 / 100))


def dim_to(device_id: str, percent: int) -> ToolCall:
    return run_command(
        device_id,
        "LevelControl",
        "MoveToLevelWithOnOff",
        {"level": percent_level(percent), "transitionTime": 0, "optionsMask": 0, "optionsOverride": 0},
    )


def automation(name: str, trigger: dict[str, Any], steps: list[ToolCall]) -> ToolCall:
    return ToolCall(
        tool="create_automation",
        args={"name": name, "trigger": trigger, "actions": [{"tool": step.tool, "args": step.args} for step in steps]},
    )


def once_cron(when: datetime) -> str:
    return f"{when.second} {when.minute} {when.hour} {when.day} {when.month} ? {when.year}"


# --- the home ----------------------------------------------------------------------------------------------


def _spot(rng: random.Random, room: str) -> tuple[float, float]:
    width, depth, *_ = ROOMS[room]
    return round(rng.uniform(0.3, width - 0.3), 1), round(rng.uniform(0.3, depth - 0.3), 1)


def build_home(seed: int, rng: random.Random) -> HomeConfig:
    """Lights at distinct anchors in every room (some on, some off), a living-room TV, a kitchen occupancy
    sensor (someone is there), a washer and a dryer; the base time is a seeded evening."""
    devices: list[dict[str, Any]] = []
    placement: dict[str, dict[str, Any]] = {}
    for room, (_w, _d, lights, anchors) in ROOMS.items():
        for index, anchor in enumerate(rng.sample(anchors, lights), start=1):
            device_id = f"{room}_light_{index}"
            on = rng.random() < 0.5
            devices.append(
                {
                    "id": device_id,
                    "type": "dimmable_light",
                    "room": room,
                    "attributes": {ON: on, LEVEL: rng.choice((127, 190, 254))},
                }
            )
            x, y = _spot(rng, room)
            placement[device_id] = {"x": x, "y": y, "anchor": anchor}
    devices += [
        {"id": "living_room_tv", "type": "tv", "room": "living_room", "attributes": {ON: rng.random() < 0.3}},
        {"id": "kitchen_occupancy", "type": "occupancy_sensor", "room": "kitchen", "attributes": {OCCUPANCY: 1}},
        {"id": "washer", "type": "laundry_washer", "room": "utility_room"},
        {"id": "dryer", "type": "laundry_dryer", "room": "utility_room"},
    ]
    base = datetime(2026, 3, 2) + timedelta(
        days=rng.randrange(5), hours=rng.randrange(17, 21), minutes=rng.randrange(0, 60, 5)
    )
    rooms = [
        {"id": room, "name": SPOKEN_ROOM[room].title(), "type": room, "environment": ENVIRONMENT} for room in ROOMS
    ]
    return validate_home(
        {
            "name": f"voice home {seed}",
            "seed": seed,
            "base_time": base.strftime(TIME_FORMAT),
            "rooms": rooms,
            "devices": devices,
            "extensions": {PLACEMENT_KEY: {"devices": placement}},
        },
        f"<voice home {seed}>",
    )


def lights(home: HomeConfig) -> list[Placed]:
    where = home.extensions[PLACEMENT_KEY]["devices"]
    return [Placed(d.id, d.room, DevicePlacement(**where[d.id])) for d in home.devices if d.type == "dimmable_light"]


def light_state(home: HomeConfig, device_id: str) -> tuple[bool, int]:
    attributes = home.device(device_id).attributes
    return bool(attributes[ON]), int(attributes[LEVEL])


def random_position(rng: random.Random, room: str) -> UserPosition:
    x, y = _spot(rng, room)
    return UserPosition(room=room, x=x, y=y, facing_deg=float(rng.randrange(0, 360, 15)))


def preserve_others(home: HomeConfig, changed: set[str]) -> list[StateCheck]:
    """Every light the user did not mean keeps its on/off state and level."""
    out = []
    for placed in lights(home):
        if placed.device_id not in changed:
            on, level = light_state(home, placed.device_id)
            out += [
                StateCheck(device_id=placed.device_id, path=ON, value=on),
                StateCheck(device_id=placed.device_id, path=LEVEL, value=level),
            ]
    return out


# --- spatial ------------------------------------------------------------------------------------------------

PHRASES: dict[str, str] = {
    "next_to_me": "the light next to me",
    "in_here": "the light in here",
    "behind_me": "the light behind me",
    "anchor": "the light {anchor}",
}


def spatial_request(
    home: HomeConfig, reference: Reference, position: UserPosition, rng: random.Random, anchor: str | None = None
) -> tuple[str, list[ToolCall], list[StateCheck], str]:
    """The utterance, gold calls and checks of one spatial request from ``position``; Unresolved when the
    reference does not pick out exactly one light there."""
    target = resolve(reference, position, lights(home), anchor)
    on, _level = light_state(home, target)
    phrase = PHRASES[reference].format(anchor=anchor)
    if on and rng.random() < 0.4:
        percent = rng.choice((10, 20, 30, 40, 60))
        return (
            f"dim {phrase} to {NUMBERS[percent]} percent",
            [dim_to(target, percent)],
            [
                StateCheck(device_id=target, path=ON, value=True),
                StateCheck(device_id=target, path=LEVEL, value=percent_level(percent)),
            ],
            target,
        )
    verb, wanted = ("turn off", False) if on else ("turn on", True)
    return (
        f"{verb} {phrase}",
        [run_command(target, "OnOff", "On" if wanted else "Off")],
        [StateCheck(device_id=target, path=ON, value=wanted)],
        target,
    )


def _spatial_turn(
    home: HomeConfig, rng: random.Random, exclude: set[str]
) -> tuple[VoiceTurn, list[StateCheck], str] | None:
    reference: Reference = rng.choice(("next_to_me", "in_here", "behind_me", "anchor"))
    # "in here" is only unambiguous in a one-light room; the others are asked where several lights are
    rooms = [r for r, spec in ROOMS.items() if (spec[2] == 1 if reference == "in_here" else spec[2] > 1)]
    room = rng.choice(rooms)
    position = random_position(rng, room)
    anchor = None
    if reference == "anchor":
        anchor = rng.choice([p.where.anchor for p in lights(home) if p.room == room])
    try:
        text, gold, checks, target = spatial_request(home, reference, position, rng, anchor)
    except Unresolved:
        return None
    if target in exclude:
        return None
    polite = rng.choice(("", "please ", "could you "))
    return VoiceTurn(text=f"{polite}{text}", position=position, act="execute", gold=gold), checks, target


def spatial_episode(seed: int, rng: random.Random, home: HomeConfig) -> dict[str, Any] | None:
    first = _spatial_turn(home, rng, set())
    if first is None:
        return None
    turns, checks, targets = [first[0]], list(first[1]), {first[2]}
    if rng.random() < 0.5:  # a second request, from wherever the user is now
        second = next((t for t in (_spatial_turn(home, rng, targets) for _ in range(20)) if t is not None), None)
        if second is None:
            return None
        turns.append(second[0].model_copy(update={"text": "and " + second[0].text}))
        checks += second[1]
        targets.add(second[2])
    return {
        "variant": "two_requests" if len(turns) > 1 else "one_request",
        "turns": turns,
        "checks": checks,
        "preserve": preserve_others(home, targets),
    }


# --- temporal -----------------------------------------------------------------------------------------------


def _single_light(home: HomeConfig, room: str) -> str:
    [light] = [p.device_id for p in lights(home) if p.room == room]
    return light


def temporal_episode(seed: int, rng: random.Random, home: HomeConfig) -> dict[str, Any] | None:
    variant = rng.choice(("delay", "leave_room", "washer_done", "weekday_routine"))
    base = datetime.strptime(home.base_time, TIME_FORMAT)
    if variant == "weekday_routine":
        return weekday_routine(rng, home, base)
    if variant == "delay":
        room = rng.choice(("hallway", "office"))
        light = _single_light(home, room)
        minutes = rng.choice((5, 10, 15, 20, 30))
        on, _ = light_state(home, light)
        verb, command_name = ("turn off", "Off") if on else ("turn on", "On")
        position = random_position(rng, room)
        step = run_command(light, "OnOff", command_name)
        trigger: dict[str, Any] = {"type": "time", "cron": once_cron(base + timedelta(minutes=minutes))}
        turn = VoiceTurn(
            text=f"in {NUMBERS[minutes]} minutes {verb} the light in here",
            position=position,
            act="execute",
            gold=[automation(f"{verb} {room} light", trigger, [step])],
        )
        at = minutes * 60
        checks = [
            StateCheck(device_id=light, path=ON, value=on, at_s=at - 30),
            StateCheck(device_id=light, path=ON, value=not on, at_s=at + 30),
        ]
        return {
            "variant": variant,
            "turns": [turn],
            "checks": checks,
            "preserve": preserve_others(home, {light}),
            "horizon_s": at + 60,
        }
    if variant == "leave_room":
        kitchen = [p.device_id for p in lights(home) if p.room == "kitchen"]
        on_now = [light for light in kitchen if light_state(home, light)[0]]
        if not on_now:
            return None
        leave_at = rng.choice((120, 300, 600))
        steps = [run_command(light, "OnOff", "Off") for light in on_now]
        trigger = {
            "type": "state",
            "condition": {
                "device_id": "kitchen_occupancy",
                "endpoint_id": 1,
                "cluster_id": "OccupancySensing",
                "attribute_id": "Occupancy",
                "operator": "==",
                "value": 0,
            },
        }
        phrase = "the lights in here" if len(on_now) > 1 else "the light in here"
        turn = VoiceTurn(
            text=f"when I leave the kitchen turn off {phrase}",
            position=random_position(rng, "kitchen"),
            act="execute",
            gold=[automation("kitchen lights off when empty", trigger, steps)],
        )
        checks = [
            StateCheck(device_id=light, path=ON, value=value, at_s=at)
            for light in on_now
            for value, at in ((True, leave_at - 60), (False, leave_at + 120))
        ]
        return {
            "variant": variant,
            "turns": [turn],
            "checks": checks,
            "preserve": preserve_others(home, set(on_now)),
            "events": [WorldEvent(at_s=leave_at, kind="leave_room", room="kitchen", device_id="kitchen_occupancy")],
            "horizon_s": leave_at + 180,
        }
    trigger = {
        "type": "state",
        "condition": {
            "device_id": "washer",
            "endpoint_id": 1,
            "cluster_id": "OperationalState",
            "attribute_id": "OperationalState",
            "operator": "==",
            "value": STOPPED,
        },
    }
    steps = [run_command("dryer", "OnOff", "On"), run_command("dryer", "OperationalState", "Start")]
    wording = rng.choice(
        ("when the washer finishes start the dryer", "after the washing machine is done start the dryer")
    )
    turn = VoiceTurn(
        text=wording,
        position=random_position(rng, rng.choice(("utility_room", "kitchen"))),
        act="execute",
        gold=[automation("dryer after washer", trigger, steps)],
    )
    checks = [
        StateCheck(device_id="dryer", path=OPSTATE, value=STOPPED, at_s=WASHER_CYCLE_S - 300),
        StateCheck(device_id="dryer", path=OPSTATE, value=RUNNING, at_s=WASHER_CYCLE_S + 120),
    ]
    return {
        "variant": variant,
        "turns": [turn],
        "checks": checks,
        "preserve": preserve_others(home, set()),
        "setup": [run_command("washer", "OnOff", "On"), run_command("washer", "OperationalState", "Start")],
        "horizon_s": WASHER_CYCLE_S + 180,
    }


def weekday_routine(rng: random.Random, home: HomeConfig, base: datetime) -> dict[str, Any]:
    """ "Every weekday at seven turn on the light in here": a recurring cron; the user switches the light off
    at eight each morning, so each of the next seven mornings shows whether the rule fired that day."""
    room = rng.choice(("hallway", "office"))
    light = _single_light(home, room)
    hour = rng.choice((6, 7))
    trigger = {"type": "time", "cron": f"0 0 {hour} ? * MON-FRI *"}
    turn = VoiceTurn(
        text=f"every weekday at {'six' if hour == 6 else 'seven'} in the morning turn on the light in here",
        position=random_position(rng, room),
        act="execute",
        gold=[automation(f"weekday {room} light", trigger, [run_command(light, "OnOff", "On")])],
    )
    mornings = [(base + timedelta(days=day)).replace(hour=hour, minute=0, second=0) for day in range(1, 8)]
    events = [WorldEvent(at_s=0, kind="switch_off", room=room, device_id=light)]  # the user leaves it off now
    checks = []
    for morning in mornings:
        at = (morning - base).total_seconds()
        checks.append(StateCheck(device_id=light, path=ON, value=morning.weekday() < 5, at_s=at + 60))
        events.append(WorldEvent(at_s=at + 3600, kind="switch_off", room=room, device_id=light))
    return {
        "variant": "weekday_routine",
        "turns": [turn],
        "checks": checks,
        "events": events,
        "preserve": preserve_others(home, {light}),
        "horizon_s": (mornings[-1] - base).total_seconds() + 7200,
    }


WASHER_CYCLE_S = 3600  # the emulated washer's programme length (emulator: Pre-wash … Spin, 60 min)


# --- clarify ------------------------------------------------------------------------------------------------


def clarify_episode(seed: int, rng: random.Random, home: HomeConfig) -> dict[str, Any] | None:
    if rng.random() < 0.5:
        room = rng.choice(("living_room", "bedroom", "kitchen"))
        here = [p for p in lights(home) if p.room == room]
        target = rng.choice(here)
        on, _ = light_state(home, target.device_id)
        verb = "turn off" if on else "turn on"
        turn = VoiceTurn(
            text=f"{verb} the light",
            position=random_position(rng, room),
            act="clarify",
            question=f"There are {len(here)} lights in the {SPOKEN_ROOM[room]}: which one do you mean?",
            reply=f"the one {target.where.anchor}",
            gold=[run_command(target.device_id, "OnOff", "Off" if on else "On")],
        )
        checks = [StateCheck(device_id=target.device_id, path=ON, value=not on)]
        return {
            "variant": "which_device",
            "turns": [turn],
            "checks": checks,
            "preserve": preserve_others(home, {target.device_id}),
        }
    room = rng.choice(("hallway", "office"))
    light = _single_light(home, room)
    percent = rng.choice((10, 20, 30, 40, 60))
    turn = VoiceTurn(
        text="dim the light in here",
        position=random_position(rng, room),
        act="clarify",
        question="How bright should it be, in percent?",
        reply=f"to {NUMBERS[percent]} percent",
        gold=[dim_to(light, percent)],
    )
    checks = [
        StateCheck(device_id=light, path=ON, value=True),
        StateCheck(device_id=light, path=LEVEL, value=percent_level(percent)),
    ]
    return {"variant": "missing_level", "turns": [turn], "checks": checks, "preserve": preserve_others(home, {light})}


# --- home systems (opt-in) -----------------------------------------------------------------------------------

BUTTON, LEAK, VALVE = "hallway_button", "kitchen_leak_sensor", "main_water_valve"
SWITCH_POSITION, LEAK_STATE, VALVE_STATE = (
    "1.Switch.CurrentPosition",
    "1.BooleanState.StateValue",
    "1.ValveConfigurationAndControl.CurrentState",
)
VALVE_OPEN, VALVE_CLOSED = 1, 0


def with_home_systems(home: HomeConfig) -> HomeConfig:
    """The voice home plus a button by the front door, a leak sensor under the kitchen sink and the main water
    valve (open) in the utility room — only for home-systems episodes, so the other types' homes stay as they were."""
    data = home.model_dump(mode="json", exclude_none=True)
    data["devices"] += [
        {"id": BUTTON, "type": "generic_switch", "room": "hallway"},
        {"id": LEAK, "type": "water_leak_detector", "room": "kitchen"},
        {"id": VALVE, "type": "water_valve", "room": "utility_room", "attributes": {VALVE_STATE: VALVE_OPEN}},
    ]
    return validate_home(data, f"<voice home {home.seed} with home systems>")


def _state_trigger(device_id: str, path: str, value: Any) -> dict[str, Any]:
    _endpoint, cluster, attribute = path.split(".")
    return {
        "type": "state",
        "condition": {
            "device_id": device_id,
            "endpoint_id": 1,
            "cluster_id": cluster,
            "attribute_id": attribute,
            "operator": "==",
            "value": value,
        },
    }


def home_systems_episode(seed: int, rng: random.Random, home: HomeConfig) -> dict[str, Any] | None:
    """ "When I press the button by the front door turn on the hallway light" (off when it starts on) or "if the
    kitchen leak sensor gets wet close the main water valve": a state-triggered rule, checked before and after
    the world presses the button / wets the sensor in virtual time."""
    variant = rng.choice(("button_light", "leak_valve"))
    at = rng.choice((120, 300, 600))
    before: Any
    after: Any
    if variant == "button_light":
        light = _single_light(home, "hallway")
        on = light_state(home, light)[0]  # the press switches it the other way, so the checks see the rule act
        verb, command_name = ("off", "Off") if on else ("on", "On")
        wording = rng.choice(
            (
                f"when I press the button by the front door turn {verb} the hallway light",
                f"make the hallway button switch the light {verb} out here",
            )
        )
        step = run_command(light, "OnOff", command_name)
        rule = automation(f"hallway button light {verb}", _state_trigger(BUTTON, SWITCH_POSITION, 1), [step])
        where, target, path, before, after = "hallway", light, ON, on, not on
        event = WorldEvent(at_s=at, kind="press_button", room="hallway", device_id=BUTTON)
    else:
        wording = rng.choice(
            (
                "if the leak sensor in the kitchen gets wet close the main water valve",
                "shut off the water at the main valve whenever the kitchen leak sensor detects water",
            )
        )
        step = run_command(VALVE, "ValveConfigurationAndControl", "Close")
        rule = automation("kitchen leak closes main valve", _state_trigger(LEAK, LEAK_STATE, True), [step])
        where, target, path, before, after = (
            rng.choice(("kitchen", "utility_room")),
            VALVE,
            VALVE_STATE,
            VALVE_OPEN,
            VALVE_CLOSED,
        )
        event = WorldEvent(at_s=at, kind="sense_water", room="kitchen", device_id=LEAK)
    turn = VoiceTurn(text=wording, position=random_position(rng, where), act="execute", gold=[rule])
    return {
        "variant": variant,
        "home": with_home_systems(home),
        "turns": [turn],
        "checks": [
            StateCheck(device_id=target, path=path, value=before, at_s=at - 60),
            StateCheck(device_id=target, path=path, value=after, at_s=at + 60),
        ],
        "preserve": preserve_others(home, {target}),
        "events": [event],
        "horizon_s": at + 120,
    }


BUILDERS = {
    "spatial": spatial_episode,
    "temporal": temporal_episode,
    "clarify": clarify_episode,
    "home_systems": home_systems_episode,
}


def generate_voice_episode(task_type: str, seed: int) -> VoiceEpisode:
    """One episode; each draw is seeded by (seed, type, draw), so a redraw is deterministic too."""
    for draw in range(MAX_DRAWS):
        rng = seeded_rng("voice", task_type, seed, draw)
        home = build_home(seed, rng)
        body = BUILDERS[task_type](seed, rng, home)
        if body is not None:
            return VoiceEpisode(
                episode_id=f"voice_{task_type}_seed_{seed}",
                seed=seed,
                task_type=cast(TaskType, task_type),
                **{"home": home, **body},  # a type may extend its home (home_systems)
            )
    raise RuntimeError(f"voice {task_type} seed {seed}: no episode after {MAX_DRAWS} draws")


def parse_task_types(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    if names == ["all"] or not names:
        return list(TASK_TYPES)
    known = TASK_TYPES + OPT_IN_TASK_TYPES
    unknown = [n for n in names if n not in known]
    if unknown:
        raise VoiceGenerationError(f"unknown voice task type(s) {unknown}; allowed: all, {', '.join(known)}")
    return [t for t in known if t in names]


def generate_voice_episodes(per_type: int, seed: int, task_types: str = "all") -> list[VoiceEpisode]:
    """``per_type`` episodes of each task type; episode n of a run with seed s has seed s·1000 + n."""
    if not 1 <= per_type <= MAX_PER_TYPE:
        raise VoiceGenerationError(f"per_type must be 1..{MAX_PER_TYPE}, got {per_type}")
    return [
        generate_voice_episode(task_type, seed * 1000 + index)
        for task_type in parse_task_types(task_types)
        for index in range(1, per_type + 1)
    ]
