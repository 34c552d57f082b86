"""Issue #21 items J, K and 5 through the console script: `episodes import` lists hostile files as not runnable
(deep nesting, a 5,000-digit integer, an oversized file) without a traceback or reading them whole, keeps its
--json valid UTF-8 for file names that are not, and `bench run --json` outside the voice suite is refused."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from benchmark.suites.simuhome.episode import MAX_EPISODE_BYTES
from tests.test_cli_exit_codes import HOMEFABRIC, homefabric, one_line_error


@pytest.fixture(scope="module")
def good_episode(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("episodes")
    assert (
        homefabric(
            "episodes", "generate", "--qt", "qt1", "--per-type", "1", "--seed", "1", "--out", str(folder)
        ).returncode
        == 0
    )
    return sorted(folder.glob("*.json"))[0]


def test_hostile_files_are_listed_as_not_runnable(tmp_path: Path, good_episode: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(good_episode, folder / "good.json")
    (folder / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (folder / "deep_but_parseable.json").write_text('{"a":' * 200 + "1" + "}" * 200)
    (folder / "huge_int.json").write_text('{"meta": ' + "9" * 5000 + "}")
    with open(folder / "oversized.json", "wb") as big:  # sparse: nothing to read but its size
        big.truncate(MAX_EPISODE_BYTES + 1)
    result = subprocess.run([HOMEFABRIC, "episodes", "import", str(folder), "--json"], capture_output=True, timeout=300)
    assert result.returncode == 1 and b"Traceback" not in result.stderr, result.stderr[-2000:]
    report = json.loads(result.stdout.decode("utf-8"))
    assert report["files"] == 5 and report["runnable"] == 1 and report["not_runnable"] == 4
    by_file = {Path(p["file"]).name: p["message"] for p in report["problems"]}
    assert "nested more than 64 levels" in by_file["deep.json"]
    assert "nested more than 64 levels" in by_file["deep_but_parseable.json"]
    assert "4300" in by_file["huge_int.json"] or "digits" in by_file["huge_int.json"]
    assert f"at most {MAX_EPISODE_BYTES}" in by_file["oversized.json"]


def test_json_output_is_utf8_when_a_file_name_is_not(tmp_path: Path, good_episode: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(good_episode, folder / "good.json")
    bad_name = os.path.join(os.fsencode(folder), b"caf\xe9.json")  # Latin-1, not UTF-8
    with open(bad_name, "wb") as broken:
        broken.write(b"{not json")
    result = subprocess.run([HOMEFABRIC, "episodes", "import", str(folder), "--json"], capture_output=True, timeout=300)
    assert result.returncode == 1 and b"Traceback" not in result.stderr, result.stderr[-2000:]
    report = json.loads(result.stdout.decode("utf-8"))  # strict: invalid UTF-8 raises here
    assert [Path(p["file"]).name for p in report["problems"]] == ["caf\ufffd.json"]


def test_bench_run_json_outside_the_voice_suite_is_refused(tmp_path: Path, good_episode: Path) -> None:
    result = homefabric(
        "bench",
        "run",
        "--agent",
        "oracle",
        "--episodes",
        str(good_episode.parent),
        "--out",
        str(tmp_path / "run"),
        "--json",
    )
    one_line_error(result, "--json", "--suite voice")
    assert not (tmp_path / "run").exists()
