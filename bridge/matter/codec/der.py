"""Just enough ASN.1 DER to rebuild and parse Matter operational certificates byte-exactly.

A Matter TLV certificate is signed over its X.509 DER form, so the DER must be reproduced
exactly (length forms, string types, optional fields); a general ASN.1 library would
re-encode. Elements are handled as ``(tag byte, content bytes)`` pairs.
"""

from __future__ import annotations

__all__ = [
    "BIT_STRING",
    "BOOLEAN",
    "GENERALIZED_TIME",
    "IA5_STRING",
    "INTEGER",
    "OCTET_STRING",
    "OID",
    "PRINTABLE_STRING",
    "SEQUENCE",
    "SET",
    "UTC_TIME",
    "UTF8_STRING",
    "DerError",
    "children",
    "decode_oid",
    "element",
    "encode_oid",
    "read_element",
    "read_single",
]

BOOLEAN, INTEGER, BIT_STRING, OCTET_STRING, OID = 0x01, 0x02, 0x03, 0x04, 0x06
UTF8_STRING, PRINTABLE_STRING, IA5_STRING = 0x0C, 0x13, 0x16
UTC_TIME, GENERALIZED_TIME = 0x17, 0x18
SEQUENCE, SET = 0x30, 0x31


class DerError(ValueError):
    """Malformed or non-canonical DER."""


def element(tag: int, *contents: bytes) -> bytes:
    """One DER element: tag, definite minimal length, and the concatenated contents."""
    body = b"".join(contents)
    length = len(body)
    if length < 0x80:
        return bytes([tag, length]) + body
    size = (length.bit_length() + 7) // 8
    return bytes([tag, 0x80 | size]) + length.to_bytes(size, "big") + body


def encode_oid(dotted: str) -> bytes:
    """OID content bytes (base-128 arcs) for a dotted string."""
    arcs = [int(arc) for arc in dotted.split(".")]
    out = bytearray([arcs[0] * 40 + arcs[1]])
    for arc in arcs[2:]:
        chunk = [arc & 0x7F]
        arc >>= 7
        while arc:
            chunk.append(0x80 | (arc & 0x7F))
            arc >>= 7
        out += bytes(reversed(chunk))
    return bytes(out)


def decode_oid(content: bytes) -> str:
    if not content or content[-1] & 0x80:
        raise DerError("malformed OID")
    first = content[0]
    arcs = [min(first // 40, 2), first - 40 * min(first // 40, 2)]
    value = 0
    for byte in content[1:]:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            arcs.append(value)
            value = 0
    return ".".join(str(arc) for arc in arcs)


def read_element(data: bytes, pos: int = 0) -> tuple[int, bytes, int]:
    """Read the element at ``pos``: returns ``(tag, content, next position)``."""
    if pos + 2 > len(data):
        raise DerError("truncated element")
    tag, first = data[pos], data[pos + 1]
    pos += 2
    if first < 0x80:
        length = first
    else:
        size = first & 0x7F
        if size == 0 or size > 4 or pos + size > len(data):
            raise DerError("unsupported or truncated length")
        length = int.from_bytes(data[pos : pos + size], "big")
        if length < 0x80 or length.bit_length() <= 8 * (size - 1):
            raise DerError("non-minimal length")
        pos += size
    if pos + length > len(data):
        raise DerError("content runs past the end")
    return tag, bytes(data[pos : pos + length]), pos + length


def read_single(data: bytes, expected_tag: int | None = None) -> tuple[int, bytes]:
    """Read exactly one element spanning all of ``data``."""
    tag, content, end = read_element(data, 0)
    if end != len(data):
        raise DerError("trailing bytes after element")
    if expected_tag is not None and tag != expected_tag:
        raise DerError(f"expected tag 0x{expected_tag:02x}, got 0x{tag:02x}")
    return tag, content


def children(content: bytes) -> list[tuple[int, bytes]]:
    """The elements of a constructed value's content."""
    out = []
    pos = 0
    while pos < len(content):
        tag, child, pos = read_element(content, pos)
        out.append((tag, child))
    return out
