"""Golden bytes of an oracle run: pinned before the runner's and the home's speed work, compared after.

For each fixture episode (all 12 kinds), the sha256 of its ``records.jsonl`` line (oracle, rules judge, two
trials), of its built home's JSON (``dump_home(home.to_config())``) and of its snapshot at tick 0. A change
that is meant to be behaviour-preserving (shared templates, copied homes, cheaper snapshots, grouped fsync)
must leave all three the same; a deliberate change of behaviour rewrites the file:
``python -m tests.benchmark.test_oracle_golden``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from benchmark.runs.runner import Runner
from benchmark.runs.spec import parse_spec
from benchmark.scoring.evaluators.state_comparison import fresh_fabric
from benchmark.suites.simuhome.episode import load_episodes
from emulator.home_config import dump_home
from tests.benchmark.fixture_episodes import EPISODE_DIR

GOLDEN = Path(__file__).parent / "golden" / "oracle_run.json"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def digests(out: Path) -> dict[str, Any]:
    spec = parse_spec(
        {"episodes": {"path": str(EPISODE_DIR)}, "agent": {"name": "oracle"}, "trials": 2, "concurrency": 3}
    )
    asyncio.run(Runner(spec, out, progress=False).run())
    records = {}
    for line in (out / "records.jsonl").read_text().splitlines(keepends=True):
        record = json.loads(line)
        records[f"{record['episode_id']}#{record['trial']}"] = _sha(line)
    homes = {}
    episodes, _ = load_episodes(str(EPISODE_DIR))
    for episode in episodes:
        home = fresh_fabric(episode.initial_home_config)
        homes[episode.episode_id] = {
            "home_json": _sha(dump_home(home.to_config())),
            "snapshot": _sha(json.dumps(home.snapshot(), sort_keys=True)),
        }
    return {"records": records, "homes": homes}


def test_oracle_run_and_built_homes_keep_their_golden_bytes(tmp_path: Path):
    expected = json.loads(GOLDEN.read_text())
    got = digests(tmp_path / "run")
    assert got["records"] == expected["records"]
    assert got["homes"] == expected["homes"]


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        GOLDEN.write_text(json.dumps(digests(Path(directory) / "run"), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}", file=sys.stderr)
