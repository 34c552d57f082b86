"""MQTT bridge latency against a real mosquitto started here: p50/p95 of
(a) fabric change → the state message arriving at an MQTT subscriber, and
(b) MQTT command published → the change in the fabric.

The home (generated "medium" tier) runs under RealtimePacer so the bridge also carries the sensor
reports a live home produces. Needs the `mosquitto` binary (Debian package `mosquitto`).

Usage: python perf/mqtt_latency.py [--samples 300] [--coalesce-ms 5] [--speed 1] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bridge.mqtt import MqttBridge
from emulator.emulated_home import EmulatedHome
from emulator.events import AttributeEvent
from emulator.home_generation.generator import generate_home
from emulator.pacing import RealtimePacer
from tests.mqtt.broker import Mosquitto, Recorder, on_topic  # the same broker launcher the tests use

HOME = "bench"


def summary(latencies_s: list[float]) -> dict[str, float]:
    ordered = sorted(x * 1000 for x in latencies_s)

    def pick(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)

    return {
        "samples": len(ordered),
        "p50_ms": pick(0.5),
        "p95_ms": pick(0.95),
        "max_ms": round(ordered[-1], 3),
        "mean_ms": round(statistics.fmean(ordered), 3),
    }


async def measure(samples: int, coalesce_s: float, speed: float) -> dict[str, Any]:
    fabric = EmulatedHome(generate_home("medium", 7))
    light = next(d.device_id for d in fabric.devices() if d.device_type == "on_off_light")
    state = f"homefabric/{HOME}/{light}/light_1/state"
    command = f"homefabric/{HOME}/{light}/light_1/set"
    with tempfile.TemporaryDirectory() as tmp:
        broker = Mosquitto(Path(tmp))
        broker.start()
        try:
            async with (
                RealtimePacer(fabric, speed=speed),
                MqttBridge(fabric, "127.0.0.1", broker.port, home_id=HOME, coalesce_s=coalesce_s) as bridge,
            ):
                await bridge.wait_connected(timeout=30)
                async with Recorder(broker.port, state) as rec:
                    await rec.wait_for(on_topic(state), timeout=10)
                    await asyncio.sleep(0.2)
                    to_mqtt = []
                    for _ in range(samples):
                        want = "OFF" if fabric.read(light, 1, "OnOff", "OnOff") else "ON"
                        mark = rec.mark()
                        started = time.perf_counter()
                        fabric.invoke(light, 1, "OnOff", "Toggle")
                        got = await rec.wait_for(on_topic(state, lambda s, w=want: s["state"] == w), since=mark)  # type: ignore[misc]  # the default binds this sample's want
                        to_mqtt.append(got[0].at - started)

                    loop = asyncio.get_running_loop()
                    arrived: asyncio.Future[float] | None = None

                    def listener(event: AttributeEvent) -> None:
                        if event.device_id == light and event.attribute == "OnOff" and arrived and not arrived.done():
                            arrived.set_result(time.perf_counter())

                    unsubscribe = fabric.subscribe(listener)
                    to_fabric = []
                    try:
                        for _ in range(samples):
                            want_on = not fabric.read(light, 1, "OnOff", "OnOff")
                            arrived = loop.create_future()
                            started = time.perf_counter()
                            await rec.publish(command, json.dumps({"state": "ON" if want_on else "OFF"}))
                            to_fabric.append(await asyncio.wait_for(arrived, 5) - started)
                    finally:
                        unsubscribe()
        finally:
            broker.kill()
    return {
        "home": f"medium-7 ({len(fabric.devices())} devices)",
        "coalesce_ms": coalesce_s * 1000,
        "speed": speed,
        "fabric_to_mqtt": summary(to_mqtt),
        "mqtt_to_fabric": summary(to_fabric),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--coalesce-ms", type=float, default=5.0, help="the bridge's burst-coalescing window")
    parser.add_argument("--speed", type=float, default=1.0, help="virtual-time speed of the paced home")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.samples < 1:
        parser.error("--samples must be >= 1")
    results = asyncio.run(measure(args.samples, args.coalesce_ms / 1000, args.speed))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"MQTT bridge latency, {results['home']}, coalescing {results['coalesce_ms']:g} ms, speed ×{args.speed:g}")
    for name, label in (
        ("fabric_to_mqtt", "fabric change → MQTT state message"),
        ("mqtt_to_fabric", "MQTT command → fabric change"),
    ):
        r = results[name]
        print(
            f"  {label:36s} p50 {r['p50_ms']:7.2f} ms   p95 {r['p95_ms']:7.2f} ms   "
            f"max {r['max_ms']:7.2f} ms   ({r['samples']} samples)"
        )


if __name__ == "__main__":
    main()
