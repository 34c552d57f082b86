"""qt4-1: goals at times relative to now ('in 10 minutes, … then 5 minutes later, …')."""

from __future__ import annotations

import random
from typing import Any

from benchmark.generation.episode_layout import (
    TICKS_PER_MINUTE,
    Draft,
    GenerationFailed,
    Mentions,
    dedupe_actions,
    room_devices_action,
    time_at,
)
from benchmark.generation.grammar import clock_12h, finish, join, minutes, pick
from benchmark.generation.homes import build_home, home_config
from benchmark.generation.qt3 import phrase
from benchmark.generation.qt4.goals import TARGET_TYPES, clock_time, device_entry, pick_variant, when
from benchmark.generation.qt4.witness import Check, Plan, solution_calls, verify
from benchmark.generation.targets import Variant, variants
from emulator.clock import TICKS_PER_SECOND
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.home_generation.seeds import sub_seed


def _apply(fabric: EmulatedHome, device_id: str, variant: Variant) -> None:
    try:
        for step in variant.steps:
            step.apply(fabric, device_id)
    except HomeError as error:
        raise GenerationFailed(str(error)) from None


def build(episode_seed: int, case: str, attempt: int, rng: random.Random) -> Draft:
    seed = sub_seed(episode_seed, "qt4-1", case, attempt)
    config = home_config(sub_seed(seed, "home"))
    pool = sorted(d.id for d in config.devices if d.type in TARGET_TYPES)
    chosen = sorted(rng.sample(pool, 2))
    _, home = build_home(seed, config=config, exclude=chosen)
    fabric = home.fabric()
    scratch = home.fabric()
    goals: list[dict[str, Any]] = []
    checks: list[Check] = []
    later: list[tuple[int, str, Variant]] = []
    clauses: list[str] = []
    mentions = Mentions()
    for device_id in chosen:
        device = fabric.device(device_id)
        offsets = rng.sample(range(5, 31), 3)
        reference, chain = 0, []
        previous: Variant | None = None
        steps = 2 + (1 if rng.random() < 0.5 else 0)
        for index in range(steps):
            attrs = scratch.read_all(device_id)
            if index == 2:
                off = [v for v in variants(device.device_type, attrs, rng) if v.intent == "power_off"]
                if not off:
                    break
                variant = off[0]
            else:
                variant = pick_variant(device, attrs, rng, avoid=previous)
            _apply(scratch, device_id, variant)
            timing = when(reference, "after", offsets[index] * TICKS_PER_MINUTE)
            chain.append((timing, variant, offsets[index]))
            reference, previous = timing["at_tick"], variant
        pieces = []
        for index, (timing, variant, offset) in enumerate(chain):
            goal_index = len(goals)
            goals.append(
                {
                    "when": timing,
                    "anchor": {},
                    "targets": [{**device_entry(device), "asserts": [dict(a) for a in variant.asserts]}],
                }
            )
            checks.append(Check(goal_index, timing["at_tick"] + TICKS_PER_SECOND, device_id, variant))
            later.append((timing["at_tick"], device_id, variant))
            lead = (
                pick(rng, ("in {m}", "{m} from now", "after {m}"), {"m": minutes(offset)})
                if index == 0
                else pick(rng, ("{m} after that", "then {m} later", "{m} later"), {"m": minutes(offset)})
            )
            pieces.append(f"{lead}, {phrase(device, variant, rng, mentions)}")
            mentions.add(numbers=[str(offset)])
        clauses.append(", ".join(pieces))
    order = sorted(range(len(goals)), key=lambda i: goals[i]["when"]["at_tick"])
    plan = Plan(now=[], later=later)
    verify(home, plan, checks, [Check(c.index, c.tick, c.device_id, c.variant) for c in checks])
    if case == "feasible":
        goals = [goals[i] for i in order]
        return Draft(
            query=finish(join(clauses, rng), rng),
            user_location=rng.choice(sorted(home.initial_home_config["rooms"])),
            goals=goals,
            required_actions=dedupe_actions([room_devices_action(fabric.device(d).room_id) for d in chosen]),
            initial_home_config=home.initial_home_config,
            mentions=mentions,
            solution=solution_calls(home, plan),
            verification={"checked_ticks": sorted(c.tick for c in checks)},
        )
    # Infeasible: only the first goal, stated with a clock time that contradicts "N minutes from now".
    first = goals[0]
    device = fabric.device(first["targets"][0]["device_id"])
    variant = later[0][2]
    expected = first["when"]["at_minutes"]
    conflict = expected + rng.choice((-1, 1)) * rng.randint(10, 20)
    conflict_tick = conflict * TICKS_PER_MINUTE
    mentions = Mentions()
    clock = clock_12h(time_at(home.initial_home_config, conflict_tick))
    mentions.add(times=[clock], numbers=[str(expected)])
    lead = pick(
        rng,
        ("at {clock}, (which is|that's) {m} from now, ", "at {clock} (-|, so) {m} from now (-|,) "),
        {"clock": clock, "m": minutes(expected)},
    )
    query = finish(lead + phrase(device, variant, rng, mentions), rng)
    conflict_info = {
        "type": "absolute_time_mismatch_nonop_multi",
        "expected_at": expected,
        "conflict_at": conflict,
        "base_time": home.initial_home_config["base_time"],
        "expected_time": clock_time(home, first["when"]["at_tick"]),
        "conflict_time": clock_time(home, conflict_tick),
    }
    return Draft(
        query=query,
        user_location=device.room_id,
        goals=[first],
        required_actions=[],
        initial_home_config=home.initial_home_config,
        mentions=mentions,
        meta={"conflict_type": conflict_info["type"]},
        temporal_conflict=conflict_info,
    )
