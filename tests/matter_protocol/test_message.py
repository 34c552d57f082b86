"""Message headers, message security and counters.

Vectors: connectedhomeip src/transport/tests/TestSessionManagerDispatch.cpp
("secure pase message (short payload)", "... (no payload)", "secure group message (no privacy)").
"""

from __future__ import annotations

import pytest

from bridge.matter.codec.message import (
    ExchangeFlags,
    MessageCounter,
    MessageError,
    MessageHeader,
    ProtocolHeader,
    ReceptionState,
    SessionType,
)
from bridge.matter.crypto.crypto import CryptoError
from bridge.matter.session.message_security import decrypt_message, encrypt_message

PASE_KEY = bytes.fromhex("5eded244e5532b3cdc23409dbad052d2")
PASE_PLAIN = bytes.fromhex("00b80b00393000000564ee0e207d1122334455")
PASE_ENCRYPTED = bytes.fromhex("00b80b00393000005a989ae42e8d0f7f885dfb2faa8949cf730a5728e0354610a0c4a7")
PASE_EMPTY_ENCRYPTED = bytes.fromhex("00b80b00393000005a989ae42e8d847f535c3007e6150cd65867f2b817db")
GROUP_PLAIN = bytes.fromhex("067ddb0178563412010000000000000002000164ee0e207d")


def test_decodes_pase_vector_headers() -> None:
    header, offset = MessageHeader.decode(PASE_PLAIN)
    assert (header.session_id, header.message_counter, header.security_flags) == (0x0BB8, 12345, 0)
    assert header.source_node_id is None and header.destination_node_id is None
    assert header.is_secure and offset == 8
    proto, payload_offset = ProtocolHeader.decode(PASE_PLAIN[offset:])
    assert proto.exchange_flags == ExchangeFlags.INITIATOR | ExchangeFlags.RELIABLE
    assert (proto.opcode, proto.exchange_id, proto.protocol_id) == (0x64, 0x0EEE, 0x7D20)
    assert proto.ack_counter is None and proto.vendor_id is None
    assert PASE_PLAIN[offset + payload_offset :] == bytes.fromhex("1122334455")
    assert header.encode() + proto.encode() == PASE_PLAIN[: offset + payload_offset]


def test_encrypts_pase_vector_byte_exact() -> None:
    header, offset = MessageHeader.decode(PASE_PLAIN)
    assert encrypt_message(header, PASE_PLAIN[offset:], PASE_KEY, 0) == PASE_ENCRYPTED
    assert encrypt_message(header, PASE_PLAIN[offset:14], PASE_KEY, 0) == PASE_EMPTY_ENCRYPTED
    decoded, plaintext = decrypt_message(PASE_ENCRYPTED, PASE_KEY, 0)
    assert decoded == header and plaintext == PASE_PLAIN[offset:]


def test_decrypt_rejects_wrong_mic_key_or_nonce_source() -> None:
    tampered = PASE_ENCRYPTED[:-1] + bytes([PASE_ENCRYPTED[-1] ^ 0x0D])  # the vector's "wrong MIC" case
    with pytest.raises(CryptoError):
        decrypt_message(tampered, PASE_KEY, 0)
    with pytest.raises(CryptoError):
        decrypt_message(PASE_ENCRYPTED, bytes(16), 0)
    with pytest.raises(CryptoError):
        decrypt_message(PASE_ENCRYPTED, PASE_KEY, 1)
    with pytest.raises(CryptoError):
        decrypt_message(PASE_ENCRYPTED[:20], PASE_KEY, 0)


def test_decodes_group_vector_header() -> None:
    header, offset = MessageHeader.decode(GROUP_PLAIN)
    assert header.session_id == 0xDB7D and header.session_type is SessionType.GROUP
    assert header.message_counter == 0x12345678
    assert header.source_node_id == 1 and header.destination_group_id == 2
    assert offset == 18 and header.encode() == GROUP_PLAIN[:18]
    proto, _ = ProtocolHeader.decode(GROUP_PLAIN[offset:])
    assert proto.initiator and not proto.needs_ack


def test_round_trips_every_optional_field() -> None:
    header = MessageHeader(
        session_id=0, message_counter=7, source_node_id=0x1122334455667788, destination_node_id=42, extensions=b"xy"
    )
    encoded = header.encode()
    assert encoded[0] == 0x05 and encoded[3] == 0x20  # S + DSIZ=1, MX set
    assert MessageHeader.decode(encoded + b"rest") == (header, len(encoded))
    assert not header.is_secure
    proto = ProtocolHeader(
        exchange_flags=ExchangeFlags.RELIABLE,
        opcode=0x20,
        exchange_id=0xBEEF,
        protocol_id=0,
        vendor_id=0xFFF1,
        ack_counter=0xCAFEBABE,
        secured_extensions=b"\x01",
    )
    encoded = proto.encode()
    assert encoded[0] == ExchangeFlags.RELIABLE | ExchangeFlags.ACK | ExchangeFlags.VENDOR | 0x08
    assert ProtocolHeader.decode(encoded) == (proto, len(encoded))


@pytest.mark.parametrize(
    "data",
    [
        b"\x00\x00\x00",  # shorter than 8 bytes
        bytes.fromhex("1000000000000000"),  # version 1
        bytes.fromhex("0300000000000000"),  # DSIZ 3
        bytes.fromhex("0400000000000000"),  # S flag without the node id
        bytes.fromhex("0000000200000000"),  # reserved session type
        bytes.fromhex("0000000100000000"),  # group session without group id
        bytes.fromhex("00000020000000000500"),  # extensions longer than the message
    ],
)
def test_rejects_malformed_headers(data: bytes) -> None:
    with pytest.raises(MessageError):
        MessageHeader.decode(data)


def test_rejects_truncated_protocol_header() -> None:
    with pytest.raises(MessageError):
        ProtocolHeader.decode(bytes.fromhex("0220"))
    with pytest.raises(MessageError):
        ProtocolHeader.decode(bytes.fromhex("0220010000000102"))  # A flag, counter cut short


def test_counters() -> None:
    counter = MessageCounter()
    assert 1 <= counter.value <= 1 << 28
    first = counter.next()
    assert counter.next() == first + 1
    exhausted = MessageCounter(value=0xFFFFFFFF)
    assert exhausted.next() == 0xFFFFFFFF
    with pytest.raises(OverflowError):
        exhausted.next()
    wrapping = MessageCounter(value=0xFFFFFFFF, allow_rollover=True)
    assert (wrapping.next(), wrapping.next()) == (0xFFFFFFFF, 0)


def test_secure_unicast_window() -> None:
    state = ReceptionState()
    assert state.check_and_mark(100)  # trust-first
    assert not state.check_and_mark(100)
    assert state.check_and_mark(103)
    assert state.check_and_mark(101) and not state.check_and_mark(101)
    assert state.check_and_mark(102)
    assert state.check_and_mark(103 - 32 + 0)  # oldest counter still inside the window (never seen)
    assert not state.check_and_mark(103 - 33)  # behind the window: a duplicate for secure sessions
    assert state.check_and_mark(200)  # a jump clears the window
    assert not state.check_and_mark(103)
    assert state.check_and_mark(199) and not state.check_and_mark(199)


def test_unsecured_window_rolls_over_and_accepts_restarts() -> None:
    state = ReceptionState(rollover=True, reset_behind=True)
    assert state.check_and_mark(0xFFFFFFFE)
    assert state.check_and_mark(1)  # wrapped: ahead by 3
    assert not state.check_and_mark(0xFFFFFFFE)
    assert state.check_and_mark(0xFFFFFFFF)
    assert state.check_and_mark(0x00100000 - 0x80000000 & 0xFFFFFFFF)  # far behind: peer restarted
    assert state.max_counter == 0x00100000 - 0x80000000 & 0xFFFFFFFF
