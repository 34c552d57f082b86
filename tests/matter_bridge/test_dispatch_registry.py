"""Protocol dispatch and the IM tables are registries checked when something registers: a second claim on
the same (protocol, opcode, session kind), IM opcode or TLV tag is refused with a sentence naming the holder."""

from __future__ import annotations

from typing import Any

import pytest

from bridge.matter.codec.message import ProtocolId
from bridge.matter.codec.tlv_schema import U8, TLVRecord, record, tag
from bridge.matter.im import im_messages as im
from bridge.matter.session.dispatch import ProtocolDispatch
from bridge.matter.session.handshake import HandshakeServer
from bridge.matter.session.secure_channel import Opcode
from bridge.matter.session.sessions import SessionManager


async def _handler(exchange: Any, opcode: int, payload: bytes) -> None:
    return None


def test_a_route_is_claimed_once() -> None:
    routes = ProtocolDispatch()
    routes.register(ProtocolId.SECURE_CHANNEL, Opcode.CASE_SIGMA1, _handler, session="unsecured", owner="CASE")
    with pytest.raises(ValueError, match=r"opcode 0x30 on unsecured sessions is already handled by CASE"):
        routes.register(ProtocolId.SECURE_CHANNEL, Opcode.CASE_SIGMA1, _handler, session="unsecured")
    routes.register(ProtocolId.SECURE_CHANNEL, Opcode.CASE_SIGMA1, _handler, session="secure")  # another kind
    with pytest.raises(ValueError, match="session must be"):
        routes.register(ProtocolId.SECURE_CHANNEL, 1, _handler, session="group")  # type: ignore[arg-type]


def test_exact_opcode_before_the_protocols_catch_all() -> None:
    routes = ProtocolDispatch()

    async def other(exchange: Any, opcode: int, payload: bytes) -> None:
        return None

    routes.register(ProtocolId.INTERACTION_MODEL, None, _handler, session="secure")
    routes.register(ProtocolId.INTERACTION_MODEL, im.Opcode.READ_REQUEST, other, session="secure")
    assert routes.route(ProtocolId.INTERACTION_MODEL, im.Opcode.READ_REQUEST, "secure").handler is other
    assert routes.route(ProtocolId.INTERACTION_MODEL, im.Opcode.WRITE_REQUEST, "secure").handler is _handler
    assert routes.route(ProtocolId.INTERACTION_MODEL, im.Opcode.WRITE_REQUEST, "unsecured") is None


def test_the_session_manager_and_the_handshake_server_claim_their_messages() -> None:
    manager = SessionManager(lambda data, address: None)
    im_unsecured = manager.routes.route(ProtocolId.INTERACTION_MODEL, im.Opcode.READ_REQUEST, "unsecured")
    assert im_unsecured is not None and im_unsecured.inline  # refused: acked, never answered
    assert manager.routes.route(ProtocolId.SECURE_CHANNEL, Opcode.PBKDF_PARAM_REQUEST, "unsecured") is None
    HandshakeServer(manager, pase_verifier=lambda: None, case_fabrics=lambda: [])
    assert manager.routes.route(ProtocolId.SECURE_CHANNEL, Opcode.PBKDF_PARAM_REQUEST, "unsecured") is not None
    assert manager.routes.route(ProtocolId.SECURE_CHANNEL, Opcode.CASE_SIGMA1, "unsecured") is not None
    with pytest.raises(ValueError, match="HandshakeServer"):  # a second responder on the same sessions
        HandshakeServer(manager, pase_verifier=lambda: None, case_fabrics=lambda: [])


def test_im_messages_are_registered_by_opcode_once() -> None:
    assert {int(op) for op in im.MESSAGES} == {int(op) for op in im.Opcode}
    assert all(cls.opcode == op for op, cls in im.MESSAGES.items())  # type: ignore[attr-defined]  # set by @message
    with pytest.raises(TypeError, match="TIMED_REQUEST is taken by TimedRequest"):

        @im.message(im.Opcode.TIMED_REQUEST, "AnotherTimedRequest")
        class Another(TLVRecord):
            timeout_ms: int = tag(0, U8, required=True)


def test_a_field_table_with_a_repeated_tag_is_refused() -> None:
    with pytest.raises(TypeError, match="tag 1 used twice"):

        @record("Broken")
        class Broken(TLVRecord):
            a: int = tag(1, U8)
            b: int = tag(1, U8)
