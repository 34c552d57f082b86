"""A real mosquitto broker for the tests, on a free 127.0.0.1 port, with persistence in a temp dir,
and a recording MQTT client."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from tests.requirements import mosquitto_path, require

MOSQUITTO = mosquitto_path()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Mosquitto:
    """``start()``, ``kill()`` (SIGKILL: a crash, nothing flushed), ``stop()`` (SIGTERM), same port each time."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        if MOSQUITTO is None:
            raise RuntimeError("mosquitto is not installed (apt-get install -y mosquitto)")
        self.executable = MOSQUITTO
        self.port = port or free_port()
        self.workdir = workdir
        (workdir / "data").mkdir(parents=True, exist_ok=True)
        self.config = workdir / "mosquitto.conf"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\n"
            "allow_anonymous true\n"
            "persistence true\n"
            f"persistence_location {workdir / 'data'}/\n"
            "autosave_interval 1\n"
            f"log_dest file {workdir / 'mosquitto.log'}\n"
        )
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> None:
        self.process = subprocess.Popen(
            [self.executable, "-c", str(self.config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited with {self.process.returncode}: {self.log()[-2000:]}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                return
            time.sleep(0.05)
        raise TimeoutError(f"mosquitto did not listen on {self.port} within {timeout} s")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self.process = None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.process = None

    def log(self) -> str:
        path = self.workdir / "mosquitto.log"
        return path.read_text(errors="replace") if path.exists() else ""


@dataclass
class Received:
    topic: str
    payload: bytes
    retain: bool
    at: float

    def json(self) -> Any:
        return json.loads(self.payload)


class Recorder:
    """An MQTT client that records every message on its subscriptions; ``wait_for`` a matching one."""

    def __init__(self, port: int, *topics: str, identifier: str | None = None) -> None:
        self.port = port
        self.topics = topics or ("#",)
        self.identifier = identifier
        self.messages: list[Received] = []
        self._changed = asyncio.Event()
        self._client: aiomqtt.Client | None = None
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Recorder:
        self._client = aiomqtt.Client("127.0.0.1", self.port, identifier=self.identifier, timeout=5)
        await self._client.__aenter__()
        for topic in self.topics:
            await self._client.subscribe(topic, qos=1)
        self._task = asyncio.create_task(self._listen())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
                await self._task
        if self._client is not None:
            with contextlib.suppress(aiomqtt.MqttError):
                await self._client.__aexit__(None, None, None)

    async def _listen(self) -> None:
        assert self._client is not None
        async for message in self._client.messages:
            payload = message.payload if isinstance(message.payload, bytes) else str(message.payload).encode()
            self.messages.append(Received(message.topic.value, payload, bool(message.retain), time.perf_counter()))
            self._changed.set()

    async def publish(self, topic: str, payload: str | bytes, *, retain: bool = False) -> None:
        assert self._client is not None
        await self._client.publish(topic, payload, qos=1, retain=retain)

    def matching(self, predicate: Callable[[Received], bool], since: int = 0) -> list[Received]:
        return [m for m in self.messages[since:] if predicate(m)]

    async def wait_for(
        self, predicate: Callable[[Received], bool], *, since: int = 0, timeout: float = 5.0, count: int = 1
    ) -> list[Received]:
        deadline = time.monotonic() + timeout
        while True:
            found = self.matching(predicate, since)
            if len(found) >= count:
                return found
            left = deadline - time.monotonic()
            if left <= 0:
                recent = [(m.topic, m.payload[:200]) for m in self.messages[since:]][-10:]
                raise TimeoutError(f"{count} matching message(s) not seen in {timeout} s; last seen: {recent}")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    def mark(self) -> int:
        return len(self.messages)


def on_topic(topic: str, check: Callable[[Any], bool] | None = None) -> Callable[[Received], bool]:
    """A predicate: a message on ``topic`` whose JSON payload passes ``check``."""

    def predicate(message: Received) -> bool:
        if message.topic != topic:
            return False
        if check is None:
            return True
        try:
            return bool(check(message.json()))
        except (ValueError, KeyError, TypeError):
            return False

    return predicate


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    """A real mosquitto on a free port for one test (missing: skipped locally, a failure under CI=true)."""
    require("mosquitto")
    server = Mosquitto(tmp_path / "broker")
    server.start()
    try:
        yield server
    finally:
        server.kill()
