"""CASE between two in-process session managers, as on the wire (datagrams, MRP, exchanges): a full
handshake, then a resumed one, with our node as the initiator (what subscription resumption after a
restart does) and as the responder."""

from __future__ import annotations

import asyncio
import logging
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bridge.matter.codec.persistence import StateStore
from bridge.matter.session.case import CaseFabric
from bridge.matter.session.handshake import HandshakeServer
from bridge.matter.session.resumption_store import ResumptionStore
from bridge.matter.session.sessions import SessionManager
from tests.matter_bridge._async import run_async
from tests.matter_protocol.test_case import _new_fabric


def _pair() -> tuple[HandshakeServer, HandshakeServer, SessionManager, SessionManager]:
    fabric = _new_fabric()
    device_fabric, controller_fabric = fabric.member(0x55), fabric.member(0x1)
    loop = asyncio.get_running_loop()
    managers: dict[str, SessionManager] = {}

    def wire(sender: str, receiver: str) -> Callable[[bytes, tuple[Any, ...]], None]:
        def send(data: bytes, addr: tuple[Any, ...]) -> None:
            loop.call_soon(managers[receiver].on_datagram, data, (sender, 1))

        return send

    managers["a"] = SessionManager(wire("a", "b"))
    managers["b"] = SessionManager(wire("b", "a"))
    a = HandshakeServer(
        managers["a"],
        pase_verifier=lambda: None,
        case_fabrics=lambda: [(1, device_fabric)],
        resumptions=ResumptionStore(StateStore(Path(tempfile.mkdtemp(prefix="hf-case-a-")))),
    )
    b = HandshakeServer(
        managers["b"],
        pase_verifier=lambda: None,
        case_fabrics=lambda: [(3, controller_fabric)],
        resumptions=ResumptionStore(StateStore(Path(tempfile.mkdtemp(prefix="hf-case-b-")))),
    )
    return a, b, managers["a"], managers["b"]


class _Events(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@run_async
async def test_initiated_case_is_full_first_then_resumed() -> None:
    device, controller, device_sessions, controller_sessions = _pair()
    fabric = controller.case_fabrics()[0][1]
    events = _Events()
    logger = logging.getLogger("bridge.matter.session.handshake")
    logger.addHandler(events)
    logger.setLevel(logging.INFO)
    try:
        for round_ in ("established", "resumed"):
            await _round(device, controller, device_sessions, controller_sessions, fabric, round_, events)
    finally:
        logger.removeHandler(events)


async def _round(
    device: HandshakeServer,
    controller: HandshakeServer,
    device_sessions: SessionManager,
    controller_sessions: SessionManager,
    fabric: CaseFabric,
    round_: str,
    events: _Events,
) -> None:
    events.messages.clear()
    ours = await controller.connect_case(("a", 1), 3, fabric, 0x55)
    await asyncio.sleep(0.05)  # the responder's side of the last message
    theirs = [s for s in device_sessions.sessions(kind="case") if s.local_session_id == ours.peer_session_id]
    assert len(theirs) == 1, round_
    assert ours.keys.encrypt_key == theirs[0].keys.decrypt_key
    assert ours.keys.decrypt_key == theirs[0].keys.encrypt_key
    assert (theirs[0].peer_node_id, ours.peer_node_id, theirs[0].fabric_index) == (0x1, 0x55, 1)
    assert controller_sessions.initiated == {}  # the handshake's unsecured session is gone again
    assert device.resumptions is not None and controller.resumptions is not None
    record_a, record_b = device.resumptions.for_peer(1, 0x1), controller.resumptions.for_peer(3, 0x55)
    assert record_a is not None and record_b is not None
    assert record_a.resumption_id == record_b.resumption_id and record_a.shared_secret == record_b.shared_secret
    # both ends say how the session came about: a full handshake first, Sigma2_Resume the second time
    assert sum(f"event=session_{round_} kind=case" in m for m in events.messages) == 2, events.messages


def test_records_let_a_restarted_node_resume() -> None:
    """The responder's record survives a reload of the store (what a restart does)."""

    async def scenario() -> None:
        device, controller, _, _ = _pair()
        fabric = controller.case_fabrics()[0][1]
        await controller.connect_case(("a", 1), 3, fabric, 0x55)
        assert device.resumptions is not None
        reloaded = ResumptionStore(device.resumptions._store)
        record = controller.resumptions.for_peer(3, 0x55) if controller.resumptions else None
        assert record is not None and reloaded.find(record.resumption_id) is not None

    asyncio.run(asyncio.wait_for(scenario(), 30))
