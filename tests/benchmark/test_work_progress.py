"""WorkProgress off a terminal (stderr captured): a line at the start, every tenth of the total or every interval,
and at the end — never more than one line for the same count; nothing when disabled; RunProgress tallies."""

from __future__ import annotations

import pytest

from benchmark.runs.progress import RunProgress, WorkProgress


def test_lines_every_tenth_and_at_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    with WorkProgress("units", 25, interval_s=3600) as bar:
        for _ in range(25):
            bar.advance()
    captured = capsys.readouterr()
    counts = [line.split()[1] for line in captured.err.splitlines()]
    assert counts == ["0/25", "3/25", "6/25", "9/25", "12/25", "15/25", "18/25", "21/25", "24/25", "25/25"]
    assert captured.out == ""


def test_a_line_per_interval_whatever_the_count(capsys: pytest.CaptureFixture[str]) -> None:
    with WorkProgress("slow", 1000, interval_s=0, detail="x 1") as bar:
        bar.advance()
        bar.advance(detail="x 2")
    assert capsys.readouterr().err.splitlines()[1:] == ["slow 1/1000 x 1 0:00:00", "slow 2/1000 x 2 0:00:00"]


def test_disabled_writes_nothing_and_runs_tally(capsys: pytest.CaptureFixture[str]) -> None:
    with WorkProgress("quiet", 5, enabled=False) as bar:
        bar.advance(5)
    with RunProgress("oracle", 3, kept=["passed"]) as run:
        run.advance("failed")
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["oracle 1/3 passed 1 0:00:00", "oracle 2/3 failed 1 passed 1 0:00:00"]


def test_where_the_units_run_comes_before_the_detail(capsys: pytest.CaptureFixture[str]) -> None:
    with WorkProgress("rendering", 2, where="ray, 4 workers", interval_s=0) as bar:
        bar.advance(detail="ep-1")
    with RunProgress("oracle", 1, where="local, 1 worker") as run:
        run.advance("passed")
    assert capsys.readouterr().err.splitlines() == [
        "rendering 0/2 ray, 4 workers 0:00:00",
        "rendering 1/2 ray, 4 workers: ep-1 0:00:00",
        "oracle 0/1 local, 1 worker 0:00:00",
        "oracle 1/1 local, 1 worker: passed 1 0:00:00",
    ]
