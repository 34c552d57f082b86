"""Shared pieces of every episode builder: kinds, seeds, the SimuHome episode layout and our extension block."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from benchmark.generation.grammar import DEFAULT_TYPO_RATE, TYPO_RATE
from emulator.clock import TICKS_PER_SECOND, TIME_FORMAT
from emulator.home_generation.seeds import sub_seed

EPISODE_FORMAT = "homefabric-episode/1"
QUERY_TYPES = ("qt1", "qt2", "qt3", "qt4-1", "qt4-2", "qt4-3")
CASES = ("feasible", "infeasible")
KINDS = tuple(f"{qt}_{case}" for qt in QUERY_TYPES for case in CASES)
TICKS_PER_MINUTE = 60 * TICKS_PER_SECOND
DEFAULT_TOLERANCE_TICKS = 300


class GenerationFailed(Exception):
    """This attempt cannot produce the episode (e.g. the home lacks a suitable device); the next attempt will."""


@dataclass
class Mentions:
    """What the query must name: rooms, device references, numbers, clock times, other words (mode names)."""

    rooms: list[str] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)
    numbers: list[str] = field(default_factory=list)
    times: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)

    def add(self, *, rooms: Any = (), devices: Any = (), numbers: Any = (), times: Any = (), words: Any = ()) -> None:
        for target, values in (
            (self.rooms, rooms),
            (self.devices, devices),
            (self.numbers, numbers),
            (self.times, times),
            (self.words, words),
        ):
            for value in values:
                if value not in target:
                    target.append(value)

    def to_dict(self) -> dict[str, list[str]]:
        return {
            "rooms": self.rooms,
            "devices": self.devices,
            "numbers": self.numbers,
            "times": self.times,
            "words": self.words,
        }


@dataclass
class Draft:
    """An episode before it is laid out: everything a builder decides."""

    query: str
    user_location: str
    goals: list[dict[str, Any]]
    required_actions: list[dict[str, Any]]
    initial_home_config: dict[str, Any]
    mentions: Mentions
    meta: dict[str, Any] = field(default_factory=dict)
    temporal_conflict: dict[str, Any] | None = None
    solution: list[dict[str, Any]] = field(default_factory=list)
    verification: dict[str, Any] = field(default_factory=dict)
    extension: dict[str, Any] = field(default_factory=dict)  # more of the homefabric block (gold automations)


def episode_rng(episode_seed: int, kind: str, attempt: int, part: str = "episode") -> random.Random:
    return random.Random(sub_seed(episode_seed, kind, attempt, part))


def room_devices_action(room_id: str) -> dict[str, Any]:
    return {"tool": "get_room_devices", "params": {"room_id": room_id}}


def room_states_action(room_id: str) -> dict[str, Any]:
    return {"tool": "get_room_states", "params": {"room_id": room_id}}


def dedupe_actions(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[tuple[str, str]] = set()
    out = []
    for action in actions:
        key = (action["tool"], repr(sorted(action["params"].items())))
        if key not in seen:
            seen.add(key)
            out.append(action)
    return out


def base_datetime(initial_home_config: dict[str, Any]) -> datetime:
    return datetime.strptime(initial_home_config["base_time"], TIME_FORMAT)


def time_at(initial_home_config: dict[str, Any], tick: int) -> datetime:
    return base_datetime(initial_home_config) + timedelta(seconds=tick / TICKS_PER_SECOND)


def ticks_to_minutes(ticks: int) -> int:
    return round(ticks / TICKS_PER_MINUTE)


def lay_out(draft: Draft, *, qt: str, case: str, episode_seed: int, base_seed: int, attempt: int) -> dict[str, Any]:
    """SimuHome's episode layout (facts §5) plus our versioned extension block."""
    home = draft.initial_home_config
    meta = {
        "seed": episode_seed,
        "query_type": qt,
        "case": case,
        "num_rooms": len(home["rooms"]),
        "num_devices": sum(len(room["devices"]) for room in home["rooms"].values()),
        **draft.meta,
    }
    episode: dict[str, Any] = {
        "meta": meta,
        "query": draft.query,
        "user_location": draft.user_location,
        "eval": {"required_actions": draft.required_actions, "goals": draft.goals},
        "initial_home_config": home,
    }
    if draft.temporal_conflict is not None:
        episode["temporal_conflict"] = draft.temporal_conflict
    episode["homefabric"] = {
        "format": EPISODE_FORMAT,
        "generator": "homefabric",
        "seed": episode_seed,
        "kind": f"{qt}_{case}",
        "base_seed": base_seed,
        "attempt": attempt,
        "template_query": draft.query,
        "mentions": draft.mentions.to_dict(),
        "solution": draft.solution,
        "verification": draft.verification,
        **draft.extension,
    }

    if TYPO_RATE.get() != DEFAULT_TYPO_RATE:  # recorded only when not the default (older sets stay identical)
        episode["homefabric"]["typo_rate"] = TYPO_RATE.get()
    return episode
