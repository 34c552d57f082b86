"""MqttBridge: one home's fabric on an MQTT broker, with Home Assistant discovery.

``async with MqttBridge(fabric, host, port, home_id=...) as bridge:`` connects in the background and
keeps connecting: on every (re)connection it announces availability, subscribes to the command
topics and Home Assistant's status, and publishes every discovery config and every state (retained),
so a restarted broker, with or without persistence, ends up with everything again. Connection
failures are retried with exponential backoff and jitter. EmulatedHome changes arrive on the event bus,
are coalesced per device for ``coalesce_s`` and published when a state payload actually changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from collections.abc import Callable, Iterable
from typing import Any

import aiomqtt

from bridge.mqtt.commands import CommandError, plan
from bridge.mqtt.discovery import device_config
from bridge.mqtt.entities import REFUSED_EVENT, STATE_ONLY_KINDS, Entity, entities_for
from bridge.mqtt.state import entity_state, event_payload
from bridge.mqtt.topics import CommandRoute, Topics, topic_segment
from clusters.base import EventListener
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.events import AttributeEvent
from emulator.loop_handoff import LoopHandoff
from emulator.workflows import WorkflowStep

log = logging.getLogger("homefabric.mqtt")

ONLINE, OFFLINE = "online", "offline"
PUBLISH_BATCH = 8  # concurrent QoS 1 publishes while (re)announcing (aiomqtt warns above 10 pending)


class MqttBridge:
    def __init__(
        self,
        fabric: EmulatedHome,
        host: str,
        port: int = 1883,
        *,
        home_id: str,
        base: str = "homefabric",
        discovery_prefix: str = "homeassistant",
        client_id: str | None = None,
        coalesce_s: float = 0.005,
        reconnect_min_s: float = 0.5,
        reconnect_max_s: float = 30.0,
        keepalive_s: int = 30,
        origin_url: str | None = None,
    ) -> None:
        if reconnect_min_s <= 0 or reconnect_max_s < reconnect_min_s:
            raise ValueError("need 0 < reconnect_min_s <= reconnect_max_s")
        self.fabric = fabric
        self.host = host
        self.port = port
        self.topics = Topics(base, home_id, discovery_prefix)
        self.client_id = client_id or f"{topic_segment(base)}-{topic_segment(home_id)}-bridge"
        self.coalesce_s = coalesce_s
        self.reconnect_min_s = reconnect_min_s
        self.reconnect_max_s = reconnect_max_s
        self.keepalive_s = keepalive_s
        self.origin_url = origin_url
        self.connections = 0  # successful connections so far (a reconnect makes it > 1)
        self.announcements = 0  # full announcements (each connection, each Home Assistant "online")
        self._entities: dict[str, list[Entity]] = {}
        self._by_segment: dict[str, str] = {}  # topic level → device id
        self._published: dict[str, str] = {}  # state topic → last payload sent
        self._dirty: set[str] = set()
        self._wake = asyncio.Event()
        self._connected = asyncio.Event()
        self._client: aiomqtt.Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._unsubscribe: Any = None
        self._handoff = LoopHandoff()
        self._events_out: list[tuple[str, str]] = []  # (state topic, payload) of event entities, not retained
        self._event_stops: list[Callable[[], None]] = []

    # ------------------------------------------------------------------------------ lifecycle
    async def __aenter__(self) -> MqttBridge:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def start(self) -> None:
        if self._task is not None:
            return
        self._handoff.bind()
        for device in self.fabric.devices():
            self._add_device(device.device_id)
        self._unsubscribe = self.fabric.subscribe(self._on_event)
        self._task = asyncio.create_task(self._run(), name="homefabric-mqtt")

    async def stop(self) -> None:
        if self._task is None:
            return
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        for stop_listening in self._event_stops:
            stop_listening()
        self._event_stops.clear()
        client = self._client
        if client is not None:  # a clean goodbye: the will is only for unclean ones
            with contextlib.suppress(aiomqtt.MqttError, TimeoutError):
                await asyncio.wait_for(client.publish(self.topics.availability, OFFLINE, qos=1, retain=True), 2)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    async def wait_connected(self, timeout: float = 10.0) -> None:
        await asyncio.wait_for(self._connected.wait(), timeout)

    def entities(self, device_id: str) -> list[Entity]:
        return list(self._entities.get(device_id, ()))

    # ------------------------------------------------------------------------------ fabric side
    def _add_device(self, device_id: str) -> bool:
        try:
            device = self.fabric.device(device_id)
        except HomeError:
            return False
        self._entities[device_id] = entities_for(device)
        self._by_segment[topic_segment(device_id)] = device_id
        for entity in self._entities[device_id]:
            server = device.find(entity.endpoint, entity.cluster or "") if entity.kind == "event" else None
            if server is not None:
                topic = self.topics.state(device_id, entity.key)
                self._event_stops.append(server.add_event_listener(self._event_forwarder(topic)))
        return True

    def _on_event(self, event: AttributeEvent) -> None:
        # Called inside the fabric's lock, possibly from another thread: only note the device.
        self._handoff.call(self._mark, event.device_id)

    def _event_forwarder(self, topic: str) -> EventListener:
        """A listener handing each event of a server to the loop, as the payload of `topic`."""
        return lambda _server, name, fields, _priority: self._handoff.call(
            self._queue_event, topic, json.dumps(event_payload(name, fields), sort_keys=True)
        )

    def _queue_event(self, topic: str, payload: str) -> None:
        if self.connected:  # an event is of its moment: none are kept for a broker that is away
            self._events_out.append((topic, payload))
            self._wake.set()

    def _mark(self, device_id: str) -> None:
        self._dirty.add(device_id)
        self._wake.set()

    # ------------------------------------------------------------------------------ connection loop
    async def _run(self) -> None:
        delay = self.reconnect_min_s
        while True:
            try:
                will = aiomqtt.Will(self.topics.availability, OFFLINE, qos=1, retain=True)
                async with aiomqtt.Client(
                    self.host,
                    self.port,
                    identifier=self.client_id,
                    will=will,
                    keepalive=self.keepalive_s,
                    clean_session=True,
                    timeout=10,
                ) as client:
                    delay = self.reconnect_min_s
                    await self._session(client)
            except aiomqtt.MqttError as error:
                log.warning("MQTT broker %s:%s: %s; retrying in %.1f s", self.host, self.port, error, delay)
            finally:
                self._client = None
                self._connected.clear()
            await asyncio.sleep(delay * random.uniform(1.0, 1.25))
            delay = min(self.reconnect_max_s, delay * 2)

    async def _session(self, client: aiomqtt.Client) -> None:
        self._client = client
        self.connections += 1
        for topic in [*self.topics.command_filters(), self.topics.ha_status]:
            await client.subscribe(topic, qos=1)
        await self._announce(client)
        self._connected.set()
        log.info("MQTT bridge for %s connected to %s:%s", self.topics.home, self.host, self.port)
        tasks = [asyncio.create_task(self._publish_changes(client)), asyncio.create_task(self._receive(client))]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        for task in done:
            task.result()  # re-raise the MqttError that ended the session

    # ------------------------------------------------------------------------------ publishing
    async def _publish_many(self, client: aiomqtt.Client, messages: Iterable[tuple[str, str]]) -> None:
        batch: list[Any] = []
        for topic, payload in messages:
            batch.append(client.publish(topic, payload, qos=1, retain=True))
            if len(batch) >= PUBLISH_BATCH:
                await asyncio.gather(*batch)
                batch = []
        if batch:
            await asyncio.gather(*batch)

    async def _announce(self, client: aiomqtt.Client) -> None:
        """Availability, every discovery config and every state, retained."""
        await client.publish(self.topics.availability, ONLINE, qos=1, retain=True)
        configs = []
        for device_id in [d for d, entities in self._entities.items() if entities]:  # HA needs ≥ 1 component
            try:
                device = self.fabric.device(device_id)
            except HomeError:  # removed from the home since
                continue
            config = device_config(
                self.fabric, device, self._entities[device_id], self.topics, origin_url=self.origin_url
            )
            configs.append((self.topics.discovery(device_id), json.dumps(config, ensure_ascii=False)))
        await self._publish_many(client, configs)
        self._published.clear()  # the broker may have forgotten: send every state again
        await self._publish_many(client, self._changed_states(list(self._entities)))
        self.announcements += 1

    def _changed_states(self, device_ids: Iterable[str]) -> list[tuple[str, str]]:
        out = []
        for device_id in device_ids:
            for entity in self._entities.get(device_id, ()):
                state = entity_state(self.fabric, entity)
                if state is None:
                    continue
                topic = self.topics.state(device_id, entity.key)
                payload = json.dumps(state, ensure_ascii=False, sort_keys=True)
                if self._published.get(topic) != payload:
                    self._published[topic] = payload
                    out.append((topic, payload))
        return out

    async def _publish_changes(self, client: aiomqtt.Client) -> None:
        while True:
            await self._wake.wait()
            if self.coalesce_s > 0:
                await asyncio.sleep(self.coalesce_s)  # let a burst of attribute changes settle
            self._wake.clear()
            dirty, self._dirty = self._dirty, set()
            fresh = [d for d in dirty if d not in self._entities and self._add_device(d) and self._entities[d]]
            if fresh:  # a device added to the home after we started
                await self._publish_many(
                    client,
                    [
                        (
                            self.topics.discovery(d),
                            json.dumps(
                                device_config(
                                    self.fabric,
                                    self.fabric.device(d),
                                    self._entities[d],
                                    self.topics,
                                    origin_url=self.origin_url,
                                ),
                                ensure_ascii=False,
                            ),
                        )
                        for d in fresh
                    ],
                )
            messages = self._changed_states(sorted(dirty))
            try:
                await self._publish_many(client, messages)
            except aiomqtt.MqttError:
                for topic, _ in messages:  # not sent: make sure the next announcement sends them
                    self._published.pop(topic, None)
                raise
            events, self._events_out = self._events_out, []
            for topic, payload in events:  # in order, one message per event
                await client.publish(topic, payload, qos=1, retain=False)

    # ------------------------------------------------------------------------------ receiving
    async def _receive(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            topic = message.topic.value
            payload = message.payload if isinstance(message.payload, bytes) else str(message.payload or "").encode()
            if topic == self.topics.ha_status:
                # Home Assistant came (back) online: it wants every config again. A retained birth
                # message is the one from before; our connection announcement already covered it.
                if payload.strip() == ONLINE.encode() and not message.retain:
                    await self._announce(client)
                continue
            route = self.topics.parse_command(topic)
            if route is not None:
                await self._command(client, topic, route, payload)

    async def _command(self, client: aiomqtt.Client, topic: str, route: CommandRoute, payload: bytes) -> None:
        started = time.perf_counter()
        device_id = self._by_segment.get(route.device_id)
        entity = next((e for e in self._entities.get(device_id or "", ()) if e.key == route.entity_key), None)
        applied: list[WorkflowStep] = []
        try:
            if device_id is None:
                raise CommandError(
                    "DEVICE_NOT_FOUND", f"no device {route.device_id!r} in home {self.topics.home!r}", field="topic"
                )
            if entity is None:
                raise CommandError(
                    "ENTITY_NOT_FOUND",
                    f"device {device_id!r} has no entity {route.entity_key!r}",
                    field="topic",
                    allowed=[e.key for e in self._entities.get(device_id, ()) if e.kind not in STATE_ONLY_KINDS],
                )
            for step in plan(self.fabric, entity, route.field, payload):
                self.fabric.apply(step)
                applied.append(step)
        except (CommandError, HomeError) as error:
            await self._answer_error(client, topic, route, device_id, payload, error, applied)
            return
        except Exception as error:  # a bug must not end the bridge; say so where the sender looks
            log.exception("MQTT command on %s failed", topic)
            await self._answer_error(
                client,
                topic,
                route,
                device_id,
                payload,
                CommandError("INTERNAL_ERROR", f"{type(error).__name__}: {error}"),
                applied,
            )
            return
        self._mark(device_id)
        log.debug("command %s handled in %.1f ms", topic, (time.perf_counter() - started) * 1000)

    async def _answer_error(
        self,
        client: aiomqtt.Client,
        topic: str,
        route: CommandRoute,
        device_id: str | None,
        payload: bytes,
        error: CommandError | HomeError,
        applied: list[WorkflowStep],
    ) -> None:
        details = error.to_dict()
        body: dict[str, Any] = {
            # Home Assistant reads this topic as the device's "Command refused" event entity: event_type picks
            # the event, the other keys are its attributes (message first, for the logbook and the device page).
            "event_type": REFUSED_EVENT,
            "message": details.get("message", str(error)),
            "topic": topic,
            "payload": payload[:512].decode("utf-8", errors="replace"),
            "device_id": device_id or route.device_id,
            "entity": route.entity_key,
            "error": details,
            "changed": bool(applied),
        }
        if applied:  # only when a later step of a multi-step command was refused
            body["applied"] = [op.describe() for op in applied]
            self._mark(device_id or "")
        where = self.topics.error(device_id) if device_id is not None else self.topics.home_error
        await client.publish(where, json.dumps(body, ensure_ascii=False, default=str), qos=1, retain=False)
        if device_id is not None and not applied:
            await self._restate(client, device_id, route.entity_key)

    async def _restate(self, client: aiomqtt.Client, device_id: str, entity_key: str) -> None:
        """The refused entity's unchanged state once more: a controller that showed the requested value
        (Home Assistant's optimistic toggles, sliders and selects) snaps back to what the device still is."""
        entity = next((e for e in self._entities.get(device_id, ()) if e.key == entity_key), None)
        state = entity_state(self.fabric, entity) if entity is not None else None
        if entity is None or state is None:
            return
        topic = self.topics.state(device_id, entity.key)
        payload = json.dumps(state, ensure_ascii=False, sort_keys=True)
        self._published[topic] = payload
        await client.publish(topic, payload, qos=1, retain=True)
