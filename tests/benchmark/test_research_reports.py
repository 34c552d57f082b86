"""Issue #14, item 7: reports researchers can publish — 95 % bootstrap CIs and per-trial spread next to every
success rate, skipped files in the report, `bench run --resume --out DIR` alone, `bench compare`, switchable
typo injection (CLI cases through the real console script)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmark.generation.generate import generate_episodes
from benchmark.generation.grammar import finish
from benchmark.reports.report import bootstrap_ci, trial_rates
from tests.test_cli_exit_codes import EPISODES, homefabric, one_line_error


def test_bootstrap_ci_resamples_episodes_and_is_deterministic() -> None:
    assert bootstrap_ci([(1, 1)] * 10) == [1.0, 1.0]
    assert bootstrap_ci([]) is None
    mixed = [(1, 1)] * 7 + [(0, 1)] * 3
    interval = bootstrap_ci(mixed)
    assert interval is not None
    low, high = interval
    assert low < 0.7 < high and bootstrap_ci(mixed) == [low, high]
    wide, narrow = bootstrap_ci(mixed), bootstrap_ci(mixed * 10)
    assert narrow[1] - narrow[0] < wide[1] - wide[0]  # more episodes, a tighter interval
    # three trials of one episode are not three independent episodes
    clustered = bootstrap_ci([(3, 3)] * 5 + [(0, 3)] * 5)
    independent = bootstrap_ci([(1, 1)] * 15 + [(0, 1)] * 15)
    assert clustered[1] - clustered[0] > independent[1] - independent[0]


def test_trial_rates_show_how_much_one_run_varies() -> None:
    records = [
        {"status": s, "trial": t}
        for t, statuses in enumerate((["passed"] * 4, ["passed", "failed"] * 2))
        for s in statuses
    ]
    assert trial_rates(records) == {"success_by_trial": [1.0, 0.5], "success_trial_std": 0.3536}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    episodes = root / "episodes"
    shutil.copytree(EPISODES, episodes)
    (episodes / "broken.json").write_text('{"meta": {}}')  # a file the run must skip, and the report name
    out: dict[str, Path] = {}
    for agent in ("oracle", "null"):
        out[agent] = root / agent
        result = homefabric(
            "bench",
            "run",
            "--agent",
            agent,
            "--episodes",
            str(episodes),
            "--trials",
            "2",
            "--out",
            str(out[agent]),
            "--quiet",
        )
        assert result.returncode == 0, result.stderr
    return out


def test_reports_carry_intervals_trial_spread_and_skipped_files(runs: dict[str, Path]) -> None:
    report = json.loads((runs["oracle"] / "report.json").read_text())
    overall = report["overall"]
    assert overall["success_ci95"] == [1.0, 1.0] and overall["success_by_trial"] == [1.0, 1.0]
    assert all("success_ci95" in row for row in report["by_kind"].values())
    text = (runs["oracle"] / "report.txt").read_text()
    assert "95% CI" in text and "σ trials" in text
    assert "skipped episode files: 1" in text and "broken.json" in text


def test_resume_with_only_the_run_directory(tmp_path: Path) -> None:
    run = tmp_path / "run"
    first = homefabric(
        "bench", "run", "--agent", "oracle", "--episodes", str(EPISODES), "--limit", "5", "--out", str(run), "--quiet"
    )
    assert first.returncode == 0, first.stderr
    lines = (run / "records.jsonl").read_text().splitlines(keepends=True)
    (run / "records.jsonl").write_text("".join(lines[:-3]))  # as if killed three runs before the end
    resumed = homefabric("bench", "run", "--resume", "--out", str(run), "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert "ran 3 episode run(s)" in resumed.stdout
    assert len((run / "records.jsonl").read_text().splitlines()) == len(lines)
    changed = homefabric("bench", "run", "--resume", "--out", str(run), "--max-steps", "7", "--quiet")
    one_line_error(changed, "agent.max_steps (20 → 7)")


def test_bench_compare_puts_runs_side_by_side(runs: dict[str, Path], tmp_path: Path) -> None:
    result = homefabric("bench", "compare", str(runs["oracle"]), str(runs["null"]), "--json")
    assert result.returncode == 0, result.stderr
    comparison = json.loads(result.stdout)
    assert [r["agent"] for r in comparison["runs"]] == ["oracle", "null"]
    overall = next(row for row in comparison["rows"] if row["kind"] == "overall")["runs"]
    assert overall["oracle"]["success_rate"] == 1.0 and overall["null"]["success_rate"] < 0.5
    assert overall["null"]["success_ci95"][0] <= overall["null"]["success_rate"] <= overall["null"]["success_ci95"][1]
    table = homefabric("bench", "compare", str(runs["oracle"]), str(runs["null"]), "--out", str(tmp_path / "cmp"))
    assert table.returncode == 0 and "oracle" in table.stdout and "null" in table.stdout
    assert (tmp_path / "cmp" / "compare.png").stat().st_size > 1000
    one_line_error(homefabric("bench", "compare", str(runs["oracle"])), "at least two")


def test_typo_injection_is_switchable_and_recorded() -> None:
    words = "please switch everything downstairs completely tonight"
    import random
    import re

    from benchmark.generation.grammar import FILLERS, TAILS

    known = set(words.split()) | {w for phrase in FILLERS + TAILS for w in re.findall(r"[a-z]+", phrase)}
    for seed in range(20):  # fillers, tails and lower case come and go, but no word is misspelt
        text = finish(words, random.Random(seed), noise=1, typo_rate=0)
        assert set(re.findall(r"[a-z]+", text.lower())) <= known
    noisy = {finish(words, random.Random(seed), noise=1, typo_rate=0.5) for seed in range(5)}
    assert any(text.lower().rstrip(".?!") != words for text in noisy)
    clean = generate_episodes(["qt1"], 2, 1, typo_rate=0)
    assert all(e["homefabric"]["typo_rate"] == 0 for e in clean)
    assert generate_episodes(["qt1"], 2, 1) == generate_episodes(["qt1"], 2, 1, typo_rate=None)
    assert "typo_rate" not in generate_episodes(["qt1"], 1, 1)[0]["homefabric"]  # the default: files unchanged


def test_bench_evaluate_rescores_stored_trajectories(tmp_path: Path) -> None:
    run = tmp_path / "run"
    first = homefabric(
        "bench", "run", "--agent", "oracle", "--episodes", str(EPISODES), "--limit", "4", "--out", str(run), "--quiet"
    )
    assert first.returncode == 0, first.stderr
    records = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    records[1]["status"] = "failed"  # as an older, buggier evaluator had judged it
    (run / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    result = homefabric("bench", "evaluate", str(run), "--quiet")
    assert result.returncode == 0, result.stderr
    assert "1 verdict(s) changed" in result.stdout
    assert f"{records[1]['episode_id']} #0: failed → passed" in result.stdout
    rescored = [json.loads(line) for line in (run / "evaluated" / "records.jsonl").read_text().splitlines()]
    assert [r["agent"] for r in rescored] == ["replay"] * 4 and all(r["status"] == "passed" for r in rescored)
    one_line_error(homefabric("bench", "evaluate", str(tmp_path)), "not a run directory")


def test_a_moved_run_directory_resumes_into_the_same_records(tmp_path: Path) -> None:
    run = tmp_path / "first" / "run"
    first = homefabric(
        "bench", "run", "--agent", "oracle", "--episodes", str(EPISODES), "--limit", "5", "--out", str(run), "--quiet"
    )
    assert first.returncode == 0, first.stderr
    complete = (run / "records.jsonl").read_bytes()
    lines = complete.splitlines(keepends=True)
    (run / "records.jsonl").write_bytes(b"".join(lines[:-2]))  # killed two runs before the end
    moved = tmp_path / "elsewhere" / "renamed"
    moved.parent.mkdir()
    shutil.move(str(run), str(moved))
    resumed = homefabric("bench", "run", "--resume", "--out", str(moved), "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert "ran 2 episode run(s)" in resumed.stdout
    # the records it kept and the two it ran again: the bytes of the uninterrupted run (no wall time in them)
    assert (moved / "records.jsonl").read_bytes() == complete
