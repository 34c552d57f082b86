"""``fresh_room``: the reachable-move world of a qt2 direction check is built from the goal room alone. What the
room's state and its devices do there must be what they do in the whole home, for every room, variable and
direction of every fixture home (the whole-home world is what the check built before)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import benchmark.scoring.evaluators.checks as checks
import benchmark.scoring.evaluators.state_comparison as state_comparison
from benchmark.generation.generate import generate_episodes
from benchmark.generation.homes import pinned_home
from benchmark.scoring.evaluators.checks import reachable_value
from benchmark.scoring.evaluators.state_comparison import (
    ROLES_BY_VARIABLE,
    Baseline,
    fresh_fabric,
    fresh_room,
)
from benchmark.scoring.step_planning import DevicePlan, control_steps
from benchmark.suites.simuhome.episode import DirectionGoal, load_episodes
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.home_generation.generator import generate_home
from tests.benchmark.fixture_episodes import EPISODE_DIR

VARIABLES = ("temperature", "humidity", "illuminance", "pm10")
HORIZON_TICKS = (0, 600, 3000, 18_000)  # the ticks both worlds are compared at (10 ticks a second)
GENERATED_SEEDS = (1, 2, 3)


def _homes() -> list[dict[str, Any]]:
    """The fixture episodes' distinct initial homes, and those of generated qt2 episodes on three generated homes."""
    episodes, _ = load_episodes(str(EPISODE_DIR))
    configs = [dict(episode.initial_home_config) for episode in episodes]
    for seed in GENERATED_SEEDS:
        with pinned_home(generate_home("simuhome", seed)):
            configs.append(generate_episodes("qt2", 1, seed)[0]["initial_home_config"])
    distinct: dict[str, dict[str, Any]] = {}
    for config in configs:
        distinct.setdefault(json.dumps(config, sort_keys=True), config)
    return list(distinct.values())


def _drive(world: EmulatedHome, room_id: str, variable: str, direction: str) -> None:
    """The reachable-move steps of ``checks.reachable_value``: the room's devices that move ``variable``, at their
    strongest the asked way."""
    for device in world.devices(room_id):
        for role, endpoint in device.spec.roles:
            if role not in ROLES_BY_VARIABLE[variable]:
                continue
            plan = DevicePlan(device.device_id, device.device_type, dict(world.read_all(device.device_id)))
            for step in control_steps(plan, role, endpoint, variable, direction):
                try:
                    world.apply(step)
                except HomeError:
                    continue


def _room_picture(world: EmulatedHome, room_id: str) -> str:
    devices = {device.device_id: world.read_all(device.device_id) for device in world.devices(room_id)}
    return json.dumps({"room": world.room_state(room_id, exact=True), "devices": devices}, sort_keys=True)


HOMES = _homes()


@pytest.mark.parametrize("home", HOMES, ids=[f"home{index}" for index in range(len(HOMES))])
def test_a_room_alone_moves_as_it_does_in_the_whole_home(home: dict[str, Any]):
    rooms = sorted(home["rooms"])
    assert rooms
    for room_id in rooms:
        for variable in VARIABLES:
            for direction in ("increase", "decrease"):
                alone, whole = fresh_room(home, room_id), fresh_fabric(home)
                assert [d.device_id for d in alone.devices()] == [d.device_id for d in whole.devices(room_id)]
                _drive(alone, room_id, variable, direction)
                _drive(whole, room_id, variable, direction)
                for tick in HORIZON_TICKS:
                    alone.run_until(tick)
                    whole.run_until(tick)
                    assert _room_picture(alone, room_id) == _room_picture(whole, room_id), (room_id, variable, tick)


@pytest.mark.parametrize("home", HOMES[:2], ids=["fixture", "generated"])
def test_the_reachable_value_is_the_whole_homes(home: dict[str, Any], monkeypatch: pytest.MonkeyPatch):
    goals = [
        DirectionGoal.model_validate({"room_id": room_id, "room_state": variable, "direction": direction})
        for room_id in sorted(home["rooms"])
        for variable in VARIABLES
        for direction in ("increase", "decrease")
    ]
    baseline = Baseline(home, fresh_fabric(home).snapshot())
    alone = [reachable_value(baseline, goal, 3000) for goal in goals]
    monkeypatch.setattr(checks, "fresh_room", lambda config, room_id: fresh_fabric(config))
    assert [reachable_value(baseline, goal, 3000) for goal in goals] == alone


def test_a_home_with_rules_is_built_whole(monkeypatch: pytest.MonkeyPatch):
    """Rules may act on any room: such a home's rooms are not built alone."""
    home = HOMES[0]
    room_id = sorted(home["rooms"])[0]
    assert len(fresh_room(home, room_id).devices()) < len(fresh_fabric(home).devices())
    key = state_comparison._state_key(home)
    assert key is not None
    config, built = state_comparison._prepared[key]
    whole = fresh_fabric(home)
    light = next(d for d in whole.devices() if d.find(1, "OnOff") is not None)
    rule = whole.add_automation(
        {
            "name": "off at night",
            "trigger": {"kind": "time", "cron": "0 0 23 * * ? *"},
            "actions": [
                {"kind": "invoke", "device_id": light.device_id, "endpoint": 1, "cluster": "OnOff", "command": "Off"}
            ],
        }
    )
    with_rule = config.model_copy(update={"automations": [rule]})
    monkeypatch.setitem(state_comparison._prepared, key, (with_rule, built))
    assert len(fresh_room(home, room_id).devices()) == len(config.devices)
