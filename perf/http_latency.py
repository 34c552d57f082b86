"""HTTP API latency: GET attribute and POST command p50/p95 over N requests each, and WebSocket event delivery
(POST command → the AttributeEvent received on /ws/events) p50/p95.

The API runs on a free 127.0.0.1 port in its own thread and event loop (as under `homefabric serve`), with a
generated home; the client (httpx keep-alive + websockets) runs in the main thread's loop.

Next to them, the same read and command made in-process (``EmulatedHome.read`` / ``EmulatedHome.invoke``, what the HTTP
route calls): the difference is what HTTP, uvicorn and FastAPI add. A cProfile of the server (2,000 keep-alive GETs)
showed where that went: routing and dependency solving ~0.3 ms of CPU a request, h11's pure-Python parsing
~0.3 ms. Since issue 14 the two hot routes skip FastAPI's routing (bridge/http/hot_routes.py) and uvicorn parses
with httptools; the rest is the socket sends and the wake-ups of client and server, which on a busy machine
dominate — so the CPU time per request is printed too (all of it, and the server thread's alone): load inflates
it far less.

A second measurement runs the API the way `homefabric serve --http` does, in a process of its own, and asks it
with a minimal keep-alive client (the standard library's ``http.client``): the round trip without the bench's
own httpx client sharing a process (and its GIL) with the server.

Usage: python perf/http_latency.py [--requests 1000] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import multiprocessing
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
import websockets

from bridge.http import HttpApi
from emulator.emulated_home import EmulatedHome
from emulator.home_generation.generator import generate_home


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(durations_ms: list[float]) -> dict[str, float]:
    return {
        "n": len(durations_ms),
        "p50_ms": round(percentile(durations_ms, 0.5), 3),
        "p95_ms": round(percentile(durations_ms, 0.95), 3),
        "mean_ms": round(statistics.fmean(durations_ms), 3),
    }


class ServerThread:
    def __init__(self, fabric: EmulatedHome) -> None:
        self.fabric = fabric
        self.url = ""
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        async with HttpApi(self.fabric, port=0) as api:
            self.url = api.url
            self._ready.set()
            await self._stop.wait()

    def cpu_seconds(self) -> float:
        """CPU time of the server's thread (uvicorn, the app, the fabric) so far."""
        assert self._thread.ident is not None
        return time.clock_gettime(time.pthread_getcpuclockid(self._thread.ident))

    def __enter__(self) -> ServerThread:
        self._thread.start()
        if not self._ready.wait(20):
            raise RuntimeError("the API did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None and self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(20)


async def measure(url: str, light: str, requests: int, server_cpu: Any = None) -> dict[str, Any]:
    reads, invokes, deliveries = [], [], []
    attribute = f"/api/devices/{light}/attributes/1/OnOff/OnOff"
    command = f"/api/devices/{light}/commands/1/OnOff/Toggle"
    async with httpx.AsyncClient(base_url=url, timeout=10) as client:
        for _ in range(20):  # warm-up: connection, imports, caches
            await client.get(attribute)
        server_cpu = server_cpu or (lambda: 0.0)
        cpu, server = time.process_time(), server_cpu()
        for _ in range(requests):
            started = time.perf_counter()
            response = await client.get(attribute)
            reads.append((time.perf_counter() - started) * 1000)
            response.raise_for_status()
        read_cpu = ((time.process_time() - cpu) * 1000 / requests, (server_cpu() - server) * 1000 / requests)
        cpu, server = time.process_time(), server_cpu()
        for _ in range(requests):
            started = time.perf_counter()
            response = await client.post(command)
            invokes.append((time.perf_counter() - started) * 1000)
            response.raise_for_status()
        invoke_cpu = ((time.process_time() - cpu) * 1000 / requests, (server_cpu() - server) * 1000 / requests)
        async with websockets.connect("ws" + url[4:] + "/ws/events", open_timeout=10) as ws:
            await ws.recv()  # hello
            for _ in range(requests):
                started = time.perf_counter()
                await client.post(command)
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if message["type"] == "attribute" and message["device_id"] == light:
                        break
                deliveries.append((time.perf_counter() - started) * 1000)
    # CPU of client and server together per request: unlike wall time, not inflated by other processes' load
    return {
        "read": {**summary(reads), **_cpu(read_cpu)},
        "invoke": {**summary(invokes), **_cpu(invoke_cpu)},
        "ws_event": summary(deliveries),
    }


def _cpu(figures: tuple[float, float]) -> dict[str, float]:
    return {"cpu_ms_per_request": round(figures[0], 3), "server_cpu_ms_per_request": round(figures[1], 3)}


def measure_in_process(fabric: EmulatedHome, light: str, requests: int) -> dict[str, Any]:
    reads, invokes = [], []
    for _ in range(requests):
        started = time.perf_counter()
        fabric.read(light, 1, "OnOff", "OnOff")
        reads.append((time.perf_counter() - started) * 1000)
    for _ in range(requests):
        started = time.perf_counter()
        fabric.invoke(light, 1, "OnOff", "Toggle")
        invokes.append((time.perf_counter() - started) * 1000)
    return {"read": summary(reads), "invoke": summary(invokes)}


def _serve_in_child(connection: Any) -> None:
    """The child process: the same home and API as the in-thread server; sends (url, light), serves until told."""

    async def serve() -> None:
        fabric = EmulatedHome(generate_home("complex", 7))
        light = next(d.device_id for d in fabric.devices() if d.device_type == "on_off_light")
        async with HttpApi(fabric, port=0) as api:
            connection.send((api.url, light))
            await asyncio.get_running_loop().run_in_executor(None, connection.recv)

    asyncio.run(serve())


def _process_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def measure_separate_process(requests: int) -> dict[str, Any]:
    """GET attribute and POST command against the API in its own process, with a blocking keep-alive client."""
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(target=_serve_in_child, args=(child,), daemon=True)
    process.start()
    server_pid = process.pid
    assert server_pid is not None  # a started process has its pid
    try:
        if not parent.poll(60):
            raise RuntimeError("the API process did not start")
        url, light = parent.recv()
        host, port = url.removeprefix("http://").rsplit(":", 1)
        client = http.client.HTTPConnection(host, int(port), timeout=10)
        results = {}
        for name, method, path in (
            ("read", "GET", f"/api/devices/{light}/attributes/1/OnOff/OnOff"),
            ("invoke", "POST", f"/api/devices/{light}/commands/1/OnOff/Toggle"),
        ):
            for _ in range(20):  # warm-up
                client.request(method, path)
                client.getresponse().read()
            durations, cpu, server = [], time.process_time(), _process_cpu_seconds(server_pid)
            for _ in range(requests):
                started = time.perf_counter()
                client.request(method, path)
                response = client.getresponse()
                response.read()
                durations.append((time.perf_counter() - started) * 1000)
                if response.status != 200:
                    raise RuntimeError(f"{method} {path}: HTTP {response.status}")
            results[name] = {
                **summary(durations),
                **_cpu(
                    (
                        (time.process_time() - cpu) * 1000 / requests,
                        (_process_cpu_seconds(server_pid) - server) * 1000 / requests,
                    )
                ),
            }
        client.close()
        return {**results, "client": "http.client keep-alive"}
    finally:
        parent.send("stop")
        process.join(20)
        if process.is_alive():
            process.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000, help="requests per measurement (>= 500)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    requests = max(500, args.requests)
    fabric = EmulatedHome(generate_home("complex", 7))
    light = next(d.device_id for d in fabric.devices() if d.device_type == "on_off_light")
    in_process = measure_in_process(fabric, light, requests)
    with ServerThread(fabric) as server:
        results = asyncio.run(measure(server.url, light, requests, server.cpu_seconds))
    results["in_process"] = in_process
    results["separate_process"] = measure_separate_process(requests)
    results["home"] = {"tier": "complex", "seed": 7, "devices": len(fabric.devices())}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"HTTP API latency ({requests} requests each, 127.0.0.1, {len(fabric.devices())}-device home)")
    for name, label in (("read", "GET attribute"), ("invoke", "POST command"), ("ws_event", "invoke → WS event")):
        r = results[name]
        cpu = (
            f"   CPU {r['cpu_ms_per_request']:.3f} ms/request ({r['server_cpu_ms_per_request']:.3f} server)"
            if "cpu_ms_per_request" in r
            else ""
        )
        print(f"  {label:<18} p50 {r['p50_ms']:.3f} ms   p95 {r['p95_ms']:.3f} ms   mean {r['mean_ms']:.3f} ms{cpu}")
        if name in results["in_process"]:
            local = results["in_process"][name]
            print(f"  {'  in-process':<18} p50 {local['p50_ms']:.3f} ms   p95 {local['p95_ms']:.3f} ms")
    separate = results["separate_process"]
    print(f"  server in its own process, {separate['client']}:")
    for name, label in (("read", "GET attribute"), ("invoke", "POST command")):
        r = separate[name]
        print(
            f"  {label:<18} p50 {r['p50_ms']:.3f} ms   p95 {r['p95_ms']:.3f} ms   mean {r['mean_ms']:.3f} ms"
            f"   CPU {r['cpu_ms_per_request']:.3f} ms/request client, {r['server_cpu_ms_per_request']:.3f} server"
        )


if __name__ == "__main__":
    main()
