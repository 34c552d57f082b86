"""qt4-3: one appliance coordinated with another (pause at its end, start after it, finish with it)."""

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
    ticks_to_minutes,
    time_at,
)
from benchmark.generation.grammar import clock_12h, device_ref, finish, minutes, pick, room_name
from benchmark.generation.homes import APPLIANCE_TYPES, home_config
from benchmark.generation.qt4.anchors import anchor_home, anchor_phrase
from benchmark.generation.qt4.goals import clock_time, device_entry, strip_value_types, when
from benchmark.generation.qt4.witness import Check, Plan, solution_calls, verify
from benchmark.generation.targets import Step, Variant, cycle_seconds, program_choices, program_variant, state_assert
from benchmark.generation.wording import command_slots, program_phrase
from emulator.clock import TICKS_PER_SECOND
from emulator.home_generation.seeds import sub_seed

INFEASIBLE_FOR = {
    "pause_at_anchor_end": ("absolute_time_mismatch", "completion_vs_pause"),
    "delayed_start": ("delay_time_mismatch",),
    "align_end_with_anchor": ("impossible_early_end",),
}
SCENARIO_WORDING = {
    "pause_at_anchor_end": (
        "start {target} now[ on {program}] and pause it (when|as soon as) {anchor} (finishes|is done)",
        "(run|kick off) {target}[ on {program}] right away, then pause it once {anchor} ends",
    ),
    "delayed_start": (
        "wait {m} after {anchor} finishes, then start {target}[ on {program}]",
        "{m} after {anchor} is done, (start|run) {target}[ on {program}]",
    ),
    "align_end_with_anchor": (
        "start {target}[ on {program}] so it finishes (at the same time as|together with) {anchor}",
        "time {target}[ on {program}] so that it ends when {anchor} ends",
    ),
}
CONFLICT_WORDING = {
    "absolute_time_mismatch": (
        "start {target} now[ on {program}] and pause it when {anchor} finishes at {clock}",
        "(run|start) {target}[ on {program}] now, and since {anchor} is done at {clock}, pause it then",
    ),
    "completion_vs_pause": (
        "start {target}[ on {program}] now so that it finishes together with {anchor}",
        "(run|start) {target}[ on {program}] right now and have it done when {anchor} is done",
    ),
    "delay_time_mismatch": (
        "wait {m} after {anchor} finishes, (so|that is) at {clock}, then start {target}[ on {program}]",
        "at {clock}, {m} after {anchor} is done, start {target}[ on {program}]",
    ),
    "impossible_early_end": (
        "make sure {anchor} and {target}[ on {program}] are both (done|finished) by {clock}",
        "I need both {anchor} and {target} finished by {clock}[, use {program}]",
    ),
}


def build(episode_seed: int, case: str, attempt: int, rng: random.Random) -> Draft:
    seed = sub_seed(episode_seed, "qt4-3", case, attempt)
    config = home_config(sub_seed(seed, "home"))
    pool = sorted(d.id for d in config.devices if d.type in (*APPLIANCE_TYPES, "rvc"))
    if len(pool) < 2:
        raise GenerationFailed("qt4-3 needs two appliances")
    target_id = rng.choice(pool)
    home, anchor, end_tick = anchor_home(seed, rng, extra_exclude=[target_id], config=config)
    fabric = home.fabric()
    target = fabric.device(target_id)
    attrs = fabric.read_all(target_id)
    state_path = (
        "1.RvcOperationalState.OperationalState"
        if target.device_type == "rvc"
        else "1.OperationalState.OperationalState"
    )
    if attrs.get(state_path) != 0:
        raise GenerationFailed("the target is not stopped")
    durations = {
        p: int(cycle_seconds(target.device_type, attrs, p) * TICKS_PER_SECOND)
        for p in program_choices(target.device_type)
    }
    longer = [p for p, d in durations.items() if d > end_tick + 2 * TICKS_PER_MINUTE]
    fits = [p for p, d in durations.items() if d < end_tick - 3 * TICKS_PER_MINUTE]
    scenarios = (["pause_at_anchor_end"] * 2 if longer else []) + (
        ["delayed_start", "align_end_with_anchor"] if fits else ["delayed_start"]
    )
    scenario = rng.choice(scenarios)
    if end_tick <= 3 * TICKS_PER_MINUTE:
        raise GenerationFailed("the anchor ends too soon")
    program = rng.choice(
        longer
        if scenario == "pause_at_anchor_end"
        else fits
        if scenario == "align_end_with_anchor"
        else list(durations)
    )
    start = program_variant(target.device_type, attrs, rng, program=program)
    run_asserts = Variant("running", start.params, start.asserts, ())

    def state_variant(state: int, label: str) -> Variant:
        return Variant(label, {}, (state_assert(target.device_type, state, label),), ())

    pause = Variant("pause", {}, state_variant(2, "paused").asserts, (_pause_step(target.device_type),))
    duration = durations[program]
    delay = rng.randint(5, 20)
    if scenario == "pause_at_anchor_end":
        goals_spec = [
            (when(end_tick, "before", TICKS_PER_MINUTE, 0), run_asserts),
            (when(end_tick, "after", 0), state_variant(2, "paused")),
        ]
        plan = Plan(now=[(target_id, start)], later=[(end_tick, target_id, pause)])
    elif scenario == "delayed_start":
        start_tick = end_tick + delay * TICKS_PER_MINUTE
        goals_spec = [
            (when(start_tick, "before", TICKS_PER_MINUTE, 0), state_variant(0, "stopped")),
            (when(end_tick, "after", delay * TICKS_PER_MINUTE), run_asserts),
        ]
        plan = Plan(now=[], later=[(start_tick, target_id, start)])
    else:
        goals_spec = [
            (when(end_tick, "before", TICKS_PER_MINUTE, 0), run_asserts),
            (when(end_tick, "after", 0), state_variant(0, "stopped")),
        ]
        plan = Plan(now=[], later=[(end_tick - duration, target_id, start)])
    checks = [
        Check(i, w["at_tick"] + (TICKS_PER_SECOND if w["tolerance_ticks"] else 0), target_id, v)
        for i, (w, v) in enumerate(goals_spec)
    ]
    null_checks = [
        Check(i, max(0, w["at_tick"] + d), target_id, v)
        for i, (w, v) in enumerate(goals_spec)
        for d in {-w["tolerance_ticks"], 0, w["tolerance_ticks"]}
    ]
    verify(home, plan, checks, null_checks)
    anchor_device = fabric.device(anchor)
    goals = [
        {
            "when": w,
            "anchor": device_entry(anchor_device),
            "targets": [{**device_entry(target), "asserts": strip_value_types(v)}],
        }
        for w, v in goals_spec
    ]
    mentions = Mentions()
    anchor_text, _ = anchor_phrase(fabric, anchor, rng, mentions)
    target_ref = device_ref(target_id, target.device_type, rng)
    mentions.add(devices=[target_ref], rooms=[room_name(target.room_id)])
    slots = {
        **command_slots(target_ref, room_name(target.room_id), start.params),
        "anchor": anchor_text,
        "target": f"{target_ref} in the {room_name(target.room_id)}",
        "m": minutes(delay),
    }
    slots.setdefault("program", "its usual program")
    program_text = program_phrase(start.params)
    meta: dict[str, Any] = {"scenario": scenario}
    common = {
        "anchor_end_at": ticks_to_minutes(end_tick),
        "anchor_end_time": clock_time(home, end_tick),
        "base_time": home.initial_home_config["base_time"],
    }
    if case == "feasible":
        text = _render(SCENARIO_WORDING[scenario], slots, rng, program_text, mentions)
        if scenario == "delayed_start":
            mentions.add(numbers=[str(delay)])
        return Draft(
            query=finish(text, rng),
            user_location=target.room_id,
            goals=goals,
            required_actions=dedupe_actions(
                [room_devices_action(anchor_device.room_id), room_devices_action(target.room_id)]
            ),
            initial_home_config=home.initial_home_config,
            mentions=mentions,
            meta=meta,
            solution=solution_calls(home, plan),
            verification={"anchor_end_tick": end_tick, "target_cycle_ticks": duration},
        )
    conflict_type = rng.choice(INFEASIBLE_FOR[scenario])
    conflict: dict[str, Any] = {"type": conflict_type, **common}
    if conflict_type == "absolute_time_mismatch":
        conflict_tick = end_tick + rng.randint(10, 30) * TICKS_PER_MINUTE
    elif conflict_type == "delay_time_mismatch":
        expected = end_tick + delay * TICKS_PER_MINUTE
        conflict_tick = expected + rng.choice((-1, 1)) * rng.randint(5, 15) * TICKS_PER_MINUTE
        conflict.update(
            delay_minutes=delay, expected_at=ticks_to_minutes(expected), expected_time=clock_time(home, expected)
        )
        mentions.add(numbers=[str(delay)])
    elif conflict_type == "impossible_early_end":
        conflict_tick = max(TICKS_PER_MINUTE, end_tick - rng.randint(5, 20) * TICKS_PER_MINUTE)
    else:
        conflict_tick = None
        conflict["requested_action"] = "completion"
    if conflict_tick is not None:
        clock = clock_12h(time_at(home.initial_home_config, conflict_tick))
        slots["clock"] = clock
        mentions.add(times=[clock])
        conflict.update(conflict_at=ticks_to_minutes(conflict_tick), conflict_time=clock_time(home, conflict_tick))
    text = _render(CONFLICT_WORDING[conflict_type], slots, rng, program_text, mentions)
    meta["conflict_type"] = conflict_type
    return Draft(
        query=finish(text, rng),
        user_location=target.room_id,
        goals=goals,
        required_actions=[],
        initial_home_config=home.initial_home_config,
        mentions=mentions,
        meta=meta,
        temporal_conflict=conflict,
    )


def _pause_step(device_type: str) -> Any:
    cluster = "RvcOperationalState" if device_type == "rvc" else "OperationalState"
    return Step("invoke", 1, cluster, "Pause")


def _render(
    templates: tuple[str, ...], slots: dict[str, Any], rng: random.Random, program: str | None, mentions: Mentions
) -> str:
    template = rng.choice(templates)
    if program is not None:
        template = template.replace("[ on {program}]", " on {program}").replace("[, use {program}]", ", use {program}")
        mentions.add(words=[program.replace(" dryness", "")])
    else:
        template = template.replace("[ on {program}]", "").replace("[, use {program}]", "")
    return pick(rng, [template], slots)
