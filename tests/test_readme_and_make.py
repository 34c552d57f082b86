"""Issue #21 items 2 and 10: `make test` sets up matter.js itself; the README points only at what a clone has and
says how to get the command; the project carries its licence."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_make_test_installs_matter_js_and_the_zoo_when_they_are_missing(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.fail("make is missing (apt-get install make): the README's test command needs it")
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "tests" / "matter_js").mkdir(parents=True)
    (tmp_path / "tests" / "matter_zoo").mkdir(parents=True)
    (tmp_path / ".venv").mkdir()
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / ".venv" / ".installed").write_text("")  # the venv is up to date: only matter.js is missing
    # Run from `make test` itself (as CI does), make would say "Entering directory …/pytest-of-root/…": a plain
    # environment and --no-print-directory keep the plan to the commands alone.
    plain_env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    planned = subprocess.run(
        ["make", "--no-print-directory", "-n", "test"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
        env=plain_env,
    )
    assert planned.returncode == 0, planned.stderr
    lines = planned.stdout.splitlines()
    pytest_line = next(i for i, line in enumerate(lines) if "-m pytest" in line)
    for folder in ("tests/matter_js", "tests/matter_zoo"):
        assert f"cd {folder} && npm ci --no-audit --no-fund" in lines
        assert lines.index(f"cd {folder} && npm ci --no-audit --no-fund") < pytest_line


def test_readme_points_only_at_files_of_the_repository_and_says_how_to_run_the_command() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "shared/" not in readme
    for path in re.findall(r"`((?:tests|scripts|bench|docs|deploy)/[\w./-]+)`", readme):
        assert (ROOT / path.rstrip("/")).exists(), path
    assert ".venv/bin/homefabric" in readme and "source .venv/bin/activate" in readme
    for part in ("npm", "mosquitto", "Chromium", "ip netns", "Docker", "espeak-ng"):
        assert part in readme, part


def test_the_project_carries_the_apache_licence() -> None:
    licence = (ROOT / "LICENSE").read_text()
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    assert 'license = { file = "LICENSE" }' in (ROOT / "pyproject.toml").read_text()
