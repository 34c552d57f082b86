"""``scripts/docker-sandbox start`` after its engine was killed, as a session's or a machine's end kills it.

What is left behind (pid files naming dead or reused pids, sockets nobody listens on) once made ``start`` give up
at once with "dockerd did not answer within 30 s" while the new dockerd was still starting: it read the old pid
file, found that pid dead and stopped waiting. That failed CI before any test ran. Runs after the compose test
(file order), on the same engine; tests/deploy/conftest.py stops the engine when the suite ends.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SANDBOX = ROOT / "scripts" / "docker-sandbox"
RUN_DIR = Path("/run/homefabric-docker")  # scripts/docker-sandbox's

pytestmark = pytest.mark.requires("root", "ip-netns", "docker-engine")


def _start() -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SANDBOX), "start"], capture_output=True, text=True, timeout=180)


def _pid(name: str) -> int:
    return int((RUN_DIR / f"{name}.pid").read_text().strip())


def _kill_hard(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while Path(f"/proc/{pid}").exists() and (Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"):
        assert time.monotonic() < deadline, f"pid {pid} outlived SIGKILL by 30 s"
        time.sleep(0.1)


def test_start_after_the_engine_was_killed_starts_a_new_one() -> None:
    first = _start()
    assert first.returncode == 0, first.stderr
    for daemon in ("dockerd", "containerd"):
        _kill_hard(_pid(daemon))
    # The leftovers a killed engine leaves: its sockets, and pid files; one of them now names a live process of
    # another kind (pid 1), as a reused pid would.
    assert (RUN_DIR / "containerd.sock").exists() and (RUN_DIR / "docker.sock").exists()
    (RUN_DIR / "dockerd.pid").write_text("1")

    second = _start()

    assert second.returncode == 0, second.stderr
    assert "engine up in namespace" in second.stderr  # a new engine, not "already runs"
    assert Path(f"/proc/{_pid('dockerd')}/comm").read_text().strip() == "dockerd"
    docker_host = second.stdout.strip().splitlines()[-1].removeprefix("DOCKER_HOST=")
    version = subprocess.run(
        ["docker", "version", "--format", "{{.Server.Version}}"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "DOCKER_HOST": docker_host},
    )
    assert version.returncode == 0 and version.stdout.strip(), version.stderr
