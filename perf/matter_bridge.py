"""Matter bridge benchmark through the real controller (python-matter-server 7.0.1 / CHIP SDK 2024.11.4).

For each home it sets up its own network namespace (veth pair, never the root namespace), starts
``homefabric serve`` and ``matter-server`` inside it, drives matter-server's websocket API, and tears
everything down again (also on Ctrl-C / SIGTERM). Needs root (``ip netns``).

Measured (wall clock at the websocket client, so every figure includes matter-server and the SDK):

* ``commission_s`` — small home (7 devices): ``commission_with_code(manual, network_only=True)`` until
  matter-server answers; that covers DNS-SD discovery, PASE, attestation, CSR/NOC, CASE,
  CommissioningComplete *and* matter-server's interview (a wildcard Read of every attribute);
* ``read_p50_ms`` / ``read_p95_ms`` — small home: ``read_attribute`` of one attribute (OnOff of a light),
  ``--reads`` times over the established CASE session;
* ``wildcard_read_s`` — complex (135 devices) and stress (1,000 devices) homes: ``read_attribute`` with
  the path ``*/*/*``, i.e. one CHIP Read of every attribute of every endpoint (fabricFiltered=false,
  the same Read as matter-server's interview), best of ``--rounds``; ``commission_s`` per home too;
* ``subscription_latency_ms`` — small home: OnOff toggled *inside the fabric* (control socket, not Matter)
  until matter-server's ``attribute_updated`` event arrives over the running subscription (matter-server
  asks for MinInterval 1 s; toggles are spaced 1.5 s apart so the floor does not gate them), median and p95;
* ``restart_to_first_report_s`` — small home: ``serve`` is killed (kill -9) and started again on the same
  state directory; from the restart until the controller's subscription delivers a change made inside the
  restarted home (the controller must notice, find the node, set up CASE — resumed — and resubscribe);
* ``emulator_cpu_s`` / ``controller_cpu_s`` — per wildcard read, CPU seconds of ``serve`` and of matter-server
  (which hosts the CHIP SDK); ``load`` — the machine's 1-minute load average before and after each home,
  since the machine may be shared and wall times move with it.

Usage: python perf/matter_bridge.py [--json] [--reads 100] [--rounds 3] [--homes complex,stress]
(``--homes complex`` skips the 1,000-device stress tier, which takes minutes; ``--homes ''`` only the
small home.)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.matter_bridge.live_env import LiveBridge, live_skip_reason, manual_code, write_small_home

SUBSCRIPTION_SAMPLES = 10


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc): the emulator's share of a measurement."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


async def _commission(bridge: LiveBridge, timeout_s: float) -> tuple[int, float]:
    started = time.monotonic()
    node = await bridge.matter.call("commission_with_code", code=manual_code(), network_only=True, timeout_s=timeout_s)
    return node["node_id"], time.monotonic() - started


async def small_home(work: Path, reads: int, log: Any) -> dict[str, Any]:
    home = write_small_home(work / "small.json")
    async with LiveBridge(home, work / "small", speed=1, namespace_prefix="hfb") as bridge:
        node_id, commission_s = await _commission(bridge, 120)
        log(f"small home: commissioned in {commission_s:.2f} s")
        lamp = (await bridge.control("endpoints"))["lamp"]["endpoints"]["1"]
        path = f"{lamp}/6/0"
        latencies = []
        for _ in range(reads):
            started = time.perf_counter()
            await bridge.matter.call("read_attribute", node_id=node_id, attribute_path=path, timeout_s=30)
            latencies.append((time.perf_counter() - started) * 1000)
        log(
            f"small home: {reads} reads of {path}: p50 {statistics.median(latencies):.2f} ms, "
            f"p95 {_percentile(latencies, 0.95):.2f} ms"
        )
        deliveries = []
        for _ in range(SUBSCRIPTION_SAMPLES):
            await asyncio.sleep(1.5)
            state = await bridge.control("read", device="lamp", endpoint=1, cluster="OnOff", attribute="OnOff")
            since = len(bridge.matter.events)
            started = time.monotonic()
            await bridge.control("invoke", device="lamp", endpoint=1, cluster="OnOff", command="Toggle")

            def toggled(event: dict[str, Any], expected: bool = not state) -> bool:
                return (
                    event["event"] == "attribute_updated"
                    and event["data"][0] == node_id
                    and event["data"][1] == path
                    and event["data"][2] is expected
                )

            event = await bridge.matter.wait_event(toggled, 15, since)
            deliveries.append((event["received"] - started) * 1000)
        log(
            f"small home: subscription delivery median {statistics.median(deliveries):.1f} ms "
            f"(p95 {_percentile(deliveries, 0.95):.1f} ms, {SUBSCRIPTION_SAMPLES} toggles)"
        )
        restart_s, after_up_s = await _restart_to_first_report(bridge, node_id, path)
        log(
            f"small home: kill -9 and restart of serve -> first report over the subscription in {restart_s:.2f} s "
            f"({after_up_s:.2f} s of it after serve was up again)"
        )
        return {
            "restart_to_first_report_s": round(restart_s, 3),
            "restart_first_report_after_up_s": round(after_up_s, 3),
            "commission_s": round(commission_s, 3),
            "read_p50_ms": round(statistics.median(latencies), 2),
            "read_p95_ms": round(_percentile(latencies, 0.95), 2),
            "reads": reads,
            "subscription_latency_ms": round(statistics.median(deliveries), 1),
            "subscription_latency_p95_ms": round(_percentile(deliveries, 0.95), 1),
        }


async def _restart_to_first_report(bridge: LiveBridge, node_id: int, path: str) -> tuple[float, float]:
    """kill -9 serve, start it again, change the lamp inside the restarted home: seconds from the restart
    until matter-server reports the change (i.e. its subscription works again), and of those the seconds
    after serve was up again (its control socket answers; the rest is process start: imports, home load)."""
    await asyncio.sleep(2)  # a quiet subscription, as in daily use
    await bridge.kill_serve()
    since = len(bridge.matter.events)
    started = time.monotonic()
    await bridge.start_serve()
    up = time.monotonic()
    state = await bridge.control("read", device="lamp", endpoint=1, cluster="OnOff", attribute="OnOff")
    await bridge.control("invoke", device="lamp", endpoint=1, cluster="OnOff", command="Toggle")

    def reported(event: dict[str, Any]) -> bool:
        return (
            event["event"] == "attribute_updated"
            and event["data"][0] == node_id
            and event["data"][1] == path
            and event["data"][2] is (not state)
        )

    event = await bridge.matter.wait_event(reported, 180, since)
    return event["received"] - started, event["received"] - up


async def big_home(tier: str, work: Path, rounds: int, log: Any) -> dict[str, Any]:
    from emulator.home_config import dump_home
    from emulator.home_generation.generator import generate_home

    config = generate_home(tier, 1)
    home = work / f"{tier}.json"
    home.write_text(dump_home(config))
    async with LiveBridge(home, work / tier, speed=1, namespace_prefix="hfb") as bridge:
        node_id, commission_s = await _commission(bridge, 900)
        log(f"{tier} home ({len(config.devices)} devices): commissioned (incl. interview) in {commission_s:.2f} s")
        assert bridge.serve_proc is not None and bridge.server_proc is not None
        serve_pid, controller_pid = bridge.serve_proc.popen.pid, bridge.server_proc.popen.pid  # `ip netns exec` execs
        times, device_cpu, controller_cpu, attributes = [], [], [], 0
        load_before = _load()
        for _ in range(rounds):
            cpu, controller = _cpu_s(serve_pid), _cpu_s(controller_pid)
            started = time.monotonic()
            values = await bridge.matter.call("read_attribute", node_id=node_id, attribute_path="*/*/*", timeout_s=600)
            times.append(time.monotonic() - started)
            device_cpu.append(_cpu_s(serve_pid) - cpu)
            controller_cpu.append(_cpu_s(controller_pid) - controller)
            attributes = len(values)
        endpoints = len({p.split("/")[0] for p in values})
        log(
            f"{tier} home: wildcard read of {attributes} attributes on {endpoints} endpoints: best "
            f"{min(times):.2f} s, all {', '.join(f'{t:.2f}' for t in times)} s; emulator CPU per read "
            f"{min(device_cpu):.2f} s, controller CPU {min(controller_cpu):.2f} s, load {load_before} -> {_load()}"
        )
        return {
            "devices": len(config.devices),
            "endpoints": endpoints,
            "attributes": attributes,
            "wildcard_read_s": round(min(times), 3),
            "rounds_s": [round(t, 3) for t in times],
            "emulator_cpu_s": round(min(device_cpu), 3),
            "controller_cpu_s": round(min(controller_cpu), 3),
            "load": {"before": load_before, "after": _load()},
            "commission_s": round(commission_s, 3),
        }


async def run(args: argparse.Namespace, log: Any) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="hf-bench-matter-"))
    try:
        small = await small_home(work, args.reads, log)
        wildcard = {}
        for tier in [t for t in args.homes.split(",") if t]:
            wildcard[tier] = await big_home(tier, work, args.rounds, log)
        return {
            **{
                k: small[k]
                for k in (
                    "commission_s",
                    "read_p50_ms",
                    "read_p95_ms",
                    "subscription_latency_ms",
                    "restart_to_first_report_s",
                    "restart_first_report_after_up_s",
                )
            },
            "wildcard_read_s": {tier: figures["wildcard_read_s"] for tier, figures in wildcard.items()},
            "emulator_cpu_s": {tier: figures["emulator_cpu_s"] for tier, figures in wildcard.items()},
            "controller_cpu_s": {tier: figures["controller_cpu_s"] for tier, figures in wildcard.items()},
            "load": _load(),
            "details": {"small": small, **wildcard},
            "timed": {
                "commission_s": "commission_with_code(manual, network_only=True) of the 7-device home, incl. "
                "matter-server's interview",
                "read_ms": "read_attribute of one attribute (OnOff) over the established CASE session",
                "wildcard_read_s": "read_attribute '*/*/*' (one CHIP Read of every attribute, fabricFiltered=false)"
                ", best of rounds",
                "subscription_latency_ms": "OnOff toggled inside the fabric until matter-server's attribute_updated "
                "event, median",
                "restart_to_first_report_s": "kill -9 + restart of serve until a change inside the restarted home "
                "arrives over matter-server's subscription",
                "restart_first_report_after_up_s": "the part of restart_to_first_report_s after serve was up again "
                "(the rest is process start-up)",
                "emulator_cpu_s": "serve's CPU seconds per wildcard read (best round)",
                "controller_cpu_s": "matter-server's (CHIP SDK's) CPU seconds per wildcard read (best round)",
                "load": "1-minute load average at the end (per home: before and after)",
            },
        }
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object (progress goes to stderr)")
    parser.add_argument("--reads", type=int, default=100, help="single-attribute reads (≥ 50)")
    parser.add_argument("--rounds", type=int, default=3, help="wildcard reads per big home")
    parser.add_argument(
        "--homes",
        default="complex,stress",
        help="big homes for the wildcard read; 'complex' skips the 1,000-device stress tier",
    )
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs)")
    args = parser.parse_args()
    if reason := live_skip_reason():
        sys.exit(f"perf/matter_bridge.py cannot run here: {reason}")

    def log(line: str) -> None:
        print(line, file=sys.stderr if args.json else sys.stdout, flush=True)

    def interrupted(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt  # unwinds through every ``async with LiveBridge``: processes, namespace

    signal.signal(signal.SIGTERM, interrupted)
    try:
        result = asyncio.run(run(args, log))
    except KeyboardInterrupt:
        sys.exit("interrupted (namespace and processes cleaned up)")
    if args.json:
        print(json.dumps(result))
    else:
        log(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
