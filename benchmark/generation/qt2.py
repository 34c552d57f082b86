"""qt2 — implicit intent: a complaint about a room condition, never naming the action.

Feasibility is decided by simulation on the exported home, not by heuristics: every relevant device in
the room is driven as hard as it can go in the asked direction (the strongest control there is), and the
room is compared with a no-action run after ``HORIZON_S``. Feasible goals move by at least a meaningful
``THRESHOLD``; saturated ones do not move at all; nonexistence rooms have no device able to act.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from benchmark.generation.episode_layout import Draft, GenerationFailed, Mentions, dedupe_actions, room_devices_action
from benchmark.generation.grammar import finish, join, pick, room_name
from benchmark.generation.homes import EpisodeHome, build_home, home_config, without_devices
from benchmark.generation.targets import OFF, ON, Step
from benchmark.scoring.evaluators.state_comparison import EvalSettings
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.home_generation.seeds import sub_seed

# The evaluator's own horizon and thresholds: a goal is generated as feasible only if it can pass the
# very check that will grade it (one source of truth, benchmark/scoring/evaluators/state_comparison.py).
HORIZON_S = EvalSettings().qt2_horizon_s
THRESHOLD = EvalSettings().qt2_thresholds  # internal units
SATURATION_EPS = 1e-6
DIRECTIONS = (
    ("temperature", "decrease"),
    ("temperature", "increase"),
    ("humidity", "decrease"),
    ("humidity", "increase"),
    ("illuminance", "decrease"),
    ("illuminance", "increase"),
    ("pm10", "decrease"),
)
# Devices that can act on a variable (either way); nonexistence removes all of them from the room.
ACTORS = {
    "temperature": ("air_conditioner", "heat_pump", "fan"),
    "humidity": ("humidifier", "dehumidifier"),
    "illuminance": ("on_off_light", "dimmable_light", "window_covering_controller"),
    "pm10": ("air_purifier",),
}
# Devices that push in the asked direction (needed for a saturation case: they exist but are maxed out).
PUSHERS = {
    ("temperature", "decrease"): ("air_conditioner", "heat_pump", "fan"),
    ("temperature", "increase"): ("air_conditioner", "heat_pump"),
    ("humidity", "decrease"): ("dehumidifier",),
    ("humidity", "increase"): ("humidifier",),
    ("illuminance", "decrease"): ("on_off_light", "dimmable_light", "window_covering_controller"),
    ("illuminance", "increase"): ("on_off_light", "dimmable_light", "window_covering_controller"),
    ("pm10", "decrease"): ("air_purifier",),
}
# The device type a nonexistence goal names when the room never had one.
NAMED_TYPE = {
    ("temperature", "decrease"): "air_conditioner",
    ("temperature", "increase"): "heat_pump",
    ("humidity", "decrease"): "dehumidifier",
    ("humidity", "increase"): "humidifier",
    ("illuminance", "decrease"): "on_off_light",
    ("illuminance", "increase"): "on_off_light",
    ("pm10", "decrease"): "air_purifier",
}


def _plausible(variable: str, direction: str, value: float) -> bool:
    """Would someone complain about this? (internal units)"""
    bounds = {
        ("temperature", "decrease"): value > 2400,
        ("temperature", "increase"): value < 2600,
        ("humidity", "decrease"): value > 4500,
        ("humidity", "increase"): value < 5500,
        ("illuminance", "decrease"): value > 300,
        ("illuminance", "increase"): value < 600,
        ("pm10", "decrease"): value > 15,
    }
    return bounds[(variable, direction)]


COMPLAINTS: dict[tuple[str, str], tuple[str, ...]] = {
    ("temperature", "decrease"): (
        "it's (like a sauna|boiling|way too hot|so stuffy and hot) in the {room}",
        "I'm (sweating|melting|dying of heat) in the {room}",
        "the {room} is (roasting|baking|sweltering) (today|right now)",
        "(ugh|man), the {room} feels like an oven",
        "I can't cool down at all in the {room}",
    ),
    ("temperature", "increase"): (
        "I'm (freezing|shivering) in the {room}",
        "the {room} is (way too|really|so) (cold|chilly)",
        "my hands are (ice cold|numb) in the {room}",
        "(brr|ugh), it's (frosty|icy) in the {room}",
    ),
    ("humidity", "decrease"): (
        "the {room} feels (sticky|muggy|damp|clammy)",
        "everything in the {room} feels damp",
        "the air in the {room} is so (muggy|heavy|sticky)",
        "it's like a swamp in the {room}",
    ),
    ("humidity", "increase"): (
        "the air in the {room} is (so|really|too) dry",
        "my skin feels (so|really|super) dry in the {room}",
        "my throat gets scratchy in the {room}, the air is (parched|so dry)",
    ),
    ("illuminance", "decrease"): (
        "the {room} is (way too|so|painfully) bright",
        "the glare in the {room} is (killing me|hurting my eyes)",
        "it's (blinding|way too bright) in the {room}",
        "I have to squint in the {room}, it's so bright",
    ),
    ("illuminance", "increase"): (
        "it's (so|really|way too) (dark|dim|gloomy) in the {room}",
        "I can barely (read|see) anything in the {room}",
        "the {room} is (so|really) dim",
        "it's like a cave in the {room}",
    ),
    ("pm10", "decrease"): (
        "the air in the {room} (feels|seems) (dusty|stale|gross)",
        "I keep sneezing in the {room}",
        "the {room} smells (dusty|musty)",
        "(ugh|hmm), there's so much dust in the air in the {room}",
    ),
}


def push_steps(device_type: str, variable: str, direction: str) -> list[Step]:
    """The strongest push one device can give ``variable`` in ``direction`` (empty: it cannot act)."""
    down = direction == "decrease"
    if variable == "temperature":
        if device_type == "air_conditioner":
            if down:
                return [
                    ON,
                    Step("write", 1, "Thermostat", "SystemMode", value=3),
                    Step("write", 1, "Thermostat", "OccupiedCoolingSetpoint", value=1600),
                    Step("write", 1, "FanControl", "PercentSetting", value=100),
                ]
            return [
                ON,
                Step("write", 1, "Thermostat", "SystemMode", value=4),
                Step("write", 1, "Thermostat", "OccupiedHeatingSetpoint", value=3000),
                Step("write", 1, "FanControl", "PercentSetting", value=100),
            ]
        if device_type == "heat_pump":
            if down:
                return [
                    Step("write", 4, "Thermostat", "SystemMode", value=3),
                    Step("write", 4, "Thermostat", "OccupiedCoolingSetpoint", value=1600),
                ]
            return [
                Step("write", 4, "Thermostat", "SystemMode", value=4),
                Step("write", 4, "Thermostat", "OccupiedHeatingSetpoint", value=3000),
            ]
        if device_type == "fan":
            return [ON, Step("write", 1, "FanControl", "PercentSetting", value=100)] if down else [OFF]
    if variable == "humidity" and device_type in ("humidifier", "dehumidifier"):
        pushes = (device_type == "dehumidifier") == down
        return [ON, Step("write", 1, "FanControl", "PercentSetting", value=100)] if pushes else [OFF]
    if variable == "illuminance":
        if device_type == "on_off_light":
            return [OFF] if down else [ON]
        if device_type == "dimmable_light":
            return [OFF] if down else [ON, Step("invoke", 1, "LevelControl", "MoveToLevel", {"Level": 254})]
        if device_type == "window_covering_controller":
            return [
                Step("invoke", 1, "WindowCovering", "GoToLiftPercentage", {"lift_percent_100ths": 10000 if down else 0})
            ]
    if variable == "pm10" and device_type == "air_purifier" and down:
        return [ON, Step("write", 1, "FanControl", "PercentSetting", value=100)]
    return []


def drive(fabric: EmulatedHome, room_id: str, variable: str, direction: str) -> list[dict[str, Any]]:
    """Apply the strongest push of every device in the room; returns the tool calls that succeeded."""
    calls = []
    for device in fabric.devices(room_id):
        for step in push_steps(device.device_type, variable, direction):
            try:
                step.apply(fabric, device.device_id)
            except HomeError:
                continue
            calls.append(step.tool_call(device.device_id))
    return calls


def room_values(home: EpisodeHome, pushes: Iterable[tuple[str, str, str]]) -> tuple[EmulatedHome, list[dict[str, Any]]]:
    fabric = home.fabric()
    calls: list[dict[str, Any]] = []
    for room_id, variable, direction in pushes:
        calls += drive(fabric, room_id, variable, direction)
    fabric.advance(HORIZON_S)
    return fabric, calls


def effect(home: EpisodeHome, baseline: EmulatedHome, room_id: str, variable: str, direction: str) -> float:
    """How far the strongest push moves the variable in the asked direction, against doing nothing."""
    pushed, _ = room_values(home, [(room_id, variable, direction)])
    delta = pushed.room_state(room_id, exact=True)[variable] - baseline.room_state(room_id, exact=True)[variable]
    return delta if direction == "increase" else -delta


def _baseline(home: EpisodeHome) -> EmulatedHome:
    fabric = home.fabric()
    fabric.advance(HORIZON_S)
    return fabric


def _types_in(fabric: EmulatedHome, room_id: str) -> set[str]:
    return {d.device_type for d in fabric.devices(room_id)}


def _feasible_goals(
    home: EpisodeHome, rng: random.Random, count: int, *, avoid: Iterable[tuple[str, str]] = ()
) -> list[tuple[str, str, str, float]]:
    fabric = home.fabric()
    baseline = _baseline(home)
    avoided = set(avoid)
    candidates = []
    for room in fabric.rooms():
        state = fabric.room_state(room.room_id, exact=True)
        types = _types_in(fabric, room.room_id)
        for variable, direction in DIRECTIONS:
            if (room.room_id, variable) in avoided or not types & set(PUSHERS[(variable, direction)]):
                continue
            if _plausible(variable, direction, state[variable]):
                candidates.append((room.room_id, variable, direction))
    rng.shuffle(candidates)
    chosen: list[tuple[str, str, str, float]] = []
    for room_id, variable, direction in candidates:
        if any(c[0] == room_id and c[1] == variable for c in chosen):
            continue
        moved = effect(home, baseline, room_id, variable, direction)
        if moved >= THRESHOLD[variable]:
            chosen.append((room_id, variable, direction, moved))
            if len(chosen) == count:
                break
    if len(chosen) < count:
        raise GenerationFailed("not enough feasible qt2 goals in this home")
    return chosen


def _query(goals: list[tuple[str, str, str]], rng: random.Random) -> str:
    clauses = [
        pick(rng, COMPLAINTS[(variable, direction)], {"room": room_name(room_id)})
        for room_id, variable, direction in goals
    ]
    return finish(join(clauses, rng), rng)


def build(episode_seed: int, case: str, attempt: int, rng: random.Random, family: str | None = None) -> Draft:
    seed = sub_seed(episode_seed, "qt2", case, attempt)
    if case == "feasible":
        return _feasible(seed, rng)
    family = family or ("contextual_saturation" if rng.random() < 0.5 else "nonexistence")
    return _saturation(seed, rng) if family == "contextual_saturation" else _nonexistence(seed, rng)


def _feasible(seed: int, rng: random.Random) -> Draft:
    _, home = build_home(seed)
    count = 1 if rng.random() < 0.5 else 2
    chosen = _feasible_goals(home, rng, count)
    # The witness: all pushes together must still move every goal variable (they could interact).
    pushed, calls = room_values(home, [(r, v, d) for r, v, d, _ in chosen])
    baseline = _baseline(home)
    moved = {}
    for room_id, variable, direction, _ in chosen:
        delta = pushed.room_state(room_id, exact=True)[variable] - baseline.room_state(room_id, exact=True)[variable]
        moved[f"{room_id}.{variable}"] = round(delta, 4)
        if (delta if direction == "increase" else -delta) < THRESHOLD[variable]:
            raise GenerationFailed("the goals interfere")
    goals = [{"room_id": r, "room_state": v, "direction": d, "feasibility": True} for r, v, d, _ in chosen]
    mentions = Mentions()
    mentions.add(rooms=[room_name(r) for r, _, _, _ in chosen])
    return Draft(
        query=_query([(r, v, d) for r, v, d, _ in chosen], rng),
        user_location=chosen[0][0],
        goals=goals,
        required_actions=dedupe_actions([room_devices_action(r) for r, _, _, _ in chosen]),
        initial_home_config=home.initial_home_config,
        mentions=mentions,
        meta={"num_target_metrics": len(goals), "feasibility": True},
        solution=calls,
        verification={"horizon_s": HORIZON_S, "moved": moved},
    )


def _saturation(seed: int, rng: random.Random) -> Draft:
    config = home_config(sub_seed(seed, "home"))
    probe = EmulatedHome(config)
    options = [
        (room.room_id, variable, direction)
        for room in probe.rooms()
        for variable, direction in DIRECTIONS
        if _types_in(probe, room.room_id) & set(PUSHERS[(variable, direction)])
    ]
    room_id, variable, direction = rng.choice(options)
    actors = [d.device_id for d in probe.devices(room_id) if d.device_type in ACTORS[variable]]

    def saturate(fabric: EmulatedHome, _rng: random.Random) -> None:
        drive(fabric, room_id, variable, direction)  # already at the strongest setting before the episode

    _, home = build_home(seed, config=config, prepare=saturate, exclude=actors)
    baseline = _baseline(home)
    moved = effect(home, baseline, room_id, variable, direction)
    if abs(moved) > SATURATION_EPS:
        raise GenerationFailed("not saturated")
    goals: list[dict[str, Any]] = [
        {"room_id": room_id, "room_state": variable, "direction": direction, "feasibility": False}
    ]
    targets = [(room_id, variable, direction)]
    if rng.random() < 0.3:
        try:
            extra = _feasible_goals(home, rng, 1, avoid=[(room_id, variable)])[0]
        except GenerationFailed:
            extra = None
        if extra is not None:
            goals.append({"room_id": extra[0], "room_state": extra[1], "direction": extra[2], "feasibility": True})
            targets.append(extra[:3])
    mentions = Mentions()
    mentions.add(rooms=[room_name(t[0]) for t in targets])
    return Draft(
        query=_query(targets, rng),
        user_location=room_id,
        goals=goals,
        required_actions=dedupe_actions([room_devices_action(t[0]) for t in targets]),
        initial_home_config=home.initial_home_config,
        mentions=mentions,
        meta={"num_target_metrics": len(goals), "feasibility": False, "infeasible_family": "contextual_saturation"},
        verification={"horizon_s": HORIZON_S, "saturated_effect": moved},
    )


def _nonexistence(seed: int, rng: random.Random) -> Draft:
    config = home_config(sub_seed(seed, "home"))
    weights = {"pm10": 3, "humidity": 3, "temperature": 2, "illuminance": 1}
    options = [(room.id, v, d) for room in config.rooms for v, d in DIRECTIONS for _ in range(weights[v])]
    room_id, variable, direction = rng.choice(options)
    doomed = [d for d in config.devices_in_room(room_id) if d.type in ACTORS[variable]]
    named_pool = [d for d in doomed if d.type in PUSHERS[(variable, direction)]]
    if named_pool:
        named = rng.choice(named_pool)
        device_id, device_type = named.id, named.type
    else:
        device_type = NAMED_TYPE[(variable, direction)]
        device_id = f"{room_id}_{device_type}_1"
    _, home = build_home(seed, config=without_devices(config, [d.id for d in doomed]))
    fabric = home.fabric()
    if _types_in(fabric, room_id) & set(ACTORS[variable]):
        raise GenerationFailed("an able device is still in the room")
    moved = effect(home, _baseline(home), room_id, variable, direction)
    if abs(moved) > SATURATION_EPS:
        raise GenerationFailed("something in the room still moves the variable")
    goals = [
        {
            "room_id": room_id,
            "device_id": device_id,
            "device_type": device_type,
            "room_state": variable,
            "direction": direction,
        }
    ]
    mentions = Mentions()
    mentions.add(rooms=[room_name(room_id)])
    return Draft(
        query=_query([(room_id, variable, direction)], rng),
        user_location=room_id,
        goals=goals,
        required_actions=[room_devices_action(room_id)],
        initial_home_config=home.initial_home_config,
        mentions=mentions,
        meta={"num_target_metrics": 1, "infeasible_family": "nonexistence"},
        verification={"horizon_s": HORIZON_S, "removed": sorted(d.id for d in doomed)},
    )
