"""The event hub behind ``/ws/events``: fabric attribute events, rule firings and room-state samples, fanned
out to WebSocket clients with a bounded queue each (a slow client loses its oldest messages, and is told how
many)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from fastapi import APIRouter, Query, WebSocket, WebSocketDisconnect

from emulator.emulated_home import EmulatedHome
from emulator.events import AttributeEvent
from emulator.loop_handoff import LoopHandoff

DEFAULT_QUEUE = 1000
MAX_QUEUE = 10_000


def encode(message: dict[str, Any]) -> str:
    # Attribute values are JSON data already; anything exotic (bytes, enums) is sent as its text.
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str)


class ClientQueue:
    """One client's outbox: at most ``limit`` encoded messages; when full the oldest is dropped."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._items: deque[str] = deque()
        self._ready = asyncio.Event()
        self.dropped = 0  # since the client was last told
        self.dropped_total = 0

    def put(self, text: str) -> None:
        if len(self._items) >= self.limit:
            self._items.popleft()
            self.dropped += 1
            self.dropped_total += 1
        self._items.append(text)
        self._ready.set()

    async def take(self) -> tuple[list[str], int]:
        """Wait for messages; return them all and the number dropped since the last take."""
        await self._ready.wait()
        items, self._items = list(self._items), deque()
        dropped, self.dropped = self.dropped, 0
        self._ready.clear()
        return items, dropped


class EventHub:
    """Subscribes to the fabric once and copies every message into each client's queue."""

    def __init__(self, fabric: EmulatedHome) -> None:
        self.fabric = fabric
        self._clients: set[ClientQueue] = set()
        self._unsubscribe: Callable[[], None] | None = None
        self._handoff = LoopHandoff()
        self.published = 0

    def start(self) -> None:
        self._handoff.bind()
        self._unsubscribe = self.fabric.subscribe(self._on_attribute)
        self._unsubscribe_rules = self.fabric.subscribe_automations(
            lambda event: self.publish({"type": "automation", **event.to_dict()}))

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
            self._unsubscribe_rules()

    @property
    def clients(self) -> int:
        return len(self._clients)

    def _on_attribute(self, event: AttributeEvent) -> None:
        self.publish({"type": "attribute", **event.to_dict()})

    def publish(self, message: dict[str, Any]) -> None:
        """Safe from any thread: the fabric may be driven from a worker thread, queues live on the loop."""
        if not self._clients:
            return
        self._handoff.call(self._fan_out, encode(message))

    def _fan_out(self, text: str) -> None:
        self.published += 1
        for client in list(self._clients):
            client.put(text)

    @contextlib.contextmanager
    def client(self, limit: int) -> Iterator[ClientQueue]:
        queue = ClientQueue(limit)
        self._clients.add(queue)
        try:
            yield queue
        finally:
            self._clients.discard(queue)


async def pump(websocket: WebSocket, queue: ClientQueue) -> None:
    """Send the queue to the socket until the client goes away (its messages to us are ignored)."""

    async def send() -> None:
        while True:
            items, dropped = await queue.take()
            if dropped:
                await websocket.send_text(encode({"type": "dropped", "count": dropped,
                                                  "total": queue.dropped_total}))
            for text in items:
                await websocket.send_text(text)

    async def receive() -> None:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return

    tasks = [asyncio.create_task(send()), asyncio.create_task(receive())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect, RuntimeError, OSError):
                await task


@contextlib.contextmanager
def until_client_leaves() -> Iterator[None]:
    """End a socket handler quietly when its client has gone, instead of an "Exception in ASGI application"
    traceback in the server's log. uvicorn raises ``ClientDisconnected`` (an ``OSError``) for a send once the peer
    has gone, but a ``RuntimeError`` ("… after sending 'websocket.close'") when it closed the socket itself first
    — a keepalive ping the client no longer answers (a browser tab closed or put to sleep), or a bad frame."""
    try:
        yield
    except (WebSocketDisconnect, OSError):
        return
    except RuntimeError as error:
        if "websocket.close" not in str(error):
            raise


router = APIRouter()


@router.websocket("/ws/events")
async def events_socket(websocket: WebSocket,
                        queue: int = Query(DEFAULT_QUEUE, ge=1, le=MAX_QUEUE,
                                           description="this client's queue length (oldest dropped when full)"),
                        ) -> None:
    """EmulatedHome events as JSON text frames: ``hello``, ``attribute`` (an AttributeEvent), ``room_state`` samples,
    ``clock`` changes, and ``dropped`` {count, total} when this client fell behind. With a token set, pass it
    as ``?token=`` (browsers cannot set headers on a WebSocket)."""
    ctx = websocket.app.state.ctx
    await websocket.accept()
    with ctx.hub.client(queue) as outbox, until_client_leaves():
        await websocket.send_text(encode({"type": "hello", "time": ctx.fabric.now_text(), "tick": ctx.fabric.tick,
                                          "queue_limit": queue}))
        await pump(websocket, outbox)
