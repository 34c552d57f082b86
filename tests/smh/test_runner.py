"""SMH runs from a run spec: resume after an interruption, trials with pass^k, concurrency, the CLI's spec path."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmark.runs.spec import SpecError, parse_spec
from benchmark.runs.store import RunError
from benchmark.suites.smh.agents import OracleDr, OracleEia
from benchmark.suites.smh.run_marker import RUN_MARKER
from benchmark.suites.smh.runner import SmhRunner, select_instances

SUBS = ["clear_command", "slot_missing", "status_inquiry", "time_specific", "user_correction"]


def _spec(suite_dir: Path, out: Path, **extra: Any) -> Any:
    data = {
        "suite": "smh",
        "episodes": {"path": str(suite_dir)},
        "agent": {"name": "oracle"},
        "out": str(out),
        "concurrency": 1,
        "smh": {"settings": ["dr", "eia"], "subcategories": SUBS},
    }
    data.update(extra)
    return parse_spec(data)


class _Flaky:
    """The oracle, wrong on every other call: trials of one instance differ, so pass^k falls with k."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.calls = inner, inner.name, 0

    async def run(self, instance: Any, tools: Any, messages: Any) -> Any:
        self.calls += 1
        if self.calls % 2 == 0:
            from benchmark.suites.smh.agents import EiaResult

            return EiaResult(response=None)
        return await self.inner.run(instance, tools, messages)


def test_the_spec_selects_settings_tiers_and_subcategories(suite_dir: Path, tmp_path: Path) -> None:
    spec = _spec(
        suite_dir,
        tmp_path / "r",
        smh={"settings": ["eia"], "tiers": ["medium"], "subcategories": ["slot_missing", "coreference"]},
    )
    chosen = select_instances(spec)
    assert [(i.subcategory, i.tier) for i in chosen] == [("coreference", "medium"), ("slot_missing", "medium")]
    refusals: list[tuple[dict[str, Any], str]] = [
        ({"smh": {"settings": ["xx"]}}, "smh.settings"),
        ({"smh": {"subcategories": ["nope"]}}, "unknown subcategories"),
        ({"agent": {"name": "replay", "replay_from": "x"}}, "agent.name one of"),
        ({"suite": "simuhome"}, "needs suite: smh"),
    ]
    for bad, needle in refusals:
        with pytest.raises(SpecError, match=needle):
            _spec(suite_dir, tmp_path / "r", **bad)
    simuhome = parse_spec({"episodes": {"path": "e"}, "agent": {"name": "oracle"}})
    assert '"suite"' not in simuhome.canonical_json()  # SimuHome specs keep their hash (their runs resume)


def test_an_interrupted_run_resumes_to_byte_identical_records(suite_dir: Path, tmp_path: Path) -> None:
    whole = tmp_path / "whole"
    full = asyncio.run(SmhRunner(_spec(suite_dir, whole), whole).run())
    assert full.summary["overall"]["success_rate"] == 100.0 and full.ran == 2 * 3 * len(SUBS)
    expected = (whole / "records.jsonl").read_bytes()

    cut = tmp_path / "cut"

    def stop_after_seven(record: dict[str, Any], seen: list[int] = [0]) -> None:  # noqa: B006
        seen[0] += 1
        if seen[0] == 7:
            raise KeyboardInterrupt  # the run is killed here

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(SmhRunner(_spec(suite_dir, cut), cut, on_record=stop_after_seven).run())
    with (cut / "records.jsonl").open("a") as records:
        records.write('{"setting": "eia", "instance_id": "torn')  # a line cut off mid-write
    assert len((cut / "records.jsonl").read_text().splitlines()) == 8
    with pytest.raises(RunError, match="already holds a run"):
        asyncio.run(SmhRunner(_spec(suite_dir, cut), cut).run())
    with pytest.raises(RunError, match="different spec"):
        asyncio.run(SmhRunner(_spec(suite_dir, cut, trials=2), cut, resume=True).run())
    resumed = asyncio.run(SmhRunner(_spec(suite_dir, cut), cut, resume=True).run())
    assert (resumed.kept, resumed.ran) == (7, full.ran - 7) and len(resumed.dropped) == 1
    assert (cut / "records.jsonl").read_bytes() == expected
    again = asyncio.run(SmhRunner(_spec(suite_dir, cut), cut, resume=True).run())
    assert again.ran == 0 and (cut / "records.jsonl").read_bytes() == expected


def _finished_clear_command_run(suite_dir: Path, tmp_path: Path) -> tuple[Any, Path, bytes]:
    """A finished run of the clear-command instances in both settings: its spec, directory and records' bytes."""
    out = tmp_path / "run"
    spec = _spec(suite_dir, out, smh={"settings": ["dr", "eia"], "subcategories": ["clear_command"]})
    asyncio.run(SmhRunner(spec, out).run())
    return spec, out, (out / "records.jsonl").read_bytes()


def test_resume_runs_again_what_changed_since_it_was_recorded_and_each_run_once(
    suite_dir: Path, tmp_path: Path
) -> None:
    spec, out, expected = _finished_clear_command_run(suite_dir, tmp_path)
    lines = expected.decode().splitlines(keepends=True)
    manifest = json.loads((out / RUN_MARKER).read_text())
    changed = json.loads(lines[0])["instance_id"]  # as if its instance was different when it was recorded
    manifest["episode_sha256"][changed] = "0" * 64
    (out / RUN_MARKER).write_text(json.dumps(manifest))
    (out / "records.jsonl").write_text("".join(lines) + lines[-1])  # and a hand-merged second copy of one run
    resumed = asyncio.run(SmhRunner(spec, out, resume=True).run())
    runs_of_changed = sum(json.loads(line)["instance_id"] == changed for line in lines)
    assert resumed.ran == runs_of_changed and resumed.kept == len(lines) - runs_of_changed
    assert sum("its episode changed since it was recorded" in d for d in resumed.dropped) == runs_of_changed
    assert any(f"line {len(lines) + 1}: " in d and "a second record of the same run" in d for d in resumed.dropped)
    assert (out / "records.jsonl").read_bytes() == expected


def test_a_run_started_under_manifest_schema_2_resumes(suite_dir: Path, tmp_path: Path) -> None:
    spec, out, expected = _finished_clear_command_run(suite_dir, tmp_path)
    lines = expected.decode().splitlines(keepends=True)
    now = json.loads((out / RUN_MARKER).read_text())
    before = {key: value for key, value in now.items() if key not in ("episodes", "conditions", "episode_sha256")}
    before |= {
        "schema": "homefabric-smh-run/2",
        "settings": now["conditions"],
        "instance_sha256": now["episode_sha256"],
    }
    (out / RUN_MARKER).write_text(json.dumps(before, indent=1, sort_keys=True) + "\n")  # as /2 wrote it
    (out / "records.jsonl").write_text("".join(lines[:-2]))
    resumed = asyncio.run(SmhRunner(spec, out, resume=True).run())
    assert (resumed.kept, resumed.ran, resumed.dropped) == (len(lines) - 2, 2, [])
    assert (out / "records.jsonl").read_bytes() == expected
    assert json.loads((out / RUN_MARKER).read_text()) == now


def test_concurrency_does_not_change_the_records(suite_dir: Path, tmp_path: Path) -> None:
    one, many = tmp_path / "one", tmp_path / "many"
    asyncio.run(SmhRunner(_spec(suite_dir, one), one).run())
    asyncio.run(SmhRunner(_spec(suite_dir, many, concurrency=16), many).run())
    assert (one / "records.jsonl").read_bytes() == (many / "records.jsonl").read_bytes()


def test_trials_give_pass_hat_k(suite_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "k"
    spec = _spec(suite_dir, out, trials=2, smh={"settings": ["eia"], "subcategories": ["clear_command"]})
    flaky = _Flaky(OracleEia())
    result = asyncio.run(SmhRunner(spec, out, agent_factory=lambda setting: flaky).run())
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert [(r["instance_id"], r["trial"]) for r in records] == sorted(
        (i, t) for i in {r["instance_id"] for r in records} for t in (0, 1)
    )
    assert result.summary["by_setting"]["eia"]["pass_hat_k"] == {"1": 0.5, "2": 0.0}
    from benchmark.suites.smh.report import tables

    assert (
        "pass^k (all k trials pass)",
        ["setting", "k", "pass^k"],
        [["EIA", "1", "50.0"], ["EIA", "2", "0.0"]],
    ) in tables(records)
    assert json.loads((out / RUN_MARKER).read_text())["trials"] == 2


def test_bench_run_from_a_spec_file_and_resume_from_the_manifest(suite_dir: Path, tmp_path: Path) -> None:
    spec = tmp_path / "smh.yaml"
    out = tmp_path / "run"
    spec.write_text(
        f"schema: homefabric-bench-spec/1\nsuite: smh\nepisodes: {{path: {suite_dir}, limit: 4}}\n"
        f"agent: {{name: oracle}}\nsmh: {{settings: [dr, eia], subcategories: [coreference, "
        f"slot_missing]}}\ntrials: 2\nconcurrency: 3\nout: {out}\n"
    )
    command = [sys.executable, "-m", "homefabric_cli.main", "bench", "run"]
    first = subprocess.run([*command, str(spec), "--quiet"], capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    assert "ran 16, kept 0 from before; overall: 16/16 (100.0 %)" in first.stdout
    records = (out / "records.jsonl").read_bytes()
    again = subprocess.run(
        [*command, "--resume", "--out", str(out), "--quiet"], capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0 and "ran 0, kept 16 from before" in again.stdout, again.stderr
    assert (out / "records.jsonl").read_bytes() == records
    assert {(r["setting"], r["trial"]) for r in map(json.loads, records.decode().splitlines())} == {
        (s, t) for s in ("dr", "eia") for t in (0, 1)
    }


def test_a_dr_run_of_the_spec_uses_the_dr_agents(suite_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "dr"
    spec = _spec(suite_dir, out, smh={"settings": ["dr"], "subcategories": ["slot_missing"]})
    result = asyncio.run(SmhRunner(spec, out, agent_factory=lambda setting: OracleDr()).run())
    assert result.summary["by_setting"]["dr"]["success_rate"] == 100.0 and "eia" not in result.summary["by_setting"]


def test_a_spec_with_the_llm_judge_judges_questions_and_answers(suite_dir: Path, tmp_path: Path) -> None:
    from tests.support.openai_standin import OpenAIStandin, text

    out = tmp_path / "judged"

    async def scenario() -> Any:
        async with OpenAIStandin([text('{"verdict": "pass"}')] * 18) as server:
            spec = _spec(
                suite_dir,
                out,
                judge={"kind": "llm", "model": {"base_url": server.base_url, "model": "judge"}},
                smh={"settings": ["dr"], "subcategories": ["slot_missing", "status_inquiry"]},
            )
            result = await SmhRunner(spec, out).run()
            return result, len(server.chat_requests)

    result, requests = asyncio.run(scenario())
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert requests == 18 and result.summary["overall"]["success_rate"] == 100.0
    assert all(r["verdict"]["judge"] and len(r["verdict"]["judge"]["votes"]) == 3 for r in records)
    assert all(r["verdict"]["checks"]["clarification_rules"] for r in records if r["subcategory"] == "slot_missing")
