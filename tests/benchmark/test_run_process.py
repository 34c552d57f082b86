"""``freeze_long_lived``: a process about to run episodes moves what it holds out of the cyclic collector's
reach and collects its young objects in larger batches, once (checked in a fresh interpreter: freezing the test
process would change every later test)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
import gc
from benchmark.runs.runner import YOUNG_GENERATION_ALLOCATIONS, freeze_long_lived
assert YOUNG_GENERATION_ALLOCATIONS >= 20_000, YOUNG_GENERATION_ALLOCATIONS
assert gc.get_freeze_count() == 0
freeze_long_lived()
frozen = gc.get_freeze_count()
assert frozen > 10_000, frozen  # the imports (chip's cluster classes among them)
assert gc.get_threshold() == (YOUNG_GENERATION_ALLOCATIONS, 10, 10), gc.get_threshold()  # in larger batches
junk = [[] for _ in range(1000)]
freeze_long_lived()  # once per process: the new objects stay collectable
assert gc.get_freeze_count() == frozen, (gc.get_freeze_count(), frozen)
print("ok", frozen)
"""


def test_a_run_process_freezes_what_it_holds_once():
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM], cwd=ROOT, capture_output=True, text=True, check=False, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith("ok ")
