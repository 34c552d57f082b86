"""host_lock: a second holder waits, bounded, and the error names the holder; a dead holder frees the lock."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.host_lock import HostLockTimeout, host_lock

ROOT = Path(__file__).resolve().parents[2]

HOLD = (
    "import sys,time; from pathlib import Path; from tests.support.host_lock import host_lock\n"
    "with host_lock(Path(sys.argv[1]), 5):\n    print('held', flush=True); time.sleep(float(sys.argv[2]))\n"
)


def _holder(lock: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock), str(seconds)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_run_waits_then_fails_naming_the_holder(tmp_path: Path) -> None:
    lock = tmp_path / "sandbox.lock"
    holder = _holder(lock, 30)
    try:
        started = time.monotonic()
        with pytest.raises(HostLockTimeout, match=rf"pid {holder.pid}\)"), host_lock(lock, 0.6, poll_s=0.1):
            pass
        assert time.monotonic() - started >= 0.6
    finally:
        holder.kill()
        holder.wait(10)
    with host_lock(lock, 5):  # killed holder: the kernel released its lock
        assert lock.read_text() == str(os.getpid())


def test_the_lock_is_taken_once_the_holder_finishes(tmp_path: Path) -> None:
    lock = tmp_path / "sandbox.lock"
    holder = _holder(lock, 0.5)
    started = time.monotonic()
    with host_lock(lock, 10, poll_s=0.05):
        waited = time.monotonic() - started
    holder.wait(10)
    assert 0.2 <= waited < 5
