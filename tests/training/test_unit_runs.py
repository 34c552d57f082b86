"""`bench run` on an executor (benchmark.runs.unit_runs) in this process: the units come back in order and the
records are the bytes of the runner's own asyncio run, also when resumed; what the executor cannot run is refused
in one line. (On a real Ray cluster: tests/training/test_ray_cluster.py.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmark.execution.executors import Executor, LocalExecutor
from benchmark.runs.runner import Runner
from benchmark.runs.spec import RunSpec, parse_spec
from benchmark.runs.unit_runs import episode_units, forwarded_environment
from homefabric_cli.main import app
from tests.benchmark.fixture_episodes import EPISODE_DIR

KINDS = ["qt1_feasible", "qt3_feasible", "qt4-1_infeasible"]


def _spec(**extra: object) -> RunSpec:
    return parse_spec(
        {"episodes": {"path": str(EPISODE_DIR), "kinds": KINDS}, "agent": {"name": "oracle"}, "trials": 2, **extra}
    )


def _run(out: Path, *, executor: Executor | None = None, resume: bool = False) -> bytes:
    asyncio.run(Runner(_spec(), out, progress=False, executor=executor, resume=resume).run())
    return (out / "records.jsonl").read_bytes()


def test_records_on_an_executor_are_the_bytes_of_the_local_run_also_resumed(tmp_path: Path) -> None:
    local = _run(tmp_path / "local")
    on_executor = _run(tmp_path / "units", executor=LocalExecutor())
    assert on_executor == local and local.count(b"\n") >= 4
    lines = local.splitlines(keepends=True)
    (tmp_path / "units" / "records.jsonl").write_bytes(lines[2] + lines[0] + lines[1][:30])  # as a kill leaves it
    kept: list[str] = []
    resumed = Runner(_spec(), tmp_path / "units", progress=False, executor=LocalExecutor(), resume=True)
    resumed.on_record = lambda record: kept.append(f"{record['episode_id']}/{record['trial']}")
    summary = asyncio.run(resumed.run())
    assert (summary.ran, summary.kept) == (len(lines) - 2, 2)
    assert (tmp_path / "units" / "records.jsonl").read_bytes() == local


def test_the_progress_names_the_executor_and_its_worker_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(Runner(_spec(), tmp_path / "units", executor=LocalExecutor()).run())
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("oracle 0/") and " local, 1 worker " in lines[0]
    assert " local, 1 worker: passed " in lines[-1]
    asyncio.run(Runner(_spec(), tmp_path / "asyncio").run())  # the runner's own concurrency: no executor to name
    assert "worker" not in capsys.readouterr().err


def test_units_are_episode_trials_in_run_order() -> None:
    from benchmark.runs.runner import select_episodes

    episodes, _ = select_episodes(_spec())
    todo = [(episode, trial) for episode in episodes for trial in (0, 1)]
    units = episode_units(todo)
    assert [(u.number, u.kind, u.first, u.count) for u in units[:2]] == [
        (0, episodes[0].episode_id, 0, 1),
        (1, episodes[0].episode_id, 1, 1),
    ]


def test_a_models_key_travels_only_when_set(monkeypatch: pytest.MonkeyPatch) -> None:
    model = {"base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key_env": "HF_TEST_KEY"}
    spec = parse_spec({"episodes": {"path": str(EPISODE_DIR)}, "agent": {"name": "react", "model": model}})
    monkeypatch.delenv("HF_TEST_KEY", raising=False)
    assert forwarded_environment(spec) == {}
    monkeypatch.setenv("HF_TEST_KEY", "secret")
    assert forwarded_environment(spec) == {"HF_TEST_KEY": "secret"}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--suite", "smh", "--executor", "ray"], "--suite smh runs locally"),
        (["--suite", "voice", "--workers", "2"], "--suite voice runs locally"),
        (["--executor", "spark"], "unknown executor 'spark'; allowed: local, ray"),
        (["--address", "127.0.0.1:1"], "--address is for --executor ray"),
        (["--executor", "ray", "--matter-server", "ws://127.0.0.1:1/ws"], "a live Matter home (--matter-server)"),
    ],
)
def test_bench_run_refuses_what_the_executor_cannot_run(tmp_path: Path, extra: list[str], message: str) -> None:
    args = ["bench", "run", "--agent", "oracle", "--episodes", str(EPISODE_DIR), "--out", str(tmp_path / "o")]
    result = CliRunner().invoke(app, [*args, *extra])
    assert result.exit_code == 2 and message in " ".join(result.output.split()), result.output
    assert not (tmp_path / "o").exists()
