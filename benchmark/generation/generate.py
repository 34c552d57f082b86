"""Generate benchmark episodes for all 12 kinds, offline and deterministic.

``generate_episodes(["qt3", "qt4-2"] | "all", per_type, seed)`` returns SimuHome-format episode dicts
(plus our ``homefabric`` extension block); ``write_episodes`` writes them as ``<qt>_<case>_seed_<n>.json``
with deterministic JSON, atomically. ``benchmark.cli.generate_command`` is the
``homefabric episodes generate`` command.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from benchmark.generation import home_systems, qt1, qt2, qt3
from benchmark.generation.episode_layout import CASES, KINDS, QUERY_TYPES, Draft, GenerationFailed, episode_rng, lay_out
from benchmark.generation.grammar import TYPO_RATE
from benchmark.generation.qt4 import after_anchor, coordination, relative
from emulator.files import write_atomically

MAX_ATTEMPTS = 40
MAX_PER_TYPE = 999
HOME_SYSTEMS = "home-systems"  # the home-systems family (benchmark.generation.home_systems), not part of "all"
HS = "hs"  # its kinds are ("hs", template), laid out as the qt of home_systems.QUERY_TYPE, feasible
Builder = Callable[..., Draft]


@functools.cache
def builders() -> dict[str, Builder]:
    """The episode builder of each query type (imported on first use: they load the whole device model)."""
    return {
        "qt1": qt1.build,
        "qt2": qt2.build,
        "qt3": qt3.build,
        "qt4-1": relative.build,
        "qt4-2": after_anchor.build,
        "qt4-3": coordination.build,
    }


class GeneratorInputError(ValueError):
    """Bad generator arguments (unknown query type, count out of range)."""


class GenerationExhausted(GeneratorInputError, RuntimeError):
    """No attempt produced the episode: the home (e.g. a pinned one, ``--home``) lacks what the kind needs."""


def parse_kinds(qts: str | Iterable[str]) -> list[tuple[str, str]]:
    """ "all", query types ("qt1", "qt4-2") or kinds ("qt3_feasible") → [(qt, case)] in canonical order."""
    items = [qts] if isinstance(qts, str) else list(qts)
    names = [part.strip() for item in items for part in item.split(",") if part.strip()]
    wanted: set[tuple[str, str]] = set()
    for name in names:
        if name == "all":
            wanted |= {(qt, case) for qt in QUERY_TYPES for case in CASES}
        elif name in QUERY_TYPES:
            wanted |= {(name, case) for case in CASES}
        elif name in KINDS:
            qt, case = name.rsplit("_", 1)
            wanted.add((qt, case))
        elif name == HOME_SYSTEMS:
            wanted |= {(HS, template) for template in home_systems.TEMPLATES}
        elif name.startswith(f"{HS}_") and name[len(HS) + 1 :] in home_systems.TEMPLATES:
            wanted.add((HS, name[len(HS) + 1 :]))
        else:
            raise GeneratorInputError(
                f"unknown query type {name!r}; use all, {', '.join(QUERY_TYPES)}, a kind such as qt3_feasible, "
                f"{HOME_SYSTEMS} or one of its templates ({', '.join(f'{HS}_{t}' for t in home_systems.TEMPLATES)})"
            )
    if not wanted:
        raise GeneratorInputError("no query type given")
    order = [(qt, case) for qt in QUERY_TYPES for case in CASES] + [(HS, t) for t in home_systems.TEMPLATES]
    return [kind for kind in order if kind in wanted]


def episode_seed(base_seed: int, index: int) -> int:
    """Episode n of a run with seed s has seed s·1000 + n (the file name's ``seed_<n>``): runs never collide."""
    return base_seed * 1000 + index


def generate_episode(qt: str, case: str, seed: int, *, base_seed: int | None = None) -> dict[str, Any]:
    """One episode; attempts are seeded too, so a retry after an unsuitable home is deterministic."""
    failures: list[str] = []
    for attempt in range(MAX_ATTEMPTS):
        rng = episode_rng(seed, f"{qt}_{case}", attempt)
        try:
            if qt == HS:  # case is the template
                draft = home_systems.BUILDERS[case](seed, attempt, rng)
            else:
                draft = builders()[qt](seed, case, attempt, rng)
        except GenerationFailed as error:
            failures.append(str(error))
            continue
        return lay_out(
            draft,
            qt=home_systems.QUERY_TYPE[case] if qt == HS else qt,
            case="feasible" if qt == HS else case,
            episode_seed=seed,
            base_seed=base_seed if base_seed is not None else seed // 1000,
            attempt=attempt,
        )
    raise GenerationExhausted(f"{qt}_{case} seed {seed}: no episode after {MAX_ATTEMPTS} attempts ({failures[-3:]})")


def generate_episodes(
    qts: list[str] | str,
    per_type: int,
    seed: int,
    *,
    typo_rate: float | None = None,
    on_episode: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """``per_type`` episodes of each (qt, case) asked for, in canonical order. ``typo_rate`` (None: the default
    0.02; 0: none) is the chance of a typo per word outside slot values; ``on_episode`` sees each as it is made."""
    if not 1 <= per_type <= MAX_PER_TYPE:
        raise GeneratorInputError(f"per_type must be 1..{MAX_PER_TYPE}, got {per_type}")
    if typo_rate is not None and not 0 <= typo_rate <= 0.5:
        raise GeneratorInputError(f"typo rate must be 0..0.5, got {typo_rate}")
    token = TYPO_RATE.set(typo_rate) if typo_rate is not None else None
    try:
        episodes = []
        for qt, case in parse_kinds(qts):
            for index in range(1, per_type + 1):
                episodes.append(generate_episode(qt, case, episode_seed(seed, index), base_seed=seed))
                if on_episode is not None:
                    on_episode(episodes[-1])
        return episodes
    finally:
        if token is not None:
            TYPO_RATE.reset(token)


def episode_file_name(episode: dict[str, Any]) -> str:
    meta = episode["meta"]
    if "template" in meta:  # a home-systems episode
        return f"{HS}_{meta['template']}_seed_{meta['seed']}.json"
    return f"{meta['query_type']}_{meta['case']}_seed_{meta['seed']}.json"


def dumps_episode(episode: dict[str, Any]) -> str:
    """Deterministic JSON: our fixed field order, 2-space indent, UTF-8, trailing newline."""
    return json.dumps(episode, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_episodes(episodes: Iterable[dict[str, Any]], out: str | os.PathLike[str]) -> list[Path]:
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for episode in episodes:
        path = directory / episode_file_name(episode)
        write_atomically(path, dumps_episode(episode))
        paths.append(path)
    return paths
