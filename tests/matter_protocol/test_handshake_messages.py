"""The PASE/CASE message field tables: what they accept, and the one-line handshake error for what they refuse."""

from __future__ import annotations

import pytest

from bridge.matter.codec import tlv
from bridge.matter.codec.tlv_schema import TLVRecord
from bridge.matter.session.case import CaseError
from bridge.matter.session.handshake_messages import (
    PbkdfParameters,
    PbkdfParamRequest,
    PbkdfParamResponse,
    SealedData,
    Sigma1,
    Sigma2Resume,
    decode_message,
    encode_message,
)
from bridge.matter.session.pase import PaseError
from bridge.matter.session.secure_channel import SessionParameters

RANDOM, KEY = bytes(range(32)), b"\x04" + bytes(64)


@pytest.mark.parametrize(
    "message",
    [
        PbkdfParamRequest(RANDOM, 7, 0, False, SessionParameters(500, 300)),
        PbkdfParamResponse(RANDOM, RANDOM[::-1], 9, PbkdfParameters(1000, bytes(16)), SessionParameters()),
        PbkdfParamResponse(RANDOM, RANDOM[::-1], 9),
        Sigma1(RANDOM, 3, RANDOM, KEY, SessionParameters(max_paths_per_invoke=1), bytes(16), bytes(16)),
        Sigma2Resume(bytes(16), bytes(range(16)), 0xFFFF),
        SealedData(b"noc", None, bytes(64), bytes(16)),
    ],
)
def test_messages_round_trip_and_match_a_plain_tlv_structure(message: TLVRecord) -> None:
    encoded = encode_message(message)
    assert decode_message(type(message), encoded, ValueError) == message
    assert tlv.encode(tlv.decode(encoded)) == encoded  # canonical: the generic TLV writer gives the same bytes


def test_optional_members_are_left_out() -> None:
    assert encode_message(SealedData(b"n", None, bytes(64))) == tlv.encode({1: b"n", 3: bytes(64)})
    assert tlv.decode(encode_message(PbkdfParamResponse(RANDOM, RANDOM, 1))).keys() == {1, 2, 3}


@pytest.mark.parametrize(
    ("payload", "error", "words"),
    [
        (b"\x15\x18", PaseError, "PBKDFParamRequest: missing field 1"),
        (tlv.encode({1: bytes(31), 2: 1, 3: 0, 4: False}), PaseError, "field 1 must be 32 bytes, not 31"),
        (
            tlv.encode({1: RANDOM, 2: 0x10000, 3: 0, 4: False}),
            PaseError,
            "field 2 must be an unsigned integer <= 65535",
        ),
        (tlv.encode({1: RANDOM, 2: 1, 3: 0, 4: 1}), PaseError, "field 4 must be a boolean"),
        (tlv.encode([1]), PaseError, "PBKDFParamRequest: PBKDFParamRequest must be a structure"),
        (b"\x15", PaseError, "PBKDFParamRequest: unterminated container"),
        (tlv.encode({1: RANDOM, 2: 1, 3: RANDOM, 4: KEY, 5: 7}), CaseError, "session parameters must be a structure"),
        (
            tlv.encode({1: RANDOM, 2: 1, 3: RANDOM, 4: KEY, 6: bytes(15), 7: bytes(16)}),
            CaseError,
            "Sigma1 field 6 must be 16 bytes, not 15",
        ),
    ],
)
def test_bad_messages_raise_the_handshakes_error_naming_message_and_field(
    payload: bytes, error: type[Exception], words: str
) -> None:
    cls = PbkdfParamRequest if error is PaseError else Sigma1
    with pytest.raises(error, match=words):
        decode_message(cls, payload, error)
