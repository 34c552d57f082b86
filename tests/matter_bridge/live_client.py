"""Websocket client for the live test, run inside the test's network namespace (where matter-server
listens on 127.0.0.1): ``python -m tests.matter_bridge.live_client PORT CODE TIMEOUT`` prints one JSON
object {"commission": reply, "nodes": get_nodes reply, "seconds": commissioning time}; a reply is
``{"result": …}`` or ``{"error_code": …, "details": …}`` as the server sent it."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

from agent_tools.matter_backend.ws_client import MatterServerClient, MatterServerError, MatterServerTimeout


async def reply_to(client: MatterServerClient, command: str, timeout_s: float, **args: Any) -> dict[str, Any]:
    try:
        return {"result": await client.call(command, timeout_s=timeout_s, **args)}
    except MatterServerTimeout:
        raise
    except MatterServerError as error:
        return {"error_code": error.error_code, "details": error.details}


async def commission(port: int, code: str, timeout_s: float) -> dict:
    client = MatterServerClient(f"http://127.0.0.1:{port}/ws", timeout_s=10)
    await client.connect(retry_for_s=30)
    try:
        started = time.monotonic()
        commissioned = await reply_to(client, "commission_with_code", timeout_s, code=code, network_only=True)
        elapsed = time.monotonic() - started
        return {"commission": commissioned, "nodes": await reply_to(client, "get_nodes", 30), "seconds": elapsed}
    finally:
        await client.close()


if __name__ == "__main__":
    port, code, timeout_s = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    print(json.dumps(asyncio.run(asyncio.wait_for(commission(port, code, timeout_s), timeout_s + 40))))
