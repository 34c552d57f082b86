"""The strict TLV adapter over chip.tlv: spec encodings byte-exact, malformed input rejected."""

from __future__ import annotations

import pytest

from bridge.matter.codec import tlv
from bridge.matter.codec.tlv import TLVError, TLVList


def test_encodes_structures_with_minimal_unsigned_integers() -> None:
    # Spec appendix A examples: context tags, minimal-width unsigned ints, bool, octet string.
    value = {1: 0x2A, 2: 0x1234, 3: True, 4: b"\x01\x02"}
    assert tlv.encode(value) == bytes.fromhex("15 24012a 25023412 2903 300402 0102 18".replace(" ", ""))


def test_signed_integers_when_asked() -> None:
    assert tlv.encode({1: -1}) == bytes.fromhex("1520 01ff 18".replace(" ", ""))
    assert tlv.encode({1: 5}, ints_unsigned=False) == bytes.fromhex("15200105 18".replace(" ", ""))


def test_arrays_lists_and_round_trip() -> None:
    value = {1: [1, 2], 2: TLVList([(17, 0xDEDEDEDE00010001), (21, 0xFAB000000000001D)]), 3: "hé"}
    encoded = tlv.encode(value)
    assert encoded.startswith(bytes.fromhex("15360104010402183702"))
    decoded = tlv.decode(encoded)
    assert decoded[1] == [1, 2]
    assert list(decoded[2]) == [(17, 0xDEDEDEDE00010001), (21, 0xFAB000000000001D)]
    assert decoded[3] == "hé"
    assert isinstance(decoded[1][0], tlv.uint)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        bytes.fromhex("15"),  # unterminated structure
        bytes.fromhex("1518 00"),  # trailing element
        bytes.fromhex("18"),  # end-of-container at top level
        bytes.fromhex("1524 01"),  # truncated value
        bytes.fromhex("15 3001 05 0102 18"),  # string length past the end
        bytes.fromhex("15 2c01 02 c328 18"),  # invalid UTF-8
        bytes.fromhex("15 0400 18"),  # anonymous member in a structure
        bytes.fromhex("16 2401 00 18"),  # tagged element in an array
        bytes.fromhex("15 240100 240101 18"),  # duplicate tag
        bytes.fromhex("15 1f 18"),  # unknown element type
        bytes.fromhex("2401 00"),  # tagged top-level element
        bytes([0x16] * 40 + [0x18] * 40),  # nesting bomb
        bytes.fromhex("17 44 0100 00 18"),  # profile tag inside a list (chip.tlv would crash)
    ],
)
def test_malformed_input_raises_only_tlv_error(data: bytes) -> None:
    with pytest.raises(TLVError):
        tlv.decode(data)


def test_typed_field_access() -> None:
    decoded = tlv.decode(tlv.encode({1: b"x" * 32, 2: 7, 3: False}))
    assert tlv.field_bytes(decoded, 1, length=32) == b"x" * 32
    assert tlv.field_uint(decoded, 2, maximum=0xFFFF) == 7
    assert tlv.field_bool(decoded, 3) is False
    assert tlv.field_struct(decoded, 9, optional=True) is None
    with pytest.raises(TLVError):
        tlv.field_bytes(decoded, 1, length=16)
    with pytest.raises(TLVError):
        tlv.field_uint(decoded, 1)
    with pytest.raises(TLVError):
        tlv.field_uint(decoded, 2, maximum=6)
    with pytest.raises(TLVError):
        tlv.field_bool(decoded, 9)
