"""Opt-in: the react agent end to end against a real local model server (issue 16).

Set ``HOMEFABRIC_REAL_LLM`` to its base URL, e.g. after ``scripts/real_llm_server.sh build`` and
``scripts/real_llm_server.sh serve 8089``: ``HOMEFABRIC_REAL_LLM=http://127.0.0.1:8089/v1``. Without it the
tests are skipped: they need a llama.cpp build that takes far longer than a CI run (README, "A real local
model"). What is asserted holds for any model, however weak: the preflight settles on a mode and records
it, every episode ends as the model's success or failure (never an infrastructure error), and the run
is reproducible at temperature 0.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmark.runs.runner import read_records
from tests.benchmark.fixture_episodes import EPISODE_DIR
from tests.benchmark.test_runner import _cli

URL = os.environ.get("HOMEFABRIC_REAL_LLM")
pytestmark = pytest.mark.skipif(not URL, reason="opt-in: set HOMEFABRIC_REAL_LLM=http://127.0.0.1:PORT/v1")
MODEL = os.environ.get("HOMEFABRIC_REAL_LLM_MODEL", "smollm2")


def run(out: Path, mode: str) -> list[dict]:
    result = CliRunner().invoke(
        _cli(),
        [
            "bench",
            "run",
            "--agent",
            "react",
            "--base-url",
            str(URL),
            "--model",
            MODEL,
            "--mode",
            mode,
            "--episodes",
            str(EPISODE_DIR),
            "--kinds",
            "qt1_feasible,qt3_feasible",
            "--limit",
            "3",
            "--max-steps",
            "6",
            "--max-tokens",
            "256",
            "--timeout",
            "180",
            "--seed",
            "0",
            "--concurrency",
            "1",
            "--quiet",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    return read_records(out / "records.jsonl")[0]


def test_react_agent_runs_against_the_real_server_in_auto_mode(tmp_path: Path) -> None:
    records = run(tmp_path / "auto", "auto")
    preflight = json.loads((tmp_path / "auto" / "manifest.json").read_text())["agent_preflight"]
    assert preflight["mode"] in ("native", "text") and preflight["endpoint"]["prompt_tokens"] > 0
    assert preflight["tool_calling"]["verdict"] in ("tool_call", "tools_dropped", "no_tool_call", "tools_refused")
    assert len(records) == 3
    for record in records:
        assert record["status"] in ("passed", "failed"), record.get("error")
        assert record["outcome"]["mode"] == preflight["mode"]
        assert record["tokens"]["agent"]["total_tokens"] > 0


def test_text_mode_is_reproducible_at_temperature_zero(tmp_path: Path) -> None:
    first = run(tmp_path / "a", "text")
    second = run(tmp_path / "b", "text")
    strip = [{k: v for k, v in r.items() if not k.startswith("wall_")} for r in first]
    assert strip == [{k: v for k, v in r.items() if not k.startswith("wall_")} for r in second]
