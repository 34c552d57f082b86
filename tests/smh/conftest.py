"""One small generated SMH suite (every subcategory × tier once), shared by the SMH tests of a session."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark.suites.smh.generate import generate_suite
from benchmark.suites.smh.instance import Instance, load_instances

SEED = 7
ONE_EACH = {"simple": 1, "medium": 1, "complex": 1}


@pytest.fixture(scope="session")
def suite_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("smh-suite")
    generate_suite(out, SEED, ONE_EACH)
    return out


@pytest.fixture(scope="session")
def instances(suite_dir: Path) -> list[Instance]:
    return load_instances(suite_dir)
