"""qt4's anchor: a running appliance whose end (its CountdownTime) the goals are timed against."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from benchmark.generation.episode_layout import GenerationFailed, Mentions
from benchmark.generation.grammar import device_ref, room_name
from benchmark.generation.homes import APPLIANCE_TYPES, EpisodeHome, build_home, home_config, start_appliance
from emulator.clock import TICKS_PER_SECOND
from emulator.emulated_home import EmulatedHome
from emulator.home_generation.seeds import sub_seed


def anchor_home(
    seed: int, rng: random.Random, *, extra_exclude: Iterable[str] = (), config: Any = None
) -> tuple[EpisodeHome, str, int]:
    config = config or home_config(sub_seed(seed, "home"))
    excluded = set(extra_exclude)
    appliances = sorted(d.id for d in config.devices if d.type in APPLIANCE_TYPES and d.id not in excluded)
    if not appliances:
        raise GenerationFailed("no appliance to anchor on")
    anchor = rng.choice(appliances)

    def prepare(fabric: EmulatedHome, prepare_rng: random.Random) -> None:
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


def anchor_phrase(fabric: EmulatedHome, anchor: str, rng: random.Random, mentions: Mentions) -> tuple[str, Any]:
    device = fabric.device(anchor)
    ref = device_ref(anchor, device.device_type, rng)
    mentions.add(devices=[ref], rooms=[room_name(device.room_id)])
    return f"{ref} in the {room_name(device.room_id)}", device
