"""The seeded SMH generator: all 22 subcategories × 3 tiers, determinism, the shared complex home, checks."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from agent_tools.smh.rules import Action
from benchmark.suites.smh.generate import complex_home, generate_suite
from benchmark.suites.smh.generate.core import Draft, Rejected, check
from benchmark.suites.smh.instance import Instance
from benchmark.suites.smh.taxonomy import CATEGORY_OF, SUBCATEGORIES, TIERS
from tests.smh.conftest import ONE_EACH, SEED


def _files(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*.json"))}


def test_same_seed_gives_byte_identical_files(suite_dir: Path, tmp_path: Path) -> None:
    generate_suite(tmp_path, SEED, ONE_EACH)
    assert _files(tmp_path) == _files(suite_dir)
    other = tmp_path / "other"
    generate_suite(other, SEED + 1, {"simple": 1, "medium": 0, "complex": 0}, ("clear_command",))
    assert (
        _files(other)["instances/clear_command-simple-000.json"]
        != _files(suite_dir)["instances/clear_command-simple-000.json"]
    )


def test_every_subcategory_and_tier_is_present(instances: list[Instance], suite_dir: Path) -> None:
    cells = Counter((i.subcategory, i.tier) for i in instances)
    assert set(cells) == {(s, t) for s in SUBCATEGORIES for t in TIERS} and set(cells.values()) == {1}
    assert all(i.category == CATEGORY_OF[i.subcategory] for i in instances)
    summary = json.loads((suite_dir / "suite.json").read_text())
    assert summary["instances"] == 66 and summary["schema"] == "homefabric-smh-suite/1"


def test_complex_instances_share_one_dense_nested_home(instances: list[Instance]) -> None:
    assert {i.home for i in instances if i.tier == "complex"} == {"homes/complex.json"}
    home = complex_home(SEED)
    assert (len(home.rooms), len(home.devices), len({d.type for d in home.devices})) == (31, 135, 17)
    assert any(r.parent for r in home.rooms)


def test_goals_match_their_mode(instances: list[Instance]) -> None:
    for instance in instances:
        goal = instance.goal
        if goal.mode in ("execute", "clarify"):
            assert any(c.op == "==" for c in goal.constraints), instance.id
        if goal.mode == "clarify":
            assert goal.clarification and goal.clarification.reply, instance.id
        if goal.mode == "answer":
            assert goal.answer and goal.answer.facts and not goal.constraints, instance.id
        if goal.mode == "automate":
            assert goal.automations, instance.id
    by_sub = {i.subcategory: i for i in instances}
    assert by_sub["user_correction"].dialogue_history[1].prior_values
    assert by_sub["long_term_memory"].memory.long_term and by_sub["short_term_memory"].memory.short_term


def test_a_draft_the_fabric_refuses_is_rejected() -> None:
    home = complex_home(SEED)
    light = next(d.id for d in home.devices if d.type == "dimmable_light")
    for draft, why in [
        (
            Draft("x", "execute", [Action(did=light, locator="set_brightness", arguments={"brightness": 0})]),
            "reference",
        ),
        (Draft("x", "execute", []), "changes nothing"),
        (
            Draft("x", "execute", [Action(did=light, locator="set_brightness", arguments={"brightness": 50})] * 10),
            "budget",
        ),
        (Draft("x", "answer"), "facts"),
    ]:
        try:
            check(home, draft)
        except Rejected as error:
            assert why in str(error)
        else:
            raise AssertionError(f"{why}: accepted")


def test_llm_paraphrase_is_kept_only_when_it_names_the_same_targets(tmp_path: Path) -> None:
    import asyncio
    import itertools

    from benchmark.llm.client import LLMClient
    from benchmark.suites.smh.generate.paraphrase import paraphrase_instances
    from tests.support.openai_standin import OpenAIStandin, Turn, dynamic, text

    counter = itertools.count()

    def respond(body: dict[str, Any]) -> Turn:
        query = body["messages"][-1]["content"]
        return text(f"Hey, could you {query[0].lower()}{query[1:]}" if next(counter) == 0 else "Do the thing.")

    def rewrite(instances: list, homes: dict) -> dict[str, int]:
        async def go() -> dict[str, int]:
            async with OpenAIStandin([dynamic(respond), dynamic(respond)]) as server:
                return await paraphrase_instances(instances, homes, LLMClient(server.base_url, None, "p"), "p")

        return asyncio.run(go())

    summary = generate_suite(
        tmp_path, SEED, {"simple": 2, "medium": 0, "complex": 0}, ("clear_command",), paraphrase=rewrite
    )
    assert summary["paraphrase"] == {"accepted": 1, "rejected": 1}
    first, second = (
        Instance.model_validate_json((tmp_path / "instances" / f"clear_command-simple-00{n}.json").read_text())
        for n in (0, 1)
    )
    assert first.user_query.startswith("Hey, could you") and first.template_query
    assert second.user_query == second.template_query and "missing" in second.paraphrase["reason"]
