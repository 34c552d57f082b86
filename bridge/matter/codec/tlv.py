"""Matter TLV: a thin, strict adapter over ``chip.tlv``.

``chip.tlv`` (home-assistant-chip-clusters) already writes every TLV form the protocol layer needs
(anonymous/context/profile tags, structures, arrays, lists as ``TLVList``, minimal-width integers,
which is also what the CHIP SDK writes). What it lacks for a network-facing device:

* its reader trusts its input: truncated data raises ``struct.error``/``KeyError``, unterminated
  containers and trailing bytes are silently accepted, invalid UTF-8 becomes ``bytes``;
* a Python ``int`` is written as a *signed* integer unless wrapped in ``chip.tlv.uint``;
* no typed accessors for decoding protocol structures from untrusted peers.

This module adds exactly that: :func:`decode` validates the whole encoding first (one top-level
element, balanced containers, known element types, tags legal for their container, valid UTF-8,
bounded depth) and raises :class:`TLVError` only; :func:`encode` optionally makes non-negative ints
unsigned; ``field_*`` helpers read typed struct members.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any, Literal, overload

from chip.tlv import TLVList, TLVReader, TLVWriter, float32, uint

__all__ = [
    "TLVError",
    "TLVList",
    "decode",
    "encode",
    "field_bool",
    "field_bytes",
    "field_struct",
    "field_uint",
    "float32",
    "uint",
    "unsigned",
]

_MAX_DEPTH = 32

# Tag-control (upper 3 bits of the control byte) -> number of tag bytes that follow.
_TAG_SIZES = {0x00: 0, 0x20: 1, 0x40: 2, 0x60: 4, 0x80: 2, 0xA0: 4, 0xC0: 6, 0xE0: 8}
_STRUCTURE, _ARRAY, _LIST, _END = 0x15, 0x16, 0x17, 0x18


class TLVError(ValueError):
    """The bytes are not a well-formed TLV element, or a field has the wrong type."""


def unsigned(value: object) -> Any:
    """Return ``value`` with every non-negative ``int`` (not bool) turned into ``uint``, recursively.

    Protocol structures (secure channel, certificates) only carry unsigned integers; this spares
    every caller from wrapping each field.
    """
    if isinstance(value, (bool, uint)):
        return value
    if isinstance(value, int):
        return uint(value) if value >= 0 else value
    if isinstance(value, TLVList):
        return TLVList([(tag, unsigned(item)) for tag, item in value])
    if isinstance(value, Mapping):
        return {tag: unsigned(item) for tag, item in value.items()}
    if isinstance(value, list | tuple):
        return [unsigned(item) for item in value]
    return value


def encode(value: object, *, ints_unsigned: bool = True) -> bytes:
    """Encode ``value`` as one anonymous top-level TLV element.

    dict -> structure (members in ascending tag order, as the spec requires), list -> array,
    ``TLVList`` -> list, bytes -> octet string, str -> UTF-8 string.
    """
    writer = TLVWriter()
    writer.put(None, unsigned(value) if ints_unsigned else value)
    return bytes(writer.encoding)


def decode(data: bytes) -> Any:
    """Decode one anonymous top-level TLV element; :class:`TLVError` on anything malformed."""
    data = bytes(data)
    _validate(data)
    try:
        return TLVReader(data).get()["Any"]
    except (KeyError, ValueError, struct.error, IndexError) as exc:  # pragma: no cover - _validate guards
        raise TLVError(f"undecodable TLV: {exc}") from exc


def _validate(data: bytes) -> None:
    """Walk the encoding once and reject anything chip.tlv would misread or crash on."""
    pos = 0
    stack: list[int] = []
    seen_tags: list[set[Any]] = []
    elements_at_top = 0
    n = len(data)
    while pos < n:
        control = data[pos]
        pos += 1
        tag_control, elem_type = control & 0xE0, control & 0x1F
        if elem_type > _END:
            raise TLVError(f"unknown element type 0x{elem_type:02x}")
        tag_size = _TAG_SIZES[tag_control]
        if pos + tag_size > n:
            raise TLVError("truncated tag")
        tag = data[pos : pos + tag_size] if tag_size else None
        pos += tag_size
        if elem_type == _END:
            if tag is not None or not stack:
                raise TLVError("unexpected end-of-container")
            stack.pop()
            seen_tags.pop()
            continue
        if not stack:
            elements_at_top += 1
            if elements_at_top > 1 or tag is not None:
                raise TLVError("expected exactly one anonymous top-level element")
        else:
            container = stack[-1]
            if container == _STRUCTURE:
                if tag is None:
                    raise TLVError("anonymous member in a structure")
                if tag in seen_tags[-1]:
                    raise TLVError("duplicate tag in a structure")
                seen_tags[-1].add(tag)
            elif container == _ARRAY and tag is not None:
                raise TLVError("tagged element in an array")
            elif container == _LIST and tag is not None and tag_size != 1:
                # chip.tlv keeps list members as (int | None, value); Matter never profile-tags them.
                raise TLVError("profile-tagged element in a list")
        if elem_type in (_STRUCTURE, _ARRAY, _LIST):
            if len(stack) >= _MAX_DEPTH:
                raise TLVError("containers nested too deeply")
            stack.append(elem_type)
            seen_tags.append(set())
            continue
        pos = _skip_value(data, pos, elem_type)
    if stack:
        raise TLVError("unterminated container")
    if elements_at_top != 1:
        raise TLVError("empty TLV")


def _skip_value(data: bytes, pos: int, elem_type: int) -> int:
    n = len(data)
    if elem_type <= 0x07:  # signed/unsigned integers of 1, 2, 4, 8 bytes
        size = 1 << (elem_type & 0x03)
    elif elem_type in (0x08, 0x09, 0x14):  # booleans and null carry no value
        size = 0
    elif elem_type in (0x0A, 0x0B):  # float / double
        size = 4 if elem_type == 0x0A else 8
    else:  # 0x0C..0x13 strings with a 1/2/4/8-byte length
        len_size = 1 << (elem_type & 0x03)
        if pos + len_size > n:
            raise TLVError("truncated string length")
        size = int.from_bytes(data[pos : pos + len_size], "little")
        pos += len_size
        if pos + size > n:
            raise TLVError("truncated string")
        if elem_type <= 0x0F:
            try:
                data[pos : pos + size].decode("utf-8")
            except UnicodeDecodeError as exc:
                raise TLVError("invalid UTF-8 string") from exc
        return pos + size
    if pos + size > n:
        raise TLVError("truncated value")
    return pos + size


# ----------------------------------------------------------------------------- typed field access
# Each accessor returns None only when optional=True (a required member that is absent raises TLVError); the
# overloads say so to the type checker.


@overload
def field_struct(container: object, tag: int, *, optional: Literal[False] = False) -> dict[Any, Any]: ...
@overload
def field_struct(container: object, tag: int, *, optional: bool) -> dict[Any, Any] | None: ...
def field_struct(container: object, tag: int, *, optional: bool = False) -> dict[Any, Any] | None:
    """Member ``tag`` of a decoded structure, required to be a structure."""
    value = _member(container, tag, optional)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TLVError(f"field {tag}: expected a structure")
    return value


@overload
def field_bytes(
    container: object,
    tag: int,
    *,
    length: int | None = None,
    max_length: int | None = None,
    optional: Literal[False] = False,
) -> bytes: ...
@overload
def field_bytes(
    container: object, tag: int, *, length: int | None = None, max_length: int | None = None, optional: bool
) -> bytes | None: ...
def field_bytes(
    container: object, tag: int, *, length: int | None = None, max_length: int | None = None, optional: bool = False
) -> bytes | None:
    """Member ``tag`` as an octet string, optionally of an exact or maximal length."""
    value = _member(container, tag, optional)
    if value is None:
        return None
    if not isinstance(value, bytes):
        raise TLVError(f"field {tag}: expected an octet string")
    if length is not None and len(value) != length:
        raise TLVError(f"field {tag}: expected {length} bytes, got {len(value)}")
    if max_length is not None and len(value) > max_length:
        raise TLVError(f"field {tag}: longer than {max_length} bytes")
    return value


@overload
def field_uint(
    container: object, tag: int, *, maximum: int = 0xFFFFFFFFFFFFFFFF, optional: Literal[False] = False
) -> int: ...
@overload
def field_uint(container: object, tag: int, *, maximum: int = 0xFFFFFFFFFFFFFFFF, optional: bool) -> int | None: ...
def field_uint(container: object, tag: int, *, maximum: int = 0xFFFFFFFFFFFFFFFF, optional: bool = False) -> int | None:
    """Member ``tag`` as an unsigned integer no larger than ``maximum``."""
    value = _member(container, tag, optional)
    if value is None:
        return None
    if not isinstance(value, uint) or isinstance(value, bool):
        raise TLVError(f"field {tag}: expected an unsigned integer")
    if value > maximum:
        raise TLVError(f"field {tag}: {value} exceeds {maximum}")
    return int(value)


@overload
def field_bool(container: object, tag: int, *, optional: Literal[False] = False) -> bool: ...
@overload
def field_bool(container: object, tag: int, *, optional: bool) -> bool | None: ...
def field_bool(container: object, tag: int, *, optional: bool = False) -> bool | None:
    """Member ``tag`` as a boolean."""
    value = _member(container, tag, optional)
    if value is None:
        return None
    if not isinstance(value, bool):
        raise TLVError(f"field {tag}: expected a boolean")
    return value


def _member(container: object, tag: int, optional: bool) -> Any:
    if not isinstance(container, dict):
        raise TLVError("expected a structure")
    value = container.get(tag)
    if value is None and not optional:
        # Absent and TLV-null both mean "not given"; a required field must be given.
        raise TLVError(f"missing field {tag}")
    return value
