from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mqtt.broker import Mosquitto
from tests.requirements import require


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    require("mosquitto")
    server = Mosquitto(tmp_path / "broker")
    server.start()
    try:
        yield server
    finally:
        server.kill()
