"""The seeded SMH suite generator: 22 subcategories × 3 tiers, each instance checked in the fabric first.

``generate_suite(out, seed)`` writes ``instances/<id>.json``, ``homes/<name>.json`` (one per simple/medium
instance, one shared ``complex`` home) and ``suite.json``; the same seed gives byte-identical files. A draw
that cannot make a valid instance (``Rejected``) is redrawn with the next sub-seed; a subcategory that cannot
fill its quota in ``MAX_ATTEMPTS`` draws fails the whole run, naming it. ``water=True`` (opt-in) adds a main
water valve and leak sensors to every home, and templates take their water variants where those devices are
(without it, nothing of the suite changes).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from benchmark.suites.smh.generate import ambiguity, context, control, queries, rules
from benchmark.suites.smh.generate.core import Draft, Rejected, Scene, check
from benchmark.suites.smh.generate.homes import COMPLEX_TYPES, build_home
from benchmark.suites.smh.instance import Instance, dump_instance
from benchmark.suites.smh.taxonomy import CATEGORY_OF, DEFAULT_PER_SUBCATEGORY, SUBCATEGORIES, TIERS
from emulator.files import write_atomically
from emulator.home_config import HomeConfig, dump_home
from emulator.home_generation.seeds import sub_seed

Template = tuple[tuple[tuple[str, ...], ...], Callable[[Scene], Draft]]
TEMPLATES: dict[str, Template] = {
    **control.TEMPLATES,
    **ambiguity.TEMPLATES,
    **rules.TEMPLATES,
    **context.TEMPLATES,
    **queries.TEMPLATES,
}
if set(TEMPLATES) != set(SUBCATEGORIES):  # checked at import: one template family per subcategory
    raise TypeError(f"templates {sorted(set(TEMPLATES) ^ set(SUBCATEGORIES))} do not match the taxonomy")
MAX_ATTEMPTS = 200
SUITE_SCHEMA = "homefabric-smh-suite/1"


class GenerationError(RuntimeError):
    pass


def complex_home(seed: int, *, water: bool = False) -> HomeConfig:
    """The one dense home every complex instance shares: every template's device groups, all its 17 types (19
    with water; a template's appliances outside them are left out: its complex instances draw from what the
    home has)."""
    groups = [
        tuple(t for t in g if t in COMPLEX_TYPES) for _, (required, _) in sorted(TEMPLATES.items()) for g in required
    ]
    groups = [g for g in groups if g]
    covered = {t for group in groups for t in group}
    groups += [(t,) for t in COMPLEX_TYPES if t not in covered]
    return build_home("complex", "complex", sub_seed(seed, "complex"), tuple(groups), water=water)


def _instance(sub: str, tier: str, index: int, home_ref: str, home: HomeConfig, scene: Scene, draft: Draft) -> Instance:
    goal = check(home, draft)
    return Instance(
        id=f"{sub}-{tier}-{index:03d}",
        category=CATEGORY_OF[sub],
        subcategory=sub,
        tier=tier,
        home=home_ref,
        setup=draft.setup,
        current_time=home.base_time,
        entrance_device=scene.entrance_device(),
        user_query=draft.user_query,
        intended_query=draft.intended_query,
        dialogue_history=draft.history,
        memory=draft.memory,
        goal=goal,
    )


def generate_instances(
    seed: int,
    per_tier: Mapping[str, int] | None = None,
    subcategories: tuple[str, ...] = SUBCATEGORIES,
    *,
    water: bool = False,
) -> tuple[list[Instance], dict[str, HomeConfig]]:
    counts = dict(DEFAULT_PER_SUBCATEGORY if per_tier is None else per_tier)
    shared = complex_home(seed, water=water)
    shared_scene_fabric = Scene(shared, random.Random(0), "complex").fabric
    homes: dict[str, HomeConfig] = {"complex": shared}
    instances: list[Instance] = []
    for sub in subcategories:
        required, template = TEMPLATES[sub]
        for tier in TIERS:
            for index in range(counts.get(tier, 0)):
                reasons: list[str] = []
                for attempt in range(MAX_ATTEMPTS):
                    rng = random.Random(sub_seed(seed, sub, tier, index, attempt))
                    if tier == "complex":
                        name, home = "complex", shared
                        scene = Scene(home, rng, tier, fabric=shared_scene_fabric)
                    else:
                        name = f"{sub}-{tier}-{index:03d}"
                        try:
                            home = build_home(name, tier, sub_seed(seed, name, attempt), required, water=water)
                        except ValueError as why:  # the drawn rooms cannot hold a required appliance
                            reasons.append(str(why))
                            continue
                        scene = Scene(home, rng, tier)
                    try:
                        instance = _instance(sub, tier, index, f"homes/{name}.json", home, scene, template(scene))
                    except Rejected as why:
                        reasons.append(str(why))
                        continue
                    homes[name] = home
                    instances.append(instance)
                    break
                else:
                    raise GenerationError(
                        f"{sub}/{tier} #{index}: no valid instance in {MAX_ATTEMPTS} draws "
                        f"(last reasons: {reasons[-3:]})"
                    )
    return instances, homes


def generate_suite(
    out: Path,
    seed: int,
    per_tier: Mapping[str, int] | None = None,
    subcategories: tuple[str, ...] = SUBCATEGORIES,
    *,
    paraphrase: Callable[[list[Instance], dict[str, HomeConfig]], dict[str, int]] | None = None,
    water: bool = False,
) -> dict[str, Any]:
    instances, homes = generate_instances(seed, per_tier, subcategories, water=water)
    paraphrased = paraphrase(instances, homes) if paraphrase is not None else None
    for folder in ("homes", "instances"):
        (out / folder).mkdir(parents=True, exist_ok=True)
    for name, home in sorted(homes.items()):
        write_atomically(out / "homes" / f"{name}.json", dump_home(home))
    for instance in instances:
        write_atomically(out / "instances" / f"{instance.id}.json", dump_instance(instance))
    by_subcategory: dict[str, int] = {}
    by_tier: dict[str, int] = {}
    for instance in instances:
        by_subcategory[instance.subcategory] = by_subcategory.get(instance.subcategory, 0) + 1
        by_tier[instance.tier] = by_tier.get(instance.tier, 0) + 1
    summary = {
        "schema": SUITE_SCHEMA,
        "seed": seed,
        "instances": len(instances),
        "homes": len(homes),
        "by_tier": by_tier,
        "by_subcategory": by_subcategory,
    }
    if water:
        summary["water"] = True
    if paraphrased is not None:
        summary["paraphrase"] = paraphrased
    write_atomically(out / "suite.json", json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return summary
