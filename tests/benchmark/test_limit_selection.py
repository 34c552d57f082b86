"""`bench run --limit N` picks the same episodes, and writes the same records, as it always did — the first N
runnable episodes by id after the kinds filter — on a folder with broken files, a broken and a good copy of one
id and a duplicate id; the records are pinned in ``tests/benchmark/records/limit_selection/`` (written by the
runner before it read files lazily)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.benchmark.fixture_episodes import EPISODE_DIR
from tests.test_cli_exit_codes import homefabric

GOLDEN = Path(__file__).parent / "records" / "limit_selection"
CASES = {"limit3": ("--limit", "3"), "qt3_limit2": ("--limit", "2", "--kinds", "qt3_feasible,qt2_feasible")}


def mixed_folder(root: Path) -> Path:
    """The fixture episodes, a broken file sorting first, a broken copy of one id in a folder read before the good
    one, and a good duplicate of another id in a folder read after it."""
    folder = root / "episodes"
    shutil.copytree(EPISODE_DIR, folder)
    (folder / "0broken.json").write_text("{not json", encoding="utf-8")
    (folder / "aa").mkdir()
    (folder / "aa" / "qt1_feasible_seed_1.json").write_text('{"meta": 1}', encoding="utf-8")
    (folder / "zz").mkdir()
    shutil.copy(folder / "qt1_infeasible_seed_2.json", folder / "zz" / "qt1_infeasible_seed_2.json")
    return folder


@pytest.mark.parametrize("case", sorted(CASES))
def test_limit_selects_and_records_as_before(tmp_path: Path, case: str) -> None:
    folder = mixed_folder(tmp_path)
    out = tmp_path / "run"
    result = homefabric(
        "bench", "run", "--agent", "oracle", "--episodes", str(folder), "--out", str(out), *CASES[case], timeout=300
    )
    assert result.returncode == 0, result.stderr
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    expected = json.loads((GOLDEN / f"{case}.episodes.json").read_text(encoding="utf-8"))
    assert manifest["episodes"] == expected
    assert (out / "records.jsonl").read_bytes() == (GOLDEN / f"{case}.records.jsonl").read_bytes()
