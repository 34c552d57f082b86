"""`docker compose up` for real: the README's compose section, run on a real Docker engine.

The engine is Debian's docker.io, started by ``scripts/docker-sandbox`` inside network namespace ``hfdocker``
(so the services' ``network_mode: host`` is that namespace, not the machine's LAN); the base image is pulled or
built from Debian packages by ``scripts/docker-base``; ``docker-compose.local.yml`` builds the broker and
python-matter-server 7.0.1 from Debian and PyPI because Docker Hub and ghcr.io are out of reach here.

Then, as a user on the host would (inside the namespace, which is this engine's host network):
``homefabric commission --matter-server ws://127.0.0.1:5580/ws`` commissions the home through the composed
matter-server and sees every device of the home the emulator generated (compared with the same home generated
here from the same tier and seed); a Home Assistant discovery config is retained on the composed broker; the
dashboard and the HTTP API answer. ``docker-compose down`` and ``up`` again: the fabric is still commissioned
(matter-server's storage and the emulator's state live on volumes): ``homefabric commission`` inside the
emulator's container, which reads the emulator's fabrics, says so, and the node answers a read over CASE.
Finally ``down -v``. Images stay in the engine, so a second run builds nothing. Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.matter.node.bridge_node import MAX_LABEL
from tests.matter_bridge.live_env import MatterServerClient
from tests.support.host_lock import host_lock

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
NAMESPACE = os.environ.get("HF_DOCKER_NETNS") or "hfdocker"  # scripts/docker-sandbox's (same variable, same default)
COMPOSE = ["docker-compose"]
COMPOSE_FILE = "docker-compose.yml:docker-compose.local.yml"  # the README's export, where images cannot be pulled
PROJECT = "homefabric-test"
WS_PORT, MQTT_PORT, HTTP = 5580, 1883, "127.0.0.1:8080"  # docker-compose.yml's
SERVICES = ("mqtt", "emulator", "matter-server")
BUILD_TIMEOUT_S = 1200  # a cold build: three images from Debian packages and PyPI

pytestmark = pytest.mark.requires("root", "ip-netns", "docker-engine", "docker-compose", "debootstrap", "homefabric")


def _run(argv: list[str], env: dict[str, str], timeout_s: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, cwd=ROOT, env=env)


def _ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, f"{' '.join(result.args)} exited {result.returncode}:\n{result.stderr[-4000:]}"
    return result.stdout


# The sandbox (namespace, engine, compose project, the compose file's fixed ports) is one per host: a second run
# of the suite waits for the first instead of tearing its containers down.
SANDBOX_LOCK = Path("/run/lock/homefabric-docker-sandbox.lock")


@pytest.fixture(scope="module")
def env() -> Iterator[dict[str, str]]:
    """The environment of the README's commands: this engine, the local base image, a fixed project name; the
    host's sandbox held for the module."""
    with host_lock(SANDBOX_LOCK, 2 * BUILD_TIMEOUT_S):
        yield _sandbox_env()


def _sandbox_env() -> dict[str, str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HOMEFABRIC_", "MATTER_", "MQTT_", "DOCKER_", "COMPOSE_"))
    }
    started = _ok(_run([str(ROOT / "scripts" / "docker-sandbox"), "start"], clean, 120))
    docker_host = started.strip().splitlines()[-1].removeprefix("DOCKER_HOST=")
    engine = {
        **clean,
        "DOCKER_HOST": docker_host,
        "COMPOSE_PROJECT_NAME": PROJECT,
        "COMPOSE_FILE": COMPOSE_FILE,
        "PATH": f"{VENV_BIN}:{clean.get('PATH', '')}",
    }
    base = _ok(_run([str(ROOT / "scripts" / "docker-base")], engine, 900)).strip().splitlines()[-1]
    return {**engine, "HOMEFABRIC_BASE_IMAGE": base}


def _in_namespace(argv: list[str], env: dict[str, str], timeout_s: float) -> subprocess.CompletedProcess[str]:
    return _run([str(ROOT / "scripts" / "docker-sandbox"), "exec", *argv], env, timeout_s)


def _logs(env: dict[str, str]) -> str:
    result = _run([*COMPOSE, "logs", "--no-color", "--tail", "60"], env, 60)
    return result.stdout[-8000:]


def _wait_healthy(env: dict[str, str], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        states = {}
        for service in SERVICES:
            container = _ok(_run([*COMPOSE, "ps", "-q", service], env, 60)).strip()
            states[service] = (
                _ok(
                    _run(
                        ["docker", "inspect", "--format", "{{.State.Status}}/{{.State.Health.Status}}", container],
                        env,
                        30,
                    )
                ).strip()
                if container
                else "absent"
            )
        if all(state == "running/healthy" for state in states.values()):
            return
        assert time.monotonic() < deadline, f"not healthy within {timeout_s} s: {states}\n{_logs(env)}"
        time.sleep(2)


def _commission(env: dict[str, str], *, in_container: bool = False) -> dict[str, Any]:
    """From the host, or inside the emulator's container, which knows its state (and so its fabrics)."""
    if in_container:
        result = _run(
            [*COMPOSE, "exec", "-T", "emulator", "homefabric", "commission", "--timeout", "150", "--json"], env, 240
        )
    else:
        result = _in_namespace(
            [
                str(VENV_BIN / "homefabric"),
                "commission",
                "--matter-server",
                f"ws://127.0.0.1:{WS_PORT}/ws",
                "--timeout",
                "150",
                "--json",
            ],
            env,
            240,
        )
    assert result.returncode == 0, f"commission exited {result.returncode}: {result.stderr[-3000:]}\n{_logs(env)}"
    return json.loads(result.stdout)


def _home_devices(tmp_path: Path) -> set[str]:
    """The device labels of the home the emulator generates on first start (tier simple, seed 1), generated
    here; a label is the device id cut to NodeLabel's 32 characters."""
    home = tmp_path / "home.json"
    _ok(
        _run(
            [str(VENV_BIN / "homefabric"), "home", "generate", "--tier", "simple", "--seed", "1", "--out", str(home)],
            {**os.environ},
            120,
        )
    )
    return {device["id"][:MAX_LABEL] for device in json.loads(home.read_text())["devices"]}


MQTT_PROBE = """
import asyncio, json, sys, aiomqtt
async def main():
    found = {}
    async with aiomqtt.Client("127.0.0.1", int(sys.argv[1]), identifier="hf-compose-probe") as client:
        await client.subscribe("homeassistant/#")
        try:
            async with asyncio.timeout(float(sys.argv[2])):
                async for message in client.messages:
                    if str(message.topic).endswith("/config") and message.payload and message.retain:
                        found[str(message.topic)] = json.loads(message.payload)
                        break
        except TimeoutError:
            pass
    print(json.dumps(found))
asyncio.run(main())
"""

HTTP_PROBE = """
import json, sys, urllib.request
out = {}
for path in sys.argv[2:]:
    with urllib.request.urlopen(f"http://{sys.argv[1]}{path}", timeout=10) as reply:
        out[path] = {"status": reply.status, "type": reply.headers.get_content_type(), "body": reply.read().decode()}
print(json.dumps(out))
"""


async def _read_after_restart(node_id: int) -> Any:
    """The node is available again and answers a read (a CASE session with the emulator's persisted fabric)."""
    client = MatterServerClient()
    try:
        await client.connect(NAMESPACE, WS_PORT, timeout_s=60)
        deadline = time.monotonic() + 120
        while not (await client.call("get_node", node_id=node_id, timeout_s=30))["available"]:
            assert time.monotonic() < deadline, f"node {node_id} not available again within 120 s"
            await asyncio.sleep(1)
        return await client.call("read_attribute", node_id=node_id, attribute_path="0/40/3", timeout_s=60)
    finally:
        await client.close()


def test_compose_up_commission_mqtt_dashboard_and_restart(env: dict[str, str], tmp_path: Path) -> None:
    timings: dict[str, float] = {}
    _run([*COMPOSE, "down", "-v", "--remove-orphans"], env, 180)  # a previous run killed half-way
    try:
        started = time.monotonic()
        _ok(_run([*COMPOSE, "up", "-d", "--build"], env, BUILD_TIMEOUT_S))
        _wait_healthy(env, 240)
        timings["up_s"] = time.monotonic() - started

        started = time.monotonic()
        first = _commission(env)
        timings["commission_s"] = time.monotonic() - started
        assert not first["already_commissioned"]
        assert {device["label"] for device in first["devices"]} == _home_devices(tmp_path)
        assert all(device["device_types"] for device in first["devices"])

        probe = _in_namespace([sys.executable, "-c", MQTT_PROBE, str(MQTT_PORT), "30"], env, 60)
        configs = json.loads(_ok(probe))
        assert configs, f"no retained discovery config on the composed broker\n{_logs(env)}"
        ((topic, config),) = configs.items()
        assert topic.startswith("homeassistant/device/") and config["dev"]["ids"] and config["cmps"], (topic, config)

        pages = json.loads(_ok(_in_namespace([sys.executable, "-c", HTTP_PROBE, HTTP, "/", "/api/rooms"], env, 60)))
        assert pages["/"]["status"] == 200 and pages["/"]["type"] == "text/html", pages["/"]["type"]
        assert pages["/api/rooms"]["status"] == 200 and json.loads(pages["/api/rooms"]["body"])

        # Down (the volumes stay) and up again: still commissioned, the same node, and it answers.
        started = time.monotonic()
        _ok(_run([*COMPOSE, "down"], env, 180))
        _ok(_run([*COMPOSE, "up", "-d"], env, 300))
        _wait_healthy(env, 240)
        timings["restart_s"] = time.monotonic() - started
        again = _commission(env, in_container=True)
        assert again["already_commissioned"] and again["node_id"] == first["node_id"], again
        assert {device["label"] for device in again["devices"]} == {device["label"] for device in first["devices"]}
        product = asyncio.run(asyncio.wait_for(_read_after_restart(first["node_id"]), 240))
        assert isinstance(product, dict) and isinstance(product.get("0/40/3"), str), product  # ProductName
    finally:
        _run([*COMPOSE, "down", "-v", "--remove-orphans"], env, 180)
        print(json.dumps({"timings": {k: round(v, 1) for k, v in timings.items()}}))
