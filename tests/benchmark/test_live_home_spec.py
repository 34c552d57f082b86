"""bench run on a live Matter home, the parts that need no home: the spec's backend, the flags' one-line errors,
what makes an episode not runnable anywhere live, and the report's not-runnable list. The live runs themselves
are in tests/agent_tools/test_matter_zoo_live.py (the device zoo)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmark.reports.report import build_report
from benchmark.runs.live_home import needed_paths, static_reason
from benchmark.runs.records import NOT_RUNNABLE
from benchmark.runs.spec import SpecError, parse_spec
from benchmark.suites.simuhome.episode import parse_episode
from homefabric_cli.main import app
from tests.benchmark.fixture_episodes import build_all

SPEC = {"episodes": {"path": "episodes/"}, "agent": {"name": "oracle"}}


def test_the_backend_is_part_of_the_spec_and_of_its_hash_only_when_given() -> None:
    plain = parse_spec(SPEC)
    live = parse_spec({**SPEC, "backend": {"matter_server": "ws://127.0.0.1:5580/ws", "mapping": "m.json"}})
    assert plain.backend is None and "backend" not in plain.canonical_json()
    assert live.backend is not None and live.backend.mapping == "m.json" and live.sha256() != plain.sha256()
    with pytest.raises(SpecError, match=r"backend\.matter_server"):
        parse_spec({**SPEC, "backend": {"matter_server": "127.0.0.1:5580"}})
    with pytest.raises(SpecError, match="simuhome suite only"):
        parse_spec(
            {
                **SPEC,
                "suite": "smh",
                "agent": {"name": "oracle"},
                "backend": {"matter_server": "ws://127.0.0.1:5580/ws"},
            }
        )


def test_virtual_time_episodes_are_not_runnable_live_and_needed_paths_come_from_goals() -> None:
    episodes = build_all()
    qt2 = parse_episode(episodes["qt2_feasible_seed_3"], check_home=False)
    assert "virtual time" in (static_reason(qt2) or "")
    qt1 = parse_episode(episodes["qt1_feasible_seed_1"], check_home=False)
    assert static_reason(qt1) is None
    wanted = {
        (g.device_id, ".".join(g.attribute.split(".")[:3]))
        for g in qt1.goals
        if getattr(g, "variant", None) == "device_attribute"
    }
    assert wanted and wanted <= needed_paths(qt1)


def test_flags_refuse_a_dry_run_without_a_live_home_and_a_bad_url(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["bench", "run", "--agent", "oracle", "--episodes", str(tmp_path), "--dry-run"])
    assert result.exit_code == 2 and "--matter-server" in result.output
    result = runner.invoke(
        app,
        [
            "bench",
            "run",
            "--agent",
            "oracle",
            "--episodes",
            str(tmp_path),
            "--out",
            str(tmp_path / "run"),
            "--matter-server",
            "nonsense",
        ],
    )
    assert result.exit_code == 2 and "backend.matter_server" in result.output
    result = runner.invoke(app, ["episodes", "generate", "--out", str(tmp_path / "e"), "--home", str(tmp_path / "x")])
    assert result.exit_code == 2 and "--home" in result.output


def test_the_report_lists_not_runnable_episodes_apart(tmp_path: Path) -> None:
    records = [
        {
            "schema": "homefabric-run-record/2",
            "episode_id": "a",
            "kind": "qt1_feasible",
            "query_type": "qt1",
            "case": "feasible",
            "trial": 0,
            "seed": 1,
            "agent": "oracle",
            "status": NOT_RUNNABLE,
            "error": "room 'porch' has no device measuring temperature",
        }
    ]
    (tmp_path / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    report = build_report(tmp_path, force=True)  # no manifest: records alone
    assert report["not_runnable"] == [
        {"episode_id": "a", "trial": 0, "error": "room 'porch' has no device measuring temperature"}
    ]
    assert report["overall"]["evaluated"] == 0
