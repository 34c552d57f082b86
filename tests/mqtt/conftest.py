from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mqtt.broker import MOSQUITTO, Mosquitto


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    if MOSQUITTO is None:
        pytest.skip("mosquitto is not installed (apt-get install -y mosquitto)")
    server = Mosquitto(tmp_path / "broker")
    server.start()
    try:
        yield server
    finally:
        server.kill()
