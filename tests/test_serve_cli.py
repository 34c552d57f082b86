"""Issue #14, item 2: `homefabric serve` owns its state dir, refuses the spec's invalid passcodes, warns on a
public bind without a token, and shares its flags with `mqtt` and `http` (through the real console script)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.mqtt.broker import Mosquitto, Recorder
from tests.test_cli_exit_codes import HOMEFABRIC, homefabric, one_line_error


@pytest.fixture(scope="module")
def home_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("home") / "home.json"
    assert homefabric("home", "generate", "--tier", "simple", "--seed", "2", "--out", str(path)).returncode == 0
    return path


def _start_serve(home_file: Path, state_dir: Path, *args: str) -> subprocess.Popen:
    log = open(state_dir.parent / f"{state_dir.name}.log", "w")  # noqa: SIM115 (closed with the process)
    process = subprocess.Popen(
        [HOMEFABRIC, "serve", str(home_file), "--state-dir", str(state_dir), "--port", "0", *args],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "COLUMNS": "200"},
    )
    deadline = time.monotonic() + 60
    while not (state_dir / "pairing.json").exists():
        assert process.poll() is None, (state_dir.parent / f"{state_dir.name}.log").read_text()
        assert time.monotonic() < deadline, "serve did not start in 60 s"
        time.sleep(0.2)
    return process


def _stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGINT)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def test_a_second_serve_on_the_same_state_dir_is_refused_and_changes_nothing(tmp_path: Path, home_file: Path) -> None:
    state = tmp_path / "state"
    first = _start_serve(home_file, state)
    try:
        before = {p.name: p.read_bytes() for p in state.iterdir() if p.is_file()}
        assert (state / "serve.lock").read_text().strip() == str(first.pid)
        second = homefabric("serve", str(home_file), "--state-dir", str(state), "--port", "0")
        one_line_error(second, str(state), f"PID {first.pid}")
        after = {p.name: p.read_bytes() for p in state.iterdir() if p.is_file()}
        assert after == before  # pairing.json, counters, keys: untouched
    finally:
        _stop(first)
    assert first.returncode == 0
    again = _start_serve(home_file, state)  # the lock went with the process
    _stop(again)


@pytest.mark.parametrize("passcode", ["00000000", "11111111", "99999999", "12345678", "87654321", "0", "99999999999"])
def test_the_spec_forbidden_passcodes_are_refused(tmp_path: Path, home_file: Path, passcode: str) -> None:
    result = homefabric(
        "serve", str(home_file), "--state-dir", str(tmp_path / "s"), "--port", "0", "--passcode", passcode
    )
    one_line_error(result, "--passcode", "5.1.7.1")
    assert not (tmp_path / "s").exists()


def test_a_public_http_bind_without_a_token_is_warned_about(tmp_path: Path, home_file: Path) -> None:
    # The (missing) home file is refused afterwards, so nothing ever listens on the public address.
    missing = str(tmp_path / "no-home.json")
    result = homefabric("serve", missing, "--state-dir", str(tmp_path / "s"), "--http", "0.0.0.0:0")
    assert "warning: listening on 0.0.0.0 without a token" in result.stderr
    assert result.returncode == 2
    quiet = homefabric("serve", missing, "--state-dir", str(tmp_path / "s"), "--http", "0.0.0.0:0", "--token", "s")
    assert "warning" not in quiet.stderr


def test_serve_takes_the_runs_dir_home_id_and_discovery_prefix_of_mqtt_and_http(
    tmp_path: Path, home_file: Path, broker: Mosquitto
) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        http_port = probe.getsockname()[1]
    runs = tmp_path / "runs"
    (runs / "earlier").mkdir(parents=True)
    (runs / "earlier" / "records.jsonl").write_text("")  # a run stored before: listed only from --runs-dir
    serve = _start_serve(
        home_file,
        tmp_path / "state",
        "--mqtt",
        f"127.0.0.1:{broker.port}",
        "--mqtt-base",
        "hf",
        "--home-id",
        "flat",
        "--discovery-prefix",
        "ha",
        "--http",
        f"127.0.0.1:{http_port}",
        "--token",
        "t0k",
        "--runs-dir",
        str(runs),
    )
    try:

        async def discovery() -> None:
            async with Recorder(broker.port, "ha/#") as rec:
                # Discovery under --discovery-prefix, device ids from --mqtt-base and --home-id.
                seen = await rec.wait_for(lambda m: m.topic.startswith("ha/device/hf_flat_"), timeout=20)
                assert seen[0].json()["cmps"]

        asyncio.run(discovery())
        response = httpx.get(
            f"http://127.0.0.1:{http_port}/api/runs", headers={"Authorization": "Bearer t0k"}, timeout=10
        )
        assert response.status_code == 200 and "earlier" in [r["run_id"] for r in response.json()]
    finally:
        _stop(serve)
