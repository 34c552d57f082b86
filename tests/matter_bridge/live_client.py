"""Websocket client for the live test, run inside the test's network namespace (where matter-server
listens on 127.0.0.1): ``python -m tests.matter_bridge.live_client PORT CODE TIMEOUT`` prints one JSON
object {"commission": reply, "nodes": get_nodes reply, "seconds": commissioning time}."""

from __future__ import annotations

import asyncio
import json
import sys
import time

import aiohttp


async def commission(port: int, code: str, timeout_s: float) -> dict:
    async with aiohttp.ClientSession() as http:
        deadline = time.monotonic() + 30
        while True:
            try:
                ws = await http.ws_connect(f"http://127.0.0.1:{port}/ws")
                break
            except (aiohttp.ClientError, OSError):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.5)
        async with ws:
            await ws.receive_json(timeout=10)  # server info
            started = time.monotonic()
            await ws.send_json({"message_id": "c1", "command": "commission_with_code",
                                "args": {"code": code, "network_only": True}})
            while True:
                reply = await ws.receive_json(timeout=timeout_s)
                if reply.get("message_id") == "c1":
                    break
            elapsed = time.monotonic() - started
            await ws.send_json({"message_id": "n1", "command": "get_nodes"})
            while True:
                nodes = await ws.receive_json(timeout=30)
                if nodes.get("message_id") == "n1":
                    break
            return {"commission": reply, "nodes": nodes, "seconds": elapsed}


if __name__ == "__main__":
    port, code, timeout_s = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    print(json.dumps(asyncio.run(asyncio.wait_for(commission(port, code, timeout_s), timeout_s + 40))))
