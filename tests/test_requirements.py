"""A missing system package skips a test locally and fails it under CI=true, naming the package.

The live check uninstalls mosquitto the way a failed ``apt-get install`` would leave it: in a private mount
namespace an empty tmpfs covers /usr/sbin (where Debian puts the broker; /sbin links there), and one real MQTT
test runs in it — once as a developer would (skipped, exit 0) and once as CI does (failed, naming it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.requirements import CHECKS, in_ci, missing

ROOT = Path(__file__).resolve().parents[1]
MQTT_TEST = "tests/mqtt/test_bridge_live.py::test_units_are_home_assistant_units"


def test_unknown_requirements_are_refused_by_name() -> None:
    with pytest.raises(KeyError, match="kettle"):
        missing("kettle")


def test_every_check_answers_and_ci_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in CHECKS:
        reason = CHECKS[name]()
        assert reason is None or (isinstance(reason, str) and reason), name
    monkeypatch.setenv("CI", "true")
    assert in_ci()
    monkeypatch.setenv("CI", "")
    assert not in_ci()


def _run_without_mosquitto(ci: str) -> subprocess.CompletedProcess[str]:
    script = (
        f"mount -t tmpfs homefabric-no-sbin /usr/sbin && exec {sys.executable} -m pytest -p no:cacheprovider "
        f"-rfs {MQTT_TEST}"
    )
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "CI": ci},
    )


@pytest.mark.requires("root", "mosquitto")
def test_without_mosquitto_a_broker_test_skips_locally_and_fails_under_ci() -> None:
    assert shutil.which("unshare"), "util-linux's unshare is part of every Debian"
    local = _run_without_mosquitto("")
    assert local.returncode == 0, local.stdout[-3000:] + local.stderr[-2000:]
    assert "SKIPPED [1] tests/mqtt/test_bridge_live.py" in local.stdout
    assert "missing: Debian's mosquitto (apt-get install mosquitto)" in local.stdout
    ci = _run_without_mosquitto("true")
    assert ci.returncode == 1, ci.stdout[-3000:] + ci.stderr[-2000:]
    assert "1 error" in ci.stdout or "1 failed" in ci.stdout  # an error where a fixture requires it
    assert "CI=true and missing: Debian's mosquitto (apt-get install mosquitto)" in ci.stdout
