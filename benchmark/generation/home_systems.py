"""Home-systems episodes on the devices of the medium tier's home systems, in SimuHome's episode format:
automations on buttons, leak sensors and the main water valve (qt3 feasible episodes with gold automations), and
a question about the solar panels' output answered from their meter (a qt1 feasible episode).

A template's episode asks for a rule, not an action: "when the entrance button is pressed, turn on the entrance
light", "close the main water valve when the kitchen leak sensor detects water". The gold rule goes in
``homefabric.automations`` and the act of the world that fires it (a press, water at the detector) in
``homefabric.replay``; ``benchmark.scoring.automation_scoring`` replays that act on copies of the home where the
agent left it, with the gold rule and with the agent's. The final-state goal asserts the controlled device as the
home started (the light still off, the valve still open): doing it now instead of automating it fails.

Settings are asked for too — a wall switch bound to a light, the extractor hood on Auto, the car's charge shifted
to a later start: the first two only show when the world acts, so ``homefabric.world_checks``
(benchmark.scoring.world_checks) flips the switch or switches a cook surface on at the hob on a copy of the finished
home and checks the light or the hood there; the charge's start is the charger's Forecast.

Each template draws from its own seeds (``sub_seed(episode_seed, "hs_<template>", attempt)``), so a new template
leaves the others' files unchanged. Files are named ``hs_<template>_seed_<n>.json`` (``meta.template``), never part
of ``--qt all``: the 12 SimuHome kinds generate exactly as before.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from benchmark.generation.episode_layout import Draft, GenerationFailed, Mentions, room_devices_action
from benchmark.generation.grammar import device_ref, finish, room_name
from benchmark.generation.homes import EpisodeHome, build_home, home_config
from benchmark.scoring.charging_scoring import SUPPLY_VOLTAGE, charge_steps, needed_mWh
from benchmark.suites.simuhome.episode import ChargingGoal
from emulator.automations.model import ActionStep
from emulator.clock import TIME_FORMAT
from emulator.emulated_home import EmulatedHome
from emulator.home_config import DeviceConfig
from emulator.home_generation.seeds import sub_seed
from emulator.scenarios import plug_in_vehicle, turn_on_cook_surface
from emulator.workflows import WorkflowStep

HOME_TIER = "medium"  # the smallest tier with buttons, leak sensors and a main valve (or the pinned home, --home)
LIGHT_TYPES = ("on_off_light", "dimmable_light", "extended_color_light")
VALVE_OPEN = 1  # ValveConfigurationAndControl.CurrentState: 0 closed, 1 open
SOLAR_POWER_PATH = "1.ElectricalPowerMeasurement.ActivePower"
SOLAR_ENERGY_PATH = "1.ElectricalEnergyMeasurement.CumulativeEnergyExported.energy"  # mWh, a struct's field
MIN_DAYLIGHT_MW = 50_000  # a question about the panels' output is asked only when they make at least 50 W
MIN_PRODUCED_MWH = 500_000  # a question about the energy produced is asked only after at least 0.5 kWh
# "since <when>" → the hour the home's history starts at and the hours (after it) the episode may start at.
EV_TARGET_PERCENT = 80
# The car as the episode states it (the charger models no vehicle battery): (capacity kWh, state of charge %) such
# that the plugged-in car's 20 kWh demand (clusters/energy_evse.py) fills it exactly to 100 %; needs 4-15 kWh.
EV_BATTERIES = ((25, 20), (40, 50), (50, 60), (80, 75))
EV_START_HOURS = (11, 12, 13)  # the episode starts a minute before a knot in 11:14 … 14:59
ENERGY_PERIODS: dict[str, tuple[int, tuple[int, ...]]] = {
    "noon": (12, (1, 2, 3, 4, 5, 6)),
    "midnight": (0, tuple(range(9, 19))),
}


def _devices(fabric: EmulatedHome, types: tuple[str, ...]) -> list[Any]:
    return sorted((d for d in fabric.devices() if d.device_type in types), key=lambda d: d.device_id)


def _draft(
    seed: int,
    rng: random.Random,
    *,
    template: str,
    query: str,
    trigger_device: Any,
    target: Any,
    target_assert: dict[str, Any],
    rule: dict[str, Any],
    replay: dict[str, Any],
    prepare: Callable[[EmulatedHome, random.Random], None],
    mentions: Mentions,
) -> Draft:
    _, home = build_home(
        seed,
        prepare=prepare,
        exclude=[trigger_device.device_id, target.device_id],
        config=home_config(sub_seed(seed, "home"), HOME_TIER),
    )
    state = home.fabric().snapshot()["devices"][target.device_id]["attributes"]
    if state.get(target_assert["attribute"]) != target_assert["value"]:
        raise GenerationFailed(f"{target.device_id} did not start as {target_assert}")
    rooms = sorted({trigger_device.room_id, target.room_id})
    return Draft(
        query=finish(query, rng),
        user_location=trigger_device.room_id,
        goals=[
            {
                "room_id": target.room_id,
                "device_id": target.device_id,
                "device_type": target.device_type,
                "asserts": [target_assert],
            }
        ],
        required_actions=[room_devices_action(room) for room in rooms],
        initial_home_config=home.initial_home_config,
        mentions=mentions,
        meta={"template": template},
        extension={"automations": [rule], "replay": [replay]},
    )


def _rule(name: str, trigger: Any, path: str, value: Any, target: Any, cluster: str, command: str) -> dict[str, Any]:
    return {
        "name": name,
        "trigger": {
            "kind": "state",
            "condition": {"device_id": trigger.device_id, "path": path, "op": "==", "value": value},
        },
        "actions": [
            {"kind": "invoke", "device_id": target.device_id, "endpoint": 1, "cluster": cluster, "command": command}
        ],
    }


def button_light(episode_seed: int, attempt: int, rng: random.Random) -> Draft:
    """ "When the entrance button is pressed, turn on the entrance light." (the light starts off)"""
    seed = sub_seed(episode_seed, "hs_button_light", attempt)
    fabric = EmulatedHome(home_config(sub_seed(seed, "home"), HOME_TIER))
    lights = _devices(fabric, LIGHT_TYPES)
    pairs = [
        (b, light) for b in _devices(fabric, ("generic_switch",)) for light in lights if light.room_id == b.room_id
    ]
    if not pairs:
        raise GenerationFailed("no room with both a button and a light")
    button, light = rng.choice(pairs)
    button_ref, light_ref = (
        device_ref(button.device_id, "generic_switch", rng),
        device_ref(light.device_id, light.device_type, rng),
    )
    room = room_name(button.room_id)
    mentions = Mentions()
    mentions.add(rooms=[room], devices=[button_ref, light_ref])
    query = rng.choice(
        (
            f"When the {button_ref} in the {room} is pressed, turn on the {light_ref}.",
            f"Set up an automation: pressing the {button_ref} in the {room} switches the {light_ref} on.",
            f"I want the {light_ref} in the {room} to come on whenever someone presses the {button_ref}.",
        )
    )

    def light_off(home: EmulatedHome, _rng: random.Random) -> None:
        home.apply(WorkflowStep.invoke(light.device_id, 1, "OnOff", "Off", {}))

    rule = _rule(
        f"{button.device_id} turns on {light.device_id}", button, "1.Switch.CurrentPosition", 1, light, "OnOff", "On"
    )
    return _draft(
        seed,
        rng,
        template="button_light",
        query=query,
        trigger_device=button,
        target=light,
        target_assert={"attribute": "1.OnOff.OnOff", "value": False},
        rule=rule,
        replay={"act": "press_button", "device_id": button.device_id},
        prepare=light_off,
        mentions=mentions,
    )


def leak_valve(episode_seed: int, attempt: int, rng: random.Random) -> Draft:
    """ "Close the main water valve when the kitchen leak sensor detects water." (the valve starts open)"""
    return _closing_main_valve(
        episode_seed,
        attempt,
        rng,
        template="leak_valve",
        trigger_type="water_leak_detector",
        condition=("1.BooleanState.StateValue", True),
        act="sense_water",
        queries=(
            "Close the main water valve when the {ref} in the {room} detects a leak.",
            "If the {ref} in the {room} senses water, shut the main water valve automatically.",
            "Make an automation that closes the main valve whenever the {room} {ref} reports a leak.",
        ),
    )


def button_valve(episode_seed: int, attempt: int, rng: random.Random) -> Draft:
    """ "When I press the button by the front door, shut off the main water valve." (leaving home; the valve
    starts open) — a button driving a device in another room."""
    return _closing_main_valve(
        episode_seed,
        attempt,
        rng,
        template="button_valve",
        trigger_type="generic_switch",
        condition=("1.Switch.CurrentPosition", 1),
        act="press_button",
        queries=(
            "When I press the {ref} in the {room}, shut off the main water valve.",
            "Make the {room} {ref} close the main water valve whenever it is pressed.",
            "I want pressing the {ref} in the {room} to turn the water off at the main valve.",
        ),
    )


def _closing_main_valve(
    episode_seed: int,
    attempt: int,
    rng: random.Random,
    *,
    template: str,
    trigger_type: str,
    condition: tuple[str, Any],
    act: str,
    queries: tuple[str, ...],
) -> Draft:
    """A rule that closes the main valve (open when the episode starts) when a ``trigger_type`` device's
    ``condition`` holds, scored by replaying ``act`` on it; ``queries`` name it as {ref} in the {room}."""
    seed = sub_seed(episode_seed, f"hs_{template}", attempt)
    fabric = EmulatedHome(home_config(sub_seed(seed, "home"), HOME_TIER))
    triggers, valves = _devices(fabric, (trigger_type,)), _devices(fabric, ("water_valve",))
    if not triggers or len(valves) != 1:
        raise GenerationFailed(f"the home needs a {trigger_type} and exactly one (main) water valve")
    trigger, valve = rng.choice(triggers), valves[0]
    ref = device_ref(trigger.device_id, trigger_type, rng)
    room = room_name(trigger.room_id)
    mentions = Mentions()
    mentions.add(rooms=[room], devices=[ref], words=["main"])
    query = rng.choice(tuple(q.format(ref=ref, room=room) for q in queries))

    def valve_open(home: EmulatedHome, _rng: random.Random) -> None:
        home.apply(WorkflowStep.invoke(valve.device_id, 1, "ValveConfigurationAndControl", "Open", {}))
        home.advance(5)

    verb = "leak closes" if act == "sense_water" else "closes"
    path, value = condition
    rule = _rule(
        f"{trigger.device_id} {verb} {valve.device_id}",
        trigger,
        path,
        value,
        valve,
        "ValveConfigurationAndControl",
        "Close",
    )
    return _draft(
        seed,
        rng,
        template=template,
        query=query,
        trigger_device=trigger,
        target=valve,
        target_assert={"attribute": "1.ValveConfigurationAndControl.CurrentState", "value": VALVE_OPEN},
        rule=rule,
        replay={"act": act, "device_id": trigger.device_id},
        prepare=valve_open,
        mentions=mentions,
    )


def solar_power(episode_seed: int, attempt: int, rng: random.Random) -> Draft:
    """ "How much power are the solar panels producing right now?" — a qt1 question answered from the panels' meter
    (ElectricalPowerMeasurement.ActivePower, negative: fed into the home); asked only in daylight."""
    seed = sub_seed(episode_seed, "hs_solar_power", attempt)
    fabric, home = build_home(seed, config=home_config(sub_seed(seed, "home"), HOME_TIER))
    panels = _devices(fabric, ("solar_power",))
    if len(panels) != 1:
        raise GenerationFailed("the home needs exactly one solar array")
    panel = panels[0]
    produced = home.fabric().snapshot()["devices"][panel.device_id]["attributes"].get(SOLAR_POWER_PATH)
    if not isinstance(produced, int) or -produced < MIN_DAYLIGHT_MW:
        raise GenerationFailed(f"the panels produce {produced} mW at the episode's time: no daylight question")
    panel_ref = device_ref(panel.device_id, "solar_power", rng)
    mentions = Mentions()
    mentions.add(devices=[panel_ref])
    query = rng.choice(
        (
            f"How much power is the {panel_ref} producing right now?",
            f"What is the {panel_ref} generating at the moment, in watts?",
            f"Tell me the current output of the {panel_ref}.",
        )
    )
    # the rules judge accepts the magnitude in mW, W or kW
    return _panel_question(
        rng, query, panel, home, mentions, (SOLAR_POWER_PATH, "power_mW"), {"template": "solar_power"}
    )


def _panel_question(
    rng: random.Random,
    query: str,
    panel: Any,
    home: EpisodeHome,
    mentions: Mentions,
    reading: tuple[str, str],
    meta: dict[str, Any],
) -> Draft:
    """A qt1 question answered from the panels' meter: ``reading`` is (attribute path, quantity)."""
    attribute, quantity = reading
    return Draft(
        query=finish(query, rng),
        user_location=panel.room_id,
        goals=[
            {
                "variant": "device_attribute",
                "room_id": panel.room_id,
                "device_id": panel.device_id,
                "device_type": "solar_power",
                "attribute": attribute,
                "quantity": quantity,
            }
        ],
        required_actions=[room_devices_action(panel.room_id)],
        initial_home_config=home.initial_home_config,
        mentions=mentions,
        meta=meta,
    )


def solar_energy(episode_seed: int, attempt: int, rng: random.Random) -> Draft:
    """ "How much energy have the solar panels produced since noon?" (or "today") — a qt1 question answered from the
    panels' meter (ElectricalEnergyMeasurement.CumulativeEnergyExported, mWh).

    The episode's history is played, not assumed: the home starts at noon (or midnight) of the episode's day, with
    the panels' meter at zero, and runs on to the episode's moment 1-6 hours later (09:00-18:00 for "today"), so
    the meter's total is the energy produced since then — the integral of the sun's closed-form staircase
    (emulator/role_behaviour.py), carried in the exported home. The meter counts at each 15-minute change of the
    panels' power, so the total lags the true production by at most the augmentation's settle (≤ 60 s of output,
    under 1 % after an hour of sun); the rules judge accepts the total in mWh, Wh or kWh within 2 %
    (benchmark.scoring.judges.words.QUANTITY_TOLERANCE), read from the meter when the agent finishes.
    """
    seed = sub_seed(episode_seed, "hs_solar_energy", attempt)
    since = rng.choice(sorted(ENERGY_PERIODS))
    start_hour, hours = ENERGY_PERIODS[since]
    played_s = rng.choice(hours) * 3600 + rng.randrange(0, 3600, 900)
    config = home_config(sub_seed(seed, "home"), HOME_TIER)
    config = config.model_copy(update={"base_time": f"{config.base_time[:10]} {start_hour:02d}:00:00"})

    def play_history(played: EmulatedHome, _rng: random.Random) -> None:
        played.advance(played_s)

    fabric, home = build_home(seed, prepare=play_history, config=config)
    panels = _devices(fabric, ("solar_power",))
    if len(panels) != 1:
        raise GenerationFailed("the home needs exactly one solar array")
    panel = panels[0]
    meter = home.fabric().snapshot()["devices"][panel.device_id]["attributes"]
    produced = (meter.get(SOLAR_ENERGY_PATH.rsplit(".", 1)[0]) or {}).get("energy")
    if not isinstance(produced, int) or produced < MIN_PRODUCED_MWH:
        raise GenerationFailed(f"the panels produced {produced} mWh since {since}: no energy question")
    panel_ref = device_ref(panel.device_id, "solar_power", rng)
    period = "today" if since == "midnight" else f"since {since}"
    mentions = Mentions()
    mentions.add(devices=[panel_ref], words=[period])
    query = rng.choice(
        (
            f"How much energy has the {panel_ref} produced {period}?",
            f"How many kilowatt-hours did the {panel_ref} generate {period}?",
            f"Tell me how much the {panel_ref} has made {period}, in kWh.",
        )
    )
    # the rules judge accepts the total in mWh, Wh or kWh
    reading = (SOLAR_ENERGY_PATH, "energy_mWh")
    return _panel_question(
        rng, query, panel, home, mentions, reading, {"template": "solar_energy", "energy_since": since}
    )


def _one_off_cron(when: datetime) -> str:
    return f"{when.second} {when.minute} {when.hour} {when.day} {when.month} ? {when.year}"


def _charging_rule(evse: Any, when: datetime, current_mA: int, goal: ChargingGoal) -> dict[str, Any]:
    return {
        "name": f"charge {evse.device_id} at {current_mA // 1000} A from {when:%H:%M}",
        "trigger": {"kind": "time", "cron": _one_off_cron(when)},
        "actions": [
            {
                "kind": "invoke",
                "device_id": evse.device_id,
                "endpoint": 1,
                "cluster": "EnergyEvse",
                "command": "EnableCharging",
                "args": {
                    "chargingEnabledUntil": None,
                    "minimumChargeCurrent": goal.min_charge_current_mA,
                    "maximumChargeCurrent": current_mA,
                },
            }
        ],
    }


def charging_plan(home: EmulatedHome, goal: ChargingGoal, evse: Any, max_current_mA: int) -> list[dict[str, Any]]:
    """The oracle's schedule (one of many that pass): whenever the current the panels can drive changes, charge at
    it (their output in whole mA, from the first whole minute); if that is not enough, at ``max_current_mA`` from
    the first minute after the sun's last usable one."""
    steps = charge_steps(home, goal)[1:]  # the charger idle: the panels' output to the deadline; the first step
    rules, from_solar, current = [], 0.0, 0  # is the part-minute the agent acts in
    for step in steps:
        if step.usable_current_mA(goal) != current and step.usable_current_mA(goal):
            rules.append(_charging_rule(evse, step.start, step.usable_current_mA(goal), goal))
        current = step.usable_current_mA(goal)
        from_solar += step.usable_mWh(goal)
    if from_solar < needed_mWh(goal):
        last_sunny = max(i for i, step in enumerate(steps) if step.usable_current_mA(goal))
        rules.append(_charging_rule(evse, steps[last_sunny + 1].start, max_current_mA, goal))
    return rules


def ev_solar_charge(episode_seed: int, attempt: int, rng: random.Random) -> Draft:
    """ "My car is plugged in at 60 % (a 50 kWh battery): charge it to 80 % by 7 am, using solar first." — a qt3
    episode scored on the home fast-forwarded to 07:00 (benchmark.scoring.charging_scoring): enough energy, none
    drawn beyond the panels' output while they can drive the charger, and most of what they could give used.

    The emulator's charger models no vehicle battery (a plugged-in car wants 20 kWh, clusters/energy_evse.py): the
    episode states its capacity and state of charge, chosen so that those 20 kWh fill it exactly, and the check
    turns the energy charged into a state of charge. The episode starts a minute before a
    15-minute knot in the early afternoon, the car plugged in and the charger not yet enabled.
    """
    seed = sub_seed(episode_seed, "hs_ev_solar_charge", attempt)
    config = home_config(sub_seed(seed, "home"), HOME_TIER)
    start = datetime.strptime(f"{config.base_time[:10]} {rng.choice(EV_START_HOURS):02d}:00:00", TIME_FORMAT)
    start += timedelta(minutes=15 * rng.randrange(1, 5), seconds=-90)  # a quarter hour; augmentation settles 30-60 s
    config = config.model_copy(update={"base_time": start.strftime(TIME_FORMAT)})
    fabric = EmulatedHome(config)
    chargers, panels = _devices(fabric, ("evse",)), _devices(fabric, ("solar_power",))
    if len(chargers) != 1 or len(panels) != 1:
        raise GenerationFailed("the home needs exactly one EV charger and one solar array")
    evse, panel = chargers[0], panels[0]

    def plug_in(home: EmulatedHome, _rng: random.Random) -> None:
        plug_in_vehicle(home, evse.device_id)

    _, home = build_home(seed, prepare=plug_in, exclude=[evse.device_id], config=config)
    charger = home.fabric()
    battery_kWh, start_percent = rng.choice(EV_BATTERIES)
    goal = ChargingGoal(
        evse_device_id=evse.device_id,
        solar_device_id=panel.device_id,
        battery_kWh=battery_kWh,
        start_percent=start_percent,
        target_percent=EV_TARGET_PERCENT,
        deadline=(start.replace(hour=0, minute=0, second=0) + timedelta(days=1, hours=7)).strftime(TIME_FORMAT),
        voltage_mV=charger.read_path(evse.device_id, SUPPLY_VOLTAGE),
        min_charge_current_mA=charger.read_path(evse.device_id, "1.EnergyEvse.MinimumChargeCurrent"),
    )
    max_current_mA = charger.read_path(evse.device_id, "1.EnergyEvse.CircuitCapacity")
    plan = charging_plan(charger, goal, evse, max_current_mA)
    evse_ref = device_ref(evse.device_id, "evse", rng)
    mentions = Mentions()
    mentions.add(devices=[evse_ref], numbers=[str(start_percent), str(battery_kWh), str(EV_TARGET_PERCENT)])
    query = rng.choice(
        (
            f"My car is plugged into the {evse_ref} at {start_percent} % and its battery holds {battery_kWh} kWh. "
            f"Charge it to {EV_TARGET_PERCENT} % by 7 am, using solar first.",
            f"The car on the {evse_ref} is at {start_percent} % of a {battery_kWh} kWh battery: get it to "
            f"{EV_TARGET_PERCENT} % by 7 in the morning, from the solar panels as much as you can, the grid only "
            "for the rest.",
        )
    )
    return Draft(
        query=finish(query, rng),
        user_location=evse.room_id,
        goals=[],  # the goal is homefabric.charging, scored at its deadline
        required_actions=[room_devices_action(room) for room in sorted({evse.room_id, panel.room_id})],
        initial_home_config=home.initial_home_config,
        mentions=mentions,
        meta={"template": "ev_solar_charge"},
        extension={"charging": {**goal.model_dump(mode="json", exclude={"plan"}), "plan": plan}},
    )


SWITCH_TYPES = ("on_off_light_switch", "dimmer_switch", "color_dimmer_switch")
SWITCHED_LIGHTS = (*LIGHT_TYPES, "color_temperature_light")
ON_OFF_CLUSTER = 6  # a Binding entry's cluster: the switch's OnOff commands go to the light
WORLD_SETTLE_S = 5.0  # after the world's act, before the world check's asserts


def switch_light(episode_seed: int, attempt: int, rng: random.Random) -> Draft:
    """ "Make the wall switch in the hallway control the hallway light." (its Binding cleared) or "The switch by the
    front door should also turn on the kitchen light." (its Binding kept) — the agent writes the switch's Binding
    (a light's node id is in get_device_structure of simuhome_ext). Scored by flipping the switch on a copy of the
    home where the agent left it: the light comes on there (a world check), and is still off in the live home."""
    seed = sub_seed(episode_seed, "hs_switch_light", attempt)
    fabric = EmulatedHome(home_config(sub_seed(seed, "home"), HOME_TIER))
    switches, lights = _devices(fabric, SWITCH_TYPES), _devices(fabric, SWITCHED_LIGHTS)
    bound = {(s.device_id, t) for s in switches for t, _ in fabric.bound_targets(s.device_id, "OnOff")}
    also = rng.random() < 0.5
    pairs = [
        (switch, light)
        for switch in switches
        for light in lights
        if ((switch.device_id, light.device_id) in bound) != also and (light.room_id != switch.room_id) == also
    ]
    if not pairs:
        raise GenerationFailed("no wall switch with a light to bind it to")
    switch, light = rng.choice(pairs)
    kept = fabric.read_path(switch.device_id, "1.Binding.Binding") if also else []
    switch_ref, light_ref = (
        device_ref(switch.device_id, switch.device_type, rng),
        device_ref(light.device_id, light.device_type, rng),
    )
    room, light_room = room_name(switch.room_id), room_name(light.room_id)
    mentions = Mentions()
    mentions.add(rooms=sorted({room, light_room}), devices=[switch_ref, light_ref])
    if also:
        query = rng.choice(
            (
                f"The {switch_ref} in the {room} should also turn on the {light_ref} in the {light_room}.",
                f"Bind the {room} {switch_ref} to the {light_room} {light_ref} as well, keeping what it controls now.",
            )
        )
    else:
        query = rng.choice(
            (
                f"Make the {switch_ref} in the {room} control the {light_ref}.",
                f"The {room} {switch_ref} does nothing at the moment: bind it to the {light_ref} in the {light_room}.",
            )
        )

    def unbound_and_off(home: EmulatedHome, _rng: random.Random) -> None:
        if not also:
            home.apply(WorkflowStep.write(switch.device_id, 1, "Binding", "Binding", []))
        home.apply(WorkflowStep.invoke(light.device_id, 1, "OnOff", "Off", {}))

    _, home = build_home(
        seed,
        prepare=unbound_and_off,
        exclude=[switch.device_id, light.device_id],
        config=home_config(sub_seed(seed, "home"), HOME_TIER),
    )
    entry = {"node": home.fabric().node_id(light.device_id), "endpoint": 1, "cluster": ON_OFF_CLUSTER}
    target = {"room_id": light.room_id, "device_id": light.device_id, "device_type": light.device_type}
    world_check = {
        "acts": [{"act": "flip_switch", "device_id": switch.device_id, "on": True}],
        "after_s": WORLD_SETTLE_S,
        "goals": [{**target, "asserts": [{"attribute": "1.OnOff.OnOff", "value": True}]}],
        "setup": [
            {
                "kind": "write",
                "device_id": switch.device_id,
                "endpoint": 1,
                "cluster": "Binding",
                "attribute": "Binding",
                "value": [*kept, entry],
            }
        ],
    }
    return Draft(
        query=finish(query, rng),
        user_location=switch.room_id,
        goals=[{**target, "asserts": [{"attribute": "1.OnOff.OnOff", "value": False}]}],
        required_actions=[room_devices_action(r) for r in sorted({switch.room_id, light.room_id})],
        initial_home_config=home.initial_home_config,
        mentions=mentions,
        meta={"template": "switch_light", "binding": "also" if also else "only"},
        extension={"world_checks": [world_check]},
    )


HOOD_AUTO = 5  # FanControl.FanMode Auto: the hood follows the hottest cook surface that is on in its room
COOK_SURFACES = (2, 3)  # a cooktop's surface endpoints
COOK_LEVELS = (0, 1, 2)  # TemperatureControl's SelectedTemperatureLevel: Low, Medium, High
HOOD_SETTLE_S = 10.0


def hood_auto(episode_seed: int, attempt: int, rng: random.Random) -> Draft:
    """ "Put the extractor hood on automatic so it follows the hob." — a cooktop and a hood are fitted in the
    kitchen (the room draw has neither), the hood off. Scored on the live home (the hood's FanMode is Auto) and by
    switching a cook surface on at the hob on a copy of it: the hood's fan runs at that surface's level there."""
    seed = sub_seed(episode_seed, "hs_hood_auto", attempt)
    config = home_config(sub_seed(seed, "home"), HOME_TIER)
    kitchens = sorted(r.room_id for r in EmulatedHome(config).rooms() if r.room_id.startswith("kitchen"))
    if not kitchens:
        raise GenerationFailed("the home has no kitchen for a cooktop and its hood")
    kitchen = kitchens[0]
    cooktop_id, hood_id = f"{kitchen}_cooktop_1", f"{kitchen}_extractor_hood_1"

    def fit_kitchen(home: EmulatedHome, _rng: random.Random) -> None:
        for device_id, device_type in ((cooktop_id, "cooktop"), (hood_id, "extractor_hood")):
            home.add_device(DeviceConfig(id=device_id, type=device_type, room=kitchen))

    _, home = build_home(seed, prepare=fit_kitchen, exclude=[cooktop_id, hood_id], config=config)
    surface, level = rng.choice(COOK_SURFACES), rng.choice(COOK_LEVELS)
    act = {"act": "turn_on_cook_surface", "device_id": cooktop_id, "surface": surface, "level": level}
    setup = WorkflowStep.write(hood_id, 1, "FanControl", "FanMode", HOOD_AUTO)
    followed = home.fabric()
    followed.apply(setup)
    turn_on_cook_surface(followed, cooktop_id, surface, level)
    followed.advance(HOOD_SETTLE_S)
    percent = followed.read_path(hood_id, "1.FanControl.PercentCurrent")
    if not percent:
        raise GenerationFailed(f"the hood on Auto did not follow surface {surface} at level {level}")
    hood_ref, cooktop_ref = device_ref(hood_id, "extractor_hood", rng), device_ref(cooktop_id, "cooktop", rng)
    room = room_name(kitchen)
    mentions = Mentions()
    mentions.add(rooms=[room], devices=[hood_ref], words=["auto"])
    query = rng.choice(
        (
            f"Put the {hood_ref} in the {room} on auto so it follows the {cooktop_ref}.",
            f"Set the {room} {hood_ref} to automatic: it should come on by itself when I cook on the {cooktop_ref}.",
            f"I want the {hood_ref} to run on its own whenever the {cooktop_ref} is on — put it in auto mode.",
        )
    )
    target = {"room_id": kitchen, "device_id": hood_id, "device_type": "extractor_hood"}
    world_check = {
        "acts": [act],
        "after_s": HOOD_SETTLE_S,
        "goals": [{**target, "asserts": [{"attribute": "1.FanControl.PercentCurrent", "value": percent}]}],
        "setup": [ActionStep.from_workflow_step(setup).model_dump(mode="json", exclude_defaults=True)],
    }
    return Draft(
        query=finish(query, rng),
        user_location=kitchen,
        goals=[{**target, "asserts": [{"attribute": "1.FanControl.FanMode", "value": HOOD_AUTO}]}],
        required_actions=[room_devices_action(kitchen)],
        initial_home_config=home.initial_home_config,
        mentions=mentions,
        meta={"template": "hood_auto"},
        extension={"world_checks": [world_check]},
    )


DELAY_PLUG_IN_HOURS = (18, 19, 20, 21)  # the car plugs in in the evening …
DELAY_START_HOURS = (0, 1, 2, 3)  # … and the owner wants the charge to start at one of these hours, the next day
FORECAST_START = "1.DeviceEnergyManagement.Forecast.startTime"  # Matter epoch s (since 2000-01-01), a struct field


def ev_delay_start(episode_seed: int, attempt: int, rng: random.Random) -> Draft:
    """ "Delay the car's charging to start at 1 am." — the car plugged in in the evening, its charge pending (the
    charger's Device Energy Management forecast starts now); the agent asks the charger to shift it
    (StartTimeAdjustRequest). Scored on the live charger: its forecast starts at that hour."""
    seed = sub_seed(episode_seed, "hs_ev_delay_start", attempt)
    config = home_config(sub_seed(seed, "home"), HOME_TIER)
    plugged = f"{config.base_time[:10]} {rng.choice(DELAY_PLUG_IN_HOURS):02d}:{rng.randrange(0, 60, 5):02d}:00"
    config = config.model_copy(update={"base_time": plugged})
    chargers = _devices(EmulatedHome(config), ("evse",))
    if len(chargers) != 1:
        raise GenerationFailed("the home needs exactly one EV charger")
    evse = chargers[0]

    def plug_in(home: EmulatedHome, _rng: random.Random) -> None:
        plug_in_vehicle(home, evse.device_id)

    _, home = build_home(seed, prepare=plug_in, exclude=[evse.device_id], config=config)
    charger = home.fabric()
    hour = rng.choice(DELAY_START_HOURS)
    wanted = charger.now().replace(hour=hour, minute=0, second=0) + timedelta(days=1)
    forecast = charger.read_path(evse.device_id, "1.DeviceEnergyManagement.Forecast")
    if not forecast or forecast["activeSlotNumber"] is not None:
        raise GenerationFailed("the plugged-in car's charge is not pending")
    start_epoch = forecast["startTime"] + round((wanted - charger.now()).total_seconds())
    if start_epoch + forecast["endTime"] - forecast["startTime"] > forecast["latestEndTime"]:
        raise GenerationFailed("the charge would not end inside the forecast's window")
    evse_ref = device_ref(evse.device_id, "evse", rng)
    at = f"{hour % 12 or 12} am"
    mentions = Mentions()
    mentions.add(devices=[evse_ref], times=[at])
    query = rng.choice(
        (
            f"Delay the car's charging on the {evse_ref} so that it starts at {at}.",
            f"The car is plugged into the {evse_ref}: don't charge it now, push the start back to {at}.",
            f"Ask the {evse_ref} to shift its charging session to begin at {at}, when power is cheaper.",
        )
    )
    return Draft(
        query=finish(query, rng),
        user_location=evse.room_id,
        goals=[
            {
                "room_id": evse.room_id,
                "device_id": evse.device_id,
                "device_type": "evse",
                "asserts": [{"attribute": FORECAST_START, "value": start_epoch}],
            }
        ],
        required_actions=[room_devices_action(evse.room_id)],
        initial_home_config=home.initial_home_config,
        mentions=mentions,
        meta={"template": "ev_delay_start", "start_at": wanted.strftime(TIME_FORMAT)},
    )


BUILDERS: dict[str, Callable[[int, int, random.Random], Draft]] = {
    "button_light": button_light,
    "leak_valve": leak_valve,
    "solar_power": solar_power,
    "solar_energy": solar_energy,
    "ev_solar_charge": ev_solar_charge,
    "button_valve": button_valve,
    "switch_light": switch_light,
    "hood_auto": hood_auto,
    "ev_delay_start": ev_delay_start,
}
# The SimuHome query type each template is laid out as (qt3 feasible: final state + automations; qt1: an answer).
QUERY_TYPE = {
    "button_light": "qt3",
    "leak_valve": "qt3",
    "solar_power": "qt1",
    "solar_energy": "qt1",
    "ev_solar_charge": "qt3",
    "button_valve": "qt3",
    "switch_light": "qt3",
    "hood_auto": "qt3",
    "ev_delay_start": "qt3",
}
if set(QUERY_TYPE) != set(BUILDERS):  # checked at import: every template is laid out as one query type
    raise TypeError(f"home-systems templates without a query type: {sorted(set(QUERY_TYPE) ^ set(BUILDERS))}")
TEMPLATES = tuple(BUILDERS)
