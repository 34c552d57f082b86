"""Both settings end to end: the oracle passes every subcategory in DR and EIA, the null agent none."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from benchmark.suites.smh.agents import DrAgent, EiaAgent, NullDr, NullEia, OracleDr, OracleEia
from benchmark.suites.smh.instance import Instance
from benchmark.suites.smh.report import summarize
from benchmark.suites.smh.run import run_suite
from benchmark.suites.smh.taxonomy import SUBCATEGORIES


@pytest.mark.parametrize(("setting", "agent"), [("dr", OracleDr()), ("eia", OracleEia())])
def test_the_oracle_solves_every_subcategory(
    suite_dir: Path, instances: list[Instance], setting: str, agent: DrAgent | EiaAgent
) -> None:
    records = asyncio.run(run_suite(suite_dir, instances, setting, agent))
    failures = [(r["instance_id"], r["verdict"]) for r in records if not r["verdict"]["overall_pass"]]
    assert failures == []
    summary = summarize(records)
    assert set(summary["by_subcategory"]) == set(SUBCATEGORIES)
    assert summary["overall"]["success_rate"] == 100.0


@pytest.mark.parametrize(("setting", "agent"), [("dr", NullDr()), ("eia", NullEia())])
def test_the_null_agent_solves_nothing(
    suite_dir: Path, instances: list[Instance], setting: str, agent: DrAgent | EiaAgent
) -> None:
    records = asyncio.run(run_suite(suite_dir, instances, setting, agent))
    assert [r["instance_id"] for r in records if r["verdict"]["overall_pass"]] == []
    assert {r["verdict"]["error_class"] for r in records} <= {"SO", "MS"}


def test_both_settings_start_from_the_same_home(suite_dir: Path, instances: list[Instance]) -> None:
    from benchmark.suites.smh.session import Homes

    homes = Homes(suite_dir)
    instance = next(i for i in instances if i.subcategory == "user_correction")
    first, second = homes.h0(instance), homes.h0(instance)
    assert first.state() == second.state()
    ((key, value),) = instance.dialogue_history[1].prior_values.items()
    did, path = key.split("/")
    assert first.read(did, path) != value  # the history's action is part of H0


@pytest.fixture(scope="module")
def appliance_suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Instance]]:
    """Instances whose gold actions run the water heater, oven, microwave and fridge (every appliance operation:
    tests/smh/test_appliance_instances.py)."""
    from benchmark.suites.smh.generate import generate_suite
    from benchmark.suites.smh.instance import load_instances

    out = tmp_path_factory.mktemp("smh-appliances")
    generate_suite(
        out, 7, {"simple": 6, "medium": 3, "complex": 1}, ("clear_command", "colloquial_request", "slot_missing")
    )
    return out, load_instances(out)


def test_the_oracle_runs_every_appliance_in_both_settings(appliance_suite: tuple[Path, list[Instance]]) -> None:
    suite_dir, instances = appliance_suite
    from emulator.home_config import load_home

    types = {d.id: d.type for i in instances for d in load_home(str(suite_dir / i.home)).devices}
    used = {types[a.did] for i in instances for a in i.goal.reference}
    assert {"water_heater", "oven", "microwave_oven", "refrigerator", "laundry_washer"} <= used
    assert any(a.locator == "start_heating" for i in instances for a in i.goal.reference)
    for setting, agent in (("dr", OracleDr()), ("eia", OracleEia())):
        records = asyncio.run(run_suite(suite_dir, instances, setting, agent))
        assert [r["instance_id"] for r in records if not r["verdict"]["overall_pass"]] == [], setting
