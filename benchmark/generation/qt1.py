"""qt1 — state inquiry: room conditions and read-only device attributes (infeasible: the device is gone).

Only what the home answers is asked: a room variable its ``room_state`` gives for that room (the emulated home
reads every room itself, as SimuHome's get_room_states does; a live Matter home only the variables a measurement
cluster in the room serves, and nothing for a room without one).
"""

from __future__ import annotations

import random
from typing import Any

from benchmark.generation.episode_layout import (
    Draft,
    GenerationFailed,
    Mentions,
    dedupe_actions,
    room_devices_action,
    room_states_action,
)
from benchmark.generation.grammar import device_ref, finish, join, pick, room_name
from benchmark.generation.homes import build_home, home_config, sensed_rooms, twin_only
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.home_api import HomeAPI
from emulator.home_generation.seeds import sub_seed
from emulator.simuhome.paths import simuhome_path

FEASIBLE_COMBOS = ((0, 1), (0, 2), (1, 0), (1, 1))  # (device attributes, room states), as SimuHome
INFEASIBLE_COMBOS = ((1, 0), (1, 1))
ROOM_STATES = ("temperature", "humidity", "illuminance", "pm10")
UNITS = {"temperature": "°C", "humidity": "%", "illuminance": "lux", "pm10": "µg/m³"}

ROOM_QUESTIONS: dict[str, tuple[str, ...]] = {
    "temperature": (
        "what's the temperature in the {room}",
        "how (warm|hot|cold) is it in the {room}[ right now]",
        "how many degrees is it in the {room}",
        "what is the {room} temperature at",
    ),
    "humidity": (
        "how humid is the {room}",
        "what's the humidity (like |)in the {room}",
        "is the air in the {room} (humid|dry)? what's the humidity",
    ),
    "illuminance": (
        "how bright is it in the {room}",
        "what's the light level in the {room}",
        "how many lux (are there|is it) in the {room}",
    ),
    "pm10": (
        "how's the air quality in the {room}",
        "what's the (dust|PM10|fine dust) level in the {room}",
        "is the air in the {room} dusty? what's the PM10",
    ),
}
# Read-only attributes worth asking about: our path → question templates ({dev}, {room}).
DEVICE_QUESTIONS: dict[str, tuple[str, ...]] = {
    "0.BasicInformation.VendorName": (
        "who makes {dev} in the {room}",
        "what brand is {dev} in the {room}",
        "which (company|manufacturer) made {dev} in the {room}",
    ),
    "0.BasicInformation.ProductName": (
        "what model is {dev} in the {room}",
        "what's the product name of {dev} in the {room}",
    ),
    "1.OnOff.OnOff": ("is {dev} in the {room} (on|switched on)", "did I leave {dev} in the {room} on"),
    "1.FanControl.PercentCurrent": (
        "how fast is {dev} in the {room} (running|going)",
        "what speed is {dev} in the {room} (at|running at)",
    ),
    "1.LevelControl.CurrentLevel": ("how bright is {dev} in the {room} set", "what level is {dev} in the {room} at"),
    "1.OperationalState.OperationalState": (
        "is {dev} in the {room} (running|still going)",
        "what's {dev} in the {room} doing right now",
    ),
    "1.RvcOperationalState.OperationalState": (
        "what's {dev} in the {room} doing",
        "is {dev} in the {room} (cleaning|running) right now",
    ),
    "1.TemperatureControl.TemperatureSetpoint": (
        "what temperature is {dev} in the {room} set to",
        "what's the setpoint of {dev} in the {room}",
    ),
    "1.WindowCovering.CurrentPositionLiftPercent100ths": (
        "how far (closed|down) are {dev} in the {room}",
        "what position are {dev} in the {room} at",
    ),
    "1.MediaPlayback.CurrentState": (
        "is anything playing on {dev} in the {room}",
        "what's the playback state of {dev} in the {room}",
    ),
}


def display_value(variable: str, value: float) -> float:
    """Room state in display units (°C, %, lux, µg/m³), 2 decimals."""
    return round(value / 100, 2) if variable in ("temperature", "humidity") else round(value, 2)


def answerable_variables(home: HomeAPI, room_id: str) -> tuple[str, ...]:
    """The room variables ``home`` answers for ``room_id`` (in ROOM_STATES order); none when it refuses."""
    try:
        state = home.room_state(room_id)
    except HomeError:
        return ()
    return tuple(variable for variable in ROOM_STATES if state.get(variable) is not None)


def askable(fabric: EmulatedHome, device_id: str) -> list[str]:
    """Question paths that exist on the device and are read-only (so their value is the agent's to read)."""
    device = fabric.device(device_id)
    out = []
    for path in DEVICE_QUESTIONS:
        endpoint, cluster, attribute = path.split(".")
        server = device.find(int(endpoint), cluster)
        if server is None or not server.has_attribute(attribute) or server.is_writable(attribute):
            continue
        out.append(path)
    return out


def _sensed_questions(fabric: EmulatedHome, count: int, rng: random.Random) -> tuple[list[str], list[str]]:
    """Up to ``count`` (room, variable) questions a live home can answer: rooms with a sensor for it."""
    sensed = sensed_rooms(fabric)
    rooms = rng.sample(sorted(sensed), min(count, len(sensed)))
    return rooms, [rng.choice(sorted(sensed[room])) for room in rooms]


def build(episode_seed: int, case: str, attempt: int, rng: random.Random) -> Draft:
    n_attr, n_state = rng.choice(FEASIBLE_COMBOS if case == "feasible" else INFEASIBLE_COMBOS)
    seed = sub_seed(episode_seed, "qt1", case, attempt)
    config = home_config(sub_seed(seed, "home"))
    probe = EmulatedHome(config)
    hidden = twin_only(config)  # a live home's twin: never ask what only the twin serves
    candidates = [
        (d.device_id, p)
        for d in probe.devices()
        for p in askable(probe, d.device_id)
        if hidden is None or not {p, p.rsplit(".", 1)[0] + ".*"} & hidden.get(d.device_id, set())
    ]
    targets = rng.sample(candidates, n_attr) if n_attr else []
    removed = [device_id for device_id, _ in targets] if case == "infeasible" else []
    _, home = build_home(seed, config=config, remove=lambda f: removed)
    fabric = home.fabric()
    rooms = [r.room_id for r in fabric.rooms()]
    mentions = Mentions()
    goals: list[dict[str, Any]] = []
    actions: list[dict[str, Any]] = []
    clauses: list[str] = []
    for device_id, path in targets:
        device = probe.device(device_id)
        ref = device_ref(device_id, device.device_type, rng)
        goal = {
            "variant": "device_attribute",
            "room_id": device.room_id,
            "device_id": device_id,
            "device_type": device.device_type,
            "attribute": simuhome_path(path),
        }
        if case == "feasible":
            goal["current_value"] = fabric.read_path(device_id, path)  # SimuHome stores none (bug 23)
        elif device_id in {d.device_id for d in fabric.devices()}:
            raise GenerationFailed("the removed device is still in the home")
        goals.append(goal)
        actions.append(room_devices_action(device.room_id))
        clauses.append(pick(rng, DEVICE_QUESTIONS[path], {"dev": ref, "room": room_name(device.room_id)}))
        mentions.add(rooms=[room_name(device.room_id)], devices=[ref])
    if hidden is not None:  # a live home's room states exist only through its sensors
        state_rooms, variables = _sensed_questions(fabric, n_state, rng)
        if not targets and not state_rooms:
            raise GenerationFailed("nothing in this home can be asked")
        answerable = {room_id: answerable_variables(fabric, room_id) for room_id in state_rooms}
    else:
        answerable = {room_id: answerable_variables(fabric, room_id) for room_id in rooms}
        rooms_with_sensors = [room_id for room_id in rooms if answerable[room_id]]
        if len(rooms_with_sensors) < n_state:
            raise GenerationFailed(
                f"the home answers room states for {len(rooms_with_sensors)} room(s), {n_state} asked"
            )
        state_rooms = rng.sample(rooms_with_sensors, n_state) if n_state else []
        if n_state and targets and rng.random() < 0.5 and answerable[probe.device(targets[0][0]).room_id]:
            state_rooms[0] = probe.device(targets[0][0]).room_id  # ask about the device's own room
        variables = rng.sample(ROOM_STATES, n_state)
    for room_id, variable in zip(state_rooms, variables, strict=True):
        if variable not in answerable[room_id]:
            raise GenerationFailed(f"the home does not answer the {variable} of {room_id}")
        value = fabric.room_state(room_id)[variable]
        goals.append(
            {
                "variant": "room_state",
                "room_id": room_id,
                "room_state": variable,
                "current_value": display_value(variable, value),
                "unit": UNITS[variable],
            }
        )
        actions.append(room_states_action(room_id))
        clauses.append(pick(rng, ROOM_QUESTIONS[variable], {"room": room_name(room_id)}))
        mentions.add(rooms=[room_name(room_id)])
    query = finish(join(clauses, rng) + "?", rng)
    user_location = rng.choice(rooms)
    return Draft(
        query=query,
        user_location=user_location,
        goals=goals,
        required_actions=dedupe_actions(actions),
        initial_home_config=home.initial_home_config,
        mentions=mentions,
        meta={"num_target_device_attributes": n_attr, "num_target_room_states": n_state},
    )
