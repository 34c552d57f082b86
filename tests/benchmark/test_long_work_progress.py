"""Issue #21 newcomer item 3 through the console script, stderr a pipe as in `… > log 2>&1`: `episodes generate`,
`episodes import` and `bench run` write a progress line when they start, now and then, and when they end — on
stderr only (stdout, `--json` included, holds no progress) — and `bench run --limit N` reads only the files it
needs: broken files after the first N runnable episodes are never read (no problem is reported about them)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from tests.benchmark.fixture_episodes import EPISODE_DIR
from tests.test_cli_exit_codes import homefabric

PLAIN_LINE = re.compile(r"^(?P<label>[a-z ]+) (?P<done>\d+)/(?P<total>\d+)(?P<detail>(?: [a-z_]+ \d+)*) \d+:\d\d:\d\d$")


def progress_lines(stderr: str, label: str) -> list[tuple[int, int, str]]:
    """(done, total, detail) of each plain progress line of ``label``."""
    found = [PLAIN_LINE.match(line) for line in stderr.splitlines()]
    return [
        (int(m["done"]), int(m["total"]), m["detail"].strip()) for m in found if m is not None and m["label"] == label
    ]


def test_generate_writes_progress_lines_to_a_pipe(tmp_path: Path) -> None:
    result = homefabric("episodes", "generate", "--qt", "qt1", "--per-type", "10", "--out", str(tmp_path / "e"))
    assert result.returncode == 0, result.stderr
    lines = progress_lines(result.stderr, "generating episodes")
    assert lines[0] == (0, 20, "") and lines[-1] == (20, 20, "")
    assert len(lines) >= 4 and [done for done, _, _ in lines] == sorted({done for done, _, _ in lines})
    assert progress_lines(result.stdout, "generating episodes") == [] and "wrote 20 episodes" in result.stdout
    quiet = homefabric(
        "episodes", "generate", "--qt", "qt1", "--per-type", "2", "--no-progress", "--out", str(tmp_path)
    )
    assert quiet.returncode == 0 and progress_lines(quiet.stderr, "generating episodes") == []


def test_import_writes_progress_lines_to_a_pipe_and_its_json_stays_clean() -> None:
    result = homefabric("episodes", "import", str(EPISODE_DIR), "--json", timeout=300)
    assert result.returncode == 0, result.stderr
    lines = progress_lines(result.stderr, "checking episode files")
    assert lines[0] == (0, 17, "") and lines[-1] == (17, 17, "") and len(lines) >= 4
    report = json.loads(result.stdout)  # stdout is the JSON object alone
    assert report["files"] == report["runnable"] == 17


def test_bench_run_writes_progress_lines_with_the_statuses(tmp_path: Path) -> None:
    run = ("bench", "run", "--agent", "oracle", "--episodes", str(EPISODE_DIR), "--kinds", "qt3_feasible")
    result = homefabric(*run, "--trials", "2", "--out", str(tmp_path / "run"), timeout=300)
    assert result.returncode == 0, result.stderr
    lines = progress_lines(result.stderr, "oracle")
    assert lines[0] == (0, 4, "") and lines[-1] == (4, 4, "passed 4")
    assert progress_lines(result.stdout, "oracle") == []
    quiet = homefabric(*run, "--quiet", "--out", str(tmp_path / "quiet"), timeout=300)
    assert quiet.returncode == 0 and progress_lines(quiet.stderr, "oracle") == []


def test_limit_reads_only_the_files_it_needs(tmp_path: Path) -> None:
    folder = tmp_path / "episodes"
    folder.mkdir()
    shutil.copy(EPISODE_DIR / "qt1_feasible_seed_1.json", folder / "a_first.json")
    for number in range(300):  # broken files after the first: reading any of them is a reported problem
        (folder / f"b_{number:03}.json").write_text("{not json", encoding="utf-8")
    limited = homefabric("bench", "run", "--agent", "oracle", "--episodes", str(folder), "--limit", "1", "--out",
                         str(tmp_path / "limited"), timeout=300)  # fmt: skip
    assert limited.returncode == 0, limited.stderr
    manifest = json.loads((tmp_path / "limited" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["episodes"] == ["a_first"] and manifest["episode_problems"] == []
    assert "b_0" not in limited.stderr
    whole = homefabric("bench", "run", "--agent", "oracle", "--episodes", str(folder), "--out",
                       str(tmp_path / "whole"), timeout=300)  # fmt: skip
    assert whole.returncode == 0, whole.stderr
    manifest = json.loads((tmp_path / "whole" / "manifest.json").read_text(encoding="utf-8"))
    assert len(manifest["episode_problems"]) == 300  # without --limit every file is read, as before
    records = (tmp_path / "limited" / "records.jsonl").read_bytes()
    assert records == (tmp_path / "whole" / "records.jsonl").read_bytes()
