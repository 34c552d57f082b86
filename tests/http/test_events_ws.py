"""The /ws/events WebSocket: attribute events and room-state samples arrive; a slow client loses its oldest
messages (never the newest) and is told how many."""

from __future__ import annotations

import asyncio
import json

import websockets

from bridge.http.events_ws import ClientQueue
from tests.http.live_api import LIGHT, home, running_api


async def _next(ws: websockets.ClientConnection, kind: str, limit: int = 50) -> dict:
    for _ in range(limit):
        message = json.loads(await asyncio.wait_for(ws.recv(), 5))
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind} message in {limit}")


def test_attribute_events_and_room_samples_arrive() -> None:
    async def scenario() -> None:
        fabric = home()
        async with (
            running_api(fabric, history_interval_s=60) as api,
            websockets.connect(api.ws_url + "/ws/events", open_timeout=5) as ws,
        ):
            hello = await _next(ws, "hello")
            assert hello["tick"] == fabric.tick
            fabric.invoke(LIGHT, 1, "OnOff", "On")  # a change made directly on the fabric
            event = await _next(ws, "attribute")
            assert (event["device_id"], event["endpoint"], event["cluster"], event["attribute"]) == (
                LIGHT,
                1,
                "OnOff",
                "OnOff",
            )
            assert event["old"] is False and event["new"] is True and event["time"].startswith("2025-")
            fabric.advance(60)
            sample = await _next(ws, "room_state")
            assert sample["tick"] == 600 and sample["rooms"]["kitchen"] == fabric.room_state("kitchen")

    asyncio.run(scenario())


def test_slow_client_drops_oldest_and_is_told() -> None:
    async def scenario() -> None:
        fabric = home()
        async with (
            running_api(fabric) as api,
            websockets.connect(api.ws_url + "/ws/events?queue=3", open_timeout=5) as ws,
        ):
            await _next(ws, "hello")
            # 40 changes in one go: the hub fans out synchronously and the sender cannot run in between,
            # so this client's queue of 3 must drop the 37 oldest.
            for _ in range(40):
                fabric.invoke(LIGHT, 1, "OnOff", "Toggle")
            dropped = await _next(ws, "dropped")
            assert dropped["count"] == 37 and dropped["total"] == 37
            kept = [json.loads(await asyncio.wait_for(ws.recv(), 5)) for _ in range(3)]
            assert [m["type"] for m in kept] == ["attribute"] * 3
            assert kept[-1]["new"] is fabric.read(LIGHT, 1, "OnOff", "OnOff")  # the newest survived
            refused = None
            try:
                async with websockets.connect(api.ws_url + "/ws/events?queue=0", open_timeout=5):
                    pass
            except websockets.exceptions.InvalidStatus as error:
                refused = error.response.status_code
            assert refused == 403  # an invalid query is refused before the handshake completes

    asyncio.run(scenario())


def test_client_queue_keeps_the_newest() -> None:
    async def scenario() -> None:
        queue = ClientQueue(2)
        for text in ("a", "b", "c", "d"):
            queue.put(text)
        assert await queue.take() == (["c", "d"], 2)
        queue.put("e")
        assert await queue.take() == (["e"], 0)
        assert queue.dropped_total == 2

    asyncio.run(scenario())
