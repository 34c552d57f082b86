"""A fast-forward coalesces what the HTTP faces send without changing what a client finally sees: the history ring
ends exactly as if every sample had been taken, and a WebSocket client ends with every attribute's last value and the
final progress."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
import websockets

from bridge.http.events_ws import ROOM_STATE_KEY, ClientQueue, EventHub, Message, Outgoing, state_key
from bridge.http.fast_forward import FastForward
from bridge.http.history import EnvironmentHistory
from emulator.emulated_home import EmulatedHome
from tests.http.live_api import LIGHT, home, running_api

HOURS_6 = 6 * 3600


def _history(fabric: EmulatedHome, published: list[Message]) -> EnvironmentHistory:
    history = EnvironmentHistory(fabric, lambda message, key: published.append(message), interval_s=60, capacity=20)
    history.start()
    return history


def test_fast_forward_ring_equals_sampling_every_interval() -> None:
    async def scenario() -> None:
        plain, fast = home(), home()
        plain_published: list[Message] = []
        fast_published: list[Message] = []
        plain_history, fast_history = _history(plain, plain_published), _history(fast, fast_published)
        for fabric in (plain, fast):
            fabric.invoke(LIGHT, 1, "OnOff", "On")  # lights change the illuminance the samples record
        plain.advance(HOURS_6)
        hub = EventHub(fast)
        hub.start()
        try:
            ran = await FastForward(fast, hub, fast_history).run(HOURS_6)
        finally:
            hub.stop()
        assert ran > 0 and fast.tick == plain.tick
        assert list(fast_history.samples) == list(plain_history.samples)  # the ring, exactly
        assert len(plain_published) == 1 + HOURS_6 // 60
        assert len(fast_published) <= 1 + 21  # the start, and (one more than) the ring's samples
        # and sampling goes on at its regular times afterwards
        for fabric in (plain, fast):
            fabric.advance(600)
        assert list(fast_history.samples) == list(plain_history.samples)

    asyncio.run(scenario())


def test_a_fast_forward_stopped_short_resumes_sampling_at_its_regular_times() -> None:
    fabric = home()
    history = _history(fabric, [])
    with history.fast_forwarding(fabric.tick + 10 * HOURS_6 * 10):
        fabric.advance(3600)  # far short of the target: nothing kept yet
    assert [s["tick"] for s in history.samples] == [0]
    fabric.advance(300)
    assert [s["tick"] for s in history.samples] == [0, 36000, 36600, 37200, 37800, 38400, 39000]


def test_coalescing_queue_keeps_each_states_newest_message_last() -> None:
    async def scenario() -> None:
        queue = ClientQueue(10)
        queue.coalescing = True

        def attribute(value: int) -> Outgoing:
            message = {
                "type": "attribute",
                "device_id": "d",
                "endpoint": 1,
                "cluster": "OnOff",
                "attribute": "OnOff",
                "new": value,
            }
            return Outgoing(message, state_key(message))

        queue.put(attribute(1))
        queue.put(Outgoing({"type": "clock", "tick": 5}, None))
        queue.put(attribute(2))
        queue.put(Outgoing({"type": "clock", "tick": 6}, None))
        items, dropped = await queue.take()
        assert [json.loads(text) for text in items] == [
            {"type": "clock", "tick": 5},
            {"type": "attribute", "device_id": "d", "endpoint": 1, "cluster": "OnOff", "attribute": "OnOff", "new": 2},
            {"type": "clock", "tick": 6},
        ]
        assert dropped == 0 and queue.coalesced_total == 1

    asyncio.run(scenario())


def test_a_coalesced_away_room_state_message_is_never_built() -> None:
    async def scenario() -> None:
        hub = EventHub(home())
        hub.start()
        built: list[int] = []

        def sample(n: int) -> Callable[[], dict[str, Any]]:
            def build() -> dict[str, Any]:
                built.append(n)
                return {"type": "room_state", "n": n}

            return build

        try:
            with hub.client(10) as queue, hub.coalescing():
                for n in range(3):
                    hub.publish(sample(n), ROOM_STATE_KEY)
                items, _ = await queue.take()
        finally:
            hub.stop()
        assert [json.loads(text) for text in items] == [{"type": "room_state", "n": 2}]
        assert built == [2]

    asyncio.run(scenario())


def test_a_websocket_client_ends_with_every_attributes_last_value() -> None:
    async def scenario() -> None:
        reference = home()
        reference.invoke(LIGHT, 1, "OnOff", "On")
        last_events: dict[tuple[Any, ...], Any] = {}
        changes = []

        def keep(event: Any) -> None:
            changes.append(event)
            last_events[(event.device_id, event.endpoint, event.cluster, event.attribute)] = event.to_dict()["new"]

        reference.subscribe(keep)
        reference.advance(2 * 86400)

        fabric = home()
        fabric.invoke(LIGHT, 1, "OnOff", "On")
        async with (
            running_api(fabric) as api,
            websockets.connect(api.ws_url + "/ws/events?queue=10000", open_timeout=5) as ws,
        ):
            async with httpx.AsyncClient(base_url=api.url, timeout=60) as client:
                (await client.post("/api/clock/fast-forward", json={"seconds": 2 * 86400})).raise_for_status()
            seen: dict[tuple[Any, ...], Any] = {}
            attribute_messages = 0
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 5))
                if message["type"] == "attribute":
                    attribute_messages += 1
                    seen[(message["device_id"], message["endpoint"], message["cluster"], message["attribute"])] = (
                        message["new"]
                    )
                if message["type"] == "fast_forward" and message["done"]:
                    break
        assert seen == {key: json.loads(json.dumps(value, default=str)) for key, value in last_events.items()}
        assert attribute_messages < len(changes) / 2  # coalesced, not one message per change

    asyncio.run(scenario())
