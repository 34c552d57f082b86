"""Run records are typed (``benchmark.runs.records``) and the file format moved only where the schema says so:
records written before the models existed (``tests/benchmark/records/before_typing.jsonl``, schema /1: oracle,
null and a react agent with an LLM judge, every scoring method) load and are written back byte for byte, and a
fresh run writes the same bytes but for schema /2's two changes (its name, and no ``wall_time_s``)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from benchmark.runs.records import RunRecord
from benchmark.runs.runner import Runner, record_line
from benchmark.runs.spec import parse_spec
from benchmark.runs.store import RECORDS
from benchmark.scoring.verdicts import JudgeRecord, Verdict
from tests.benchmark.fixture_episodes import EPISODE_DIR

BEFORE = Path(__file__).parent / "records" / "before_typing.jsonl"
LINES = BEFORE.read_text(encoding="utf-8").splitlines(keepends=True)


def _id(line: str) -> str:
    record = json.loads(line)
    return f"{record['agent']}-{record['episode_id']}"


@pytest.mark.parametrize("line", LINES, ids=[_id(line) for line in LINES])
def test_a_record_written_before_the_models_round_trips_byte_for_byte(line: str):
    record = RunRecord.model_validate_json(line)
    assert record.line() == line
    assert record_line(json.loads(line)) == line  # what resume does with the records it keeps
    assert isinstance(record.verdict, Verdict) and record.verdict.passed is (record.status == "passed")
    assert record.verdict.judge is None or isinstance(record.verdict.judge, JudgeRecord)


def test_the_fixture_covers_every_scoring_method_and_both_judges():
    records = [RunRecord.model_validate_json(line) for line in LINES]
    assert {r.verdict.method for r in records if r.verdict} == {"judge", "direction", "final_state", "schedule"}
    assert {r.verdict.judge.name for r in records if r.verdict and r.verdict.judge} == {"rules", "llm"}
    llm = next(r for r in records if r.agent == "react")
    assert llm.outcome.transcript is not None and llm.tokens.judge.prompt_tokens == 360
    assert [v.vote for v in llm.verdict.judge.votes] == ["pass", "fail", "unreadable"]
    rules = next(r for r in records if r.verdict.judge is not None and r.verdict.judge.name == "rules")
    assert "tokens" not in rules.to_dict()["verdict"]["judge"]  # absent, not null, as before
    assert "transcript" not in rules.to_dict()["outcome"]


def _as_schema_2(line: str) -> str:
    """A /1 record as /2 writes it: the wall time moved to timings.jsonl."""
    line = line.replace('"schema":"homefabric-run-record/1"', '"schema":"homefabric-run-record/2"', 1)
    return re.sub(r',"wall_time_s":[0-9.e-]+', "", line)


def _run(out: Path, agent: str, ids: list[str], *, resume: bool = False, force: bool = False) -> None:
    spec = parse_spec({"episodes": {"path": str(EPISODE_DIR), "ids": ids}, "agent": {"name": agent}, "concurrency": 1})
    asyncio.run(Runner(spec, out, resume=resume, force=force, progress=False).run())


@pytest.mark.parametrize("agent", ["oracle", "null"])
def test_a_run_now_writes_the_bytes_a_run_wrote_before(tmp_path: Path, agent: str):
    before = {json.loads(line)["episode_id"]: line for line in LINES if json.loads(line)["agent"] == agent}
    _run(tmp_path / "run", agent, sorted(before))
    now = (tmp_path / "run" / RECORDS).read_text(encoding="utf-8").splitlines(keepends=True)
    assert now == [_as_schema_2(before[json.loads(line)["episode_id"]]) for line in now]
    assert all("wall_time" not in line for line in now)


def test_resume_keeps_records_written_before_the_models_byte_for_byte(tmp_path: Path):
    out = tmp_path / "run"
    out.mkdir()
    kept = [line for line in LINES if json.loads(line)["agent"] == "oracle"]
    # A torn last line makes resume rewrite the file: the records it keeps go through the models.
    (out / RECORDS).write_text("".join(kept) + '{"schema":"homefabric-run-record/1","episode_id":"qt', encoding="utf-8")
    ids = sorted(json.loads(line)["episode_id"] for line in kept)
    _run(out, "oracle", [*ids, "qt3_feasible_seed_7"], resume=True, force=True)
    lines = (out / RECORDS).read_text(encoding="utf-8").splitlines(keepends=True)
    # in the run's order (episodes by id), the kept /1 records as they were, the new one /2
    assert [json.loads(line)["episode_id"] for line in lines] == sorted([*ids, "qt3_feasible_seed_7"])
    assert [line for line in lines if '"homefabric-run-record/1"' in line] == kept
    [new] = [json.loads(line) for line in lines if '"homefabric-run-record/2"' in line]
    assert new["episode_id"] == "qt3_feasible_seed_7" and "wall_time_s" not in new
    # the report's wall time reads both: the /1 records' own field and timings.jsonl for the new one
    from benchmark.reports.report import build_report
    from benchmark.runs.store import TIMINGS

    [timing] = [json.loads(line) for line in (out / TIMINGS).read_text(encoding="utf-8").splitlines()]
    assert timing["episode_id"] == "qt3_feasible_seed_7" and timing["trial"] == 0
    expected = sum(json.loads(line)["wall_time_s"] for line in kept) + timing["wall_time_s"]
    # the report sums in its own order: the float sums may differ in the last place, so round half-way cases apart
    assert build_report(out)["overall"]["wall_time_total_s"] == pytest.approx(expected, abs=0.0011)


def test_the_report_of_those_records_is_a_typed_run_report(tmp_path: Path):
    from benchmark.reports.report import build_report
    from benchmark.runs.records import RunReport

    (tmp_path / RECORDS).write_text("".join(LINES), encoding="utf-8")
    report = build_report(tmp_path, force=True)
    typed = RunReport.model_validate(report)
    episodes = {json.loads(line)["episode_id"] for line in LINES}  # oracle's and react's qt1_feasible_seed_1: one key
    assert typed.to_dict() == report and typed.overall.records == len(episodes) == len(LINES) - 1
    assert typed.by_kind["qt1_feasible"].evaluated == 1 and typed.transcripts.records == 1


def test_a_manifest_is_checked_against_its_model_when_read(tmp_path: Path):
    from benchmark.runs.store import MANIFEST, RunFileError, load_manifest

    _run(tmp_path / "run", "null", ["qt1_feasible_seed_1"])
    manifest = json.loads((tmp_path / "run" / MANIFEST).read_text(encoding="utf-8"))
    assert load_manifest(tmp_path / "run") == manifest
    (tmp_path / "run" / MANIFEST).write_text(json.dumps({**manifest, "trials": "two"}), encoding="utf-8")
    with pytest.raises(RunFileError, match=r"manifest.json: trials: Input should be a valid integer.*restore it"):
        load_manifest(tmp_path / "run")
    older = {"episodes": manifest["episodes"], "spec": manifest["spec"]}  # a manifest from before the later fields
    (tmp_path / "run" / MANIFEST).write_text(json.dumps(older), encoding="utf-8")
    assert load_manifest(tmp_path / "run") == older
