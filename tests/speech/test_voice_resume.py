"""Voice-suite runs killed and resumed, and run several at a time: the records (and the report) come out
byte-identical to one uninterrupted run one episode at a time, and only what was missing runs again."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from benchmark.agents.base import AgentOutcome, AgentTask, ToolCaller
from benchmark.agents.null import NullAgent
from benchmark.runs.store import RunError
from benchmark.suites.voice.conditions import parse_conditions
from benchmark.suites.voice.voice_episode import VoiceEpisode, write_voice_episodes
from benchmark.suites.voice.voice_generate import generate_voice_episodes
from benchmark.suites.voice.voice_hearing import Hearing
from benchmark.suites.voice.voice_oracle import VoiceOracleAgent
from benchmark.suites.voice.voice_runner import VoiceRunner, VoiceRunSpec
from tests.speech.test_speech_cli import homefabric


class WatchedOracle(VoiceOracleAgent):
    """The voice oracle, noting each (episode, trial) it is asked about (to see what a resumed run runs)."""

    def __init__(self) -> None:
        self.asked: set[tuple[str, int]] = set()

    async def run(self, task: AgentTask, tools: ToolCaller) -> AgentOutcome:
        self.asked.add((task.episode_id, task.extras["trial"]))
        return await super().run(task, tools)


def _episodes(tmp_path: Path) -> tuple[Path, list[VoiceEpisode]]:
    episodes = generate_voice_episodes(2, 5)
    write_voice_episodes(episodes, tmp_path / "episodes")
    return tmp_path / "episodes", episodes


def _run(
    out: Path,
    episodes: tuple[Path, list[VoiceEpisode]],
    *,
    agent=None,
    hearings: list[Hearing] | None = None,
    trials: int = 2,
    resume: bool = False,
    concurrency: int = 1,
    **spec: Any,
):
    hearings = hearings or [Hearing()]
    agent = agent or WatchedOracle()
    voice_spec = VoiceRunSpec.model_validate(
        {
            "episodes": str(episodes[0]),
            "agent": agent.name,
            "input": hearings[0].input,
            "trials": trials,
            "conditions": [h.condition_id for h in hearings],
            **spec,
        }
    )
    runner = VoiceRunner(voice_spec, hearings, episodes[1], out, resume=resume, concurrency=concurrency)
    return asyncio.run(runner.run(agent))


def _keys(records: list[dict]) -> set[tuple[str, str, int]]:
    return {(r["episode_id"], r["condition"], r["trial"]) for r in records}


def test_a_killed_voice_run_resumes_to_the_bytes_of_an_uninterrupted_run(tmp_path: Path) -> None:
    episodes = _episodes(tmp_path)
    whole = _run(tmp_path / "whole", episodes)
    assert len(whole.records) == 12 and all(r["status"] == "passed" for r in whole.records)
    expected = (tmp_path / "whole" / "records.jsonl").read_bytes()
    lines = expected.decode().splitlines(keepends=True)
    # Killed part-way: three records finished (out of order, as concurrent episodes finish), one of them an
    # infrastructure error; a fourth was half written when the process died.
    infra = json.loads(lines[7])
    infra.update(status="infra_error", error="llm_infra_error: 503")
    survived = [lines[5], json.dumps(infra, separators=(",", ":")) + "\n", lines[1], lines[9][: len(lines[9]) // 2]]
    killed = tmp_path / "killed"
    killed.mkdir()
    shutil.copy(tmp_path / "whole" / "manifest.json", killed / "manifest.json")
    (killed / "records.jsonl").write_text("".join(survived), encoding="utf-8")
    with pytest.raises(RunError, match="already holds a run"):
        _run(killed, episodes)  # never overwritten without --resume
    assert (killed / "records.jsonl").read_text(encoding="utf-8") == "".join(survived)

    agent = WatchedOracle()
    resumed = _run(killed, episodes, agent=agent, resume=True, concurrency=3)
    assert (killed / "records.jsonl").read_bytes() == expected
    kept = _keys([json.loads(lines[5]), json.loads(lines[1])])
    assert resumed.kept == 2 and _keys(resumed.ran) == _keys(whole.records) - kept  # the infra error ran again
    assert agent.asked == {(episode, trial) for episode, _, trial in _keys(whole.records) - kept}

    # A record lost from a finished run: only that one runs again.
    (killed / "records.jsonl").write_text("".join(lines[:4] + lines[5:]), encoding="utf-8")
    agent = WatchedOracle()
    again = _run(killed, episodes, agent=agent, resume=True)
    assert _keys(again.ran) == _keys([json.loads(lines[4])]) and agent.asked == {
        (json.loads(lines[4])["episode_id"], json.loads(lines[4])["trial"])
    }
    assert (killed / "records.jsonl").read_bytes() == expected
    agent = WatchedOracle()
    assert _run(killed, episodes, agent=agent, resume=True).ran == [] and agent.asked == set()  # nothing left
    assert (killed / "records.jsonl").read_bytes() == expected


def test_a_changed_episode_runs_again_and_a_changed_spec_is_refused(tmp_path: Path) -> None:
    episodes = _episodes(tmp_path)
    _run(tmp_path / "run", episodes, agent=NullAgent(), trials=1)
    before = {p.name: p.read_bytes() for p in (tmp_path / "run").iterdir()}
    with pytest.raises(RunError, match=r"different spec \(differs in agent"):
        _run(tmp_path / "run", episodes, trials=1, resume=True)  # the oracle now
    assert {p.name: p.read_bytes() for p in (tmp_path / "run").iterdir()} == before  # nothing changed
    edited = episodes[1][2].model_copy(update={"horizon_s": episodes[1][2].horizon_s + 60})
    changed = (episodes[0], [*episodes[1][:2], edited, *episodes[1][3:]])
    result = _run(tmp_path / "run", changed, agent=NullAgent(), trials=1, resume=True)
    assert [r["episode_id"] for r in result.ran] == [edited.episode_id]
    assert result.dropped == [
        {
            "line": 3,
            "episode_id": edited.episode_id,
            "trial": 0,
            "reason": "its episode changed since it was recorded (content hash differs)",
        }
    ]


@pytest.mark.requires("espeak-ng")
def test_a_run_of_several_conditions_resumes_per_condition(tmp_path: Path) -> None:
    episodes = _episodes(tmp_path)
    episodes = (episodes[0], episodes[1][:2])
    hearings = [
        Hearing(input="audio", condition=c, voices="gb-f1", seed=1) for c in parse_conditions("clean-dry,5db-reverb")
    ]
    spec: dict[str, Any] = {"voices": "gb-f1", "seed": 1}
    whole = _run(tmp_path / "whole", episodes, hearings=hearings, trials=1, **spec)
    assert [r["condition"] for r in whole.records] == ["clean-dry", "clean-dry", "5db-reverb", "5db-reverb"]
    assert all(r["passed"] and r["turns"][0]["heard"]["condition"] == r["condition"] for r in whole.records)
    expected = (tmp_path / "whole" / "records.jsonl").read_bytes()
    lines = expected.decode().splitlines(keepends=True)
    # The first condition finished, the second was killed before its first record was written.
    shutil.copytree(tmp_path / "whole", tmp_path / "killed")
    (tmp_path / "killed" / "records.jsonl").write_text("".join(lines[:2]), encoding="utf-8")
    resumed = _run(tmp_path / "killed", episodes, hearings=hearings, trials=1, resume=True, concurrency=2, **spec)
    assert {r["condition"] for r in resumed.ran} == {"5db-reverb"} and resumed.kept == 2
    assert (tmp_path / "killed" / "records.jsonl").read_bytes() == expected
    with pytest.raises(RunError, match="differs in conditions"):  # one condition fewer is another run
        _run(tmp_path / "killed", episodes, hearings=hearings[:1], trials=1, resume=True, **spec)


def test_the_cli_resumes_runs_concurrently_and_reports_only_the_runs_records(tmp_path: Path) -> None:
    episodes = tmp_path / "episodes"
    assert (
        homefabric(
            "episodes", "generate", "--suite", "voice", "--per-type", "2", "--seed", "3", "--out", str(episodes)
        ).returncode
        == 0
    )
    runs = {}
    for concurrency in ("1", "4"):
        out = tmp_path / f"c{concurrency}"
        result = homefabric(
            "bench",
            "run",
            "--suite",
            "voice",
            "--episodes",
            str(episodes),
            "--trials",
            "2",
            "--concurrency",
            concurrency,
            "--out",
            str(out),
            "--json",
        )
        assert result.returncode == 0, result.stderr
        assert "ran 12 episode run(s), kept 0 from before" in result.stderr
        runs[concurrency] = (out / "records.jsonl").read_bytes(), (out / "report.json").read_bytes(), result.stdout
    assert runs["1"] == runs["4"]
    assert json.loads(runs["1"][1])["overall"]["success"] == 1.0

    out = tmp_path / "c4"
    lines = runs["1"][0].decode().splitlines(keepends=True)
    (out / "records.jsonl").write_text("".join(lines[:3] + lines[4:9]) + lines[9][:40], encoding="utf-8")
    resumed = homefabric("bench", "run", "--resume", "--out", str(out), "--concurrency", "3", "--json")  # its spec
    assert resumed.returncode == 0, resumed.stderr
    assert "ran 4 episode run(s), kept 8 from before" in resumed.stderr
    assert (out / "records.jsonl").read_bytes() == runs["1"][0] and resumed.stdout == runs["1"][2]

    before = {p.name: p.read_bytes() for p in out.iterdir()}
    refused = homefabric("bench", "run", "--suite", "voice", "--resume", "--out", str(out), "--agent", "null")
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert 'different spec (differs in agent ("oracle" → "null"))' in refused.stderr
    fresh = homefabric("bench", "run", "--suite", "voice", "--episodes", str(episodes), "--out", str(out))
    assert fresh.returncode == 2 and "already holds a run; use --resume" in fresh.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before

    foreign = {**json.loads(lines[0]), "episode_id": "voice_elsewhere_seed_1"}
    other = {**json.loads(lines[1]), "condition": "0db-dry"}
    with (out / "records.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(foreign) + "\n" + json.dumps(other) + "\n")
    report = homefabric("bench", "report", str(out), "--json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout) == json.loads(runs["1"][1])  # only the run's records are counted
    assert "line 13: voice_elsewhere_seed_1 trial 0: its episode is not in the run's manifest" in report.stderr
    assert "line 14:" in report.stderr and "condition '0db-dry' is not one of the run's conditions" in report.stderr


def test_a_harness_error_is_recorded_counted_apart_and_run_again_on_resume(tmp_path: Path) -> None:
    from benchmark.suites.voice.voice_episode import ToolCall
    from benchmark.suites.voice.voice_report import summarise

    episodes = _episodes(tmp_path)
    broken = episodes[1][0].model_copy(update={"setup": [ToolCall(tool="turn_on_everything")]})
    result = _run(tmp_path / "run", (episodes[0], [broken, *episodes[1][1:3]]), trials=1)
    first = result.records[0]
    assert first["status"] == "infra_error" and first["error"].startswith("harness: ") and "turns" not in first
    assert all(r["status"] == "passed" for r in result.records[1:])  # one broken episode does not end the run
    summary = summarise(result.records)
    assert summary["infra_errors"] == 1 and summary["overall"]["episodes"] == 2
    agent = WatchedOracle()
    resumed = _run(tmp_path / "run", (episodes[0], episodes[1][:3]), agent=agent, trials=1, resume=True)
    assert agent.asked == {(broken.episode_id, 0)} and resumed.kept == 2
    assert [r["status"] for r in resumed.records] == ["passed"] * 3


@pytest.mark.requires("espeak-ng")
def test_simuhome_runs_of_several_conditions_resume_per_condition_from_out_alone(tmp_path: Path) -> None:
    from tests.benchmark.fixture_episodes import EPISODE_DIR

    out = tmp_path / "run"
    first = homefabric(
        "bench",
        "run",
        "--agent",
        "oracle",
        "--episodes",
        str(EPISODE_DIR),
        "--kinds",
        "qt3_feasible",
        "--input",
        "audio",
        "--condition",
        "clean-dry",
        "--condition",
        "5db-reverb",
        "--voices",
        "gb-f1",
        "--out",
        str(out),
        "--quiet",
    )
    assert first.returncode == 0, first.stderr
    clean = (out / "clean-dry" / "records.jsonl").read_bytes()
    reverb = (out / "5db-reverb" / "records.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(reverb) == 2
    (out / "5db-reverb" / "records.jsonl").write_text(reverb[0], encoding="utf-8")  # killed in the second condition
    resumed = homefabric("bench", "run", "--resume", "--out", str(out), "--quiet")  # spec and conditions read back
    assert resumed.returncode == 0, resumed.stderr
    assert f"ran 0 episode run(s), kept 2 from before; records in {out / 'clean-dry'}" in resumed.stdout
    assert f"ran 1 episode run(s), kept 1 from before; records in {out / '5db-reverb'}" in resumed.stdout
    assert (out / "clean-dry" / "records.jsonl").read_bytes() == clean  # the finished condition is untouched
    again = (out / "5db-reverb" / "records.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    assert again[0] == reverb[0] and json.loads(again[1])["episode_id"] == json.loads(reverb[1])["episode_id"]
    assert json.loads(again[1])["status"] == "passed" and json.loads(again[1])["speech"]["condition"] == "5db-reverb"
