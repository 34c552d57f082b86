"""qt4-2: goals timed before or after a running appliance finishes."""

from __future__ import annotations

import random

from benchmark.generation.episode_layout import (
    TICKS_PER_MINUTE,
    Draft,
    Mentions,
    dedupe_actions,
    room_devices_action,
    ticks_to_minutes,
    time_at,
)
from benchmark.generation.grammar import clock_12h, finish, join, minutes, pick
from benchmark.generation.homes import home_config
from benchmark.generation.qt3 import phrase
from benchmark.generation.qt4.anchors import anchor_home, anchor_phrase
from benchmark.generation.qt4.goals import TARGET_TYPES, clock_time, device_entry, pick_variant, when
from benchmark.generation.qt4.witness import Check, Plan, solution_calls, verify
from emulator.clock import TICKS_PER_SECOND
from emulator.home_generation.seeds import sub_seed


def build(episode_seed: int, case: str, attempt: int, rng: random.Random) -> Draft:
    seed = sub_seed(episode_seed, "qt4-2", case, attempt)
    config = home_config(sub_seed(seed, "home"))
    pool = sorted(d.id for d in config.devices if d.type in TARGET_TYPES)
    chosen = sorted(rng.sample(pool, 2 if rng.random() < 0.7 else 1))
    home, anchor, end_tick = anchor_home(seed, rng, extra_exclude=chosen, config=config)
    fabric = home.fabric()
    offset = rng.randint(5, 30)
    relation = rng.choice(("before", "after"))
    if relation == "before" and end_tick - offset * TICKS_PER_MINUTE < 5 * TICKS_PER_MINUTE:
        relation = "after"
    timing = when(end_tick, relation, offset * TICKS_PER_MINUTE)
    mentions = Mentions()
    anchor_text, anchor_device = anchor_phrase(fabric, anchor, rng, mentions)
    targets, checks, later, clauses = [], [], [], []
    for device_id in chosen:
        device = fabric.device(device_id)
        variant = pick_variant(device, fabric.read_all(device_id), rng)
        targets.append({**device_entry(device), "asserts": [dict(a) for a in variant.asserts]})
        checks.append(Check(0, timing["at_tick"] + TICKS_PER_SECOND, device_id, variant))
        later.append((timing["at_tick"], device_id, variant))
        clauses.append(phrase(device, variant, rng, mentions))
    plan = Plan(now=[], later=later)
    verify(home, plan, checks, checks)
    goal = {"when": timing, "anchor": device_entry(anchor_device), "targets": targets}
    mentions.add(numbers=[str(offset)])
    lead = pick(
        rng,
        (
            "{m} {rel} {anchor} (finishes|is done|wraps up)",
            "once {anchor} is done, wait {m}",
            "{m} {rel} {anchor} (ends|completes)",
        )
        if relation == "after"
        else ("{m} {rel} {anchor} (finishes|is done)", "{m} {rel} {anchor} (ends|completes)"),
        {"m": minutes(offset), "rel": relation, "anchor": anchor_text},
    )
    if relation == "after" and "wait" in lead:
        lead += " and then"
    else:
        lead += ","
    if case == "feasible":
        return Draft(
            query=finish(f"{lead} {join(clauses, rng)}", rng),
            user_location=anchor_device.room_id,
            goals=[goal],
            required_actions=dedupe_actions(
                [room_devices_action(anchor_device.room_id)] + [room_devices_action(t["room_id"]) for t in targets]
            ),
            initial_home_config=home.initial_home_config,
            mentions=mentions,
            solution=solution_calls(home, plan),
            verification={"anchor_end_tick": end_tick},
        )
    expected_tick = timing["at_tick"]
    conflict_tick = expected_tick + rng.choice((-1, 1)) * rng.randint(10, 20) * TICKS_PER_MINUTE
    clock = clock_12h(time_at(home.initial_home_config, conflict_tick))
    mentions.add(times=[clock])
    lead = pick(
        rng,
        (
            "{m} {rel} {anchor} finishes, (so|that is) at {clock},",
            "at {clock}, which is {m} {rel} {anchor} (is done|finishes),",
        ),
        {"m": minutes(offset), "rel": relation, "anchor": anchor_text, "clock": clock},
    )
    conflict_info = {
        "type": "timing_mismatch_op_nonop",
        "relation": relation,
        "offset_minutes": offset,
        "anchor_end_at": ticks_to_minutes(end_tick),
        "expected_at": ticks_to_minutes(expected_tick),
        "conflict_at": ticks_to_minutes(conflict_tick),
        "base_time": home.initial_home_config["base_time"],
        "anchor_end_time": clock_time(home, end_tick),
        "expected_time": clock_time(home, expected_tick),
        "conflict_time": clock_time(home, conflict_tick),
    }
    return Draft(
        query=finish(f"{lead} {join(clauses, rng)}", rng),
        user_location=anchor_device.room_id,
        goals=[goal],
        required_actions=[],
        initial_home_config=home.initial_home_config,
        mentions=mentions,
        meta={"conflict_type": conflict_info["type"]},
        temporal_conflict=conflict_info,
    )
