"""A week of virtual time through ``serve``'s faces, against the bare engine (issue 24 item 4).

* ``bare``: ``EmulatedHome.advance(7 days)`` on the complex home (135 devices, its own sky: days and nights)
  with one subscriber that keeps every attribute event.
* ``faces``: the same home composed as ``homefabric serve`` composes it — the real-time pacer, the Matter bridge
  data model with one wildcard attribute subscription (min interval 0 s: every report it is allowed) served by
  the Interaction Model to a peer that acknowledges each report at once, the MQTT bridge on a real mosquitto
  broker (a subprocess), and the HTTP API with one ``/ws/events`` subscriber (a subprocess counting messages);
  then ``POST /api/clock/fast-forward`` of 7 days.

The figure is this process's CPU seconds (the broker and the WebSocket client run in their own processes; the
machine is shared, so CPU time is steadier than wall time), best of ``--repeat``; ``ratio`` is faces / bare.
Target: ratio ≤ 2. Also reported: what each subscriber received (WebSocket messages by type, Matter reports,
MQTT publishes) so a change that coalesces can be seen not to lose what a subscriber finally sees.

Usage: python perf/faces_week.py [--json] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

WEEK_S = 7 * 86400
HOME = ("complex", 7)

# The WebSocket subscriber: counts messages by type until its stdin closes, then prints the counts as JSON.
WS_CLIENT = r"""
import asyncio, json, sys
import websockets

async def main(url):
    counts = {}
    async with websockets.connect(url, open_timeout=10, max_queue=None) as ws:
        print("ready", flush=True)
        loop = asyncio.get_running_loop()
        closed = loop.run_in_executor(None, sys.stdin.read)
        while not closed.done():
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), 0.2))
            except TimeoutError:
                continue
            counts[message["type"]] = counts.get(message["type"], 0) + 1
    print(json.dumps(counts), flush=True)

asyncio.run(main(sys.argv[1]))
"""


def _complex_home() -> Any:
    from emulator.emulated_home import EmulatedHome
    from emulator.home_generation.generator import generate_home

    return EmulatedHome(generate_home(*HOME))


def bare_week() -> dict[str, Any]:
    fabric = _complex_home()
    events: list[Any] = []
    fabric.subscribe(events.append)
    began, began_cpu = time.perf_counter(), time.process_time()
    ran = fabric.advance(WEEK_S)
    return {
        "cpu_s": round(time.process_time() - began_cpu, 3),
        "wall_s": round(time.perf_counter() - began, 3),
        "timer_events": ran,
        "attribute_events": len(events),
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def _mosquitto(workdir: Path) -> Iterator[int]:
    program = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    port = _free_port()
    config = workdir / "mosquitto.conf"
    config.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    process = subprocess.Popen([program, "-c", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
            time.sleep(0.05)
        yield port
    finally:
        process.terminate()
        process.wait(5)


class _AckingSession:
    """A subscriber's session whose exchanges acknowledge every report at once and count them."""

    def __init__(self) -> None:
        self.reports = 0
        self.attribute_bytes = 0

    def open_exchange(self) -> _AckingExchange:
        return _AckingExchange(self)


class _AckingExchange:
    def __init__(self, session: _AckingSession) -> None:
        from bridge.matter.session.context import RequestContext

        self.session = session
        self.context = RequestContext("case", 1, 0x1122, session=session)

    async def send(self, opcode: int, payload: bytes, *, expect_reply: bool) -> tuple[int, bytes] | None:
        from bridge.matter.im import im_messages as im

        if opcode == im.Opcode.REPORT_DATA:
            self.session.reports += 1
            self.session.attribute_bytes += len(payload)
        return (im.Opcode.STATUS_RESPONSE, im.encode(im.StatusResponse(0))) if expect_reply else None

    async def close(self) -> None:
        pass


@contextlib.asynccontextmanager
async def _matter_subscription(fabric: Any) -> AsyncIterator[_AckingSession]:
    from bridge.matter.im import im_messages as im
    from bridge.matter.im.data_model import AllowAll
    from bridge.matter.im.interaction import InteractionModel
    from bridge.matter.node.bridge_node import BridgeNode

    model = InteractionModel(BridgeNode(fabric), AllowAll())
    session = _AckingSession()
    request = im.encode(
        im.SubscribeRequest(
            False,
            attributes=(im.AttributePath(),),
            min_interval_floor=0,
            max_interval_ceiling=60,
            fabric_filtered=False,
        )
    )
    await model.handle_exchange(session.open_exchange(), im.Opcode.SUBSCRIBE_REQUEST, request)
    if len(model.subscriptions) != 1:
        raise RuntimeError("the Matter subscription was not established")
    primed = session.reports
    try:
        yield session
    finally:
        session.reports -= primed
        await model.close()


async def _ws_subscriber(url: str) -> asyncio.subprocess.Process:
    client = await asyncio.create_subprocess_exec(
        sys.executable, "-c", WS_CLIENT, url, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert client.stdout is not None
    line = await asyncio.wait_for(client.stdout.readline(), 20)
    if line.strip() != b"ready":
        raise RuntimeError(f"the WebSocket subscriber did not connect: {line!r}")
    return client


async def faces_week(broker_port: int) -> dict[str, Any]:
    import httpx

    from bridge.http import HttpApi
    from bridge.mqtt import MqttBridge
    from emulator.pacing import RealtimePacer

    fabric = _complex_home()
    async with (
        RealtimePacer(fabric, 1.0) as pacer,
        _matter_subscription(fabric) as matter,
        MqttBridge(fabric, "127.0.0.1", broker_port, home_id="faces-week") as mqtt,
        HttpApi(fabric, port=0, pacer=pacer) as api,
    ):
        await mqtt.wait_connected()
        client = await _ws_subscriber(api.ws_url + "/ws/events?queue=10000")
        published: list[int] = []
        original = mqtt._publish_many

        async def counting(client_: Any, messages: Any) -> None:
            messages = list(messages)
            published.append(len(messages))
            await original(client_, messages)

        mqtt._publish_many = counting  # type: ignore[method-assign, assignment]  # counts the publishes: a probe's patch
        async with httpx.AsyncClient(base_url=api.url, timeout=600) as http:
            began, began_cpu = time.perf_counter(), time.process_time()
            response = await http.post("/api/clock/fast-forward", json={"seconds": WEEK_S})
            response.raise_for_status()
            await asyncio.sleep(0.2)  # the last coalesced reports and publishes leave
            cpu = time.process_time() - began_cpu
            wall = time.perf_counter() - began
        assert client.stdin is not None and client.stdout is not None
        client.stdin.close()
        ws_counts = json.loads((await asyncio.wait_for(client.stdout.readline(), 20)).decode() or "{}")
        await client.wait()
    return {
        "cpu_s": round(cpu, 3),
        "wall_s": round(wall, 3),
        "timer_events": response.json()["events_run"],
        "ws_messages": ws_counts,
        "matter_reports": matter.reports,
        "mqtt_publish_batches": len(published),
        "mqtt_states_published": sum(published),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, interleaved; the best CPU is kept")
    options = parser.parse_args()
    if options.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {options.repeat}")
    bare: list[dict[str, Any]] = []
    faces: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as workdir, _mosquitto(Path(workdir)) as broker_port:
        for _ in range(options.repeat):
            bare.append(bare_week())
            faces.append(asyncio.run(faces_week(broker_port)))
    best_bare = min(bare, key=lambda r: r["cpu_s"])
    best_faces = min(faces, key=lambda r: r["cpu_s"])
    result = {
        "home": "/".join(map(str, HOME)),
        "virtual_s": WEEK_S,
        "bare": best_bare,
        "faces": best_faces,
        "bare_cpu_s_all": [r["cpu_s"] for r in bare],
        "faces_cpu_s_all": [r["cpu_s"] for r in faces],
        "ratio": round(best_faces["cpu_s"] / best_bare["cpu_s"], 2),
        "target_ratio": 2.0,
    }
    if options.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"a week of {result['home']}: bare engine {best_bare['cpu_s']} CPU-s, through serve's faces "
            f"{best_faces['cpu_s']} CPU-s = {result['ratio']}x (target <= 2x)"
        )
    return 0 if result["ratio"] <= result["target_ratio"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
