"""`scripts/up all` natively, wired as docker-compose.yml wires it, then `homefabric commission` as a user runs it.

Inside a fresh network namespace with a veth pair (``tests.matter_bridge.live_env``; the CHIP controller's
mDNS ignores loopback): the script starts Debian's mosquitto with the repo's config, ``homefabric serve`` on a
small home, and python-matter-server trusting the PAA the emulator exported. The compose file's ports are
used unchanged (the namespace has them free). Then the commission command, a subprocess in the namespace,
commissions the home, and the test checks with its own websocket client that matter-server sees every device
of the home as a bridged endpoint; a second run finds the home already commissioned and changes nothing.
The MQTT discovery and HTTP API checks run when ``homefabric serve`` has the ``--mqtt`` / ``--http`` flags.
SIGTERM to the script stops all three processes. Root only; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.matter_bridge.live_env import (
    CONTROLLER_IF,
    HOME_DEVICES,
    NODE_IF,
    MatterServerClient,
    Proc,
    network_namespace,
    write_small_home,
)
from tests.matter_bridge.live_setup import live_work
from tests.requirements import LIVE_CONTROLLER

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
UP = ROOT / "scripts" / "up"
WS_PORT, MQTT_PORT, HTTP = 5580, 1883, "127.0.0.1:8080"  # docker-compose.yml's
BRIDGED_NODE, DESCRIPTOR, BRIDGED_BASIC_INFORMATION = 0x13, 29, 57


pytestmark = pytest.mark.requires(*LIVE_CONTROLLER, "mosquitto")


def _serve_help() -> str:
    return subprocess.run(
        [str(VENV_BIN / "homefabric"), "serve", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "200"},
    ).stdout


def _commission_argv() -> list[str]:
    """`homefabric commission` once the CLI mounts it; the same function through its module until then."""
    mounted = (
        subprocess.run(
            [str(VENV_BIN / "homefabric"), "commission", "--help"], capture_output=True, timeout=60
        ).returncode
        == 0
    )
    return (
        [str(VENV_BIN / "homefabric"), "commission"] if mounted else [sys.executable, "-m", "homefabric_cli.commission"]
    )


def _in_namespace(
    namespace: str, argv: list[str], timeout_s: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["ip", "netns", "exec", namespace, *argv],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
    )


def _wait_for_line(proc: Proc, text: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while text not in proc.tail(200_000):
        assert proc.alive, f"scripts/up exited (status {proc.popen.returncode}):\n{proc.tail(8000)}"
        assert time.monotonic() < deadline, f"no {text!r} from scripts/up within {timeout_s} s:\n{proc.tail(8000)}"
        time.sleep(0.3)


async def _matter_server_nodes(namespace: str) -> list[dict]:
    client = MatterServerClient()
    try:
        await client.connect(namespace, WS_PORT, timeout_s=20)
        return await client.call("get_nodes", timeout_s=30)
    finally:
        await client.close()


MQTT_PROBE = """
import asyncio, json, sys, aiomqtt
async def main():
    found = {}
    async with aiomqtt.Client("127.0.0.1", int(sys.argv[1]), identifier="hf-up-probe") as client:
        await client.subscribe("homeassistant/#")
        try:
            async with asyncio.timeout(float(sys.argv[2])):
                async for message in client.messages:
                    if str(message.topic).endswith("/config") and message.payload:
                        found[str(message.topic)] = json.loads(message.payload)
                        if message.retain:
                            break
        except TimeoutError:
            pass
    print(json.dumps(found))
asyncio.run(main())
"""

HTTP_PROBE = """
import json, sys, urllib.request
with urllib.request.urlopen(f"http://{sys.argv[1]}/api/rooms", timeout=10) as reply:
    print(json.dumps({"status": reply.status, "body": reply.read().decode()}))
"""


def test_scripts_up_all_then_commission_sees_every_device() -> None:
    with live_work("hf-up-") as work:
        data = work / "data"
        data.mkdir()
        write_small_home(data / "home.json")
        serve_help = _serve_help()
        env = {
            "PATH": f"{VENV_BIN}:{os.environ.get('PATH', '')}",
            "HOMEFABRIC_DATA": str(data),
            "HOMEFABRIC_INTERFACE": NODE_IF,
            "MATTER_SERVER_INTERFACE": CONTROLLER_IF,
            "HOMEFABRIC_SPEED": "60",
            "UP_TIMEOUT": "90",
            "COLUMNS": "200",
        }
        timings: dict[str, float] = {}
        with network_namespace("hfu") as namespace:
            started = time.monotonic()
            up = Proc(["ip", "netns", "exec", namespace, str(UP), "all"], work / "up.log", env)
            try:
                _wait_for_line(up, "up: all up", 150)
                timings["up_s"] = time.monotonic() - started
                log = up.tail(200_000)
                # The script started what the compose file runs (tests/deploy/test_compose_file.py compares argv).
                assert f"--paa-root-cert-dir {data}/state/paa" in log and f"--port {WS_PORT}" in log
                assert (data / "state" / "paa" / ".version").is_file()
                native_conf = (data / "mosquitto" / "mosquitto.conf").read_text().splitlines()
                repo_conf = (ROOT / "deploy" / "mosquitto" / "mosquitto.conf").read_text().splitlines()
                changed = [line for line in native_conf if line not in repo_conf]
                assert changed == [f"persistence_location {data}/mosquitto/", "user root"], changed

                # Commission as a user would, then once more: the second run finds it done.
                started = time.monotonic()
                argv = [
                    *_commission_argv(),
                    "--matter-server",
                    f"ws://127.0.0.1:{WS_PORT}/ws",
                    "--state-dir",
                    str(data / "state"),
                    "--timeout",
                    "150",
                    "--json",
                ]
                first = _in_namespace(namespace, argv, 240)
                timings["commission_s"] = time.monotonic() - started
                assert first.returncode == 0, f"{first.stderr[-3000:]}\n{up.tail(12000)}"
                outcome = json.loads(first.stdout)
                assert not outcome["already_commissioned"]
                assert {d["label"] for d in outcome["devices"]} == set(HOME_DEVICES)
                for device in outcome["devices"]:
                    _, room, device_type = HOME_DEVICES[device["label"]]
                    assert device["device_types"] == [device_type] and device["room"] == room, device
                again = _in_namespace(namespace, argv, 60)
                assert again.returncode == 0, again.stderr[-3000:]
                assert json.loads(again.stdout)["already_commissioned"]
                assert json.loads(again.stdout)["node_id"] == outcome["node_id"]

                # matter-server's own view, through the test's websocket client.
                nodes = asyncio.run(asyncio.wait_for(_matter_server_nodes(namespace), 60))
                assert [node["node_id"] for node in nodes] == [outcome["node_id"]]
                node = nodes[0]
                assert node["available"] and node["is_bridge"]
                attributes = node["attributes"]
                seen = {}
                for path, value in attributes.items():
                    endpoint, cluster, attribute = (int(part) for part in path.split("/"))
                    if (cluster, attribute) == (DESCRIPTOR, 0) and BRIDGED_NODE in {t["0"] for t in value}:
                        seen[attributes[f"{endpoint}/{BRIDGED_BASIC_INFORMATION}/5"]] = {t["0"] for t in value}
                assert seen == {
                    device_id: {BRIDGED_NODE, device_type} for device_id, (_, _, device_type) in HOME_DEVICES.items()
                }

                if "--mqtt" in serve_help:
                    probe = _in_namespace(namespace, [sys.executable, "-c", MQTT_PROBE, str(MQTT_PORT), "15"], 40)
                    assert probe.returncode == 0, probe.stderr[-3000:]
                    configs = json.loads(probe.stdout)
                    device_configs = [c for topic, c in configs.items() if topic.startswith("homeassistant/device/")]
                    assert device_configs, f"no device discovery config on the broker: {configs}\n{up.tail(8000)}"
                    assert device_configs[0]["dev"]["ids"] and device_configs[0]["cmps"], device_configs[0]
                if "--http" in serve_help:
                    probe = _in_namespace(namespace, [sys.executable, "-c", HTTP_PROBE, HTTP], 30)
                    assert probe.returncode == 0, probe.stderr[-3000:]
                    reply = json.loads(probe.stdout)
                    assert reply["status"] == 200 and "living_room" in reply["body"] and "kitchen" in reply["body"]

                # SIGTERM to the script alone: it stops the three processes it started.
                os.kill(up.popen.pid, signal.SIGTERM)
                up.popen.wait(30)
                remaining = subprocess.run(
                    ["ip", "netns", "pids", namespace], capture_output=True, text=True, timeout=10
                ).stdout.split()
                assert remaining == [], f"left running: {remaining}\n{up.tail(4000)}"
                assert "up: stopped" in up.tail(4000)
            finally:
                up.stop()  # the whole process group, whatever happened above
                for pid in subprocess.run(
                    ["ip", "netns", "pids", namespace], capture_output=True, text=True, timeout=10
                ).stdout.split():
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(int(pid), signal.SIGKILL)
        print(
            json.dumps(
                {
                    "timings": {k: round(v, 2) for k, v in timings.items()},
                    "mqtt_checked": "--mqtt" in serve_help,
                    "http_checked": "--http" in serve_help,
                }
            )
        )
