"""Suite-wide: the ``requires`` marker (tests/requirements.py) — skipped locally, a failure under CI=true — and
the ``broker`` and ``chromium`` fixtures."""

from __future__ import annotations

import pytest

from tests.browser import chromium  # noqa: F401  (a real headless Chromium: the dashboard tests)
from tests.mqtt.broker import broker  # noqa: F401  (a real mosquitto: the MQTT tests and serve's --mqtt)
from tests.requirements import require


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "requires(*names): needs these system parts (tests/requirements.py CHECKS)")


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("requires"):
        require(*mark.args)
