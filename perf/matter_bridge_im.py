"""In-process Interaction Model benchmark: a wildcard read of the whole bridge (encode + chunk), and invokes.

For the complex (135 devices) and stress (1,000 devices) homes: builds the bridge data model, then
times ``InteractionModel`` serving ``Read [*/*/*]`` to a peer that acknowledges every chunk at once
(no network, no crypto). Prints wall and CPU seconds, chunks, bytes and attribute count per home, best of 5.
The invoke path (IM decode → bridge → home → cluster → response) is timed on the complex home: an
``InvokeRequest`` OnOff.Toggle to one bridged light, p50 and mean microseconds over INVOKES requests.

Usage: python perf/matter_bridge_im.py [--json]
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bridge.matter.im import im_messages as im
from bridge.matter.im.data_model import AllowAll
from bridge.matter.im.interaction import InteractionModel
from bridge.matter.node.bridge_node import BridgeNode
from bridge.matter.session.context import RequestContext
from emulator.emulated_home import EmulatedHome
from emulator.home_generation.generator import generate_home

ROUNDS = 5
INVOKES = 5000
ON_OFF, TOGGLE = 0x0006, 0x02
ACK = (im.Opcode.STATUS_RESPONSE, im.encode(im.StatusResponse(0)))


class CountingExchange:
    """Acknowledges every chunk immediately and counts what was sent."""

    def __init__(self) -> None:
        self.context = RequestContext("case", 1, 0x1122)
        self.chunks = 0
        self.bytes = 0

    async def send(self, opcode: int, payload: bytes, *, expect_reply: bool) -> tuple[int, bytes] | None:
        self.chunks += 1
        self.bytes += len(payload)
        return ACK if expect_reply else None

    async def close(self) -> None:
        pass


async def wildcard_read(tier: str) -> dict[str, float]:
    home = EmulatedHome(generate_home(tier, 1))
    node = BridgeNode(home)
    model = InteractionModel(node, AllowAll())
    request = im.encode(im.ReadRequest((im.AttributePath(),), fabric_filtered=False))
    attributes = sum(len(s.attribute_names()) for ep in node.endpoints() for s in node.clusters(ep).values())
    best = best_cpu = float("inf")
    exchange = CountingExchange()
    for _ in range(ROUNDS):
        exchange = CountingExchange()
        started, started_cpu = time.perf_counter(), time.process_time()
        await model.handle_exchange(exchange, im.Opcode.READ_REQUEST, request)
        best = min(best, time.perf_counter() - started)
        best_cpu = min(best_cpu, time.process_time() - started_cpu)  # device CPU: steadier than wall time
    await model.close()
    return {
        "devices": len(home.devices()),
        "endpoints": len(node.endpoints()),
        "attributes": attributes,
        "wildcard_read_s": round(best, 3),
        "wildcard_read_cpu_s": round(best_cpu, 4),
        "chunks": exchange.chunks,
        "bytes": exchange.bytes,
    }


async def invoke_toggle(tier: str = "complex") -> dict[str, float]:
    home = EmulatedHome(generate_home(tier, 1))
    node = BridgeNode(home)
    model = InteractionModel(node, AllowAll())
    light = next(d.device_id for d in home.devices() if d.device_type == "on_off_light")
    endpoint = node.endpoint_of(light, 1)
    request = im.encode(im.InvokeRequest((im.CommandData(im.CommandPath(endpoint, ON_OFF, TOGGLE), {}),)))
    durations = []
    started_cpu = time.process_time()
    for _ in range(INVOKES):
        exchange = CountingExchange()
        started = time.perf_counter_ns()
        await model.handle_exchange(exchange, im.Opcode.INVOKE_REQUEST, request)
        durations.append((time.perf_counter_ns() - started) / 1000)
    cpu = time.process_time() - started_cpu
    await model.close()
    assert exchange.chunks == 1, "one InvokeResponse per request"
    durations.sort()
    return {
        "invoke_p50_us": round(durations[len(durations) // 2], 1),
        "invoke_mean_us": round(sum(durations) / len(durations), 1),
        "invoke_cpu_us": round(cpu / INVOKES * 1e6, 1),
    }


def main() -> None:
    results = {tier: asyncio.run(wildcard_read(tier)) for tier in ("complex", "stress")}
    invoke = asyncio.run(invoke_toggle())
    if "--json" in sys.argv:
        print(
            json.dumps(
                {
                    "wildcard_read_s": {t: r["wildcard_read_s"] for t, r in results.items()},
                    "wildcard_read_cpu_s": {t: r["wildcard_read_cpu_s"] for t, r in results.items()},
                    "invoke_complex": invoke,
                    "details": results,
                }
            )
        )
        return
    print(
        f"invoke OnOff.Toggle (complex home): p50 {invoke['invoke_p50_us']} µs, mean {invoke['invoke_mean_us']} µs, "
        f"CPU {invoke['invoke_cpu_us']} µs per request"
    )
    for tier, r in results.items():
        print(
            f"{tier:8s} {r['devices']:5d} devices {r['endpoints']:5d} endpoints {r['attributes']:6d} attributes: "
            f"wildcard read {r['wildcard_read_s']:.3f} s in {r['chunks']} chunks ({r['bytes'] / 1e6:.2f} MB)"
        )


if __name__ == "__main__":
    main()
