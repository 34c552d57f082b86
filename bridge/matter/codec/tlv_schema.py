"""Declarative TLV records: one field table per structure drives both its encoder and its decoder.

A record is a frozen dataclass whose fields carry their TLV context tag and codec (:func:`tag`); the class
says whether it is a TLV structure or a TLV list (``tlv_kind``) and names itself for error messages
(``tlv_name``). :func:`encode_record` writes the members in table order (tags ascend, checked when the class
is created), :func:`decode_record` checks every member's type and range and raises :class:`SchemaError` only.

Encoding writes bytes directly (:mod:`bridge.matter.codec.values_tlv`) so that pre-encoded pieces
(:class:`RawTLV`) are embedded without re-encoding — the way matter.js's ``TlvObject`` schemas do both
directions from one declaration.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar, Literal, TypeVar, dataclass_transform

from chip.tlv import TLVList

from bridge.matter.codec import tlv
from bridge.matter.codec.values_tlv import encode_bool, encode_bytes, encode_null, encode_uint, head, retag

STRUCT, ARRAY, LIST = 0x15, 0x16, 0x17
_END = b"\x18"

Omit = Literal["none", "falsy", "never"]


class SchemaError(ValueError):
    """The decoded TLV does not match the record's field table."""


@dataclasses.dataclass(frozen=True)
class RawTLV:
    """An already-encoded anonymous TLV element, embedded as is (re-tagged) by the encoders."""

    data: bytes


def container(kind: int, tag: int | None, members: Sequence[bytes] | Iterator[bytes]) -> bytes:
    return head(kind, tag) + b"".join(members) + _END


# ============================================================================ codecs
class UInt:
    """An unsigned integer no larger than ``maximum``."""

    def __init__(self, maximum: int) -> None:
        self.maximum = maximum

    def encode(self, value: Any, tag: int | None) -> bytes:
        return encode_uint(int(value), tag)

    def decode(self, value: object, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= self.maximum:
            raise SchemaError(f"{what} must be an unsigned integer <= {self.maximum}")
        return int(value)


U8, U16, U32, U64 = UInt(0xFF), UInt(0xFFFF), UInt(0xFFFFFFFF), UInt(2**64 - 1)


class Octets:
    """An octet string of exactly ``length`` bytes, or at most ``max_length`` (None: any length)."""

    def __init__(self, length: int | None = None, *, max_length: int | None = None) -> None:
        self.length = length
        self.max_length = max_length

    def encode(self, value: Any, tag: int | None) -> bytes:
        return encode_bytes(bytes(value), tag)

    def decode(self, value: Any, what: str) -> bytes:
        if not isinstance(value, bytes):
            raise SchemaError(f"{what} must be an octet string")
        if self.length is not None and len(value) != self.length:
            raise SchemaError(f"{what} must be {self.length} bytes, not {len(value)}")
        if self.max_length is not None and len(value) > self.max_length:
            raise SchemaError(f"{what} must be at most {self.max_length} bytes, not {len(value)}")
        return value


OCTETS = Octets()


class Bool:
    def encode(self, value: object, tag: int | None) -> bytes:
        return encode_bool(bool(value), tag)

    def decode(self, value: object, what: str) -> bool:
        if not isinstance(value, bool):
            raise SchemaError(f"{what} must be a boolean")
        return value


BOOL = Bool()


class Element:
    """Any one TLV element, kept as decoded (dict/list/TLVList/scalars); a RawTLV is embedded as is."""

    def encode(self, value: object, tag: int | None) -> bytes:
        encoded = value.data if isinstance(value, RawTLV) else tlv.encode(value, ints_unsigned=False)
        return encoded if tag is None else retag(encoded, tag)

    def decode(self, value: object, what: str) -> Any:
        return value


ELEMENT = Element()


class Record:
    """A nested record (a structure or a list, as its class declares)."""

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def encode(self, value: object, tag: int | None) -> bytes:
        if isinstance(value, RawTLV):
            return ELEMENT.encode(value, tag)
        return encode_record(value, tag)

    def decode(self, value: object, what: str) -> Any:
        return decode_record(self.cls, value)


class ArrayOf:
    """A TLV array of anonymous items of one codec, as a tuple (or, to encode, a RawTLV of items already
    encoded one after the other: a report's IBs are, and re-wrapping each would cost a big read dearly)."""

    def __init__(self, item: Any) -> None:
        self.item = item

    def encode(self, value: Any, tag: int | None) -> bytes:
        if isinstance(value, RawTLV):
            return head(ARRAY, tag) + value.data + _END
        encode_item = self.item.encode
        return container(ARRAY, tag, [encode_item(v, None) for v in value])

    def decode(self, value: Any, what: str) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise SchemaError(f"{what} must be an array")
        return tuple(self.item.decode(v, what) for v in value)


class OneOf:
    """A structure holding exactly one of several records, each under its own tag (a report IB).

    ``choices`` are (tag, record class) in the order a decoder tries them."""

    def __init__(self, name: str, *choices: tuple[int, type]) -> None:
        self.name = name
        self.choices = choices

    def encode(self, value: object, tag: int | None) -> bytes:
        if isinstance(value, RawTLV):
            return ELEMENT.encode(value, tag)
        for choice_tag, cls in self.choices:
            if isinstance(value, cls):
                return container(STRUCT, tag, [encode_record(value, choice_tag)])
        raise TypeError(f"{self.name} holds {', '.join(c.__name__ for _, c in self.choices)}, not {value!r}")

    def decode(self, value: object, what: str) -> Any:
        if not isinstance(value, dict):
            raise SchemaError(f"{self.name} must be a structure")
        for choice_tag, cls in self.choices:
            if choice_tag in value:
                return decode_record(cls, value[choice_tag])
        raise SchemaError(f"empty {self.name}")


# ============================================================================ field tables
@dataclasses.dataclass(frozen=True)
class Group:
    """A nested container whose members are flattened into the record (StatusIB in a status IB)."""

    tag: int
    kind: int
    name: str


@dataclasses.dataclass(frozen=True)
class FieldSpec:
    name: str
    tag: int
    codec: Any
    required: bool
    omit: Omit  # when the encoder leaves the member out: None, falsy (flags, empty arrays) or never
    null_sets: str | None  # a present TLV null sets this boolean field instead (ListIndex null = append)
    presence: str | None  # a boolean field recording whether the member was there (written even if empty)
    within: Group | None
    absent: Any  # the value a decoder gives when the member is missing (NO_VALUE: the dataclass default)


NO_VALUE = object()


def tag(
    number: int,
    codec: object,
    *,
    required: bool = False,
    omit: Omit = "none",
    default: object = None,
    absent: object = NO_VALUE,
    null_sets: str | None = None,
    presence: str | None = None,
    within: Group | None = None,
    hidden: bool = False,
) -> Any:
    """A record field with its TLV context tag and codec.

    ``default`` is the constructor's (REQUIRED: a positional field), ``absent`` what decoding a message that
    lacks the member gives when that differs; ``hidden`` keeps the field out of repr and equality."""
    meta = {"tlv": (number, codec, required, omit, null_sets, presence, within, absent)}
    if isinstance(default, tuple | list):
        return dataclasses.field(default=tuple(default), metadata=meta, repr=not hidden, compare=not hidden)
    if default is dataclasses.MISSING:
        return dataclasses.field(metadata=meta, repr=not hidden, compare=not hidden)
    return dataclasses.field(default=default, metadata=meta, repr=not hidden, compare=not hidden)


REQUIRED = dataclasses.MISSING


# dataclass_transform: the type checker sees every record's dataclass constructor (which @record makes). It reads
# a tag() without default= as a required argument, so every optional member spells its default out.
@dataclass_transform(frozen_default=True, field_specifiers=(tag, dataclasses.field))
class TLVRecord:
    """Base of declarative records: subclasses are frozen dataclasses with :func:`tag` fields."""

    tlv_name: ClassVar[str]
    tlv_kind: ClassVar[int] = STRUCT
    tlv_fields: ClassVar[tuple[FieldSpec, ...]] = ()
    tlv_trailer: ClassVar[bytes] = b""  # members every encoding ends with (the IM revision)

    @classmethod
    def _build_table(cls) -> None:
        specs = []
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]  # a dataclass once @record ran
            if "tlv" in f.metadata:
                number, codec, required, omit, null_sets, presence, within, absent = f.metadata["tlv"]
                specs.append(FieldSpec(f.name, number, codec, required, omit, null_sets, presence, within, absent))
                if not required and absent is NO_VALUE and f.default is dataclasses.MISSING:
                    raise TypeError(f"{cls.__name__}.{f.name}: an optional member of a positional field needs absent=")
        # Members are written in ascending tag order (the canonical order), whatever the constructor's order.
        specs.sort(key=lambda spec: (spec.within.tag, spec.tag) if spec.within else (spec.tag, -1))
        _check_table(cls, specs)
        cls.tlv_fields = tuple(specs)


def _check_table(cls: type[TLVRecord], specs: list[FieldSpec]) -> None:
    """No tag twice in one container; flag fields exist."""
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]  # a dataclass once @record ran
    seen: dict[Group | None, set[int]] = {None: set()}
    for spec in specs:
        if spec.within is not None and spec.within not in seen:
            if spec.within.tag in seen[None]:
                raise TypeError(f"{cls.__name__}: tag {spec.within.tag} used twice")
            seen[None].add(spec.within.tag)
            seen[spec.within] = set()
        if spec.tag in seen[spec.within]:
            raise TypeError(f"{cls.__name__}: tag {spec.tag} used twice")
        seen[spec.within].add(spec.tag)
        for flag in (spec.null_sets, spec.presence):
            if flag is not None and flag not in names:
                raise TypeError(f"{cls.__name__}.{spec.name}: no field {flag!r}")


_R = TypeVar("_R", bound=TLVRecord)


def record(name: str, kind: int = STRUCT, trailer: bytes = b"") -> Callable[[type[_R]], type[_R]]:
    """Class decorator: a frozen dataclass record named ``name`` whose field table is checked now."""

    def wrap(cls: type[_R]) -> type[_R]:
        cls = dataclasses.dataclass(frozen=True)(cls)
        cls.tlv_name, cls.tlv_kind, cls.tlv_trailer = name, kind, trailer
        cls._build_table()
        return cls

    return wrap


# ============================================================================ encode / decode
def _omitted(spec: FieldSpec, value: object, item: object) -> bool:
    if spec.presence is not None and getattr(item, spec.presence):
        return False
    if spec.omit == "none":
        return value is None
    if spec.omit == "falsy":
        return not value
    return False


def _member(spec: FieldSpec, item: object) -> bytes:
    value = getattr(item, spec.name)
    if spec.null_sets is not None and getattr(item, spec.null_sets):
        return encode_null(spec.tag)
    if _omitted(spec, value, item):
        return b""
    encoded: bytes = spec.codec.encode(value, spec.tag)
    return encoded


def encode_record(item: Any, tag: int | None = None) -> bytes:
    """``item`` (a record) as one TLV element with context tag ``tag`` (None: anonymous)."""
    members: list[bytes] = []
    group: Group | None = None
    inner: list[bytes] = []
    for spec in type(item).tlv_fields:
        if spec.within is not group:
            if group is not None:
                members.append(container(group.kind, group.tag, inner))
            group, inner = spec.within, []
        (inner if group is not None else members).append(_member(spec, item))
    if group is not None:
        members.append(container(group.kind, group.tag, inner))
    if type(item).tlv_trailer:
        members.append(type(item).tlv_trailer)
    return container(type(item).tlv_kind, tag, members)


def _members(value: object, kind: int, what: str) -> dict[Any, Any]:
    """A decoded container as tag → value: a structure, or (for list records) a TLV list with unique tags."""
    if isinstance(value, dict):
        return value
    if kind == LIST and isinstance(value, TLVList):
        out: dict[int, Any] = {}
        for member_tag, member in value:
            if member_tag is None or member_tag in out:
                raise SchemaError(f"{what}: anonymous or repeated tag")
            out[member_tag] = member
        return out
    raise SchemaError(f"{what} must be a {'TLV list' if kind == LIST else 'structure'}")


def decode_record(cls: type[_R], value: object) -> _R:
    """A decoded TLV element (from :func:`bridge.matter.codec.tlv.decode`) as record ``cls``."""
    name = cls.tlv_name
    members = _members(value, cls.tlv_kind, name)
    groups: dict[Group, dict[Any, Any]] = {}
    kwargs: dict[str, Any] = {}
    for spec in cls.tlv_fields:
        source = members
        if spec.within is not None:
            grouped = groups.get(spec.within)
            if grouped is None:
                if spec.within.tag not in members:
                    raise SchemaError(f"{name}: missing {spec.within.name} (field {spec.within.tag})")
                grouped = groups[spec.within] = _members(members[spec.within.tag], spec.within.kind, spec.within.name)
            source = grouped
        what = f"{spec.within.name if spec.within else name} field {spec.tag}"
        if spec.presence is not None:
            kwargs[spec.presence] = spec.tag in source
        if spec.tag not in source:
            if spec.required:
                raise SchemaError(f"{name}: missing field {spec.tag}")
            if spec.absent is not NO_VALUE:
                kwargs[spec.name] = spec.absent
            continue
        raw = source[spec.tag]
        if raw is None and spec.null_sets is not None:
            kwargs[spec.null_sets] = True
            continue
        kwargs[spec.name] = spec.codec.decode(raw, what)
    return cls(**kwargs)
