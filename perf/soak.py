"""Soak probes of issue #15: the emulator left running, flooded and fast-forwarded.

* ``fast_forward``: the HTTP API over the complex home (135 devices) with a real-time pacer and an event
  WebSocket subscriber; while ``POST /api/clock/fast-forward`` runs the maximal 7 virtual days, a client in
  another thread asks ``GET /api/clock`` back to back. Prints the latency of those answers (p50/p99/max) and
  the fast-forward's wall time. Target: p99 < 200 ms.
* ``advance_week``: ``EmulatedHome.advance(7 days)`` on the complex home with one subscriber (default sampling),
  with SimuHome's constant sky (rooms come to rest between events). Target: < 1 s.
  ``advance_week_days_and_nights``: the same with the generated home's own sky (daylight follows the sun,
  rooms exchange heat with a daily outdoor swing): rooms never rest, but a 10 s sampling subscriber is woken only
  when a reading has moved by its reportable change (emulator/reportable_change.py; the crossing tick is computed
  from the closed-form physics) and at the 15-minute sky knots — O(reportable changes), reported beside it.
* ``flood``: 50,000 refused datagrams (unsecured IM requests, undecodable bytes, random bytes) sent to a
  Matter node on 127.0.0.1 only, its log at INFO in a file. Prints the log bytes (per datagram too), the
  node's refusal counters and the process's RSS growth after the first 1,000 datagrams. Targets: log < 10 KB,
  RSS growth < 5 MB.

* ``rules``: 1,000 every-second rules (``* * * * * ?``) added to the complex home in a fresh process: rules
  created per second, RSS per 1,000 rules, CPU of one virtual minute with them, and (in a second process, under
  tracemalloc) the bytes of Python objects kept per rule; and 200 such rules created over the HTTP API while a
  real-time pacer fires them (rules per second). Targets: ≤ 1 MB RSS per 1,000 rules, ≤ 1 KB traced per rule.
* ``kill_9``: ``homefabric serve --http`` killed with SIGKILL 0–0.8 s after an acknowledged device change
  (a Toggle and a NodeLabel write), 20 times; each restart checks the change is there. Target: 0 lost.
* ``episodes_import``: ``homefabric episodes import --json`` over 5,000 episode files (copies of generated
  ones): files per second, or how far it got within its time limit.

Usage: python perf/soak.py [--json] [--datagrams 50000] [--rules 1000] [--kills 20] [--import-files 5000]
       [--only rules,kill_9,episodes_import,...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from bridge.http import HttpApi
from emulator.emulated_home import EmulatedHome
from emulator.home_generation.generator import generate_home
from emulator.pacing import RealtimePacer

WEEK_S = 7 * 86400
WARM_UP = 1000  # datagrams of the flood sent before the RSS baseline is taken


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


# --- API latency during a maximal fast-forward ---------------------------------------------------------------


async def fast_forward_probe() -> dict[str, Any]:
    import websockets

    fabric = EmulatedHome(generate_home("complex", 7))
    async with (
        RealtimePacer(fabric, 1.0) as pacer,
        HttpApi(fabric, port=0, pacer=pacer) as api,
        websockets.connect(api.ws_url + "/ws/events?queue=10000", open_timeout=5) as ws,
    ):
        latencies: list[float] = []
        done = threading.Event()

        def poll() -> None:
            with httpx.Client(base_url=api.url, timeout=30) as client:
                while not done.is_set():
                    began = time.perf_counter()
                    client.get("/api/clock").raise_for_status()
                    latencies.append((time.perf_counter() - began) * 1000)

        poller = threading.Thread(target=poll, daemon=True)
        async with httpx.AsyncClient(base_url=api.url, timeout=120) as client:
            poller.start()
            await asyncio.sleep(0.3)  # the poller's baseline before the fast-forward
            baseline = len(latencies)
            began = time.perf_counter()
            response = await client.post("/api/clock/fast-forward", json={"seconds": WEEK_S})
            wall = time.perf_counter() - began
            during = latencies[baseline:]
            done.set()
        await asyncio.to_thread(poller.join, 5)
        response.raise_for_status()
        progress = 0
        with_timeout = True
        ws_closed = None
        while with_timeout:
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
            except TimeoutError:
                break
            except websockets.ConnectionClosed as closed:  # reported, not a crash of the probe
                ws_closed = str(closed)
                break
            progress += message.get("type") == "fast_forward"
    return {
        "home": "complex/7",
        "virtual_s": WEEK_S,
        "fast_forward_wall_s": round(wall, 3),
        "events_run": response.json()["events_run"],
        "progress_events": progress,
        "requests_during": len(during),
        "p50_ms": round(_percentile(during, 0.5), 2),
        "p99_ms": round(_percentile(during, 0.99), 2),
        "max_ms": round(max(during, default=0.0), 2),
        "ws_closed": ws_closed,
        "target_p99_ms": 200,
    }


# --- a week with a subscriber --------------------------------------------------------------------------------


def _complex_home(*, days_and_nights: bool) -> EmulatedHome:
    config = generate_home("complex", 7)
    if not days_and_nights:
        config.extensions["physics"] = {
            **config.extensions.get("physics", {}),
            "daylight": "constant",
            "outdoor": "none",
        }
    return EmulatedHome(config)


def advance_week_probe(*, days_and_nights: bool = False) -> dict[str, Any]:
    fabric = _complex_home(days_and_nights=days_and_nights)
    events: list[Any] = []
    fabric.subscribe(events.append)
    began = time.perf_counter()
    ran = fabric.advance(WEEK_S)
    wall = time.perf_counter() - began
    return {
        "home": "complex/7",
        "days_and_nights": days_and_nights,
        "virtual_s": WEEK_S,
        "wall_s": round(wall, 4),
        "timer_events": ran,
        "attribute_events": len(events),
        "target_s": 1.0,
    }


# --- a datagram flood ----------------------------------------------------------------------------------------


def _flood_datagrams(count: int) -> list[bytes]:
    from bridge.matter.codec import tlv
    from bridge.matter.codec.message import ExchangeFlags, MessageHeader, ProtocolHeader

    rng = random.Random(15)
    out = []
    for index in range(count):
        kind = index % 3
        if kind == 0:  # an IM request on an unsecured session: refused, acked
            header = MessageHeader(session_id=0, message_counter=index + 1, source_node_id=0x1234)
            proto = ProtocolHeader(
                exchange_flags=ExchangeFlags.INITIATOR | ExchangeFlags.RELIABLE,
                opcode=0x02,
                exchange_id=index & 0xFFFF,
                protocol_id=1,
            )
            out.append(header.encode() + proto.encode() + tlv.encode({}))
        elif kind == 1:  # shorter than a message header
            out.append(rng.randbytes(rng.randrange(1, 8)))
        else:  # random bytes
            out.append(rng.randbytes(rng.randrange(8, 200)))
    return out


async def flood_probe(count: int) -> dict[str, Any]:
    from bridge.matter.node.bridge_node import BridgeNode
    from bridge.matter.node.node import MatterNode

    datagrams = _flood_datagrams(count)
    with tempfile.TemporaryDirectory() as state:
        log_path = Path(state) / "node.log"
        handler = logging.FileHandler(log_path)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logger = logging.getLogger("bridge.matter")
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        fabric = EmulatedHome(generate_home("medium", 3))
        node = MatterNode(lambda root: BridgeNode(fabric, root), Path(state) / "node", port=0, mdns=False)
        await node.start()
        loop = asyncio.get_running_loop()
        transport, _ = await loop.create_datagram_endpoint(asyncio.DatagramProtocol, local_addr=("127.0.0.1", 0))
        target = ("127.0.0.1", node.port)
        try:
            handler.flush()
            log_before = log_path.stat().st_size
            began = time.perf_counter()
            rss_before = 0
            for index, data in enumerate(datagrams):
                transport.sendto(data, target)
                if index % 100 == 99:
                    await asyncio.sleep(0.002)  # loopback UDP drops what the socket buffer cannot hold
                if index == WARM_UP - 1:  # RSS from here: the first refusals allocate what later ones reuse
                    await asyncio.sleep(0.5)
                    rss_before = _rss_kb()
            await asyncio.sleep(1.0)
            wall = time.perf_counter() - began
            rss_after = _rss_kb()
            handler.flush()
            log_bytes = log_path.stat().st_size - log_before
            counts = dict(node.sessions.refusals.counts) if node.sessions is not None else {}
        finally:
            transport.close()
            await node.stop()
            logger.removeHandler(handler)
            handler.close()
    received = sum(counts.values())
    return {
        "datagrams_sent": count,
        "refusals_counted": counts,
        "wall_s": round(wall, 2),
        "log_bytes": log_bytes,
        "log_bytes_per_datagram": round(log_bytes / count, 4),
        "rss_growth_kb": rss_after - rss_before,
        "received_fraction": round(received / count, 3),
        "target_log_bytes": 10_000,
        "target_rss_growth_kb": 5 * 1024,
    }


# --- rules: creation rate and memory ----------------------------------------------------------------------------

_RULES_CHILD = """
import gc, json, sys, time, tracemalloc
from pathlib import Path
from emulator.emulated_home import EmulatedHome
from emulator.home_generation.generator import generate_home

def rss_kb():
    return next(int(l.split()[1]) for l in Path("/proc/self/status").read_text().splitlines() if l.startswith("VmRSS:"))

count, traced = int(sys.argv[1]), sys.argv[2] == "traced"
home = EmulatedHome(generate_home("complex", 7))
light = next(d.device_id for d in home.devices() if d.find(1, "OnOff") is not None)
rule = {"name": "every second", "trigger": {"kind": "time", "cron": "* * * * * ?"},
        "actions": [{"kind": "invoke", "device_id": light, "endpoint": 1, "cluster": "OnOff", "command": "Toggle"}]}
home.add_automation(rule)  # first use: imports and caches
if traced:
    gc.collect()
    tracemalloc.start()
before = rss_kb()
began = time.perf_counter()
for index in range(count - 1):
    home.add_automation({**rule, "name": f"every second {index}"})
created_s = time.perf_counter() - began
after = rss_kb()
if traced:
    gc.collect()
    print(json.dumps({"traced_bytes_per_rule": round(tracemalloc.get_traced_memory()[0] / (count - 1))}))
    sys.exit()
cpu = time.process_time()
home.advance(60)
print(json.dumps({"rules": count, "created_per_s": round((count - 1) / created_s),
                  "rss_kb_per_1000_rules": round((after - before) * 1000 / (count - 1)),
                  "virtual_minute_cpu_s": round(time.process_time() - cpu, 3),
                  "firings": home.automation_firings}))
"""


async def _rules_over_http(count: int) -> dict[str, Any]:
    fabric = EmulatedHome(generate_home("complex", 7))
    light = next(d.device_id for d in fabric.devices() if d.find(1, "OnOff") is not None)
    rule = {
        "name": "every second",
        "trigger": {"kind": "time", "cron": "* * * * * ?"},
        "actions": [{"kind": "invoke", "device_id": light, "endpoint": 1, "cluster": "OnOff", "command": "Toggle"}],
    }
    async with (
        RealtimePacer(fabric, 1.0) as pacer,
        HttpApi(fabric, port=0, pacer=pacer) as api,
        httpx.AsyncClient(base_url=api.url, timeout=60) as client,
    ):
        began = time.perf_counter()
        for _ in range(count):
            (await client.post("/api/automations", json=rule)).raise_for_status()
        wall = time.perf_counter() - began
    return {"rules": count, "created_per_s": round(count / wall, 1), "wall_s": round(wall, 2)}


def rules_probe(count: int) -> dict[str, Any]:
    import subprocess

    root = Path(__file__).resolve().parent.parent

    def child(mode: str) -> dict[str, Any]:
        run = subprocess.run(
            [sys.executable, "-c", _RULES_CHILD, str(count), mode],
            capture_output=True,
            text=True,
            cwd=root,
            timeout=600,
            check=True,
        )
        return dict(json.loads(run.stdout))

    return {
        # RSS moves by whole pages and first fills memory the process already holds: the Python objects the
        # rules keep (tracemalloc, measured in a second fresh process) say what a rule costs.
        "in_process": child("timed") | child("traced"),
        "over_http_with_pacer": asyncio.run(_rules_over_http(200)),
        "target_rss_kb_per_1000_rules": 1024,
        "target_traced_bytes_per_rule": 1024,
    }


# --- kill -9 of serve right after an acknowledged change ------------------------------------------------------


def _homefabric() -> str:
    return str(Path(sys.executable).parent / "homefabric")


def _start_serve(home: Path, state: Path, log: Any) -> tuple[Any, str]:
    import socket
    import subprocess

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [_homefabric(), "serve", str(home), "--state-dir", str(state), "--port", "0", "--http", f"127.0.0.1:{port}"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"serve exited with {process.returncode}")
        try:
            if httpx.get(url + "/api/devices", timeout=2).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("serve did not start in 120 s")


def kill_9_probe(kills: int) -> dict[str, Any]:
    import signal
    import subprocess

    rng = random.Random(21)
    lost: list[int] = []
    with tempfile.TemporaryDirectory() as work:
        home, state = Path(work) / "home.json", Path(work) / "state"
        subprocess.run(
            [_homefabric(), "home", "generate", "--tier", "simple", "--seed", "2", "--out", str(home)],
            check=True,
            capture_output=True,
            timeout=120,
        )
        with open(Path(work) / "serve.log", "w") as log:
            process, url = _start_serve(home, state, log)
            light = next(
                d["device_id"] for d in httpx.get(url + "/api/devices").json() if "1.OnOff.OnOff" in d["state"]
            )
            expected: dict[str, Any] | None = None
            for round_ in range(kills + 1):
                attributes = f"{url}/api/devices/{light}/attributes"
                if expected is not None:
                    found = httpx.get(attributes, timeout=10).json()
                    if any(found.get(path) != value for path, value in expected.items()):
                        lost.append(round_ - 1)
                if round_ == kills:
                    break
                httpx.put(
                    f"{attributes}/0/BasicInformation/NodeLabel", json={"value": f"soak {round_}"}, timeout=10
                ).raise_for_status()
                httpx.post(
                    f"{url}/api/devices/{light}/commands/1/OnOff/Toggle", json={"args": {}}, timeout=10
                ).raise_for_status()
                on = httpx.get(f"{attributes}/1/OnOff/OnOff", timeout=10).json()["value"]
                expected = {"0.BasicInformation.NodeLabel": f"soak {round_}", "1.OnOff.OnOff": on}
                time.sleep(rng.uniform(0.0, 0.8))
                process.send_signal(signal.SIGKILL)
                process.wait(30)
                process, url = _start_serve(home, state, log)
            process.send_signal(signal.SIGINT)
            process.wait(60)
        leftovers = sorted(p.name for p in state.glob(".*") if p.is_file())
    return {
        "kills": kills,
        "acknowledged_changes_lost": len(lost),
        "lost_rounds": lost,
        "temp_files_left": leftovers,
        "target_lost": 0,
    }


# --- episodes import throughput -------------------------------------------------------------------------------


def episodes_import_probe(files: int, limit_s: float = 600) -> dict[str, Any]:
    import shutil
    import subprocess

    with tempfile.TemporaryDirectory() as work:
        pool = Path(work) / "pool"
        subprocess.run(
            [
                _homefabric(),
                "episodes",
                "generate",
                "--qt",
                "all",
                "--per-type",
                "1",
                "--seed",
                "1",
                "--out",
                str(pool),
            ],
            check=True,
            capture_output=True,
            timeout=600,
        )
        sources = sorted(pool.glob("*.json"))
        folder = Path(work) / "episodes"
        folder.mkdir()
        for index in range(files):
            source = sources[index % len(sources)]
            shutil.copy(source, folder / f"{index:05d}_{source.name}")
        began = time.perf_counter()
        try:
            result = subprocess.run(
                [_homefabric(), "episodes", "import", str(folder), "--json"],
                capture_output=True,
                text=True,
                timeout=limit_s,
            )
        except subprocess.TimeoutExpired:
            return {"files": files, "finished": False, "limit_s": limit_s}
        wall = time.perf_counter() - began
    return {
        "files": files,
        "finished": True,
        "exit_code": result.returncode,
        "wall_s": round(wall, 1),
        "files_per_s": round(files / wall, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--datagrams", type=int, default=50_000)
    parser.add_argument("--rules", type=int, default=1000)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--import-files", type=int, default=5000)
    parser.add_argument("--only", default="", help="comma-separated probe names (default: all)")
    options = parser.parse_args()
    chosen = set(filter(None, options.only.split(",")))
    probes: dict[str, Any] = {
        "advance_week": advance_week_probe,
        "advance_week_days_and_nights": lambda: advance_week_probe(days_and_nights=True),
        "fast_forward": lambda: asyncio.run(fast_forward_probe()),
        "flood": lambda: asyncio.run(flood_probe(options.datagrams)),
        "rules": lambda: rules_probe(options.rules),
        "kill_9": lambda: kill_9_probe(options.kills),
        "episodes_import": lambda: episodes_import_probe(options.import_files),
    }
    if unknown := chosen - set(probes):
        parser.error(f"--only: unknown probes {sorted(unknown)}; choose from {', '.join(probes)}")
    results: dict[str, Any] = {name: probe() for name, probe in probes.items() if not chosen or name in chosen}
    checks: dict[str, tuple[str, Callable[[dict[str, Any]], bool]]] = {
        "api_p99_under_200_ms": ("fast_forward", lambda r: r["p99_ms"] < 200),
        "advance_week_under_1_s": ("advance_week", lambda r: r["wall_s"] < 1.0),
        "flood_log_under_10_kb": ("flood", lambda r: r["log_bytes"] < 10_000),
        "flood_rss_growth_under_5_mb": ("flood", lambda r: r["rss_growth_kb"] < 5 * 1024),
        "rules_rss_under_1_mb_per_1000": ("rules", lambda r: r["in_process"]["rss_kb_per_1000_rules"] <= 1024),
        "rules_traced_under_1_kb_per_rule": ("rules", lambda r: r["in_process"]["traced_bytes_per_rule"] <= 1024),
        "kill_9_nothing_lost": ("kill_9", lambda r: r["acknowledged_changes_lost"] == 0),
    }
    results["targets_met"] = {
        name: check(results[probe]) for name, (probe, check) in checks.items() if probe in results
    }
    if options.json:
        print(json.dumps(results, indent=2))
    else:
        for name, values in results.items():
            print(f"{name}: {values}")
    return 0 if all(results["targets_met"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
