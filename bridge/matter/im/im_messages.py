"""Interaction Model messages (Matter core spec §10.6/§10.7) as declarative field tables.

Every message and IB is a frozen dataclass whose fields name their TLV context tag and type
(:mod:`bridge.matter.codec.tlv_schema`); one generic :func:`encode` / :func:`decode` pair serves them all.
Decoding goes through :func:`bridge.matter.codec.tlv.decode` (which rejects malformed TLV) and then checks
every field's type and range; anything wrong raises :class:`IMDecodeError` carrying the IM status a device
answers with (INVALID_ACTION for a malformed message), never another exception.

Pre-encoded pieces (attribute data written by :mod:`bridge.matter.codec.values_tlv`, report IBs built by the
chunker) are embedded as :class:`RawTLV` without re-encoding. Attribute, event and cluster paths are TLV
*lists*, as the spec requires. Messages are registered by opcode when their class is created.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, TypeVar

from bridge.matter.codec import tlv
from bridge.matter.codec.tlv_schema import (
    BOOL,
    ELEMENT,
    LIST,
    REQUIRED,
    U8,
    U16,
    U32,
    U64,
    ArrayOf,
    Group,
    OneOf,
    RawTLV,
    Record,
    SchemaError,
    TLVRecord,
    decode_record,
    encode_record,
    record,
    tag,
)
from bridge.matter.codec.values_tlv import encode_uint
from clusters import chip_model
from clusters.status import Status

__all__ = ["RawTLV"]  # re-exported: IM callers embed pre-encoded TLV with it

IM_REVISION = 11  # InteractionModelRevision of Matter 1.3
REVISION_TAG = 0xFF
_REVISION = encode_uint(IM_REVISION, REVISION_TAG)  # the last member of every IM message

# Global attribute ids (a cluster-wildcard path may only name one of these).
GLOBAL_ATTRIBUTE_IDS = frozenset(chip_model.GLOBAL_ATTRIBUTE_IDS.values())


class Opcode(IntEnum):
    STATUS_RESPONSE = 0x01
    READ_REQUEST = 0x02
    SUBSCRIBE_REQUEST = 0x03
    SUBSCRIBE_RESPONSE = 0x04
    REPORT_DATA = 0x05
    WRITE_REQUEST = 0x06
    WRITE_RESPONSE = 0x07
    INVOKE_REQUEST = 0x08
    INVOKE_RESPONSE = 0x09
    TIMED_REQUEST = 0x0A


class IMDecodeError(ValueError):
    """A request that cannot be parsed; ``status`` is what to answer (StatusResponse or per path)."""

    def __init__(self, message: str, status: Status = Status.INVALID_ACTION) -> None:
        super().__init__(message)
        self.status = status


# ============================================================================ paths and IBs
@record("AttributePathIB", LIST)
class AttributePath(TLVRecord):
    endpoint: int | None = tag(2, U16, default=None)
    cluster: int | None = tag(3, U32, default=None)
    attribute: int | None = tag(4, U32, default=None)
    node: int | None = tag(1, U64, default=None)
    # a concrete index (unsupported by Matter 1.x)
    list_index: int | None = tag(5, U16, null_sets="list_append", default=None)
    list_append: bool = False  # ListIndex present and null: "append this item"
    # checked, never written, not acted on
    enable_tag_compression: bool | None = tag(0, BOOL, hidden=True, default=None)

    @property
    def is_wildcard(self) -> bool:
        return self.endpoint is None or self.cluster is None or self.attribute is None


@record("EventPathIB", LIST)
class EventPath(TLVRecord):
    endpoint: int | None = tag(1, U16, default=None)
    cluster: int | None = tag(2, U32, default=None)
    event: int | None = tag(3, U32, default=None)
    node: int | None = tag(0, U64, default=None)
    urgent: bool = tag(4, BOOL, omit="falsy", default=False)

    @property
    def is_wildcard(self) -> bool:
        return self.endpoint is None or self.cluster is None or self.event is None


@record("CommandPathIB", LIST)
class CommandPath(TLVRecord):
    endpoint: int | None = tag(0, U16, default=REQUIRED, absent=None)
    cluster: int = tag(1, U32, required=True, default=REQUIRED)
    command: int = tag(2, U32, required=True, default=REQUIRED)


_CLUSTER_PATH = Group(0, LIST, "ClusterPathIB")
_STATUS = Group(1, 0x15, "StatusIB")


@record("DataVersionFilterIB")
class DataVersionFilter(TLVRecord):
    endpoint: int = tag(1, U16, required=True, default=REQUIRED, within=_CLUSTER_PATH)
    cluster: int = tag(2, U32, required=True, default=REQUIRED, within=_CLUSTER_PATH)
    data_version: int = tag(1, U32, required=True, default=REQUIRED)


@record("EventFilterIB")
class EventFilter(TLVRecord):
    event_min: int = tag(1, U64, required=True, default=REQUIRED)
    node: int | None = tag(0, U64, default=None)


@record("AttributeDataIB")
class AttributeData(TLVRecord):
    """``data`` is a decoded TLV object (or a RawTLV / chip TLV object to encode)."""

    path: AttributePath = tag(1, Record(AttributePath), required=True, default=REQUIRED)
    data: Any = tag(2, ELEMENT, required=True, default=REQUIRED, omit="never")
    data_version: int | None = tag(0, U32, default=None)


@record("AttributeStatusIB")
class AttributeStatus(TLVRecord):
    path: AttributePath = tag(0, Record(AttributePath), required=True, default=REQUIRED)
    status: int = tag(0, U8, required=True, default=REQUIRED, within=_STATUS)
    cluster_status: int | None = tag(1, U8, within=_STATUS, default=None)


@record("EventDataIB")
class EventData(TLVRecord):
    path: EventPath = tag(0, Record(EventPath), required=True, default=REQUIRED)
    event_number: int = tag(1, U64, required=True, default=REQUIRED)
    priority: int = tag(2, U8, required=True, default=REQUIRED)
    data: Any = tag(7, ELEMENT, omit="never", default=REQUIRED, absent=None)
    epoch_timestamp_ms: int | None = tag(3, U64, default=None)
    system_timestamp_ms: int | None = tag(4, U64, default=None)


@record("EventStatusIB")
class EventStatus(TLVRecord):
    path: EventPath = tag(0, Record(EventPath), required=True, default=REQUIRED)
    status: int = tag(0, U8, required=True, default=REQUIRED, within=_STATUS)
    cluster_status: int | None = tag(1, U8, within=_STATUS, default=None)


@record("CommandDataIB")
class CommandData(TLVRecord):
    path: CommandPath = tag(0, Record(CommandPath), required=True, default=REQUIRED)
    fields: Any = tag(1, ELEMENT, default=REQUIRED, absent=None)  # decoded TLV structure, RawTLV or None
    ref: int | None = tag(2, U16, default=None)


@record("CommandStatusIB")
class CommandStatus(TLVRecord):
    path: CommandPath = tag(0, Record(CommandPath), required=True, default=REQUIRED)
    status: int = tag(0, U8, required=True, default=REQUIRED, within=_STATUS)
    cluster_status: int | None = tag(1, U8, within=_STATUS, default=None)
    ref: int | None = tag(2, U16, default=None)


# Report IBs: a structure holding one of two IBs (the decoder tries the tags in this order).
ATTRIBUTE_REPORT_IB = OneOf("AttributeReportIB", (1, AttributeData), (0, AttributeStatus))
EVENT_REPORT_IB = OneOf("EventReportIB", (1, EventData), (0, EventStatus))
INVOKE_RESPONSE_IB = OneOf("InvokeResponseIB", (0, CommandData), (1, CommandStatus))


# ============================================================================ messages
MESSAGES: dict[int, type[TLVRecord]] = {}  # opcode → message class, filled as the classes are created
_M = TypeVar("_M", bound=TLVRecord)


def message(opcode: Opcode, name: str) -> Callable[[type[_M]], type[_M]]:
    """Class decorator: an IM message record (with the revision trailer) registered under ``opcode``."""

    def wrap(cls: type[_M]) -> type[_M]:
        if opcode in MESSAGES:
            raise TypeError(f"IM opcode {opcode.name} is taken by {MESSAGES[opcode].__name__}")
        made = record(name, trailer=_REVISION)(cls)
        made.opcode = opcode  # type: ignore[attr-defined]  # set here, on message records only
        MESSAGES[opcode] = made
        return made

    return wrap


_PATHS = ArrayOf(Record(AttributePath))
_EVENT_PATHS = ArrayOf(Record(EventPath))
_EVENT_FILTERS = ArrayOf(Record(EventFilter))
_DV_FILTERS = ArrayOf(Record(DataVersionFilter))


@message(Opcode.STATUS_RESPONSE, "StatusResponse")
class StatusResponse(TLVRecord):
    status: int = tag(0, U8, required=True, default=REQUIRED)


@message(Opcode.READ_REQUEST, "ReadRequest")
class ReadRequest(TLVRecord):
    attributes: tuple[AttributePath, ...] = tag(0, _PATHS, omit="falsy", default=())
    events: tuple[EventPath, ...] = tag(1, _EVENT_PATHS, omit="falsy", default=())
    event_filters: tuple[EventFilter, ...] = tag(2, _EVENT_FILTERS, omit="falsy", default=())
    fabric_filtered: bool = tag(3, BOOL, default=True)
    data_version_filters: tuple[DataVersionFilter, ...] = tag(4, _DV_FILTERS, omit="falsy", default=())


@message(Opcode.SUBSCRIBE_REQUEST, "SubscribeRequest")
class SubscribeRequest(TLVRecord):
    keep_subscriptions: bool = tag(0, BOOL, default=REQUIRED, absent=False)
    min_interval_floor: int = tag(1, U16, required=True, default=REQUIRED)
    max_interval_ceiling: int = tag(2, U16, required=True, default=REQUIRED)
    attributes: tuple[AttributePath, ...] = tag(3, _PATHS, omit="falsy", default=())
    events: tuple[EventPath, ...] = tag(4, _EVENT_PATHS, omit="falsy", default=())
    event_filters: tuple[EventFilter, ...] = tag(5, _EVENT_FILTERS, omit="falsy", default=())
    fabric_filtered: bool = tag(7, BOOL, default=True)
    data_version_filters: tuple[DataVersionFilter, ...] = tag(8, _DV_FILTERS, omit="falsy", default=())


@message(Opcode.SUBSCRIBE_RESPONSE, "SubscribeResponse")
class SubscribeResponse(TLVRecord):
    subscription_id: int = tag(0, U32, required=True, default=REQUIRED)
    max_interval: int = tag(2, U16, required=True, default=REQUIRED)


@message(Opcode.REPORT_DATA, "ReportData")
class ReportData(TLVRecord):
    subscription_id: int | None = tag(0, U32, default=None)
    # Encoding also takes the IBs pre-encoded, as one RawTLV (the chunker's).
    attribute_reports: tuple[AttributeData | AttributeStatus | RawTLV, ...] | RawTLV = tag(
        1, ArrayOf(ATTRIBUTE_REPORT_IB), omit="falsy", default=(), presence="has_attribute_reports"
    )
    event_reports: tuple[EventData | EventStatus | RawTLV, ...] | RawTLV = tag(
        2, ArrayOf(EVENT_REPORT_IB), omit="falsy", default=()
    )
    more_chunked: bool = tag(3, BOOL, omit="falsy", default=False)
    suppress_response: bool = tag(4, BOOL, omit="falsy", default=False)
    has_attribute_reports: bool = False  # the AttributeReportIBs array was present (even empty)


@message(Opcode.WRITE_REQUEST, "WriteRequest")
class WriteRequest(TLVRecord):
    writes: tuple[AttributeData, ...] = tag(
        2, ArrayOf(Record(AttributeData)), required=True, default=REQUIRED, omit="never"
    )
    timed_request: bool = tag(1, BOOL, default=False)
    suppress_response: bool = tag(0, BOOL, default=False)
    more_chunked: bool = tag(3, BOOL, omit="falsy", default=False)


@message(Opcode.WRITE_RESPONSE, "WriteResponse")
class WriteResponse(TLVRecord):
    statuses: tuple[AttributeStatus, ...] = tag(
        0, ArrayOf(Record(AttributeStatus)), omit="never", default=REQUIRED, absent=()
    )


@message(Opcode.INVOKE_REQUEST, "InvokeRequest")
class InvokeRequest(TLVRecord):
    invokes: tuple[CommandData, ...] = tag(
        2, ArrayOf(Record(CommandData)), required=True, default=REQUIRED, omit="never"
    )
    timed_request: bool = tag(1, BOOL, default=False)
    suppress_response: bool = tag(0, BOOL, default=False)


@message(Opcode.INVOKE_RESPONSE, "InvokeResponse")
class InvokeResponse(TLVRecord):
    responses: tuple[CommandData | CommandStatus, ...] = tag(
        1, ArrayOf(INVOKE_RESPONSE_IB), omit="never", default=REQUIRED, absent=()
    )
    suppress_response: bool = tag(0, BOOL, default=False)
    more_chunked: bool = tag(2, BOOL, omit="falsy", default=False)


@message(Opcode.TIMED_REQUEST, "TimedRequest")
class TimedRequest(TLVRecord):
    timeout_ms: int = tag(0, U16, required=True, default=REQUIRED)


# Bytes a ReportData adds around its IBs (struct, subscription id, two arrays, flags, revision).
REPORT_OVERHEAD = 1 + 6 + 3 + 3 + 2 + 2 + 3 + 1


# ============================================================================ encode / decode
def encode(item: object, tag: int | None = None) -> bytes:
    """A message (anonymous) or an IB (with context ``tag``) as TLV bytes."""
    return encode_record(item, tag)


_T = TypeVar("_T", bound=TLVRecord)


def decode(cls: type[_T], payload: bytes) -> _T:
    """``payload`` as record ``cls``; :class:`IMDecodeError` for anything malformed."""
    try:
        value = tlv.decode(payload)
    except tlv.TLVError as exc:
        raise IMDecodeError(f"malformed TLV: {exc}") from None
    if not isinstance(value, dict) and cls.tlv_kind != LIST:
        raise IMDecodeError("an IM message must be a TLV structure")
    try:
        return decode_record(cls, value)
    except SchemaError as exc:
        raise IMDecodeError(str(exc)) from None


@dataclass
class Decoded:
    """Result of :func:`decode_any`: the opcode's message, for tests and logging."""

    opcode: int
    message: Any = field(default=None)


def decode_any(opcode: int, payload: bytes) -> Decoded:
    """Decode any IM message by opcode (IMDecodeError for unknown opcodes or bad payloads)."""
    cls = MESSAGES.get(opcode)
    if cls is None:
        raise IMDecodeError(f"unknown IM opcode 0x{opcode:02x}")
    return Decoded(opcode, decode(cls, payload))
