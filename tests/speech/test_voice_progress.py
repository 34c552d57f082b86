"""``bench run`` draws the run's progress bar on stderr (off a terminal: a line now and then): for the voice suite
every condition × episode × trial, those kept on ``--resume`` as done, the statuses so far; ``--quiet`` silences
it; stdout and the records are the same either way. The SimuHome runner's bar is on stderr too, so a report
saved from stdout holds no bar."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

HOMEFABRIC = str(Path(sys.executable).with_name("homefabric"))
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def homefabric(*args: str, terminal: bool = False) -> subprocess.CompletedProcess[str]:
    # terminal: rich draws as on a terminal (FORCE_COLOR), so each redraw of the bar is in stderr, not only
    # the last one it writes to a pipe
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("FORCE_COLOR", None)
    env.pop("NO_COLOR", None)
    if terminal:
        env["FORCE_COLOR"] = "1"
    return subprocess.run([HOMEFABRIC, *args], capture_output=True, text=True, timeout=300, env=env)


def _bars(stderr: str) -> list[str]:
    """Every state of the bar drawn — or, off a terminal, every progress line written: label, done/total and the
    tally (without the bar and the time)."""
    found = re.findall(
        r"(\w+) (?:[━╸╺]+ )?(\d+/\d+) ([a-z_]+ \d+(?: [a-z_]+ \d+)*)? ?\d+:\d\d:\d\d", ANSI.sub("", stderr)
    )
    return [" ".join(part for part in bar if part) for bar in found]


def test_the_bar_counts_every_run_on_stderr_and_quiet_silences_it(tmp_path: Path) -> None:
    episodes = tmp_path / "episodes"
    assert (
        homefabric(
            "episodes", "generate", "--suite", "voice", "--per-type", "1", "--seed", "5", "--out", str(episodes)
        ).returncode
        == 0
    )
    run = ("bench", "run", "--suite", "voice", "--episodes", str(episodes), "--trials", "2", "--concurrency", "2")
    shown = homefabric(*run, "--out", str(tmp_path / "shown"))
    quiet = homefabric(*run, "--out", str(tmp_path / "quiet"), "--quiet")
    assert shown.returncode == 0 and quiet.returncode == 0, shown.stderr + quiet.stderr
    bars = _bars(shown.stderr)  # a pipe: a line at the start, every tenth, at the end
    assert bars[0] == "oracle 0/6" and bars[-1] == "oracle 6/6 passed 6"  # 3 episodes × 2 trials, one condition
    assert _bars(quiet.stderr) == [] and "━" not in quiet.stderr
    assert "ran 6 episode run(s), kept 0 from before" in quiet.stderr
    assert shown.stdout == quiet.stdout and "━" not in shown.stdout and "voice suite — agent oracle" in shown.stdout
    records = (tmp_path / "shown" / "records.jsonl").read_bytes()
    assert records == (tmp_path / "quiet" / "records.jsonl").read_bytes()

    failing = homefabric(*run, "--agent", "null", "--out", str(tmp_path / "null"))
    assert _bars(failing.stderr)[-1] == "null 6/6 failed 6"


def test_a_resumed_run_starts_the_bar_at_what_it_kept(tmp_path: Path) -> None:
    episodes = tmp_path / "episodes"
    assert (
        homefabric(
            "episodes", "generate", "--suite", "voice", "--per-type", "1", "--seed", "5", "--out", str(episodes)
        ).returncode
        == 0
    )
    out = tmp_path / "run"
    whole = homefabric(
        "bench", "run", "--suite", "voice", "--episodes", str(episodes), "--trials", "2", "--out", str(out)
    )
    assert whole.returncode == 0, whole.stderr
    expected = (out / "records.jsonl").read_bytes()
    lines = expected.decode().splitlines(keepends=True)
    (out / "records.jsonl").write_text(lines[4] + lines[1], encoding="utf-8")  # killed after two had finished

    resumed = homefabric("bench", "run", "--resume", "--out", str(out), "--concurrency", "3", terminal=True)
    assert resumed.returncode == 0, resumed.stderr
    assert "ran 4 episode run(s), kept 2 from before" in resumed.stderr
    bars = _bars(resumed.stderr)
    assert bars[0] == "oracle 2/6 passed 2" and bars[-1] == "oracle 6/6 passed 6"  # the kept two as done
    assert (out / "records.jsonl").read_bytes() == expected and resumed.stdout == whole.stdout

    again = homefabric("bench", "run", "--resume", "--out", str(out), "--quiet", terminal=True)
    assert again.returncode == 0 and _bars(again.stderr) == [] and again.stdout == whole.stdout


def test_the_simuhome_runs_bar_is_on_stderr_too_so_a_saved_report_holds_none(tmp_path: Path) -> None:
    from tests.benchmark.fixture_episodes import EPISODE_DIR

    result = homefabric(
        "bench",
        "run",
        "--agent",
        "oracle",
        "--episodes",
        str(EPISODE_DIR),
        "--kinds",
        "qt3_feasible",
        "--trials",
        "2",
        "--out",
        str(tmp_path / "run"),
    )
    assert result.returncode == 0, result.stderr
    assert _bars(result.stderr)[-1] == "oracle 4/4 passed 4"  # two qt3 episodes × 2 trials
    assert _bars(result.stdout) == [] and "qt3_feasible" in result.stdout
