"""Issue #14, item 1: bad input is one line on stderr and a non-zero exit, before any work, through the real
console script; runs that did nothing useful do not exit 0."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.support.openai_standin import OpenAIStandin, finish, http_error

HOMEFABRIC = str(Path(sys.executable).parent / "homefabric")
EPISODES = Path(__file__).parent / "benchmark" / "episodes"


def homefabric(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [HOMEFABRIC, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "80", **(env or {})},
    )


def one_line_error(result: subprocess.CompletedProcess, *needles: str) -> str:
    """The run failed with exactly one non-empty stderr line starting with "error:" and no traceback."""
    assert result.returncode != 0, result
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    for needle in needles:
        assert needle in errors[0], errors[0]
    return errors[0]


@pytest.fixture(scope="module")
def home_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("home") / "home.json"
    result = homefabric("home", "generate", "--tier", "simple", "--seed", "2", "--out", str(path))
    assert result.returncode == 0, result.stderr
    return path


# --- home and sim -----------------------------------------------------------------------------------------


def test_home_generate_into_a_missing_directory(tmp_path: Path) -> None:
    result = homefabric("home", "generate", "--tier", "simple", "--out", str(tmp_path / "missing" / "h.json"))
    one_line_error(result, "missing", "does not exist")
    assert not (tmp_path / "missing").exists()


def test_sim_demo_with_a_negative_duration_fails_before_any_work() -> None:
    result = homefabric("sim", "demo", "--for", "-1h")
    one_line_error(result, "'-1h'")
    assert "started the day" not in result.stdout  # refused before generating the home


def test_sim_run_refuses_a_zero_or_negative_number_of_seconds(home_file: Path) -> None:
    one_line_error(homefabric("sim", "run", str(home_file), "--for", "-5"), "positive")


# --- episodes ---------------------------------------------------------------------------------------------


def test_episodes_import_of_an_empty_directory(tmp_path: Path) -> None:
    one_line_error(homefabric("episodes", "import", str(tmp_path)), "no episode files")


def test_episodes_generate_into_a_file_fails_before_generating(tmp_path: Path) -> None:
    target = tmp_path / "a-file"
    target.write_text("keep me")
    result = homefabric("episodes", "generate", "--out", str(target), "--per-type", "1")
    one_line_error(result, "is a file")
    assert target.read_text() == "keep me"


# --- bench run --------------------------------------------------------------------------------------------


def test_bench_run_with_a_typo_in_the_episodes_path(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = homefabric(
        "bench", "run", "--agent", "oracle", "--episodes", str(tmp_path / "epsiodes"), "--out", str(out), "--quiet"
    )
    one_line_error(result, "no episodes selected", "no such file or directory")
    assert not out.exists()  # no empty run directory left behind


def test_bench_run_with_kinds_that_match_nothing(tmp_path: Path) -> None:
    only_qt1 = tmp_path / "episodes"
    only_qt1.mkdir()
    (only_qt1 / "qt1_feasible_seed_1.json").write_bytes((EPISODES / "qt1_feasible_seed_1.json").read_bytes())
    out = tmp_path / "run"
    result = homefabric(
        "bench",
        "run",
        "--agent",
        "oracle",
        "--episodes",
        str(only_qt1),
        "--kinds",
        "qt3_feasible",
        "--out",
        str(out),
        "--quiet",
    )
    one_line_error(result, "no episode matches", "qt3_feasible")
    assert not out.exists()


def test_bench_run_out_is_a_file(tmp_path: Path) -> None:
    target = tmp_path / "a-file"
    target.write_text("")
    result = homefabric("bench", "run", "--agent", "oracle", "--episodes", str(EPISODES), "--out", str(target))
    one_line_error(result, "is a file")
    assert "ran " not in result.stdout  # refused before running anything


def _failing_endpoint_spec(tmp_path: Path, base_url: str) -> Path:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        yaml.safe_dump(
            {
                "schema": "homefabric-bench-spec/1",
                "episodes": {"path": str(EPISODES), "limit": 2},
                # No preflight: it would refuse this endpoint before the run (exit 2); these tests are about an
                # endpoint that fails during the run.
                "agent": {
                    "name": "react",
                    "model": {
                        "base_url": base_url,
                        "model": "standin-model",
                        "api_key_env": "HF_TEST_KEY",
                        "max_retries": 0,
                    },
                    "options": {"preflight": False},
                },
            }
        )
    )
    return spec


def test_every_run_an_infrastructure_error_exits_non_zero(tmp_path: Path) -> None:
    # The endpoint answers its model list but every chat request with HTTP 500: each episode is an
    # infrastructure error, not the agent's failure.
    with OpenAIStandin([http_error(500)] * 4).in_thread() as server:
        spec = _failing_endpoint_spec(tmp_path, server.base_url)
        result = homefabric(
            "bench", "run", str(spec), "--out", str(tmp_path / "run"), "--quiet", env={"HF_TEST_KEY": "k"}
        )
    one_line_error(result, "infrastructure errors")
    assert result.returncode == 1
    assert (tmp_path / "run" / "records.jsonl").read_text().count('"status":"infra_error"') == 2


def test_strict_fails_when_any_run_is_an_infrastructure_error(tmp_path: Path) -> None:
    # One episode at a time: the first gets HTTP 500 (an infrastructure error), the second an answer.
    outcomes = {}
    for flags in ((), ("--strict",)):
        with OpenAIStandin([http_error(500), finish("I could not find that.")]).in_thread() as server:
            spec = _failing_endpoint_spec(tmp_path, server.base_url)
            out = tmp_path / f"run{len(flags)}"
            outcomes[flags] = homefabric(
                "bench",
                "run",
                str(spec),
                "--out",
                str(out),
                "--quiet",
                "--concurrency",
                "1",
                *flags,
                env={"HF_TEST_KEY": "k"},
            )
        assert (out / "records.jsonl").read_text().count('"status":"infra_error"') == 1
    assert outcomes[()].returncode == 0, outcomes[()].stderr
    one_line_error(outcomes[("--strict",)], "1 of 2", "--strict")


# --- servers ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("suite", ["simuhome", "smh", "voice"])
def test_an_output_directory_the_system_refuses_is_one_line(suite: str) -> None:
    # /proc passes every check a path can be given beforehand (it exists, root may write) and still refuses mkdir
    result = homefabric("episodes", "generate", "--suite", suite, "--per-type", "1", "--out", "/proc/homefabric/x")
    one_line_error(result, "No such file or directory", "/proc/homefabric")
    assert result.returncode == 1


def test_mqtt_reads_the_yaml_its_help_promises_and_names_problems(tmp_path: Path, home_file: Path) -> None:
    import json

    data = json.loads(home_file.read_text())
    data["rooms"][0]["environment"]["humidity"] = 20000
    bad = tmp_path / "home.yaml"
    bad.write_text(yaml.safe_dump(data))
    result = homefabric("mqtt", str(bad), "--broker", "127.0.0.1:1")
    one_line_error(result, "home.yaml")
    assert "humidity" in result.stderr


def test_serve_with_a_bogus_http_host(tmp_path: Path, home_file: Path) -> None:
    result = homefabric(
        "serve", str(home_file), "--state-dir", str(tmp_path / "state"), "--port", "0", "--http", "bogus"
    )
    one_line_error(result, "--http", "bogus")
    assert not (tmp_path / "state").exists()


def test_serve_with_the_http_port_in_use(tmp_path: Path, home_file: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = homefabric(
            "serve",
            str(home_file),
            "--state-dir",
            str(tmp_path / "state"),
            "--port",
            "0",
            "--http",
            f"127.0.0.1:{port}",
        )
    one_line_error(result, "--http", f"port {port} is already in use")
    assert not (tmp_path / "state").exists()


def test_serve_with_the_matter_port_in_use(tmp_path: Path, home_file: Path) -> None:
    with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as busy:
        busy.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        busy.bind(("::", 0))
        port = busy.getsockname()[1]
        result = homefabric("serve", str(home_file), "--state-dir", str(tmp_path / "state"), "--port", str(port))
    one_line_error(result, "Matter", f"port {port} is already in use")
    assert not (tmp_path / "state").exists()


def test_a_yaml_home_is_read_like_its_json(tmp_path: Path, home_file: Path) -> None:
    import json

    as_yaml = tmp_path / "home.yml"
    as_yaml.write_text(yaml.safe_dump(json.loads(home_file.read_text())))
    shown = [homefabric("home", "show", str(path), "--json") for path in (home_file, as_yaml)]
    assert shown[0].returncode == shown[1].returncode == 0, shown[1].stderr
    assert json.loads(shown[0].stdout) == json.loads(shown[1].stdout)


def test_an_unexpected_failure_is_one_line_with_exit_70_and_the_traceback_on_request(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A homefabric bug (here: a KeyError inside a command) reaches the user as one line naming it, not a traceback."""
    from homefabric_cli import main as cli

    def broken_app() -> None:
        raise KeyError("forecastId")

    monkeypatch.setattr(cli, "app_for", lambda argv: broken_app)  # the app main() runs
    monkeypatch.delenv(cli.TRACEBACK_ENV, raising=False)
    with pytest.raises(SystemExit) as stopped:
        cli.main()
    assert stopped.value.code == cli.INTERNAL_ERROR_EXIT == 70
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error (KeyError: 'forecastId')" in err and "Traceback" not in err
    monkeypatch.setenv(cli.TRACEBACK_ENV, "1")
    with pytest.raises(KeyError):
        cli.main()
