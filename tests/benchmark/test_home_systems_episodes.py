"""Home-systems episodes (a button that turns on a light, a leak that closes the main valve): generated from the
medium tier, the oracle passes every instance, the null agent none, an agent that acts now instead of creating the
rule fails, and ``--qt all`` stays the 12 SimuHome kinds."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from benchmark.generation.generate import GeneratorInputError, generate_episodes, parse_kinds, write_episodes
from benchmark.runs.runner import Runner, read_records
from benchmark.runs.spec import parse_spec
from benchmark.suites.simuhome.episode import load_episode

PER_TEMPLATE = 3


@pytest.fixture(scope="module")
def episode_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hs_episodes")
    write_episodes(generate_episodes("home-systems", PER_TEMPLATE, seed=4), out)
    return out


def run(agent: str, episodes: Path, out: Path) -> list[dict]:
    spec = parse_spec(
        {
            "episodes": {"path": str(episodes)},
            "agent": {"name": agent},
            "tools": {"profile": "simuhome_ext"},
            "concurrency": 2,
        }
    )
    asyncio.run(Runner(spec, out, resume=False, progress=False).run())
    return read_records(out / "records.jsonl")[0]


def test_files_templates_and_gold_rules(episode_dir: Path) -> None:
    names = sorted(p.name for p in episode_dir.iterdir())
    assert names == [f"hs_{t}_seed_{4000 + n}.json" for t in ("button_light", "leak_valve") for n in (1, 2, 3)]
    for path in episode_dir.iterdir():
        episode = load_episode(path)
        assert episode.kind == "qt3_feasible" and episode.homefabric is not None
        assert len(episode.homefabric.automations) == 1 and len(episode.homefabric.replay) == 1
        act = episode.homefabric.replay[0]
        trigger = episode.homefabric.automations[0].trigger
        assert trigger.kind == "state" and trigger.condition.device_id == act.device_id


def test_oracle_solves_every_instance_and_null_none(episode_dir: Path, tmp_path: Path) -> None:
    oracle = run("oracle", episode_dir, tmp_path / "oracle")
    null = run("null", episode_dir, tmp_path / "null")
    assert len(oracle) == len(null) == 2 * PER_TEMPLATE
    assert [r["status"] for r in oracle] == ["passed"] * len(oracle), [r["verdict"] for r in oracle]
    assert {r["status"] for r in null} == {"failed"}
    assert {r["verdict"]["error_type"] for r in null} == {"Required Actions Failure"}
    assert all(r["verdict"]["automations"]["rules"][0]["passed"] for r in oracle)


def test_acting_now_instead_of_automating_fails(episode_dir: Path) -> None:
    """The replay finds no rule (or a wrong one) when an agent does the action now: the final-state goal fails."""
    from benchmark.scoring.automation_scoring import score_automations
    from benchmark.scoring.evaluators.checks import final_state_checks
    from benchmark.scoring.evaluators.state_comparison import fresh_fabric
    from emulator.workflows import WorkflowStep

    for path in sorted(episode_dir.iterdir()):
        episode = load_episode(path)
        home = fresh_fabric(episode.initial_home_config)
        assert episode.homefabric is not None
        step = episode.homefabric.automations[0].actions[0]
        home.apply(WorkflowStep.invoke(step.device_id, step.endpoint, step.cluster, step.command or "", {}))
        home.advance(10)
        ok, _checks = final_state_checks(home, episode.goals)
        assert not ok
        scored = score_automations(episode, home)
        assert scored is not None and not scored["passed"]


def test_kinds_of_the_family_and_all_unchanged() -> None:
    assert parse_kinds("home-systems") == [("hs", "button_light"), ("hs", "leak_valve")]
    assert parse_kinds("hs_leak_valve") == [("hs", "leak_valve")]
    assert ("hs", "button_light") not in parse_kinds("all") and len(parse_kinds("all")) == 12
    with pytest.raises(GeneratorInputError, match="home-systems"):
        parse_kinds("hs_nothing")
