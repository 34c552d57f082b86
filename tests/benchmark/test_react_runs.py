"""`homefabric bench run` with the react agent against the scripted stand-in (issue 16, issue 14's base-url
preflight): runaway output scored as the model's failure, the mode that ran in the record and manifest,
agent-option typos and bad base URLs refused before anything is written, the model flags."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from benchmark.runs.runner import read_records
from tests.benchmark.fixture_episodes import EPISODE_DIR
from tests.benchmark.test_runner import _cli
from tests.support.openai_standin import OpenAIStandin, Turn, delay, http_error, preflight_turns, react, text

EPISODE = EPISODE_DIR / "qt1_feasible_seed_1.json"


def bench_run(out: Path, *args: str) -> Any:
    return CliRunner().invoke(
        _cli(), ["bench", "run", "--episodes", str(EPISODE), "--out", str(out), "--quiet", "--concurrency", "1", *args]
    )


def react_run(server: OpenAIStandin, out: Path, *args: str) -> Any:
    return bench_run(out, "--agent", "react", "--base-url", server.base_url, "--model", "standin", *args)


def serve(script: list[Turn], **options: Any) -> Any:
    return OpenAIStandin(script, **options).in_thread()


def test_runaway_output_is_scored_as_the_models_failure_and_not_rerun_by_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with serve([text("ok"), delay(8.0), text("ok")]) as server:
        result = react_run(server, out, "--mode", "text", "--timeout", "1.5")
        assert result.exit_code == 0, result.output
        [record] = read_records(out / "records.jsonl")[0]
        assert record["status"] == "failed" and record["outcome"]["failure"] == "runaway_output"
        assert record["verdict"]["error_type"] == "Runaway Output"
        assert len(server.chat_requests) == 2  # the preflight's probe and one episode request, no retries
        report = json.loads((out / "report.json").read_text())
        assert report["overall"]["evaluated"] == 1 and report["overall"]["infra_errors"] == 0
        assert report["overall"]["error_types"] == {"Runaway Output": 1}

        resumed = react_run(server, out, "--mode", "text", "--timeout", "1.5", "--resume")
        assert resumed.exit_code == 0, resumed.output
        assert "ran 0 episode run(s), kept 1" in resumed.output
        assert len(server.chat_requests) == 3  # only the preflight again


def test_auto_mode_falls_back_to_text_when_the_template_drops_tools_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "run"
    script = [*preflight_turns(calls_tools=False), react("finish", {"answer": "There are two rooms."})]
    with serve(script, drop_tools=True) as server:
        result = react_run(server, out, "--mode", "auto")
        assert result.exit_code == 0, result.output
        assert "using text-ReAct" in result.output
        episode_request = server.chat_requests[-1].body
    assert "tools" not in episode_request and "Reply format" in episode_request["messages"][0]["content"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["agent_preflight"]["tool_calling"]["verdict"] == "tools_dropped"
    assert manifest["agent_preflight"]["mode"] == "text"
    [record] = read_records(out / "records.jsonl")[0]
    assert record["outcome"]["mode"] == "text" and record["final_answer"] == "There are two rooms."


def test_native_mode_warns_when_the_template_drops_tools(tmp_path: Path) -> None:
    script = [*preflight_turns(calls_tools=False), text("There are two rooms.")]
    with serve(script, drop_tools=True) as server:
        result = react_run(server, tmp_path / "run", "--mode", "native")
    assert result.exit_code == 0, result.output
    assert "warning: native tool calling looks broken" in result.output
    [record] = read_records(tmp_path / "run" / "records.jsonl")[0]
    assert record["outcome"]["mode"] == "native"


def test_a_typo_in_agent_options_is_a_spec_error_before_anything_is_written(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "agent: {name: react, model: {base_url: 'http://127.0.0.1:9/v1', model: m}, "
        "options: {mdoe: text}}\nepisodes: {path: x}\n",
        encoding="utf-8",
    )
    out = tmp_path / "run"
    result = CliRunner().invoke(_cli(), ["bench", "run", str(spec), "--out", str(out), "--quiet"])
    assert result.exit_code == 2
    assert "unknown option 'mdoe' for the react agent (allowed: mode, tool_choice" in result.output
    assert "Traceback" not in result.output and not out.exists()
    bad_value = bench_run(
        out, "--agent", "react", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--mode", "xml"
    )
    assert bad_value.exit_code == 2 and "option 'mode'" in bad_value.output and not out.exists()


def test_a_base_url_that_is_not_a_url_is_refused_at_once(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = bench_run(out, "--agent", "react", "--base-url", "notaurl", "--model", "m")
    assert result.exit_code == 2 and "base URL 'notaurl' is not an http(s) URL" in result.output
    assert not out.exists()


def test_a_dead_endpoint_is_one_error_before_the_run_starts(tmp_path: Path) -> None:
    with serve([]) as server:
        url = server.base_url
    out = tmp_path / "run"
    result = bench_run(out, "--agent", "react", "--base-url", url, "--model", "m")
    assert result.exit_code == 2
    assert f"the agent model endpoint {url} (model 'm') cannot be used: connection error" in " ".join(
        result.output.split()
    )
    assert not out.exists()


def test_the_model_flags_reach_the_request_and_the_manifest(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with serve([text("ok"), react("finish", {"answer": "Two rooms."})]) as server:
        result = react_run(
            server,
            out,
            "--timeout",
            "7.5",
            "--max-tokens",
            "99",
            "--seed",
            "3",
            "--temperature",
            "0.5",
            "--mode",
            "text",
            "--tool-choice",
            "required",
        )
        assert result.exit_code == 0, result.output
        body = server.chat_requests[-1].body
    assert (body["max_tokens"], body["seed"], body["temperature"]) == (99, 3, 0.5)
    spec = json.loads((out / "manifest.json").read_text())["spec"]["agent"]
    assert spec["model"]["timeout_s"] == 7.5 and spec["options"] == {"mode": "text", "tool_choice": "required"}


def test_a_dead_llm_judge_endpoint_is_one_error_before_the_run_starts(tmp_path: Path) -> None:
    with serve([]) as server:
        url = server.base_url
    out = tmp_path / "run"
    result = bench_run(out, "--agent", "oracle", "--judge", "llm", "--judge-base-url", url, "--judge-model", "j")
    assert result.exit_code == 2 and "the judge model endpoint" in " ".join(result.output.split())
    assert not out.exists()


def test_an_endpoint_failing_every_request_is_refused_before_the_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with serve([http_error(500)] * 4) as server:
        result = react_run(server, out, "--mode", "text")
    assert result.exit_code == 2 and "cannot be used: HTTP 500" in " ".join(result.output.split())
    assert not out.exists()
