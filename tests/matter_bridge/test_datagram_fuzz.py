"""Fuzz the running node over UDP: 10,000 random and mutated datagrams, bounded in time.

The node (real runtime: transport, sessions, MRP, PASE/CASE responders, Interaction Model over a
small bridged home) listens on loopback. Seeds are real datagrams captured from a PASE handshake,
a CASE handshake and IM requests of a commissioned admin; the mix:

* raw mutations of those datagrams (bit flips, byte edits, inserts, deletes, truncation, splices):
  the message layer, MIC checks and duplicate detection;
* unsecured messages with a valid header around a mutated PBKDFParamRequest / Sigma1 / Pake payload:
  the handshake decoders;
* IM plaintext mutated *then sealed* with the keys of a real CASE session whose subject may only
  View: it passes the MIC, so the IM decoders, dispatch and ACL enforcement see it — and a mutation
  that still forms a valid write or invoke must be refused;
* random bytes of random length.

Afterwards: no error logged by the runtime's safety nets and no unhandled exception on the loop
(no crash), the fabric table, ACL, persisted fabrics and the home's snapshot are unchanged (no state
change), and the node still completes PASE and CASE and answers a read (no hang).
"""

from __future__ import annotations

import asyncio
import logging
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from bridge.matter.codec.message import ExchangeFlags, MessageHeader, ProtocolHeader, ProtocolId
from bridge.matter.codec.persistence import StateStore
from bridge.matter.im import im_messages as im
from bridge.matter.node.bridge_node import BridgeNode
from bridge.matter.node.node import MatterNode
from bridge.matter.session.message_security import encrypt_message
from bridge.matter.session.secure_channel import Opcode
from tests.emulator.helpers import fabric
from tests.matter_bridge.controller import FabricAuthority, FakeController
from tests.matter_bridge.test_node_commissioning import ADMIN_NODE, PASSCODE, commission_over_pase, invoke

DATAGRAMS = 10_000
TIME_BUDGET_S = 60.0
VIEWER = 0x7777
NODE_ID = 0x55
P = im.AttributePath


class Recorder:
    """Stands in for a controller's transport and keeps a copy of every datagram it sends."""

    def __init__(self, transport: Any, captured: list[bytes]) -> None:
        self._transport, self._captured = transport, captured

    def sendto(self, data: bytes, address: Any = None) -> None:
        self._captured.append(bytes(data))
        self._transport.sendto(data, address)

    def close(self) -> None:
        self._transport.close()


class Sink(asyncio.DatagramProtocol):
    """The fuzzer's socket: whatever the node answers is ignored (so its MRP retransmits and gives up)."""


def mutate(rng: random.Random, data: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        choice, pos = rng.random(), rng.randrange(len(buf) + 1)
        if choice < 0.25 and buf:
            buf[min(pos, len(buf) - 1)] ^= 1 << rng.randrange(8)
        elif choice < 0.45 and buf:
            buf[min(pos, len(buf) - 1)] = rng.choice([0x00, 0xFF, 0x7F, 0x80, 0x18, 0x15, 0x36, rng.randrange(256)])
        elif choice < 0.6 and buf:
            del buf[min(pos, len(buf) - 1) : min(pos, len(buf) - 1) + rng.randint(1, 4)]
        elif choice < 0.75:
            buf[pos:pos] = rng.randbytes(rng.randint(1, 8))
        elif choice < 0.85 and buf:
            start = rng.randrange(len(buf))
            buf[pos:pos] = buf[start : start + rng.randint(1, 16)]  # splice a piece of itself
        elif buf:
            del buf[pos:]  # truncate
    return bytes(buf[:1280])


def unsecured(rng: random.Random, opcode: int, payload: bytes) -> bytes:
    header = MessageHeader(session_id=0, message_counter=rng.randrange(1 << 32), source_node_id=rng.getrandbits(64))
    proto = ProtocolHeader(
        exchange_flags=ExchangeFlags.INITIATOR | ExchangeFlags.RELIABLE,
        opcode=opcode,
        exchange_id=rng.randrange(1 << 16),
        protocol_id=0,
    )
    return header.encode() + proto.encode() + payload


def im_seeds(lamp: int) -> list[tuple[int, bytes]]:
    return [
        (im.Opcode.READ_REQUEST, im.encode(im.ReadRequest((P(), P(lamp, 6, 0)), (im.EventPath(),)))),
        (im.Opcode.READ_REQUEST, im.encode(im.ReadRequest((P(0, 0x3E),), fabric_filtered=False))),
        (im.Opcode.SUBSCRIBE_REQUEST, im.encode(im.SubscribeRequest(False, 0, 10, (P(lamp),)))),
        (im.Opcode.WRITE_REQUEST, im.encode(im.WriteRequest((im.AttributeData(P(lamp, 6, 0x4001), 5),)))),
        (im.Opcode.INVOKE_REQUEST, im.encode(im.InvokeRequest((im.CommandData(im.CommandPath(lamp, 6, 2), {}),)))),
        (
            im.Opcode.INVOKE_REQUEST,
            im.encode(im.InvokeRequest((im.CommandData(im.CommandPath(0, 0x3E, 0x0A), {0: 1}),))),
        ),  # RemoveFabric(1)
        (im.Opcode.TIMED_REQUEST, im.encode(im.TimedRequest(100))),
        (im.Opcode.STATUS_RESPONSE, im.encode(im.StatusResponse(0))),
    ]


def sealed(controller: FakeController, plaintext: bytes) -> bytes:
    secure = controller.secure
    assert secure is not None
    secure.counter += 1
    header = MessageHeader(session_id=secure.peer_id, message_counter=secure.counter)
    return encrypt_message(header, plaintext, secure.i2r, secure.own_node)


def im_plaintext(rng: random.Random, opcode: int, payload: bytes) -> bytes:
    proto = ProtocolHeader(
        exchange_flags=ExchangeFlags.INITIATOR | ExchangeFlags.RELIABLE,
        opcode=opcode,
        exchange_id=rng.randrange(1 << 16),
        protocol_id=1,
    )
    if rng.random() < 0.8:
        return proto.encode() + mutate(rng, payload)
    return mutate(rng, proto.encode() + payload)  # the protocol header too


@pytest.fixture
def runtime_errors(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.ERROR, logger="bridge")
    return caplog


def test_ten_thousand_datagrams_no_crash_no_hang_no_state_change(runtime_errors: pytest.LogCaptureFixture) -> None:
    figures = asyncio.run(asyncio.wait_for(_fuzz(), TIME_BUDGET_S + 60))
    print(figures)
    errors = [r for r in runtime_errors.records if r.levelno >= logging.ERROR]
    assert not errors, "\n".join(r.getMessage() + (r.exc_text or "") for r in errors[:3])


async def _fuzz() -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    loop_errors: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: loop_errors.append(context))
    home = fabric(
        [
            ("lamp", "dimmable_light", "living_room"),
            ("thermo", "thermostat", "living_room"),
            ("washer", "laundry_washer", "kitchen"),
        ]
    )
    state = Path(tempfile.mkdtemp(prefix="hf-fuzz-"))
    node = MatterNode(lambda root: BridgeNode(home, root, store=StateStore(state)), state, port=0, mdns=False)
    fuzz_ports: set[int] = set()
    received = 0
    deliver = node._on_datagram

    def counting(data: bytes, address: Any) -> None:
        nonlocal received
        received += address[1] in fuzz_ports
        deliver(data, address)

    node._on_datagram = counting  # type: ignore[method-assign]  # the transport binds it at start
    await node.start()
    im_transactions = 0
    handle_im = node.sessions.routes.unregister(ProtocolId.INTERACTION_MODEL, None, session="secure").handler

    async def counting_im(exchange: Any, opcode: int, payload: bytes) -> None:
        nonlocal im_transactions
        im_transactions += 1
        await handle_im(exchange, opcode, payload)  # type: ignore[misc]

    node.sessions.routes.register(ProtocolId.INTERACTION_MODEL, None, counting_im, session="secure")
    lamp = node.data_model.endpoint_of("lamp", 1)
    authority = FabricAuthority.create()
    captured: list[bytes] = []
    controllers: list[FakeController] = []
    try:
        # --- capture: PASE + commissioning, CASE as admin, IM over both sessions ----------------
        admin = await FakeController.connect(node.port)
        controllers.append(admin)
        admin.transport = Recorder(admin.transport, captured)  # type: ignore[assignment]
        await admin.pase(PASSCODE)
        ctx = node.sessions.sessions(kind="pase")[0].context
        index = commission_over_pase(node, ctx, authority)
        for opcode, payload in im_seeds(lamp)[:2]:
            admin.send(opcode, payload, protocol=1, secure=True, new_exchange=True)
            await admin.receive()
        await admin.case(authority.member(ADMIN_NODE), NODE_ID)
        case_ctx = node.sessions.sessions(kind="case")[0].context
        assert invoke(node, case_ctx, "GeneralCommissioning", "CommissioningComplete")["errorCode"] == 0
        for opcode, payload in im_seeds(lamp)[:3]:
            admin.send(opcode, payload, protocol=1, secure=True, new_exchange=True)
            await admin.receive()
        # A second subject on the fabric that may only View (the sealed-plaintext fuzz runs as it).
        node.table.set_acl_for(
            index, [*node.table.acl_for(index), {"authMode": 2, "privilege": 1, "subjects": [VIEWER], "targets": None}]
        )
        node.table.save()
        viewer = await FakeController.connect(node.port)
        controllers.append(viewer)
        await viewer.case(authority.member(VIEWER), NODE_ID)
        node.open_commissioning_window(None)  # the PASE responder is live during the fuzz too

        before = (home.snapshot(), node.table.snapshot(), (state / "fabrics.json").read_text())
        handshake_seeds: list[tuple[int, bytes]] = [
            (Opcode.PBKDF_PARAM_REQUEST, _payload_of(captured[0])),
            (Opcode.CASE_SIGMA1, _payload_of(next(d for d in captured if _opcode_of(d) == 0x30))),
        ]
        handshake_seeds += [(_opcode_of(d), _payload_of(d)) for d in captured if _opcode_of(d) in (0x22, 0x24, 0x32)]

        # --- fuzz ---------------------------------------------------------------------------
        rng = random.Random(4_2026)
        sink, _ = await loop.create_datagram_endpoint(Sink, local_addr=("127.0.0.1", 0))
        target = ("127.0.0.1", node.port)
        fuzz_ports.update({sink.get_extra_info("sockname")[1], viewer.transport.get_extra_info("sockname")[1]})
        seeds = im_seeds(lamp)
        kinds = {"raw": 0, "handshake": 0, "sealed": 0, "random": 0}
        started = time.monotonic()
        im_transactions = sent = 0
        for sent in range(1, DATAGRAMS + 1):
            roll = rng.random()
            if roll < 0.4:
                kind, data = "raw", mutate(rng, rng.choice(captured))
            elif roll < 0.6:
                opcode, payload = rng.choice(handshake_seeds)
                kind, data = "handshake", unsecured(rng, opcode, mutate(rng, payload))
            elif roll < 0.9:
                opcode, payload = rng.choice(seeds)
                kind, data = "sealed", sealed(viewer, im_plaintext(rng, opcode, payload))
            else:
                kind, data = "random", rng.randbytes(rng.randrange(0, 1281))
            kinds[kind] += 1
            (viewer.transport if kind == "sealed" else sink).sendto(data, target)
            # Flow control: at most 64 datagrams in flight (a socket buffer is finite and a busy CI machine
            # is slow), so every datagram reaches the node and the ≥ 99 % check below measures the node.
            while sent - received > 64 and time.monotonic() - started < TIME_BUDGET_S:
                await asyncio.sleep(0.001)
            if sent % 20 == 0:
                await asyncio.sleep(0)
                if sent % 500 == 0 and not any(s.peer_node_id == VIEWER for s in node.sessions.sessions(kind="case")):
                    await viewer.case(authority.member(VIEWER), NODE_ID)  # a fuzzed CloseSession ended it
            if time.monotonic() - started > TIME_BUDGET_S:
                break
        fuzz_s = time.monotonic() - started
        await asyncio.sleep(0.5)
        sink.close()
        fuzz_ports.clear()
        fuzzed_im = im_transactions

        # --- no state change ------------------------------------------------------------------
        after = (home.snapshot(), node.table.snapshot(), (state / "fabrics.json").read_text())
        assert after[0] == before[0], home.diff(before[0], after[0])
        assert after[1] == before[1]
        assert after[2] == before[2]
        assert len(node.sessions.secure) <= 32 and len(node.sessions.unsecured) <= 64

        # Subscriptions the fuzz managed to open end with their session (not at their next report).
        viewer_sessions = [s for s in node.sessions.sessions(kind="case") if s.peer_node_id == VIEWER]
        subscribed = sum(sub.session in viewer_sessions for sub in node.interaction.subscriptions.values())
        for session in viewer_sessions:
            session.close()
        assert not any(sub.session in viewer_sessions for sub in node.interaction.subscriptions.values())

        # --- no hang: PASE, CASE and a read still work ------------------------------------------
        closed_by_failures = not node.window.is_open
        if closed_by_failures:  # spec §5.4.2.1: 20 failed PASE attempts close the window; reopen it
            assert node.window.pase_failures >= 20
            node.open_commissioning_window(None)
        fresh = await FakeController.connect(node.port)
        controllers.append(fresh)
        await asyncio.wait_for(fresh.pase(PASSCODE), 10)
        operational = await FakeController.connect(node.port)
        controllers.append(operational)
        await asyncio.wait_for(operational.case(authority.member(ADMIN_NODE), NODE_ID), 10)
        operational.send(
            im.Opcode.READ_REQUEST,
            im.encode(im.ReadRequest((P(lamp, 6, 0),))),
            protocol=1,
            secure=True,
            new_exchange=True,
        )
        proto, payload = await operational.receive()
        report = im.decode(im.ReportData, payload)
        assert proto.opcode == im.Opcode.REPORT_DATA and report.attribute_reports[0].data is not None
        assert not loop_errors, loop_errors[:3]
        assert fuzzed_im >= 1000, fuzzed_im  # sealed mutations really reached the Interaction Model
        assert sent >= DATAGRAMS, f"only {sent} datagrams in {TIME_BUDGET_S} s"
        assert received >= 0.99 * sent, (received, sent)  # the node saw (nearly) all of them (+ CASE re-runs)
        return {
            "sent": sent,
            "received": received,
            "fuzz_s": round(fuzz_s, 2),
            "im_transactions": fuzzed_im,
            "subscriptions_dropped": subscribed,
            **kinds,
            "window_closed_by_pase_failures": closed_by_failures,
        }
    finally:
        for controller in controllers:
            controller.close()
        await node.stop()


def _decode(datagram: bytes) -> tuple[ProtocolHeader, bytes]:
    header, offset = MessageHeader.decode(datagram)
    assert header.session_id == 0, "handshake seeds are unsecured"
    proto, pos = ProtocolHeader.decode(datagram[offset:])
    return proto, datagram[offset + pos :]


def _opcode_of(datagram: bytes) -> int:
    header, offset = MessageHeader.decode(datagram)
    if header.session_id != 0:
        return -1
    return ProtocolHeader.decode(datagram[offset:])[0].opcode


def _payload_of(datagram: bytes) -> bytes:
    return _decode(datagram)[1]
