"""Issue #21 items E, F, G and I through the real `homefabric serve` (console script, HTTP API on its fabric):
acknowledged device changes, NodeLabel and LocalConfigDisabled included, survive kill -9; a planted serve.lock
link is refused without touching its target."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.test_cli_exit_codes import HOMEFABRIC, homefabric, one_line_error
from tests.test_serve_cli import _stop


@pytest.fixture(scope="module")
def home_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("home") / "home.json"
    assert homefabric("home", "generate", "--tier", "simple", "--seed", "2", "--out", str(path)).returncode == 0
    return path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start(home_file: Path, state: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    log = open(state.parent / f"{state.name}.log", "a")  # noqa: SIM115 (closed with the process)
    process = subprocess.Popen(
        [HOMEFABRIC, "serve", str(home_file), "--state-dir", str(state), "--port", "0", "--http", f"127.0.0.1:{port}"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        assert process.poll() is None, (state.parent / f"{state.name}.log").read_text()[-3000:]
        if time.monotonic() > deadline:
            process.kill()
            process.wait()
            pytest.fail("serve did not start in 90 s")
        try:
            if httpx.get(url + "/api/devices", timeout=2).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.2)


def _light(url: str) -> str:
    devices = httpx.get(url + "/api/devices", timeout=10).json()
    return next(d["device_id"] for d in devices if "1.OnOff.OnOff" in d["state"])


def test_acknowledged_changes_survive_kill_9(tmp_path: Path, home_file: Path) -> None:
    state = tmp_path / "state"
    process, url = _start(home_file, state)
    try:
        light = _light(url)
        for round_ in range(3):
            attributes = f"{url}/api/devices/{light}/attributes"
            label = f"kitchen lamp {round_}"
            assert httpx.put(f"{attributes}/0/BasicInformation/NodeLabel", json={"value": label}).status_code == 200
            assert (
                httpx.put(
                    f"{attributes}/0/BasicInformation/LocalConfigDisabled", json={"value": round_ % 2 == 0}
                ).status_code
                == 200
            )
            toggled = httpx.post(f"{url}/api/devices/{light}/commands/1/OnOff/Toggle", json={"args": {}})
            assert toggled.status_code == 200, toggled.text
            on = httpx.get(f"{attributes}/1/OnOff/OnOff").json()["value"]
            process.send_signal(signal.SIGKILL)  # at once: well inside the 2 s save debounce
            process.wait(10)
            expected = {
                "0.BasicInformation.NodeLabel": label,
                "0.BasicInformation.LocalConfigDisabled": round_ % 2 == 0,
                "1.OnOff.OnOff": on,
            }
            process, url = _start(home_file, state)
            found = httpx.get(f"{url}/api/devices/{light}/attributes").json()
            assert {path: found[path] for path in expected} == expected, f"round {round_}"
    finally:
        _stop(process)
    assert not list(state.glob(".*.tmp")) and not list(state.glob("*.tmp"))


def test_a_serve_lock_link_is_refused_and_its_target_untouched(tmp_path: Path, home_file: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    os.symlink(precious, state / "serve.lock")
    result = homefabric("serve", str(home_file), "--state-dir", str(state), "--port", "0")
    one_line_error(result, "serve.lock", "symbolic link")
    assert precious.read_text() == "keep me\n"
    os.unlink(state / "serve.lock")
    os.link(precious, state / "serve.lock")
    result = homefabric("serve", str(home_file), "--state-dir", str(state), "--port", "0")
    one_line_error(result, "serve.lock", "hard link")
    assert precious.read_text() == "keep me\n"


@pytest.mark.parametrize(
    "document", ['{"fabrics":[{"x":1}]}', '{"fabrics":{"a":1}}', "[1, 2]", '{"fabrics":[],"next_index":"one"}']
)
def test_a_fabrics_file_of_the_wrong_shape_is_a_one_line_error(tmp_path: Path, home_file: Path, document: str) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "fabrics.json").write_text(document)
    result = homefabric("serve", str(home_file), "--state-dir", str(state), "--port", "0")
    one_line_error(result, "fabrics.json", "not a fabrics document")
    assert (state / "fabrics.json").read_text() == document


def test_temp_files_left_by_kills_are_removed_at_start(tmp_path: Path, home_file: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    leftovers = [".automations.json.k2j3x.tmp", ".home.json.a8b9.tmp", ".fabrics.json.q1w2e3"]
    for name in leftovers:
        (state / name).write_text("{half")
    (state / ".keep").write_text("mine")
    process, _ = _start(home_file, state)
    _stop(process)
    assert not [name for name in leftovers if (state / name).exists()]
    assert (state / ".keep").read_text() == "mine"
