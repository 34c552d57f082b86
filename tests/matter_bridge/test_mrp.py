"""MRP on the session layer: acks (piggybacked/standalone), retransmission with the same counter, give-up,
duplicate detection. MRP runs on a stepped clock: no test sleeps on the wall clock."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bridge.matter.codec.message import ExchangeFlags, MessageHeader, ProtocolHeader, ProtocolId
from bridge.matter.session.exchange_api import ExchangeClosed
from bridge.matter.session.mrp import MAX_TRANSMISSIONS, STANDALONE_ACK_TIMEOUT_S, MrpTiming, backoff_s
from bridge.matter.session.sessions import SessionManager
from tests.matter_bridge._async import run_async
from tests.matter_bridge.stepped_clock import SteppedClock, settle

PEER = ("::ffff:10.77.0.1", 40000, 0, 0)
PEER_NODE = 0x1122334455667788


def datagram(
    counter: int,
    *,
    opcode: int = 0x20,
    exchange_id: int = 7,
    reliable: bool = True,
    ack: int | None = None,
    protocol: int = 0,
    payload: bytes = b"hello",
) -> bytes:
    header = MessageHeader(session_id=0, message_counter=counter, source_node_id=PEER_NODE)
    flags = ExchangeFlags.INITIATOR | (ExchangeFlags.RELIABLE if reliable else 0)
    proto = ProtocolHeader(
        exchange_flags=flags, opcode=opcode, exchange_id=exchange_id, protocol_id=protocol, ack_counter=ack
    )
    return header.encode() + proto.encode() + payload


def parse(data: bytes) -> tuple[MessageHeader, ProtocolHeader, bytes]:
    header, offset = MessageHeader.decode(data)
    proto, pos = ProtocolHeader.decode(data[offset:])
    return header, proto, data[offset + pos :]


class Harness:
    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.calls: list[tuple[int, bytes]] = []
        self.exchanges: list = []
        self.clock = SteppedClock()
        self.manager = SessionManager(lambda data, addr: self.sent.append(data), clock=self.clock)
        self.manager.routes.register(ProtocolId.SECURE_CHANNEL, None, self.handler, session="unsecured")
        self.behaviour: Callable[[Any], Awaitable[None]] | None = None  # what the handler does with an exchange

    async def handler(self, exchange, opcode, payload) -> None:
        self.calls.append((opcode, payload))
        self.exchanges.append(exchange)
        exchange.channel.mrp = MrpTiming(idle_ms=10, active_ms=10)
        if self.behaviour is not None:
            await self.behaviour(exchange)


@run_async
async def test_standalone_ack_when_no_reply() -> None:
    h = Harness()
    h.manager.on_datagram(datagram(100), PEER)
    await settle()
    assert h.calls == [(0x20, b"hello")]
    h.clock.advance(STANDALONE_ACK_TIMEOUT_S)
    await settle()
    acks = [parse(d) for d in h.sent]
    assert len(acks) == 1
    header, proto, payload = acks[0]
    assert proto.opcode == 0x10 and proto.ack_counter == 100 and not proto.needs_ack and not proto.initiator
    assert header.destination_node_id == PEER_NODE and payload == b""


@run_async
async def test_piggybacked_ack_and_retransmission_with_same_counter() -> None:
    h = Harness()
    outcome: list[object] = []

    async def reply_without_ack(exchange) -> None:
        try:
            await exchange.send(0x21, b"response", expect_reply=False)
            outcome.append("acked")
        except ExchangeClosed as exc:
            outcome.append(exc)

    h.behaviour = reply_without_ack
    h.manager.on_datagram(datagram(5), PEER)
    await settle()
    assert len(h.sent) == 1 and outcome == []
    for _ in range(MAX_TRANSMISSIONS):
        h.clock.advance(10.0)  # longer than any backoff at 10 ms intervals
        await settle()
    assert len(h.sent) == MAX_TRANSMISSIONS  # first send + 4 retransmissions, then MRP gives up
    assert len(set(h.sent)) == 1  # identical bytes: same message counter
    _, proto, payload = parse(h.sent[0])
    assert proto.ack_counter == 5 and proto.needs_ack and payload == b"response"  # ack piggybacked
    assert isinstance(outcome[0], ExchangeClosed)


@run_async
async def test_ack_stops_retransmission() -> None:
    h = Harness()
    outcome: list[object] = []

    async def reply(exchange) -> None:
        await exchange.send(0x21, b"response", expect_reply=False)
        outcome.append("acked")

    h.behaviour = reply
    h.manager.on_datagram(datagram(5), PEER)
    await settle()
    our_counter = parse(h.sent[0])[0].message_counter
    h.manager.on_datagram(datagram(6, opcode=0x10, reliable=False, ack=our_counter), PEER)
    await settle()
    h.clock.advance(60.0)  # every retransmission timer would have fired by now
    await settle()
    assert outcome == ["acked"]
    assert len(h.sent) == 1


@run_async
async def test_duplicate_is_dropped_but_acked() -> None:
    h = Harness()
    message = datagram(42)
    h.manager.on_datagram(message, PEER)
    await settle()
    h.manager.on_datagram(message, PEER)  # retransmission by the peer
    await settle()
    h.clock.advance(STANDALONE_ACK_TIMEOUT_S)
    await settle()
    assert len(h.calls) == 1
    acked = [parse(d)[1].ack_counter for d in h.sent]
    assert acked.count(42) >= 1
    assert all(parse(d)[1].opcode == 0x10 for d in h.sent)


@run_async
async def test_reply_wait_returns_next_message() -> None:
    h = Harness()
    replies: list[object] = []

    async def round_trip(exchange) -> None:
        replies.append(await exchange.send(0x21, b"q", expect_reply=True))

    h.behaviour = round_trip
    h.manager.on_datagram(datagram(10), PEER)
    await settle()
    our_counter = parse(h.sent[0])[0].message_counter
    h.manager.on_datagram(datagram(11, opcode=0x22, ack=our_counter, payload=b"answer"), PEER)
    await settle()
    assert replies == [(0x22, b"answer")]


def test_backoff_grows_per_spec() -> None:
    # i * 1.1 * 1.6^max(0, n-1) * (1 + jitter*0.25)
    assert backoff_s(0.3, 0, 0.0) == pytest.approx(0.33)
    assert backoff_s(0.3, 1, 0.0) == pytest.approx(0.33)
    assert backoff_s(0.3, 2, 0.0) == pytest.approx(0.33 * 1.6)
    assert backoff_s(0.3, 3, 1.0) == pytest.approx(0.33 * 1.6**2 * 1.25)


@run_async
async def test_garbage_datagrams_do_not_crash() -> None:
    h = Harness()
    for data in (b"", b"\x00", b"\xff" * 40, datagram(1)[:9], bytes(range(60))):
        h.manager.on_datagram(data, PEER)
    await asyncio.sleep(0)
