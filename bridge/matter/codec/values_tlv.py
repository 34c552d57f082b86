"""JSON-style attribute/field values ↔ Matter TLV, typed by the official chip types (``TypeInfo``).

Values inside the emulator are plain JSON data (structs as dicts keyed by chip lowerCamel labels,
enums/bitmaps as ints, octet strings as hex text); on the wire they are TLV with the chip field tags.

Encoding is on the hot path of every report (a wildcard read of a 1,000-device home encodes ~10^5
values), so :func:`encoder` compiles one small closure per type that writes TLV bytes directly
instead of building ``chip.tlv`` objects first. Decoding takes the Python objects that
:func:`bridge.matter.codec.tlv.decode` (the checked ``chip.tlv`` reader) produces and checks them against the
type; any mismatch is a ``HomeError`` with the caller's status (INVALID_DATA_TYPE for writes,
INVALID_COMMAND for command fields).
"""

from __future__ import annotations

import functools
import math
import struct
from collections.abc import Callable
from typing import Any

from chip.tlv import float32, uint

from clusters.chip_model import TypeInfo
from clusters.status import HomeError, Status

Encoder = Callable[[Any, "int | None"], bytes]

# Element types (Matter core spec appendix A.7).
_INT1, _UINT1, _FALSE, _TRUE, _FLOAT, _DOUBLE = 0x00, 0x04, 0x08, 0x09, 0x0A, 0x0B
_UTF8_1, _BYTES_1, _NULL, _STRUCT, _ARRAY, _END = 0x0C, 0x10, 0x14, 0x15, 0x16, 0x18
_CONTEXT = 0x20


def head(element_type: int, tag: int | None) -> bytes:
    """Control byte (+ one-byte context tag) of an element; ``tag`` None means anonymous."""
    if tag is None:
        return bytes((element_type,))
    return bytes((element_type | _CONTEXT, tag))


def encode_uint(value: int, tag: int | None = None) -> bytes:
    if value < 0x100:  # the common case, built in one go (wildcard reads encode ~100 of these per device)
        return bytes((_UINT1, value)) if tag is None else bytes((_UINT1 | _CONTEXT, tag, value))
    if value < 0x10000:
        return head(_UINT1 + 1, tag) + value.to_bytes(2, "little")
    if value < 0x100000000:
        return head(_UINT1 + 2, tag) + value.to_bytes(4, "little")
    return head(_UINT1 + 3, tag) + value.to_bytes(8, "little")


def encode_int(value: int, tag: int | None = None) -> bytes:
    if -0x80 <= value < 0x80:
        return head(_INT1, tag) + value.to_bytes(1, "little", signed=True)
    if -0x8000 <= value < 0x8000:
        return head(_INT1 + 1, tag) + value.to_bytes(2, "little", signed=True)
    if -0x80000000 <= value < 0x80000000:
        return head(_INT1 + 2, tag) + value.to_bytes(4, "little", signed=True)
    return head(_INT1 + 3, tag) + value.to_bytes(8, "little", signed=True)


def encode_bool(value: bool, tag: int | None = None) -> bytes:
    return head(_TRUE if value else _FALSE, tag)


def encode_str(value: str, tag: int | None = None) -> bytes:
    return _sized(_UTF8_1, value.encode("utf-8"), tag)


def encode_bytes(value: bytes, tag: int | None = None) -> bytes:
    return _sized(_BYTES_1, value, tag)


def encode_null(tag: int | None = None) -> bytes:
    return head(_NULL, tag)


def _sized(first_type: int, data: bytes, tag: int | None) -> bytes:
    n = len(data)
    if n < 0x100:
        return head(first_type, tag) + bytes((n,)) + data
    if n < 0x10000:
        return head(first_type + 1, tag) + n.to_bytes(2, "little") + data
    return head(first_type + 2, tag) + n.to_bytes(4, "little") + data


def retag(anonymous: bytes, tag: int) -> bytes:
    """The same element with a one-byte context tag instead of none (used when splitting lists)."""
    return bytes((anonymous[0] | _CONTEXT, tag)) + anonymous[1:]


# ----------------------------------------------------------------------------- encoding
def _hex_bytes(value: Any) -> bytes:
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    return bytes.fromhex(value)


@functools.cache
def encoder(info: TypeInfo) -> Encoder:
    """A function ``(json_value, tag) -> TLV bytes`` for values of type ``info`` (cached per type)."""
    base_encoder = _base_encoder(info)
    if not info.nullable:
        return base_encoder

    def nullable(value: object, tag: int | None) -> bytes:
        return head(_NULL, tag) if value is None else base_encoder(value, tag)

    return nullable


def _base_encoder(info: TypeInfo) -> Encoder:
    base = info.base
    if info.is_list:
        element = encoder(info.element)

        def array(value: Any, tag: int | None) -> bytes:
            return head(_ARRAY, tag) + b"".join(element(item, None) for item in value) + b"\x18"

        return array
    if info.is_struct:
        compiled = [(f.label, f.tag, encoder(f.type), f.type.optional, f.type.nullable) for f in info.struct_fields]

        def structure(value: Any, tag: int | None) -> bytes:
            parts = [head(_STRUCT, tag)]
            for label, field_tag, enc, optional, nullable in compiled:
                item = value.get(label)
                if item is None:
                    if nullable and not (optional and label not in value):
                        parts.append(head(_NULL, field_tag))  # required-but-nullable fields go on the wire
                    elif not optional:
                        raise ValueError(f"struct {info.name} lacks required field {label!r}")
                    continue
                parts.append(enc(item, field_tag))
            parts.append(b"\x18")
            return b"".join(parts)

        return structure
    if info.is_enum or info.is_bitmap or base is uint:
        return lambda value, tag: encode_uint(int(value), tag)
    if base is bool:
        return lambda value, tag: encode_bool(bool(value), tag)
    if base is int:
        return lambda value, tag: encode_int(int(value), tag)
    if base is float32:
        return lambda value, tag: head(_FLOAT, tag) + struct.pack("<f", value)
    if base is float:
        return lambda value, tag: head(_DOUBLE, tag) + struct.pack("<d", value)
    if base is str:
        return lambda value, tag: encode_str(value, tag)
    if base is bytes:
        return lambda value, tag: encode_bytes(_hex_bytes(value), tag)
    raise TypeError(f"no TLV encoding for {info.describe()}")


def encode_value(value: object, info: TypeInfo, tag: int | None = None) -> bytes:
    """TLV bytes of one JSON-style value of type ``info`` (anonymous unless ``tag`` is given)."""
    return encoder(info)(value, tag)


def encode_fields(fields: Any, values: dict[str, Any] | None, tag: int | None = None) -> bytes:
    """A command's (or event's) fields as one TLV structure; ``fields`` are chip_model FieldModels."""
    values = values or {}
    parts = [head(_STRUCT, tag)]
    for f in fields:
        item = values.get(f.label)
        if item is None:
            if f.type.nullable and not (f.type.optional and f.label not in values):
                parts.append(head(_NULL, f.tag))
            elif not f.type.optional:
                raise ValueError(f"missing required field {f.label!r}")
            continue
        parts.append(encoder(f.type)(item, f.tag))
    parts.append(b"\x18")
    return b"".join(parts)


# ----------------------------------------------------------------------------- decoding
FABRIC_INDEX_TAG = 0xFE


def decode_value(
    obj: object,
    info: TypeInfo,
    what: str = "value",
    *,
    status: Status = Status.INVALID_DATA_TYPE,
    fabric_index: int | None = None,
) -> Any:
    """The JSON-style value of a decoded TLV object, checked against ``info``; HomeError.refused(status) if not.

    ``fabric_index``: the accessing fabric of a write/invoke; fabric-scoped structs get it as their
    FabricIndex (tag 0xFE) whatever the client sent, as the spec requires (§7.13.6).
    """
    if obj is None:
        if info.nullable:
            return None
        raise HomeError.refused(status, f"{what} may not be null")
    base = info.base
    if info.is_list:
        if not isinstance(obj, list):
            raise HomeError.refused(status, f"{what} must be an array")
        element = info.element
        return [
            decode_value(item, element, f"{what}[{i}]", status=status, fabric_index=fabric_index)
            for i, item in enumerate(obj)
        ]
    if info.is_struct:
        if not isinstance(obj, dict):
            raise HomeError.refused(status, f"{what} must be a structure")
        out: dict[str, Any] = {}
        for field in info.struct_fields:
            finfo = field.type
            if field.tag == FABRIC_INDEX_TAG and fabric_index is not None:
                out[field.label] = fabric_index
            elif field.tag in obj:
                out[field.label] = decode_value(
                    obj[field.tag], finfo, f"{what}.{field.label}", status=status, fabric_index=fabric_index
                )
            elif not finfo.optional:
                raise HomeError.refused(status, f"{what} lacks field {field.label!r} (tag {field.tag})")
        return out
    if info.is_enum or info.is_bitmap or base is uint:
        if isinstance(obj, bool) or not isinstance(obj, int) or obj < 0:
            raise HomeError.refused(status, f"{what} must be an unsigned integer")
        return int(obj)
    if base is int:
        if isinstance(obj, bool) or not isinstance(obj, int):
            raise HomeError.refused(status, f"{what} must be an integer")
        return int(obj)
    if base is bool:
        if not isinstance(obj, bool):
            raise HomeError.refused(status, f"{what} must be a boolean")
        return obj
    if base in (float32, float):
        if isinstance(obj, bool) or not isinstance(obj, int | float) or not math.isfinite(obj):
            raise HomeError.refused(status, f"{what} must be a finite number")
        return float(obj)
    if base is str:
        if not isinstance(obj, str):
            raise HomeError.refused(status, f"{what} must be a UTF-8 string")
        return obj
    if base is bytes:
        if not isinstance(obj, bytes):
            raise HomeError.refused(status, f"{what} must be an octet string")
        return obj.hex()
    raise HomeError.refused(status, f"{what}: unsupported type {info.describe()}")


def decode_fields(
    fields: Any, obj: Any, what: str, *, status: Status = Status.INVALID_COMMAND, fabric_index: int | None = None
) -> dict[str, Any]:
    """A command's fields (a decoded TLV structure) → dict label → JSON value; unknown tags are ignored."""
    if obj is None:
        obj = {}
    if not isinstance(obj, dict):
        raise HomeError.refused(status, f"{what}: command fields must be a structure")
    out: dict[str, Any] = {}
    for f in fields:
        if f.tag in obj:
            out[f.label] = decode_value(
                obj[f.tag], f.type, f"{what}.{f.label}", status=status, fabric_index=fabric_index
            )
    return out
