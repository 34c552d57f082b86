"""`episodes generate --paraphrase` against an endpoint that fails (issue 14): reported, non-zero and nothing
written, unless --allow-template-fallback; a base URL that is no URL is refused at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from typer.testing import CliRunner

from benchmark.cli import generate_command
from tests.support.openai_standin import OpenAIStandin, http_error, text


def generate(out: Path, base_url: str, *extra: str) -> Any:
    app = typer.Typer()
    app.command()(generate_command)
    app.command("unused")(lambda: None)  # two commands: typer keeps `generate` as a sub-command name-free
    return CliRunner().invoke(
        app,
        [
            "generate-command",
            "--out",
            str(out),
            "--qt",
            "qt1",
            "--per-type",
            "1",
            "--paraphrase",
            "--base-url",
            base_url,
            "--model",
            "m",
            *extra,
        ],
    )


def dead_url() -> str:
    with OpenAIStandin().in_thread() as server:
        return server.base_url


def test_an_unreachable_endpoint_fails_before_any_work(tmp_path: Path) -> None:
    out = tmp_path / "episodes"
    result = generate(out, dead_url())
    assert result.exit_code == 1, result.output
    assert "the paraphrase model endpoint" in result.output and "--allow-template-fallback" in result.output
    assert "Traceback" not in result.output and not out.exists()


def test_template_fallback_keeps_the_templates_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "episodes"
    result = generate(out, dead_url(), "--allow-template-fallback")
    assert result.exit_code == 0, result.output
    assert "paraphrasing skipped" in result.output and "2 queries kept as templates" in result.output
    assert len(list(out.glob("*.json"))) == 2


def test_a_failed_request_midway_fails_the_command_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "episodes"
    script = [text("ok"), http_error(400, message="model 'm' does not exist"), text("unused")]
    with OpenAIStandin(script).in_thread() as server:
        result = generate(out, server.base_url)
    assert result.exit_code == 1
    assert "1 of 2 paraphrase requests failed" in " ".join(result.output.split())
    assert "does not exist" in result.output and not out.exists()


def test_a_base_url_that_is_not_a_url_is_refused(tmp_path: Path) -> None:
    result = generate(tmp_path / "episodes", "notaurl")
    assert result.exit_code == 2 and "not an http(s) URL" in result.output
    assert not (tmp_path / "episodes").exists()
