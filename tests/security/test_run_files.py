"""Issue #15 case 10 (run directories): damaged records and manifests never crash resume or report, every line
left out is named, and only records of the manifest's episodes — as they are now — count."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmark.cli import bench_app
from benchmark.reports.report import build_report
from benchmark.runs.runner import Runner, RunSummary
from benchmark.runs.spec import RunSpec, parse_spec
from benchmark.runs.store import RunFileError, read_records_file
from tests.benchmark.fixture_episodes import EPISODE_DIR

KINDS = ["qt3_feasible", "qt2_feasible"]


def _episodes(tmp_path: Path) -> Path:
    directory = tmp_path / "episodes"
    shutil.copytree(EPISODE_DIR, directory)
    return directory


def _spec(episodes: Path) -> RunSpec:
    return parse_spec(
        {"episodes": {"path": str(episodes), "kinds": KINDS}, "agent": {"name": "oracle"}, "concurrency": 2}
    )


def _run(spec: RunSpec, out: Path, *, resume: bool = False) -> RunSummary:
    return asyncio.run(Runner(spec, out, resume=resume, progress=False).run())


@pytest.fixture
def finished(tmp_path: Path) -> tuple[RunSpec, Path, Path]:
    episodes = _episodes(tmp_path)
    spec = _spec(episodes)
    out = tmp_path / "run"
    _run(spec, out)
    return spec, out, episodes


def _records(out: Path) -> list[dict]:
    return read_records_file(out / "records.jsonl").records


def test_an_invalid_utf8_byte_is_one_named_line_and_the_run_still_resumes_and_reports(finished) -> None:
    spec, out, _ = finished
    total = len(_records(out))
    lines = (out / "records.jsonl").read_bytes().split(b"\n")
    lines[1] = lines[1][:40] + b"\xff" + lines[1][41:]
    (out / "records.jsonl").write_bytes(b"\n".join(lines))
    report = build_report(out)
    assert report["line_problems"] == [{"line": 2, "message": "invalid UTF-8 at byte 40"}]
    assert report["overall"]["records"] == total - 1
    summary = _run(spec, out, resume=True)
    assert summary.ran == 1 and {"line": 2, "reason": "invalid UTF-8 at byte 40"} in summary.dropped
    assert len(_records(out)) == total and build_report(out)["line_problems"] == []


def test_a_record_without_a_trial_does_not_crash_resume(finished) -> None:
    spec, out, _ = finished
    records = _records(out)
    broken = {k: v for k, v in records[0].items() if k != "trial"}
    text = "".join(json.dumps(r) + "\n" for r in [broken, *records[1:]])
    (out / "records.jsonl").write_text(text)
    summary = _run(spec, out, resume=True)
    assert summary.ran == 1
    assert summary.dropped == [{"line": 1, "reason": "trial must be an integer >= 0, got None"}]


def test_a_foreign_record_is_not_counted_and_is_named(finished) -> None:
    _, out, _ = finished
    records = _records(out)
    foreign = {**records[0], "episode_id": "someone_elses_episode"}
    with (out / "records.jsonl").open("a") as handle:
        handle.write(json.dumps(foreign) + "\n")
    report = build_report(out)
    assert report["overall"]["records"] == len(records)  # not len + 1
    assert report["dropped_records"] == [
        {
            "line": len(records) + 1,
            "episode_id": "someone_elses_episode",
            "trial": 0,
            "reason": "its episode is not in the run's manifest",
        }
    ]


def test_changed_and_deleted_episodes_lose_their_old_verdicts(finished) -> None:
    spec, out, episodes = finished
    records = _records(out)
    changed, deleted = sorted({r["episode_id"] for r in records})[:2]
    path = next(episodes.rglob(f"{changed}.json"))
    data = json.loads(path.read_text())
    data["query"] = data["query"] + " please"
    path.write_text(json.dumps(data))
    next(episodes.rglob(f"{deleted}.json")).unlink()
    summary = _run(spec, out, resume=True)
    reasons = {d["episode_id"]: d["reason"] for d in summary.dropped}
    assert "changed since it was recorded" in reasons[changed]
    assert "not in the run's manifest" in reasons[deleted]
    assert summary.ran == 1  # the changed episode, again
    report = build_report(out)
    assert report["overall"]["records"] == len(records) - 1 and report["dropped_records"] == []
    rerun = next(r for r in _records(out) if r["episode_id"] == changed)
    assert rerun["query"].endswith(" please")


def test_a_missing_manifest_is_an_error_unless_forced(finished) -> None:
    spec, out, _ = finished
    (out / "manifest.json").unlink()
    with pytest.raises(RunFileError, match="--force"):
        build_report(out)
    with pytest.raises(RunFileError, match=r"manifest\.json"):
        _run(spec, out, resume=True)
    assert build_report(out, force=True)["manifest_checked"] is False
    result = CliRunner().invoke(bench_app, ["report", str(out), "--no-plots"])
    assert result.exit_code == 2 and "manifest.json" in " ".join(result.output.split())
    assert CliRunner().invoke(bench_app, ["report", str(out), "--no-plots", "--force"]).exit_code == 0


def test_a_corrupt_manifest_is_a_one_line_error_naming_the_file(finished) -> None:
    spec, out, _ = finished
    (out / "manifest.json").write_bytes(b'{"schema": "homefabric-run-manifest/1", \xff')
    result = CliRunner().invoke(bench_app, ["report", str(out), "--no-plots"])
    output = " ".join(result.output.split())
    assert result.exit_code == 2 and "manifest.json" in output and "corrupt manifest" in output
    assert "Traceback" not in result.output
    with pytest.raises(RunFileError, match="corrupt manifest"):
        _run(spec, out, resume=True)
