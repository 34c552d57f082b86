"""Golden bytes of generated SMH suites: options added later (``water``) must leave the existing suites as they were."""

from __future__ import annotations

import hashlib
from pathlib import Path

from benchmark.suites.smh.generate import generate_suite
from tests.smh.conftest import SEED


def digest(directory: Path) -> str:
    """One sha256 over every JSON file of a suite, each with its relative path."""
    h = hashlib.sha256()
    for path in sorted(directory.rglob("*.json")):
        h.update(str(path.relative_to(directory)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def test_the_session_suite_keeps_its_golden_bytes(suite_dir: Path) -> None:
    assert digest(suite_dir) == "aba2ce53861c06a240a80e77a20c98e4bcb61b73242f9eb11afa489b9f737c99", SEED


def test_another_seed_and_counts_keep_their_golden_bytes(tmp_path: Path) -> None:
    generate_suite(tmp_path, 3, {"simple": 2, "medium": 1, "complex": 1})
    assert digest(tmp_path) == "3ef5347929200144e01aafa52623b59804ed406b8987f8c9c562f3e19aec34e5"
