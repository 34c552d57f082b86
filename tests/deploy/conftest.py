"""The Docker engine the deploy tests start (``scripts/docker-sandbox start``) is stopped again when they end.

The tests share one engine per host (test_compose_up starts it, test_docker_sandbox kills and restarts it); a run
that found no engine running leaves none behind: dockerd and containerd are daemons this suite started.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SANDBOX = ROOT / "scripts" / "docker-sandbox"
DOCKERD_PID = Path("/run/homefabric-docker/dockerd.pid")  # scripts/docker-sandbox's RUN_DIR


def _engine_running() -> bool:
    try:
        return Path(f"/proc/{int(DOCKERD_PID.read_text().strip())}/comm").read_text().strip() == "dockerd"
    except (OSError, ValueError):
        return False


@pytest.fixture(scope="session", autouse=True)
def engine_stopped_when_started_here() -> Iterator[None]:
    running_before = _engine_running()
    yield
    if not running_before and _engine_running():
        stopped = subprocess.run([str(SANDBOX), "stop"], capture_output=True, text=True, timeout=120, check=False)
        assert stopped.returncode == 0, f"scripts/docker-sandbox stop failed: {stopped.stderr[-400:]}"
