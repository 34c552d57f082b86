"""Issue 14: several models in one run spec (`agent.models`) — one run per model under OUT/<label>/, a report
with the models side by side and a section per model, `bench compare OUT` taking each model as a run, and
`bench run --resume --out OUT` alone picking the multi-model spec up again."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from benchmark.runs.runner import read_records
from benchmark.runs.spec import SpecError, parse_spec
from tests.benchmark.fixture_episodes import EPISODE_DIR
from tests.benchmark.test_runner import _cli
from tests.support.openai_standin import OpenAIStandin, finish, preflight_turns

EPISODE = EPISODE_DIR / "qt1_feasible_seed_1.json"


def _spec(tmp_path: Path, base_url: str) -> Path:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        yaml.safe_dump(
            {
                "episodes": {"path": str(EPISODE)},
                "concurrency": 1,
                "agent": {
                    "name": "react",
                    "options": {"mode": "native"},
                    "models": [{"base_url": base_url, "model": "alpha"}, {"base_url": base_url, "model": "beta/2"}],
                },
            }
        ),
        encoding="utf-8",
    )
    return spec


def test_two_models_in_one_spec_give_one_run_with_a_section_per_model(tmp_path: Path) -> None:
    out = tmp_path / "run"
    script = [
        *preflight_turns(),
        finish("Two rooms."),
        *preflight_turns(),
        finish("Three rooms."),
        *preflight_turns(),
        *preflight_turns(),
    ]  # the last two: the resume's preflights
    with OpenAIStandin(script).in_thread() as server:
        result = CliRunner().invoke(
            _cli(), ["bench", "run", str(_spec(tmp_path, server.base_url)), "--out", str(out), "--quiet"]
        )
        assert result.exit_code == 0, result.output
        assert [r.body["model"] for r in server.chat_requests] == ["alpha"] * 3 + ["beta/2"] * 3
        resumed = CliRunner().invoke(_cli(), ["bench", "run", "--resume", "--out", str(out), "--quiet"])
        assert resumed.exit_code == 0, resumed.output
        assert resumed.output.count("ran 0 episode run(s), kept 1") == 2
    index = json.loads((out / "models.json").read_text())
    assert [m["label"] for m in index["models"]] == ["alpha", "beta-2"]
    [first] = read_records(out / "alpha" / "records.jsonl")[0]
    [second] = read_records(out / "beta-2" / "records.jsonl")[0]
    assert (first["final_answer"], second["final_answer"]) == ("Two rooms.", "Three rooms.")
    manifest = json.loads((out / "beta-2" / "manifest.json").read_text())
    assert manifest["spec"]["agent"]["model"]["model"] == "beta/2" and "models" not in manifest["spec"]["agent"]
    report = json.loads((out / "report.json").read_text())
    assert [m["model"] for m in report["models"]] == ["alpha", "beta/2"]
    assert [run["name"] for run in report["comparison"]["runs"]] == ["run-alpha", "run-beta-2"]
    text = (out / "report.txt").read_text()
    assert "=== model alpha (alpha) ===" in text and "=== model beta-2 (beta/2) ===" in text

    again = CliRunner().invoke(_cli(), ["bench", "report", str(out)])
    assert again.exit_code == 0, again.output
    assert "=== model beta-2 (beta/2) ===" in again.output
    compared = CliRunner().invoke(_cli(), ["bench", "compare", str(out), "--json"])
    assert compared.exit_code == 0, compared.output
    assert [run["name"] for run in json.loads(compared.output)["runs"]] == ["run-alpha", "run-beta-2"]


def test_a_new_run_into_a_multi_model_directory_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "models.json").write_text("{}")
    result = CliRunner().invoke(
        _cli(), ["bench", "run", str(_spec(tmp_path, "http://127.0.0.1:9/v1")), "--out", str(out), "--quiet"]
    )
    assert result.exit_code == 2 and "already holds a multi-model run" in result.output


def test_model_and_models_together_or_for_other_agents_are_spec_errors() -> None:
    endpoint = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}
    for agent, message in (
        ({"name": "react", "model": endpoint, "models": [endpoint, endpoint]}, "not both"),
        ({"name": "oracle", "models": [endpoint, endpoint]}, "uses no model"),
        ({"name": "react", "models": [endpoint]}, "at least 2"),
    ):
        try:
            parse_spec({"episodes": {"path": "x"}, "agent": agent})
        except SpecError as error:
            assert message in str(error)
        else:
            raise AssertionError(f"accepted {agent}")


def test_a_one_model_spec_dumps_as_before() -> None:
    spec = parse_spec({"episodes": {"path": "x"}, "agent": {"name": "oracle"}})
    assert "models" not in spec.model_dump(mode="json", by_alias=True)["agent"]
    assert "models" not in spec.canonical_json()
