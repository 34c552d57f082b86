"""The voice report over real runs: ways in side by side per condition, WER, success against WER, plots."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from benchmark.runs.runner import Runner
from benchmark.runs.spec import parse_spec
from benchmark.suites.voice.report import VoiceReportError, build_voice_report, load_runs, write_voice_plots
from tests.benchmark.fixture_episodes import EPISODE_DIR

pytestmark = pytest.mark.requires("espeak-ng")


def run(out: Path, agent: str, speech: dict | None = None) -> Path:
    data = {"episodes": {"path": str(EPISODE_DIR), "kinds": ["qt3_feasible"]}, "agent": {"name": agent}}
    if speech:
        data["speech"] = speech
    asyncio.run(Runner(parse_spec(data), out, progress=False).run())
    return out


def test_report_puts_ways_in_and_conditions_side_by_side(tmp_path: Path) -> None:
    runs = [
        run(tmp_path / "text", "null"),
        run(tmp_path / "asr", "oracle", {"input": "asr", "condition": "clean-dry"}),
        run(tmp_path / "audio", "oracle", {"input": "audio", "condition": "0db-dry"}),
    ]
    report = build_voice_report(load_runs(runs))
    rows = {(r["input"], r["condition"]): r for r in report["rows"]}
    assert set(rows) == {("text", "text"), ("asr", "clean-dry"), ("audio", "0db-dry")}
    assert rows[("text", "text")]["success_rate"] == 0.0 and rows[("asr", "clean-dry")]["success_rate"] == 1.0
    assert rows[("asr", "clean-dry")]["evaluated"] == 2 and rows[("asr", "clean-dry")]["mean_wer"] is not None
    assert rows[("audio", "0db-dry")]["mean_wer"] is None
    assert rows[("asr", "clean-dry")]["by_query_type"] == {"qt3": 1.0}
    assert sum(b["evaluated"] for b in report["success_by_wer"]) == 2  # only the ASR runs have a WER
    plots = write_voice_plots(report, tmp_path / "plots")
    assert all(p.stat().st_size > 1000 and p.read_bytes()[:4] == b"\x89PNG" for p in plots)


def test_a_directory_without_records_is_named(tmp_path: Path) -> None:
    with pytest.raises(VoiceReportError, match=r"no records\.jsonl"):
        load_runs([tmp_path])
