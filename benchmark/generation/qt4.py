"""qt4 — scheduling: relative times (qt4-1), relative to a running appliance's end (qt4-2), appliance ↔
appliance coordination (qt4-3); infeasible variants carry a temporal conflict.

Every ``when`` is computed from our cycle programs and the anchor's CountdownTime on the exported home,
and every feasible episode is verified by simulation: a witness schedule (kept as the solution) makes
every goal true inside its window, and doing nothing leaves at least one goal false.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from benchmark.generation.common import (
    DEFAULT_TOLERANCE_TICKS,
    TICKS_PER_MINUTE,
    TICKS_PER_SECOND,
    Draft,
    GenerationFailed,
    Mentions,
    dedupe_actions,
    room_devices_action,
    ticks_to_minutes,
    time_at,
)
from benchmark.generation.grammar import clock_12h, device_ref, finish, join, minutes, pick, room_name
from benchmark.generation.homes import APPLIANCE_TYPES, EpisodeHome, build_home, home_config, start_appliance
from benchmark.generation.qt3 import phrase
from benchmark.generation.targets import (
    NON_OPERATIONAL_TYPES,
    Step,
    Variant,
    asserts_differ,
    asserts_hold,
    cycle_seconds,
    program_choices,
    program_variant,
    state_assert,
    variants,
)
from benchmark.generation.wording import command_slots, program_phrase
from emulator.errors import FabricError
from emulator.fabric import Fabric
from emulator.home_generation.seeds import sub_seed

TARGET_TYPES = tuple(t for t in NON_OPERATIONAL_TYPES if t not in ("refrigerator", "freezer"))
TIME_ONLY = "%H:%M:%S"


def when(reference_tick: int, relation: str, offset_ticks: int, tolerance: int = DEFAULT_TOLERANCE_TICKS
         ) -> dict[str, Any]:
    at = reference_tick + offset_ticks if relation == "after" else reference_tick - offset_ticks
    return {"reference_tick": reference_tick, "reference_minutes": ticks_to_minutes(reference_tick),
            "relation": relation, "offset_ticks": offset_ticks, "offset_minutes": ticks_to_minutes(offset_ticks),
            "at_tick": at, "at_minutes": ticks_to_minutes(at), "tolerance_ticks": tolerance}


def device_entry(device: Any) -> dict[str, Any]:
    return {"room_id": device.room_id, "device_id": device.device_id, "device_type": device.device_type}


def strip_value_types(variant: Variant) -> list[dict[str, Any]]:
    return [{k: v for k, v in a.items() if k != "value_type"} for a in variant.asserts]


@dataclass
class Check:
    """Goal ``index`` must hold at ``tick`` for ``device_id`` (asserts of ``variant``)."""

    index: int
    tick: int
    device_id: str
    variant: Variant


@dataclass
class Plan:
    """The witness: steps now and workflows at ticks."""

    now: list[tuple[str, Variant]]
    later: list[tuple[int, str, Variant]]


def simulate(home: EpisodeHome, plan: Plan | None, checks: Iterable[Check]) -> dict[int, bool]:
    """Run the plan (or nothing) on a fresh fabric; which goals hold at their check ticks."""
    fabric = home.fabric()
    if plan is not None:
        for device_id, variant in plan.now:
            for step in variant.steps:
                step.apply(fabric, device_id)
        for tick, device_id, variant in plan.later:
            fabric.schedule(tick, [s.workflow_step(device_id) for s in variant.steps])
    result: dict[int, bool] = {}
    for check in sorted(checks, key=lambda c: c.tick):
        fabric.run_until(check.tick)
        result[check.index] = result.get(check.index, True) and asserts_hold(fabric, check.device_id, check.variant)
    return result


def solution_calls(home: EpisodeHome, plan: Plan) -> list[dict[str, Any]]:
    calls = [step.tool_call(device_id) for device_id, variant in plan.now for step in variant.steps]
    for tick, device_id, variant in plan.later:
        start = time_at(home.initial_home_config, tick).strftime("%Y-%m-%d %H:%M:%S")
        calls.append({"tool": "schedule_workflow", "params": {
            "start_time": start, "description": f"{variant.intent} {device_id}",
            "steps": [{"tool": c["tool"], "args": c["params"]}
                      for c in (s.tool_call(device_id) for s in variant.steps)]}})
    return calls


def verify(home: EpisodeHome, plan: Plan, checks: list[Check], null_checks: list[Check]) -> None:
    held = simulate(home, plan, checks)
    if not all(held.values()):
        raise GenerationFailed(f"witness schedule misses goals {sorted(i for i, ok in held.items() if not ok)}")
    idle = simulate(home, None, null_checks)
    if all(idle.values()):
        raise GenerationFailed("doing nothing already satisfies every goal")


def _time(home: EpisodeHome, tick: int) -> str:
    return time_at(home.initial_home_config, tick).strftime(TIME_ONLY)


def _pick_variant(device: Any, attrs: dict[str, Any], rng: random.Random, *, avoid: Variant | None = None
                  ) -> Variant:
    options = [v for v in variants(device.device_type, attrs, rng) if asserts_differ(attrs, v)
               and (avoid is None or v.asserts != avoid.asserts)]
    if not options:
        raise GenerationFailed(f"no request fits {device.device_id}")
    return rng.choice(options)


def _apply(fabric: Fabric, device_id: str, variant: Variant) -> None:
    try:
        for step in variant.steps:
            step.apply(fabric, device_id)
    except FabricError as error:
        raise GenerationFailed(str(error)) from None


# --- qt4-1 --------------------------------------------------------------------------------------------
def build_qt4_1(episode_seed: int, case: str, attempt: int, rng: random.Random) -> Draft:
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
                variant = _pick_variant(device, attrs, rng, avoid=previous)
            _apply(scratch, device_id, variant)
            timing = when(reference, "after", offsets[index] * TICKS_PER_MINUTE)
            chain.append((timing, variant, offsets[index]))
            reference, previous = timing["at_tick"], variant
        pieces = []
        for index, (timing, variant, offset) in enumerate(chain):
            goal_index = len(goals)
            goals.append({"when": timing, "anchor": {}, "targets": [{**device_entry(device),
                                                                      "asserts": [dict(a) for a in variant.asserts]}]})
            checks.append(Check(goal_index, timing["at_tick"] + TICKS_PER_SECOND, device_id, variant))
            later.append((timing["at_tick"], device_id, variant))
            lead = (pick(rng, ("in {m}", "{m} from now", "after {m}"), {"m": minutes(offset)}) if index == 0 else
                    pick(rng, ("{m} after that", "then {m} later", "{m} later"), {"m": minutes(offset)}))
            pieces.append(f"{lead}, {phrase(device, variant, rng, mentions)}")
            mentions.add(numbers=[str(offset)])
        clauses.append(", ".join(pieces))
    order = sorted(range(len(goals)), key=lambda i: goals[i]["when"]["at_tick"])
    plan = Plan(now=[], later=later)
    verify(home, plan, checks, [Check(c.index, c.tick, c.device_id, c.variant) for c in checks])
    if case == "feasible":
        goals = [goals[i] for i in order]
        return Draft(query=finish(join(clauses, rng), rng), user_location=rng.choice(sorted(
            home.initial_home_config["rooms"])), goals=goals,
            required_actions=dedupe_actions([room_devices_action(fabric.device(d).room_id) for d in chosen]),
            initial_home_config=home.initial_home_config, mentions=mentions, solution=solution_calls(home, plan),
            verification={"checked_ticks": sorted(c.tick for c in checks)})
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
    lead = pick(rng, ("at {clock}, (which is|that's) {m} from now, ", "at {clock} (-|, so) {m} from now (-|,) "),
                {"clock": clock, "m": minutes(expected)})
    query = finish(lead + phrase(device, variant, rng, mentions), rng)
    conflict_info = {"type": "absolute_time_mismatch_nonop_multi", "expected_at": expected, "conflict_at": conflict,
                     "base_time": home.initial_home_config["base_time"], "expected_time": _time(home, first["when"][
                         "at_tick"]), "conflict_time": _time(home, conflict_tick)}
    return Draft(query=query, user_location=device.room_id, goals=[first], required_actions=[],
                 initial_home_config=home.initial_home_config, mentions=mentions,
                 meta={"conflict_type": conflict_info["type"]}, temporal_conflict=conflict_info)


# --- anchors ------------------------------------------------------------------------------------------
def _anchor_home(seed: int, rng: random.Random, *, extra_exclude: Iterable[str] = (),
                 config: Any = None) -> tuple[EpisodeHome, str, int]:
    config = config or home_config(sub_seed(seed, "home"))
    excluded = set(extra_exclude)
    appliances = sorted(d.id for d in config.devices if d.type in APPLIANCE_TYPES and d.id not in excluded)
    if not appliances:
        raise GenerationFailed("no appliance to anchor on")
    anchor = rng.choice(appliances)

    def prepare(fabric: Fabric, prepare_rng: random.Random) -> None:
        if not start_appliance(fabric, anchor, prepare_rng):
            raise GenerationFailed("the anchor did not start")

    _, home = build_home(seed, config=config, prepare=prepare, exclude=[anchor, *excluded])
    fabric = home.fabric()
    remaining = fabric.read(anchor, 1, "OperationalState", "CountdownTime")
    if fabric.read(anchor, 1, "OperationalState", "OperationalState") != 1 or not remaining:
        raise GenerationFailed("the anchor is not running")
    end_tick = int(remaining) * TICKS_PER_SECOND
    # The end must be exactly where the countdown says (a running cycle, no rounding surprises).
    fabric.run_until(end_tick - 1)
    running = fabric.read(anchor, 1, "OperationalState", "OperationalState") == 1
    fabric.run_until(end_tick)
    if not running or fabric.read(anchor, 1, "OperationalState", "OperationalState") != 0:
        raise GenerationFailed("the anchor does not end at its countdown")
    return home, anchor, end_tick


def _anchor_phrase(fabric: Fabric, anchor: str, rng: random.Random, mentions: Mentions) -> tuple[str, Any]:
    device = fabric.device(anchor)
    ref = device_ref(anchor, device.device_type, rng)
    mentions.add(devices=[ref], rooms=[room_name(device.room_id)])
    return f"{ref} in the {room_name(device.room_id)}", device


# --- qt4-2 --------------------------------------------------------------------------------------------
def build_qt4_2(episode_seed: int, case: str, attempt: int, rng: random.Random) -> Draft:
    seed = sub_seed(episode_seed, "qt4-2", case, attempt)
    config = home_config(sub_seed(seed, "home"))
    pool = sorted(d.id for d in config.devices if d.type in TARGET_TYPES)
    chosen = sorted(rng.sample(pool, 2 if rng.random() < 0.7 else 1))
    home, anchor, end_tick = _anchor_home(seed, rng, extra_exclude=chosen, config=config)
    fabric = home.fabric()
    offset = rng.randint(5, 30)
    relation = rng.choice(("before", "after"))
    if relation == "before" and end_tick - offset * TICKS_PER_MINUTE < 5 * TICKS_PER_MINUTE:
        relation = "after"
    timing = when(end_tick, relation, offset * TICKS_PER_MINUTE)
    mentions = Mentions()
    anchor_text, anchor_device = _anchor_phrase(fabric, anchor, rng, mentions)
    targets, checks, later, clauses = [], [], [], []
    for device_id in chosen:
        device = fabric.device(device_id)
        variant = _pick_variant(device, fabric.read_all(device_id), rng)
        targets.append({**device_entry(device), "asserts": [dict(a) for a in variant.asserts]})
        checks.append(Check(0, timing["at_tick"] + TICKS_PER_SECOND, device_id, variant))
        later.append((timing["at_tick"], device_id, variant))
        clauses.append(phrase(device, variant, rng, mentions))
    plan = Plan(now=[], later=later)
    verify(home, plan, checks, checks)
    goal = {"when": timing, "anchor": device_entry(anchor_device), "targets": targets}
    mentions.add(numbers=[str(offset)])
    lead = pick(rng, ("{m} {rel} {anchor} (finishes|is done|wraps up)", "once {anchor} is done, wait {m}",
                      "{m} {rel} {anchor} (ends|completes)") if relation == "after" else
                ("{m} {rel} {anchor} (finishes|is done)", "{m} {rel} {anchor} (ends|completes)"),
                {"m": minutes(offset), "rel": relation, "anchor": anchor_text})
    if relation == "after" and "wait" in lead:
        lead += " and then"
    else:
        lead += ","
    if case == "feasible":
        return Draft(query=finish(f"{lead} {join(clauses, rng)}", rng), user_location=anchor_device.room_id,
                     goals=[goal], required_actions=dedupe_actions(
                         [room_devices_action(anchor_device.room_id)] +
                         [room_devices_action(t["room_id"]) for t in targets]),
                     initial_home_config=home.initial_home_config, mentions=mentions,
                     solution=solution_calls(home, plan), verification={"anchor_end_tick": end_tick})
    expected_tick = timing["at_tick"]
    conflict_tick = expected_tick + rng.choice((-1, 1)) * rng.randint(10, 20) * TICKS_PER_MINUTE
    clock = clock_12h(time_at(home.initial_home_config, conflict_tick))
    mentions.add(times=[clock])
    lead = pick(rng, ("{m} {rel} {anchor} finishes, (so|that is) at {clock},",
                      "at {clock}, which is {m} {rel} {anchor} (is done|finishes),"),
                {"m": minutes(offset), "rel": relation, "anchor": anchor_text, "clock": clock})
    conflict_info = {"type": "timing_mismatch_op_nonop", "relation": relation, "offset_minutes": offset,
                     "anchor_end_at": ticks_to_minutes(end_tick), "expected_at": ticks_to_minutes(expected_tick),
                     "conflict_at": ticks_to_minutes(conflict_tick), "base_time": home.initial_home_config["base_time"],
                     "anchor_end_time": _time(home, end_tick), "expected_time": _time(home, expected_tick),
                     "conflict_time": _time(home, conflict_tick)}
    return Draft(query=finish(f"{lead} {join(clauses, rng)}", rng), user_location=anchor_device.room_id, goals=[goal],
                 required_actions=[], initial_home_config=home.initial_home_config, mentions=mentions,
                 meta={"conflict_type": conflict_info["type"]}, temporal_conflict=conflict_info)


# --- qt4-3 --------------------------------------------------------------------------------------------
INFEASIBLE_FOR = {"pause_at_anchor_end": ("absolute_time_mismatch", "completion_vs_pause"),
                  "delayed_start": ("delay_time_mismatch",), "align_end_with_anchor": ("impossible_early_end",)}
SCENARIO_WORDING = {
    "pause_at_anchor_end": ("start {target} now[ on {program}] and pause it (when|as soon as) {anchor} "
                            "(finishes|is done)",
                            "(run|kick off) {target}[ on {program}] right away, then pause it once {anchor} ends"),
    "delayed_start": ("wait {m} after {anchor} finishes, then start {target}[ on {program}]",
                      "{m} after {anchor} is done, (start|run) {target}[ on {program}]"),
    "align_end_with_anchor": ("start {target}[ on {program}] so it finishes "
                              "(at the same time as|together with) {anchor}",
                              "time {target}[ on {program}] so that it ends when {anchor} ends"),
}
CONFLICT_WORDING = {
    "absolute_time_mismatch": ("start {target} now[ on {program}] and pause it when {anchor} finishes at {clock}",
                               "(run|start) {target}[ on {program}] now, and since {anchor} is done at {clock}, "
                               "pause it then"),
    "completion_vs_pause": ("start {target}[ on {program}] now so that it finishes together with {anchor}",
                            "(run|start) {target}[ on {program}] right now and have it done when {anchor} is done"),
    "delay_time_mismatch": ("wait {m} after {anchor} finishes, (so|that is) at {clock}, "
                            "then start {target}[ on {program}]",
                            "at {clock}, {m} after {anchor} is done, start {target}[ on {program}]"),
    "impossible_early_end": ("make sure {anchor} and {target}[ on {program}] are both (done|finished) by {clock}",
                             "I need both {anchor} and {target} finished by {clock}[, use {program}]"),
}


def build_qt4_3(episode_seed: int, case: str, attempt: int, rng: random.Random) -> Draft:
    seed = sub_seed(episode_seed, "qt4-3", case, attempt)
    config = home_config(sub_seed(seed, "home"))
    pool = sorted(d.id for d in config.devices if d.type in (*APPLIANCE_TYPES, "rvc"))
    if len(pool) < 2:
        raise GenerationFailed("qt4-3 needs two appliances")
    target_id = rng.choice(pool)
    home, anchor, end_tick = _anchor_home(seed, rng, extra_exclude=[target_id], config=config)
    fabric = home.fabric()
    target = fabric.device(target_id)
    attrs = fabric.read_all(target_id)
    state_path = "1.RvcOperationalState.OperationalState" if target.device_type == "rvc" else \
        "1.OperationalState.OperationalState"
    if attrs.get(state_path) != 0:
        raise GenerationFailed("the target is not stopped")
    durations = {p: int(cycle_seconds(target.device_type, attrs, p) * TICKS_PER_SECOND)
                 for p in program_choices(target.device_type)}
    longer = [p for p, d in durations.items() if d > end_tick + 2 * TICKS_PER_MINUTE]
    fits = [p for p, d in durations.items() if d < end_tick - 3 * TICKS_PER_MINUTE]
    scenarios = (["pause_at_anchor_end"] * 2 if longer else []) + (["delayed_start", "align_end_with_anchor"]
                                                                   if fits else ["delayed_start"])
    scenario = rng.choice(scenarios)
    if end_tick <= 3 * TICKS_PER_MINUTE:
        raise GenerationFailed("the anchor ends too soon")
    program = rng.choice(longer if scenario == "pause_at_anchor_end" else fits if scenario ==
                         "align_end_with_anchor" else list(durations))
    start = program_variant(target.device_type, attrs, rng, program=program)
    run_asserts = Variant("running", start.params, start.asserts, ())

    def state_variant(state: int, label: str) -> Variant:
        return Variant(label, {}, (state_assert(target.device_type, state, label),), ())

    pause = Variant("pause", {}, state_variant(2, "paused").asserts, (_pause_step(target.device_type),))
    duration = durations[program]
    delay = rng.randint(5, 20)
    if scenario == "pause_at_anchor_end":
        goals_spec = [(when(end_tick, "before", TICKS_PER_MINUTE, 0), run_asserts),
                      (when(end_tick, "after", 0), state_variant(2, "paused"))]
        plan = Plan(now=[(target_id, start)], later=[(end_tick, target_id, pause)])
    elif scenario == "delayed_start":
        start_tick = end_tick + delay * TICKS_PER_MINUTE
        goals_spec = [(when(start_tick, "before", TICKS_PER_MINUTE, 0), state_variant(0, "stopped")),
                      (when(end_tick, "after", delay * TICKS_PER_MINUTE), run_asserts)]
        plan = Plan(now=[], later=[(start_tick, target_id, start)])
    else:
        goals_spec = [(when(end_tick, "before", TICKS_PER_MINUTE, 0), run_asserts),
                      (when(end_tick, "after", 0), state_variant(0, "stopped"))]
        plan = Plan(now=[], later=[(end_tick - duration, target_id, start)])
    checks = [Check(i, w["at_tick"] + (TICKS_PER_SECOND if w["tolerance_ticks"] else 0), target_id, v)
              for i, (w, v) in enumerate(goals_spec)]
    null_checks = [Check(i, max(0, w["at_tick"] + d), target_id, v) for i, (w, v) in enumerate(goals_spec)
                   for d in {-w["tolerance_ticks"], 0, w["tolerance_ticks"]}]
    verify(home, plan, checks, null_checks)
    anchor_device = fabric.device(anchor)
    goals = [{"when": w, "anchor": device_entry(anchor_device),
              "targets": [{**device_entry(target), "asserts": strip_value_types(v)}]} for w, v in goals_spec]
    mentions = Mentions()
    anchor_text, _ = _anchor_phrase(fabric, anchor, rng, mentions)
    target_ref = device_ref(target_id, target.device_type, rng)
    mentions.add(devices=[target_ref], rooms=[room_name(target.room_id)])
    slots = {**command_slots(target_ref, room_name(target.room_id), start.params), "anchor": anchor_text,
             "target": f"{target_ref} in the {room_name(target.room_id)}", "m": minutes(delay)}
    slots.setdefault("program", "its usual program")
    program_text = program_phrase(start.params)
    meta: dict[str, Any] = {"scenario": scenario}
    common = {"anchor_end_at": ticks_to_minutes(end_tick), "anchor_end_time": _time(home, end_tick),
              "base_time": home.initial_home_config["base_time"]}
    if case == "feasible":
        text = _render(SCENARIO_WORDING[scenario], slots, rng, program_text, mentions)
        if scenario == "delayed_start":
            mentions.add(numbers=[str(delay)])
        return Draft(query=finish(text, rng), user_location=target.room_id, goals=goals,
                     required_actions=dedupe_actions([room_devices_action(anchor_device.room_id),
                                                      room_devices_action(target.room_id)]),
                     initial_home_config=home.initial_home_config, mentions=mentions, meta=meta,
                     solution=solution_calls(home, plan),
                     verification={"anchor_end_tick": end_tick, "target_cycle_ticks": duration})
    conflict_type = rng.choice(INFEASIBLE_FOR[scenario])
    conflict: dict[str, Any] = {"type": conflict_type, **common}
    if conflict_type == "absolute_time_mismatch":
        conflict_tick = end_tick + rng.randint(10, 30) * TICKS_PER_MINUTE
    elif conflict_type == "delay_time_mismatch":
        expected = end_tick + delay * TICKS_PER_MINUTE
        conflict_tick = expected + rng.choice((-1, 1)) * rng.randint(5, 15) * TICKS_PER_MINUTE
        conflict.update(delay_minutes=delay, expected_at=ticks_to_minutes(expected),
                        expected_time=_time(home, expected))
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
        conflict.update(conflict_at=ticks_to_minutes(conflict_tick), conflict_time=_time(home, conflict_tick))
    text = _render(CONFLICT_WORDING[conflict_type], slots, rng, program_text, mentions)
    meta["conflict_type"] = conflict_type
    return Draft(query=finish(text, rng), user_location=target.room_id, goals=goals, required_actions=[],
                 initial_home_config=home.initial_home_config, mentions=mentions, meta=meta,
                 temporal_conflict=conflict)


def _pause_step(device_type: str) -> Any:
    cluster = "RvcOperationalState" if device_type == "rvc" else "OperationalState"
    return Step("invoke", 1, cluster, "Pause")


def _render(templates: tuple[str, ...], slots: dict[str, Any], rng: random.Random, program: str | None,
            mentions: Mentions) -> str:
    template = rng.choice(templates)
    if program is not None:
        template = template.replace("[ on {program}]", " on {program}").replace("[, use {program}]", ", use {program}")
        mentions.add(words=[program.replace(" dryness", "")])
    else:
        template = template.replace("[ on {program}]", "").replace("[, use {program}]", "")
    return pick(rng, [template], slots)

