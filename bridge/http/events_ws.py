"""The event hub behind ``/ws/events``: fabric attribute events, rule firings and room-state samples, fanned
out to WebSocket clients with a bounded queue each (a slow client loses its oldest messages, and is told how
many).

While the hub is coalescing (a fast-forward runs), a message that stands for a state — an attribute's event, the
room-state sample, the fast-forward progress — replaces that state's older message still waiting in a client's
queue (the newest goes last), and each client is sent at most every ``COALESCE_INTERVAL_S``: a client sees every
attribute's newest value, not each of a week's intermediate ones. Messages are encoded once, when first sent."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from fastapi import APIRouter, Query, WebSocket, WebSocketDisconnect

from emulator.emulated_home import EmulatedHome
from emulator.events import AttributeEvent
from emulator.loop_handoff import LoopHandoff

DEFAULT_QUEUE = 1000
MAX_QUEUE = 10_000
COALESCE_INTERVAL_S = 0.1  # wall time between two sends to a client while coalescing (a Matter min interval)

Message = dict[str, Any] | Callable[[], dict[str, Any]]  # a message, or a callable building it when first sent
ROOM_STATE_KEY: Hashable = ("room_state",)  # the state every room-state sample stands for


def encode(message: dict[str, Any]) -> str:
    # Attribute values are JSON data already; anything exotic (bytes, enums) is sent as its text.
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str)


class Outgoing:
    """One published message, shared by every client's queue and built and encoded once, when first sent (a
    message coalesced away is never built)."""

    __slots__ = ("_text", "key", "message")

    def __init__(self, message: Message, key: Hashable | None) -> None:
        self.message = message
        self.key = key  # the state it stands for (coalescing replaces an older one), None: never replaced
        self._text: str | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            message = self.message
            self._text = encode(message if isinstance(message, dict) else message())
        return self._text


def state_key(message: dict[str, Any]) -> Hashable | None:
    """The state a message stands for, or None for one that must never be replaced (clock, automation…)."""
    kind = message.get("type")
    if kind == "attribute":
        return ("attribute", message["device_id"], message["endpoint"], message["cluster"], message["attribute"])
    if kind == "room_state":
        return ROOM_STATE_KEY
    if kind == "fast_forward":
        return (kind,)
    return None


class ClientQueue:
    """One client's outbox: at most ``limit`` messages; when full the oldest is dropped. While ``coalescing``,
    a message with a state key replaces that state's waiting message instead of queueing behind it."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._items: dict[Hashable, Outgoing | str] = {}  # in arrival order
        self._serial = itertools.count()
        self._ready = asyncio.Event()
        self.coalescing = False
        self.dropped = 0  # since the client was last told
        self.dropped_total = 0
        self.coalesced_total = 0  # messages replaced by a newer one of the same state

    def put(self, item: Outgoing | str) -> None:
        key = item.key if self.coalescing and isinstance(item, Outgoing) and item.key is not None else None
        if key is not None and self._items.pop(key, None) is not None:
            self.coalesced_total += 1
        elif len(self._items) >= self.limit:
            del self._items[next(iter(self._items))]
            self.dropped += 1
            self.dropped_total += 1
        self._items[key if key is not None else ("serial", next(self._serial))] = item
        self._ready.set()

    async def take(self) -> tuple[list[str], int]:
        """Wait for messages; return them all (encoded) and the number dropped since the last take."""
        await self._ready.wait()
        items, self._items = list(self._items.values()), {}
        dropped, self.dropped = self.dropped, 0
        self._ready.clear()
        return [item if isinstance(item, str) else item.text for item in items], dropped


class EventHub:
    """Subscribes to the fabric once and copies every message into each client's queue."""

    def __init__(self, fabric: EmulatedHome) -> None:
        self.fabric = fabric
        self._clients: set[ClientQueue] = set()
        self._unsubscribe: Callable[[], None] | None = None
        self._handoff = LoopHandoff()
        self.published = 0
        self._coalescing = 0  # nesting depth of coalescing()

    def start(self) -> None:
        self._handoff.bind()
        self._unsubscribe = self.fabric.subscribe(self._on_attribute)
        self._unsubscribe_rules = self.fabric.subscribe_automations(
            lambda event: self.publish({"type": "automation", **event.to_dict()})
        )

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
            self._unsubscribe_rules()

    @property
    def clients(self) -> int:
        return len(self._clients)

    def _on_attribute(self, event: AttributeEvent) -> None:
        if self._clients:
            key = ("attribute", event.device_id, event.endpoint, event.cluster, event.attribute)
            self._handoff.call(self._fan_out, Outgoing(lambda: {"type": "attribute", **event.to_dict()}, key))

    def publish(self, message: Message, key: Hashable | None = None) -> None:
        """Safe from any thread: the fabric may be driven from a worker thread, queues live on the loop. A callable
        message is built when first sent (never, if coalesced away): ``key`` names the state it stands for (a
        dict's is read from it)."""
        if not self._clients:
            return
        self._handoff.call(self._fan_out, Outgoing(message, state_key(message) if isinstance(message, dict) else key))

    def _fan_out(self, item: Outgoing) -> None:
        self.published += 1
        for client in list(self._clients):
            client.put(item)

    @contextlib.contextmanager
    def coalescing(self) -> Iterator[None]:
        """Coalesce every client's waiting state messages until the block ends (then each client drains what is
        waiting, newest states last, and is sent message by message again)."""
        self._handoff.call(self._set_coalescing, 1)
        try:
            yield
        finally:
            self._handoff.call(self._set_coalescing, -1)

    def _set_coalescing(self, change: int) -> None:
        self._coalescing += change
        for client in self._clients:
            client.coalescing = self._coalescing > 0

    @contextlib.contextmanager
    def client(self, limit: int) -> Iterator[ClientQueue]:
        queue = ClientQueue(limit)
        queue.coalescing = self._coalescing > 0
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
                await websocket.send_text(encode({"type": "dropped", "count": dropped, "total": queue.dropped_total}))
            for text in items:
                await websocket.send_text(text)
            if queue.coalescing:  # let the states settle: a client is sent at most every COALESCE_INTERVAL_S
                await asyncio.sleep(COALESCE_INTERVAL_S)

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
async def events_socket(
    websocket: WebSocket,
    queue: int = Query(
        DEFAULT_QUEUE, ge=1, le=MAX_QUEUE, description="this client's queue length (oldest dropped when full)"
    ),
) -> None:
    """EmulatedHome events as JSON text frames: ``hello``, ``attribute`` (an AttributeEvent), ``room_state`` samples,
    ``clock`` changes, and ``dropped`` {count, total} when this client fell behind. With a token set, pass it
    as ``?token=`` (browsers cannot set headers on a WebSocket)."""
    ctx = websocket.app.state.ctx
    await websocket.accept()
    with ctx.hub.client(queue) as outbox, until_client_leaves():
        await websocket.send_text(
            encode({"type": "hello", "time": ctx.fabric.now_text(), "tick": ctx.fabric.tick, "queue_limit": queue})
        )
        await pump(websocket, outbox)
