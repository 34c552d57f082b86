"""qt3 — explicit device control: 1–3 devices, asserts from the per-type templates.

Feasible goals are verified on the exported home: applying every device's steps through the EmulatedHome makes
every assert true, and each device has at least one assert that was not already true. Infeasible: the
named devices are removed from the home (asserts kept for the judge).
"""

from __future__ import annotations

import random
from typing import Any

from benchmark.generation.episode_layout import Draft, GenerationFailed, Mentions, dedupe_actions, room_devices_action
from benchmark.generation.grammar import device_ref, finish, join, room_name
from benchmark.generation.homes import (
    EpisodeHome,
    build_home,
    export_initial_home_config,
    home_config,
    settle,
    twin_only,
)
from benchmark.generation.targets import Variant, asserts_differ, asserts_hold, variants
from benchmark.generation.wording import command, mentioned_numbers, program_phrase
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.home_generation.seeds import sub_seed


def target_goal(device: Any, variant: Variant) -> dict[str, Any]:
    return {
        "room_id": device.room_id,
        "device_id": device.device_id,
        "device_type": device.device_type,
        "asserts": [dict(a) for a in variant.asserts],
    }


def phrase(device: Any, variant: Variant, rng: random.Random, mentions: Mentions) -> str:
    ref = device_ref(device.device_id, device.device_type, rng)
    room = room_name(device.room_id)
    mentions.add(rooms=[room], devices=[ref], numbers=mentioned_numbers(variant.params))
    program = program_phrase(variant.params)
    if program is not None:
        mentions.add(words=[str(variant.params.get("mode", variant.params.get("dryness")))])
    return command(variant.intent, ref, room, variant.params, rng)


def _touches(variant: Variant, hidden: set[str]) -> bool:
    """Whether the request asserts or writes an attribute in ``hidden`` or acts on a cluster ``ep.Cluster.*`` in it
    (``homes.twin_only``)."""
    paths = {".".join(path.split(".")[:3]) for path in variant.our_asserts()}
    paths |= {f"{s.endpoint}.{s.cluster}.{s.name}" for s in variant.steps if s.kind == "write"}
    clusters = {p.rsplit(".", 1)[0] for p in paths} | {f"{s.endpoint}.{s.cluster}" for s in variant.steps}
    return bool(paths & hidden) or any(f"{cluster}.*" in hidden for cluster in clusters)


def build(episode_seed: int, case: str, attempt: int, rng: random.Random) -> Draft:
    seed = sub_seed(episode_seed, "qt3", case, attempt)
    count = rng.choice((1, 1, 2, 2, 3))
    config = home_config(sub_seed(seed, "home"))
    chosen = sorted(rng.sample([d.id for d in config.devices], count))
    removed = chosen if case == "infeasible" else []
    generating, home = build_home(seed, config=config, remove=lambda f: [])
    fabric = home.fabric() if case == "feasible" else generating
    picks: list[tuple[Any, Variant]] = []
    hidden = twin_only(config)  # a live home's twin: no request touching what only the twin serves
    for device_id in chosen:
        device = fabric.device(device_id)
        options = variants(device.device_type, fabric.read_all(device_id), rng)
        if hidden is not None:
            options = [v for v in options if not _touches(v, hidden.get(device_id, set()))]
        if not options:
            raise GenerationFailed(f"no request fits {device_id} now")
        picks.append((device, rng.choice(options)))
    solution: list[dict[str, Any]] = []
    if case == "feasible":
        solution = _verify(home.fabric(), picks)
    else:
        for device_id in removed:
            generating.remove_device(device_id)
        settle(generating)
        home = EpisodeHome(export_initial_home_config(generating))
    mentions = Mentions()
    clauses = [phrase(device, variant, rng, mentions) for device, variant in picks]
    goals = [target_goal(device, variant) for device, variant in picks]
    return Draft(
        query=finish(join(clauses, rng), rng),
        user_location=rng.choice(sorted(home.initial_home_config["rooms"])),
        goals=goals,
        required_actions=dedupe_actions([room_devices_action(d.room_id) for d, _ in picks]),
        initial_home_config=home.initial_home_config,
        mentions=mentions,
        meta={"devices_count": count},
        solution=solution,
    )


def _verify(fabric: EmulatedHome, picks: list[tuple[Any, Variant]]) -> list[dict[str, Any]]:
    """Apply every request through the EmulatedHome; each must be reachable and not already satisfied."""
    calls = []
    for device, variant in picks:
        if not asserts_differ(fabric.read_all(device.device_id), variant):
            raise GenerationFailed(f"{device.device_id} already satisfies its request")
    for device, variant in picks:
        for step in variant.steps:
            try:
                step.apply(fabric, device.device_id)
            except HomeError as error:
                raise GenerationFailed(f"{device.device_id}: {error}") from None
            calls.append(step.tool_call(device.device_id))
    fabric.advance(1)
    for device, variant in picks:
        if not asserts_hold(fabric, device.device_id, variant):
            raise GenerationFailed(f"{device.device_id}: request not reachable")
    return calls
