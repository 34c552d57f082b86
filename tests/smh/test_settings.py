"""Both settings end to end: the oracle passes every subcategory in DR and EIA, the null agent none."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from benchmark.smh.agents import NullDr, NullEia, OracleDr, OracleEia
from benchmark.smh.instance import Instance
from benchmark.smh.report import summarize
from benchmark.smh.run import run_suite
from benchmark.smh.taxonomy import SUBCATEGORIES


@pytest.mark.parametrize(("setting", "agent"), [("dr", OracleDr()), ("eia", OracleEia())])
def test_the_oracle_solves_every_subcategory(suite_dir: Path, instances: list[Instance], setting: str,
                                             agent: object) -> None:
    records = asyncio.run(run_suite(suite_dir, instances, setting, agent))  # type: ignore[arg-type]
    failures = [(r["instance_id"], r["verdict"]) for r in records if not r["verdict"]["overall_pass"]]
    assert failures == []
    summary = summarize(records)
    assert set(summary["by_subcategory"]) == set(SUBCATEGORIES)
    assert summary["overall"]["success_rate"] == 100.0


@pytest.mark.parametrize(("setting", "agent"), [("dr", NullDr()), ("eia", NullEia())])
def test_the_null_agent_solves_nothing(suite_dir: Path, instances: list[Instance], setting: str,
                                       agent: object) -> None:
    records = asyncio.run(run_suite(suite_dir, instances, setting, agent))  # type: ignore[arg-type]
    assert [r["instance_id"] for r in records if r["verdict"]["overall_pass"]] == []
    assert {r["verdict"]["error_class"] for r in records} <= {"SO", "MS"}


def test_both_settings_start_from_the_same_home(suite_dir: Path, instances: list[Instance]) -> None:
    from benchmark.smh.session import Homes

    homes = Homes(suite_dir)
    instance = next(i for i in instances if i.subcategory == "user_correction")
    first, second = homes.h0(instance), homes.h0(instance)
    assert first.state() == second.state()
    (key, value), = instance.dialogue_history[1].prior_values.items()
    did, path = key.split("/")
    assert first.read(did, path) != value  # the history's action is part of H0
