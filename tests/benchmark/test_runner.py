"""Runner: oracle 100 % / null 0 % on the state-changing feasible fixtures, resume after a kill (each
(episode, trial) exactly once, failures not re-run, infra errors re-run), determinism (the same records.jsonl
bytes whatever the concurrency and after a kill and resume; wall times only in timings.jsonl, and in the
report), spec errors, replay, report --json and the CLI."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from benchmark.agents.oracle import OracleAgent
from benchmark.cli import bench_app, episodes_app
from benchmark.reports.report import build_report, pass_hat_k
from benchmark.runs.runner import Runner, read_records
from benchmark.runs.spec import RunSpec, SpecError, load_spec, parse_spec
from benchmark.runs.store import TIMINGS, RunError
from tests.benchmark.fixture_episodes import EPISODE_DIR

STATE_CHANGING = ["qt2_feasible", "qt3_feasible", "qt4-1_feasible", "qt4-2_feasible", "qt4-3_feasible"]


def spec_for(agent_name: str, **extra: Any) -> RunSpec:
    return parse_spec(
        {
            "episodes": {"path": str(EPISODE_DIR), **extra.pop("episodes", {})},
            "agent": {"name": agent_name, **extra.pop("agent", {})},
            "concurrency": 3,
            **extra,
        }
    )


def run(spec, out: Path, *, resume: bool = False) -> list[dict]:
    asyncio.run(Runner(spec, out, resume=resume, progress=False).run())
    return read_records(out / "records.jsonl")[0]


def test_oracle_solves_every_state_changing_feasible_episode_and_null_none(tmp_path: Path):
    oracle = run(spec_for("oracle", episodes={"kinds": STATE_CHANGING}), tmp_path / "oracle")
    null = run(spec_for("null", episodes={"kinds": STATE_CHANGING}), tmp_path / "null")
    assert len(oracle) == len(null) == 9
    assert {r["status"] for r in oracle} == {"passed"}
    assert {r["status"] for r in null} == {"failed"}
    report = build_report(tmp_path / "oracle")
    assert report["overall"]["success_rate"] == 1.0
    assert build_report(tmp_path / "null")["overall"]["success_rate"] == 0.0


def test_oracle_passes_every_fixture_kind_and_leaves_no_irrelevant_changes(tmp_path: Path):
    records = run(spec_for("oracle"), tmp_path / "all")
    assert len(records) == 17 and all(r["status"] == "passed" for r in records)
    assert all(r["verdict"]["irrelevant_changes"] == [] for r in records)
    infeasible = [r for r in records if r["case"] == "infeasible"]
    assert all(not [c for c in r["state_diff"] if c["kind"] == "attribute"] for r in infeasible)


def test_two_oracle_runs_give_identical_records(tmp_path: Path):
    run(spec_for("oracle", trials=2), tmp_path / "a")
    run(spec_for("oracle", trials=2), tmp_path / "b")
    assert (tmp_path / "a" / "records.jsonl").read_bytes() == (tmp_path / "b" / "records.jsonl").read_bytes()


DETERMINISM_KINDS = ["qt1_feasible", "qt3_feasible", "qt4-1_feasible", "qt4-3_feasible"]


def _deterministic_report(out: Path) -> dict:
    """The report but for the run's name and place, its spec hash (concurrency is part of the spec) and how long
    it took on the wall clock."""

    def strip(value):
        if isinstance(value, dict):
            return {
                k: strip(v)
                for k, v in value.items()
                if k not in ("run_dir", "run_id", "spec_sha256", "wall_time_total_s")
            }
        return [strip(v) for v in value] if isinstance(value, list) else value

    return strip(build_report(out))


class _DawdlingOracle(OracleAgent):
    """The oracle, thinking 30 ms of wall time longer on trial 0: run side by side, trial 1 finishes first (the
    virtual clock is paused while an agent thinks, so nothing it records changes)."""

    name = "oracle"

    async def run(self, task, tools):
        await asyncio.sleep(0.03 if task.extras["trial"] == 0 else 0.0)
        return await super().run(task, tools)


def test_records_are_the_same_bytes_at_any_concurrency(tmp_path: Path):
    outs: dict[int, Path] = {}
    finished: dict[int, list[tuple[str, int]]] = {}  # (episode, trial) in the order they finished
    for concurrency in (1, 4):
        outs[concurrency], finished[concurrency] = tmp_path / f"c{concurrency}", []

        def note(record: dict[str, Any], done: list[tuple[str, int]] = finished[concurrency]) -> None:
            done.append((record["episode_id"], record["trial"]))

        spec = spec_for("oracle", trials=2, concurrency=concurrency, episodes={"kinds": DETERMINISM_KINDS})
        asyncio.run(
            Runner(
                spec,
                outs[concurrency],
                progress=False,
                agent=_DawdlingOracle(),
                on_record=note,
            ).run()
        )
        records = read_records(outs[concurrency] / "records.jsonl")[0]
        assert len(records) == 14 and all("wall_time_s" not in r for r in records)
        # in the run's order (episodes by id, then trials), whatever order they finished in
        assert [(r["episode_id"], r["trial"]) for r in records] == sorted(finished[concurrency])
    assert finished[4] != sorted(finished[4])  # side by side, they did finish out of order
    assert (outs[1] / "records.jsonl").read_bytes() == (outs[4] / "records.jsonl").read_bytes()
    assert _deterministic_report(outs[1]) == _deterministic_report(outs[4])


def test_wall_times_are_kept_apart_and_reach_the_report(tmp_path: Path):
    out = tmp_path / "run"
    records = run(spec_for("null", trials=2, concurrency=4, episodes={"kinds": ["qt1_feasible", "qt3_feasible"]}), out)
    timings = [json.loads(line) for line in (out / TIMINGS).read_text(encoding="utf-8").splitlines()]
    assert [(t["episode_id"], t["trial"]) for t in timings] == [(r["episode_id"], r["trial"]) for r in records]
    assert all(t["wall_time_s"] > 0 for t in timings)
    report = build_report(out)
    assert report["overall"]["wall_time_total_s"] == round(sum(t["wall_time_s"] for t in timings), 3) > 0
    qt3 = [t["wall_time_s"] for t in timings if t["episode_id"].startswith("qt3_")]
    assert report["by_kind"]["qt3_feasible"]["wall_time_total_s"] == round(sum(qt3), 3)
    # a damaged timings line costs that timing only, and is named
    lines = (out / TIMINGS).read_text(encoding="utf-8").splitlines(keepends=True)
    (out / TIMINGS).write_text(
        '{"episode_id": "x", "trial": 0, "wall_time_s": "slow"}\n' + "".join(lines[1:]), encoding="utf-8"
    )
    damaged = build_report(out)
    assert damaged["timing_problems"][0]["line"] == 1 and "wall_time_s" in damaged["timing_problems"][0]["message"]
    assert damaged["overall"]["wall_time_total_s"] == round(sum(t["wall_time_s"] for t in timings[1:]), 3)
    assert damaged["overall"]["records"] == report["overall"]["records"]


def test_a_killed_and_resumed_run_gives_the_bytes_of_an_uninterrupted_one(tmp_path: Path):
    spec = spec_for("oracle", trials=2, concurrency=4, episodes={"kinds": DETERMINISM_KINDS})
    run(spec, tmp_path / "whole")
    expected = (tmp_path / "whole" / "records.jsonl").read_bytes()
    killed = tmp_path / "killed"
    run(spec, killed)
    # As a kill leaves it: records in the order they finished (any), the last one half written.
    lines = (killed / "records.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    random.Random(7).shuffle(lines)
    (killed / "records.jsonl").write_text("".join(lines[:6]) + lines[6][: len(lines[6]) // 2], encoding="utf-8")
    run(spec, killed, resume=True)
    assert (killed / "records.jsonl").read_bytes() == expected
    # killed again, this time with records removed from the middle and a torn timings file too
    lines = (killed / "records.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (killed / "records.jsonl").write_text("".join(lines[:3] + lines[9:]), encoding="utf-8")
    timings = (killed / TIMINGS).read_text(encoding="utf-8")
    (killed / TIMINGS).write_text(timings[: len(timings) // 2], encoding="utf-8")
    run(spec, killed, resume=True)
    assert (killed / "records.jsonl").read_bytes() == expected
    assert _deterministic_report(killed) == _deterministic_report(tmp_path / "whole")
    # each record timed at most once, in the run's order; those run again are timed (a torn timing is lost)
    order = [(json.loads(line)["episode_id"], json.loads(line)["trial"]) for line in expected.decode().splitlines()]
    timed = [(t["episode_id"], t["trial"]) for t in map(json.loads, (killed / TIMINGS).read_text().splitlines())]
    assert timed == [key for key in order if key in set(timed)]
    assert set(order[3:9]) <= set(timed)


def test_resume_after_a_kill_runs_each_episode_trial_exactly_once(tmp_path: Path):
    out = tmp_path / "run"
    spec = spec_for("null", trials=2, episodes={"kinds": ["qt3_feasible", "qt4-3_feasible", "qt1_feasible"]})
    complete = run(spec, out)
    assert len(complete) == 12
    lines = (out / "records.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    # Simulate a kill: 5 records survived, the 6th was half written; one survivor was an infra error.
    survivors = [json.loads(line) for line in lines[:5]]
    survivors[1]["status"] = "infra_error"
    text = "".join(json.dumps(r) + "\n" for r in survivors) + lines[5][: len(lines[5]) // 2]
    (out / "records.jsonl").write_text(text, encoding="utf-8")
    with pytest.raises(RunError):
        run(spec, out)  # an existing run is never overwritten without --resume
    resumed = run(spec, out, resume=True)
    keys = [(r["episode_id"], r["trial"]) for r in resumed]
    assert len(keys) == len(set(keys)) == 12
    kept = {(r["episode_id"], r["trial"]): r for r in survivors if r["status"] != "infra_error"}
    by_key = {(r["episode_id"], r["trial"]): r for r in resumed}
    for key, record in kept.items():  # ordinary failures are kept as they were, not re-run
        assert by_key[key] == record
    infra_key = (survivors[1]["episode_id"], survivors[1]["trial"])
    assert by_key[infra_key]["status"] == "failed"  # the infrastructure error was run again
    assert run(spec, out, resume=True) == resumed  # nothing left to do


def test_resume_refuses_a_changed_spec(tmp_path: Path):
    out = tmp_path / "run"
    run(spec_for("null", episodes={"kinds": ["qt1_feasible"]}), out)
    with pytest.raises(RunError, match="different spec"):
        run(spec_for("null", episodes={"kinds": ["qt1_feasible"]}, trials=3), out, resume=True)


def test_replay_agent_reproduces_a_recorded_run(tmp_path: Path):
    run(spec_for("oracle", episodes={"kinds": ["qt3_feasible", "qt4-3_feasible"]}), tmp_path / "oracle")
    replayed = run(
        spec_for(
            "replay",
            agent={"replay_from": str(tmp_path / "oracle")},
            episodes={"kinds": ["qt3_feasible", "qt4-3_feasible"]},
        ),
        tmp_path / "replay",
    )
    assert len(replayed) == 5 and all(r["status"] == "passed" for r in replayed)


def test_malformed_spec_names_the_file_and_field(tmp_path: Path):
    path = tmp_path / "spec.yaml"
    path.write_text("episodes: {path: x}\nagent: {name: genius}\ntrials: 0\njudge: {kind: llm}\n", encoding="utf-8")
    with pytest.raises(SpecError) as error:
        load_spec(path)
    message = str(error.value)
    assert str(path) in message and "agent.name" in message and "trials" in message and "judge" in message
    path.write_text("agent: [unclosed", encoding="utf-8")
    with pytest.raises(SpecError, match="invalid YAML"):
        load_spec(path)


def test_pass_hat_k():
    assert pass_hat_k(2, 4, 1) == 0.5 and pass_hat_k(2, 4, 2) == pytest.approx(1 / 6)
    assert pass_hat_k(4, 4, 3) == 1.0 and pass_hat_k(1, 2, 3) is None


def _cli() -> typer.Typer:
    app = typer.Typer()
    app.add_typer(episodes_app, name="episodes")
    app.add_typer(bench_app, name="bench")
    return app


def test_cli_run_and_report_json(tmp_path: Path):
    out = tmp_path / "run"
    cli = CliRunner()
    result = cli.invoke(
        _cli(),
        [
            "bench",
            "run",
            "--agent",
            "oracle",
            "--episodes",
            str(EPISODE_DIR),
            "--out",
            str(out),
            "--kinds",
            "qt3_feasible,qt1_infeasible",
            "--trials",
            "2",
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    result = cli.invoke(_cli(), ["bench", "report", str(out), "--json", "--no-plots"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["overall"]["success_rate"] == 1.0 and report["overall"]["episodes"] == 3
    assert report["by_kind"]["qt3_feasible"]["success_rate"] == 1.0
    assert report["overall"]["pass_hat_k"] == {"1": 1.0, "2": 1.0}
    result = cli.invoke(_cli(), ["bench", "report", str(out)])
    assert result.exit_code == 0 and (out / "success_by_kind.png").stat().st_size > 1000
    assert "qt3_feasible" in result.output
    assert not (out / "tokens_per_episode.png").exists()  # the oracle uses no tokens: no empty plot


def test_cli_import_reports_problems_and_writes_normalised_copies(tmp_path: Path):
    source = tmp_path / "in"
    source.mkdir()
    for path in sorted(EPISODE_DIR.glob("qt4-*.json")):
        (source / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (source / "qt3_feasible_seed_5.json").write_text('{"meta": {"query_type": "qt9"}}', encoding="utf-8")
    result = CliRunner().invoke(_cli(), ["episodes", "import", str(source), "--out", str(tmp_path / "out"), "--json"])
    assert result.exit_code == 1
    summary = json.loads(result.stdout)  # stderr: the progress lines
    assert summary["episodes"] == 8 and summary["written"] == 8 and summary["by_kind"]["qt4-3_feasible"] == 3
    assert any(
        p["file"].endswith("qt3_feasible_seed_5.json") and p["json_path"] == "meta.query_type"
        for p in summary["problems"]
    )
    assert len(list((tmp_path / "out").glob("*.json"))) == 8
