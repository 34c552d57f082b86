"""Issue #21 newcomer item 8: the README's run-spec example for the main suite and ``examples/run.yaml`` are the
same text and load through the real spec parser (so neither rots); a SimuHome eval spec given to `bench run` is
named as one, with its key map and the migration command, exit 2 and nothing written; `bench migrate-spec` writes
the equivalent run spec, which `bench run`'s parser reads, with comments for what has no counterpart. The SimuHome
spec is ``tests/benchmark/specs/simuhome_eval_spec.yaml``, written from the field list of SimuHome's eval spec."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

from benchmark.runs.simuhome_spec import KEY_MAP, SimuHomeSpecError, migrate
from benchmark.runs.spec import load_spec, parse_spec
from tests.test_cli_exit_codes import homefabric, one_line_error

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "run.yaml"
SIMUHOME_SPEC = Path(__file__).parent / "specs" / "simuhome_eval_spec.yaml"


def usage_error(result: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a run that exited 2."""
    assert result.returncode == 2, result
    return one_line_error(result)


def readme_run_spec() -> str:
    """The first YAML block of the README's "Benchmarking an agent" section."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Benchmarking an agent") :]
    found = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert found is not None, "no run-spec example in the README's benchmarking section"
    return found[1]


def test_the_readme_example_is_the_example_file_and_both_load() -> None:
    text = readme_run_spec()
    assert text == EXAMPLE.read_text(encoding="utf-8")
    spec = parse_spec(yaml.safe_load(text), "README.md")
    assert spec.agent.name == "react" and spec.episodes.kinds == ["qt3_feasible", "qt4-1_feasible"]
    assert load_spec(EXAMPLE).sha256() == spec.sha256()


def test_bench_run_names_a_simuhome_eval_spec_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = homefabric("bench", "run", str(SIMUHOME_SPEC), "--out", str(out))
    message = usage_error(result)
    assert "is a SimuHome eval spec (simuhome-eval-spec-v1)" in message
    assert f"homefabric bench migrate-spec {SIMUHOME_SPEC} > run.yaml" in message
    assert all(f"{theirs} → {ours}" in message for theirs, ours in KEY_MAP.items())
    assert not out.exists()


def test_migrate_spec_writes_the_equivalent_run_spec(tmp_path: Path) -> None:
    result = homefabric("bench", "migrate-spec", str(SIMUHOME_SPEC))
    assert result.returncode == 0, result.stderr
    migrated = tmp_path / "run.yaml"
    migrated.write_text(result.stdout, encoding="utf-8")
    spec = load_spec(migrated)  # the parser bench run uses
    assert spec.run_id == "trial-eval" and spec.out == "experiments/trial-eval"
    assert spec.episodes.path == "data/benchmark" and spec.episodes.kinds == ["qt3_feasible"]
    assert spec.episodes.ids == [f"qt3_feasible_seed_{n}" for n in (1, 2, 3, 7)]
    assert spec.agent.name == "react" and spec.agent.max_steps == 15 and spec.agent.options == {"mode": "text"}
    assert spec.agent.models is not None
    first, second = spec.agent.models
    assert (first.model, first.base_url, first.api_key_env) == ("agent-a", "http://127.0.0.1:8000/v1", "MY_LLM_KEY")
    assert (second.base_url, second.api_key_env) == ("http://127.0.0.1:8002/v1", "OPENAI_API_KEY")
    assert first.timeout_s == 45 and first.seed == 42 and first.temperature == 0.0
    assert spec.judge.kind == "llm" and spec.judge.model is not None and spec.judge.model.model == "judge-small"
    assert spec.tools.profile == "simuhome"
    comments = [line for line in result.stdout.splitlines() if line.startswith("#")]
    for key in ("max_workers", "simulator_start_timeout", "evaluation_retries", "allow_partial_start"):
        assert any(f"orchestration.{key}:" in line for line in comments), key
    assert any("models[1].api_key:" in line for line in comments)
    assert "sk-not-a-real-key" not in result.stdout  # a key is never written into a run spec


def test_migrate_spec_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    ours = homefabric("bench", "migrate-spec", str(EXAMPLE))
    assert "not a SimuHome eval spec" in usage_error(ours)
    no_model = tmp_path / "no_model.yaml"
    no_model.write_text("run: {id: x}\nepisode: {dir: episodes}\nstrategy: {name: react}\n", encoding="utf-8")
    assert "models: no model given" in usage_error(homefabric("bench", "migrate-spec", str(no_model)))
    bad_qt = tmp_path / "bad_qt.yaml"
    bad_qt.write_text("episode: {dir: e, qt: qt9}\nmodels: [{model: m, api_base: http://h/v1}]\n", encoding="utf-8")
    assert "episode.qt: ['qt9'] not known" in usage_error(homefabric("bench", "migrate-spec", str(bad_qt)))
    missing = homefabric("bench", "migrate-spec", str(tmp_path / "nosuch.yaml"))
    assert "cannot read the file" in usage_error(missing)


def test_migrate_reads_every_seed_and_case_form_and_names_what_it_leaves_out() -> None:
    data = {
        "run": {"id": "x"},
        "episode": {"dir": "e", "qt": ["qt1", "qt4-2"], "case": "all", "seed": [3, "5-6"]},
        "strategy": {"name": "hi_agent"},
        "api": {"base": "http://127.0.0.1:9/v1"},
        "models": [{"model": "m", "api_key": "env:K"}],
        "extra": 1,
    }
    migration = migrate(data)
    spec = parse_spec(migration.spec, "<migrated>")
    assert spec.episodes.kinds == ["qt1_feasible", "qt1_infeasible", "qt4-2_feasible", "qt4-2_infeasible"]
    assert spec.episodes.ids is not None and len(spec.episodes.ids) == 4 * 3
    assert spec.episodes.ids[:3] == ["qt1_feasible_seed_3", "qt1_feasible_seed_5", "qt1_feasible_seed_6"]
    assert spec.agent.model is not None and spec.agent.model.api_key_env == "K" and spec.judge.kind == "rules"
    assert set(migration.left_out) == {"strategy.name", "extra", "judge"}
    whole = migrate({"episode": {"dir": "e", "seed": "all"}, "models": [{"model": "m", "api_base": "http://h/v1"}]})
    assert "kinds" not in whole.spec["episodes"] and "ids" not in whole.spec["episodes"]
    for bad, needle in (
        ({"episode": {"dir": "e", "seed": "x-1"}, "models": [{"model": "m", "api_base": "http://h/v1"}]}, "seed"),
        ({"episode": {"dir": "e"}, "models": [{"model": "m"}]}, "api_base"),
        ({"episode": "e", "models": []}, "episode: a mapping"),
        ({"run": {}, "models": [{"model": "m"}]}, "episode.dir"),
        ({"episode": {"dir": "e"}, "strategy": {"name": "x"}}, "strategy.name"),
    ):
        with pytest.raises(SimuHomeSpecError, match=needle):
            migrate(bad)
