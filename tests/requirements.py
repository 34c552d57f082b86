"""What a test needs from outside its Python code — system packages, console scripts, root, network
namespaces, a Docker engine — checked in one place.

``pytestmark = pytest.mark.requires("mosquitto")`` (or ``require("mosquitto")`` inside a test or fixture):
where something is missing, the test is skipped locally with the reason; under ``CI=true`` (``.ci/run``
installs all of it) the test FAILS, naming what is missing, so a broken install can never turn into a
green run of skips. ``tests/conftest.py`` applies the marker.
"""

from __future__ import annotations

import ctypes.util
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import pytest

VENV_BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")  # Debian's: the dashboard tests never download a browser of their own


def _program(name: str, *fallbacks: str) -> str | None:
    """The program's path: on PATH, or at a fixed path (sbin programs are not on every PATH)."""
    return shutil.which(name) or next((path for path in fallbacks if Path(path).exists()), None)


def mosquitto_path() -> str | None:
    return _program("mosquitto", "/usr/sbin/mosquitto")


def _ip_netns_works() -> bool:
    return (
        shutil.which("ip") is not None
        and subprocess.run(["ip", "netns", "list"], capture_output=True, timeout=20).returncode == 0
    )


def _missing_when(failed: Callable[[], bool], what: str) -> Callable[[], str | None]:
    return lambda: what if failed() else None


# name → check: None when present, else what is missing and how to get it.
CHECKS: dict[str, Callable[[], str | None]] = {
    "root": _missing_when(lambda: os.geteuid() != 0, "root (network namespaces need it)"),
    "ip-netns": _missing_when(lambda: not _ip_netns_works(), "iproute2's `ip netns` (apt-get install iproute2)"),
    "mosquitto": _missing_when(lambda: mosquitto_path() is None, "Debian's mosquitto (apt-get install mosquitto)"),
    "chromium": _missing_when(
        lambda: not CHROMIUM.exists(), f"Debian's chromium at {CHROMIUM} (apt-get install chromium)"
    ),
    "playwright": _missing_when(
        lambda: importlib.util.find_spec("playwright") is None, "the playwright package (pip install -e '.[test]')"
    ),
    "docker-compose": _missing_when(
        lambda: shutil.which("docker-compose") is None, "Debian's docker-compose (apt-get install docker-compose)"
    ),
    "docker-engine": _missing_when(
        lambda: any(_program(p, f"/usr/sbin/{p}") is None for p in ("dockerd", "containerd", "docker", "nsenter")),
        "Debian's Docker engine: dockerd, containerd, docker, nsenter (apt-get install docker.io)",
    ),
    "debootstrap": _missing_when(
        lambda: _program("debootstrap", "/usr/sbin/debootstrap") is None,
        "Debian's debootstrap (apt-get install debootstrap)",
    ),
    "matter-server": _missing_when(
        lambda: not (VENV_BIN / "matter-server").exists(),
        "the matter-server console script: python-matter-server[server]==7.0.1 (pip install -e '.[test]')",
    ),
    "homefabric": _missing_when(
        lambda: not (VENV_BIN / "homefabric").exists(), "the homefabric console script (pip install -e .)"
    ),
    "libnl": _missing_when(
        lambda: ctypes.util.find_library("nl-route-3") is None,
        "libnl-route-3 for the CHIP controller (apt-get install libnl-route-3-200)",
    ),
    "node": _missing_when(lambda: shutil.which("node") is None, "node (apt-get install nodejs)"),
    "matter.js": _missing_when(
        lambda: not (ROOT / "tests" / "matter_js" / "node_modules" / "@project-chip" / "matter.js").is_dir(),
        "matter.js in tests/matter_js/node_modules (npm ci in tests/matter_js)",
    ),
    "matter-zoo": _missing_when(
        lambda: not (ROOT / "tests" / "matter_zoo" / "node_modules" / "@matter" / "main").is_dir(),
        "matter.js for the device zoo in tests/matter_zoo/node_modules (npm ci in tests/matter_zoo)",
    ),
    "ray": _missing_when(
        lambda: importlib.util.find_spec("ray") is None or not (VENV_BIN / "python").exists(),
        "Ray (pip install -e '.[ray]')",
    ),
    "datasets": _missing_when(
        lambda: any(importlib.util.find_spec(m) is None for m in ("datasets", "pyarrow", "gymnasium")),
        "datasets, pyarrow and gymnasium (pip install -e '.[training]')",
    ),
    "espeak-ng": _missing_when(
        lambda: shutil.which("espeak-ng") is None,
        "Debian's espeak-ng, the speech layer's TTS (apt-get install espeak-ng)",
    ),
    "/data": _missing_when(
        lambda: not (Path("/data").is_dir() and os.access("/data", os.W_OK)),
        "a writable /data for the CHIP SDK (mkdir /data)",
    ),
}

# The real CHIP controller in a network namespace (tests/matter_bridge/live_env.py).
LIVE_CONTROLLER = ("root", "ip-netns", "matter-server", "homefabric", "libnl", "/data")


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1")


def missing(*names: str) -> list[str]:
    """What of ``names`` is missing here, each as its check describes it."""
    unknown = [name for name in names if name not in CHECKS]
    if unknown:
        raise KeyError(f"unknown requirement(s) {unknown}; known: {sorted(CHECKS)}")
    return [reason for name in names if (reason := CHECKS[name]()) is not None]


def unavailable(reasons: list[str]) -> NoReturn:
    text = "missing: " + "; ".join(reasons)
    if in_ci():
        pytest.fail(f"CI=true and {text}", pytrace=False)
    pytest.skip(text)


def require(*names: str) -> None:
    """Skip (locally) or fail (under CI=true) unless every requirement in ``names`` is met."""
    reasons = missing(*names)
    if reasons:
        unavailable(reasons)
