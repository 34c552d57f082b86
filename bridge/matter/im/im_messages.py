"""Interaction Model messages (Matter core spec §10.6/§10.7): typed decode and encode.

Decoding goes through :func:`bridge.matter.codec.tlv.decode` (which rejects malformed TLV) and then checks
every field's type and range; anything wrong raises :class:`IMDecodeError` carrying the IM status a
device answers with (INVALID_ACTION for a malformed message), never another exception.

Encoding writes bytes directly with a tiny writer so that pre-encoded pieces (attribute data written
by :mod:`bridge.matter.codec.values_tlv`, report IBs built by the chunker) can be embedded without
re-encoding. Attribute, event and cluster paths are TLV *lists*, as the spec requires.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from chip.tlv import TLVList

from bridge.matter.codec import tlv
from bridge.matter.codec.values_tlv import encode_bool, encode_null, encode_uint, head, retag
from clusters import chip_model
from clusters.status import Status

IM_REVISION = 11  # InteractionModelRevision of Matter 1.3
REVISION_TAG = 0xFF

_STRUCT, _ARRAY, _LIST, _END = 0x15, 0x16, 0x17, b"\x18"

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


@dataclass(frozen=True)
class RawTLV:
    """An already-encoded anonymous TLV element, embedded as is (re-tagged) by the encoders."""

    data: bytes


# ============================================================================ paths and IBs
@dataclass(frozen=True)
class AttributePath:
    endpoint: int | None = None
    cluster: int | None = None
    attribute: int | None = None
    node: int | None = None
    list_index: int | None = None  # a concrete list index (unsupported by Matter 1.x servers)
    list_append: bool = False  # ListIndex present and null: "append this item"

    @property
    def is_wildcard(self) -> bool:
        return self.endpoint is None or self.cluster is None or self.attribute is None


@dataclass(frozen=True)
class EventPath:
    endpoint: int | None = None
    cluster: int | None = None
    event: int | None = None
    node: int | None = None
    urgent: bool = False

    @property
    def is_wildcard(self) -> bool:
        return self.endpoint is None or self.cluster is None or self.event is None


@dataclass(frozen=True)
class CommandPath:
    endpoint: int | None
    cluster: int
    command: int


@dataclass(frozen=True)
class DataVersionFilter:
    endpoint: int
    cluster: int
    data_version: int


@dataclass(frozen=True)
class EventFilter:
    event_min: int
    node: int | None = None


@dataclass(frozen=True)
class AttributeData:
    """AttributeDataIB: ``data`` is a decoded TLV object (or a RawTLV / chip TLV object to encode)."""

    path: AttributePath
    data: Any
    data_version: int | None = None


@dataclass(frozen=True)
class AttributeStatus:
    path: AttributePath
    status: int
    cluster_status: int | None = None


@dataclass(frozen=True)
class EventData:
    path: EventPath
    event_number: int
    priority: int
    data: Any
    epoch_timestamp_ms: int | None = None
    system_timestamp_ms: int | None = None


@dataclass(frozen=True)
class EventStatus:
    path: EventPath
    status: int
    cluster_status: int | None = None


@dataclass(frozen=True)
class CommandData:
    path: CommandPath
    fields: Any  # decoded TLV structure (dict tag → value) or RawTLV / None
    ref: int | None = None


@dataclass(frozen=True)
class CommandStatus:
    path: CommandPath
    status: int
    cluster_status: int | None = None
    ref: int | None = None


# ============================================================================ messages
@dataclass(frozen=True)
class StatusResponse:
    status: int


@dataclass(frozen=True)
class ReadRequest:
    attributes: tuple[AttributePath, ...] = ()
    events: tuple[EventPath, ...] = ()
    event_filters: tuple[EventFilter, ...] = ()
    fabric_filtered: bool = True
    data_version_filters: tuple[DataVersionFilter, ...] = ()


@dataclass(frozen=True)
class SubscribeRequest:
    keep_subscriptions: bool
    min_interval_floor: int
    max_interval_ceiling: int
    attributes: tuple[AttributePath, ...] = ()
    events: tuple[EventPath, ...] = ()
    event_filters: tuple[EventFilter, ...] = ()
    fabric_filtered: bool = True
    data_version_filters: tuple[DataVersionFilter, ...] = ()


@dataclass(frozen=True)
class SubscribeResponse:
    subscription_id: int
    max_interval: int


@dataclass(frozen=True)
class ReportData:
    subscription_id: int | None = None
    attribute_reports: tuple[AttributeData | AttributeStatus, ...] = ()
    event_reports: tuple[EventData | EventStatus, ...] = ()
    more_chunked: bool = False
    suppress_response: bool = False
    has_attribute_reports: bool = False  # the AttributeReportIBs array was present (even empty)


@dataclass(frozen=True)
class WriteRequest:
    writes: tuple[AttributeData, ...]
    timed_request: bool = False
    suppress_response: bool = False
    more_chunked: bool = False


@dataclass(frozen=True)
class WriteResponse:
    statuses: tuple[AttributeStatus, ...]


@dataclass(frozen=True)
class InvokeRequest:
    invokes: tuple[CommandData, ...]
    timed_request: bool = False
    suppress_response: bool = False


@dataclass(frozen=True)
class InvokeResponse:
    responses: tuple[CommandData | CommandStatus, ...]
    suppress_response: bool = False
    more_chunked: bool = False


@dataclass(frozen=True)
class TimedRequest:
    timeout_ms: int


# ============================================================================ decoding helpers
def _root(payload: bytes) -> dict[Any, Any]:
    try:
        value = tlv.decode(payload)
    except tlv.TLVError as exc:
        raise IMDecodeError(f"malformed TLV: {exc}") from None
    if not isinstance(value, dict):
        raise IMDecodeError("an IM message must be a TLV structure")
    return value


def _uint(container: Any, tag: int, what: str, *, maximum: int, optional: bool = False,
          nullable: bool = False) -> int | None:
    if tag not in container:
        if optional:
            return None
        raise IMDecodeError(f"{what}: missing field {tag}")
    value = container[tag]
    if value is None and nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= maximum:
        raise IMDecodeError(f"{what}: field {tag} must be an unsigned integer <= {maximum}")
    return int(value)


def _bool(container: Any, tag: int, what: str, *, default: bool | None = None) -> bool:
    if tag not in container:
        if default is None:
            raise IMDecodeError(f"{what}: missing field {tag}")
        return default
    value = container[tag]
    if not isinstance(value, bool):
        raise IMDecodeError(f"{what}: field {tag} must be a boolean")
    return value


def _as_list_container(value: Any, what: str) -> dict[int, Any]:
    """A path IB (a TLV list; a structure is accepted too) as a tag → value dict."""
    if isinstance(value, dict):
        return value
    if not isinstance(value, TLVList):
        raise IMDecodeError(f"{what} must be a TLV list")
    out: dict[int, Any] = {}
    for tag, item in value:
        if tag is None or tag in out:
            raise IMDecodeError(f"{what}: anonymous or repeated tag")
        out[tag] = item
    return out


def _array(container: Any, tag: int, what: str) -> list[Any]:
    if tag not in container:
        return []
    value = container[tag]
    if not isinstance(value, list):
        raise IMDecodeError(f"{what}: field {tag} must be an array")
    return value


def _struct(value: Any, what: str) -> dict[Any, Any]:
    if not isinstance(value, dict):
        raise IMDecodeError(f"{what} must be a structure")
    return value


def parse_attribute_path(value: Any) -> AttributePath:
    p = _as_list_container(value, "AttributePathIB")
    if 0 in p and not isinstance(p[0], bool):
        raise IMDecodeError("AttributePathIB.EnableTagCompression must be a boolean")
    node = _uint(p, 1, "AttributePathIB", maximum=2**64 - 1, optional=True)
    endpoint = _uint(p, 2, "AttributePathIB", maximum=0xFFFF, optional=True)
    cluster = _uint(p, 3, "AttributePathIB", maximum=0xFFFFFFFF, optional=True)
    attribute = _uint(p, 4, "AttributePathIB", maximum=0xFFFFFFFF, optional=True)
    list_append = 5 in p and p[5] is None
    list_index = None if list_append else _uint(p, 5, "AttributePathIB", maximum=0xFFFF, optional=True)
    return AttributePath(endpoint, cluster, attribute, node, list_index, list_append)


def parse_event_path(value: Any) -> EventPath:
    p = _as_list_container(value, "EventPathIB")
    node = _uint(p, 0, "EventPathIB", maximum=2**64 - 1, optional=True)
    endpoint = _uint(p, 1, "EventPathIB", maximum=0xFFFF, optional=True)
    cluster = _uint(p, 2, "EventPathIB", maximum=0xFFFFFFFF, optional=True)
    event = _uint(p, 3, "EventPathIB", maximum=0xFFFFFFFF, optional=True)
    urgent = _bool(p, 4, "EventPathIB", default=False)
    return EventPath(endpoint, cluster, event, node, urgent)


def parse_command_path(value: Any) -> CommandPath:
    p = _as_list_container(value, "CommandPathIB")
    endpoint = _uint(p, 0, "CommandPathIB", maximum=0xFFFF, optional=True)
    cluster = _uint(p, 1, "CommandPathIB", maximum=0xFFFFFFFF)
    command = _uint(p, 2, "CommandPathIB", maximum=0xFFFFFFFF)
    assert cluster is not None and command is not None
    return CommandPath(endpoint, cluster, command)


def _parse_dv_filter(value: Any) -> DataVersionFilter:
    s = _struct(value, "DataVersionFilterIB")
    if 0 not in s:
        raise IMDecodeError("DataVersionFilterIB lacks its path")
    p = _as_list_container(s[0], "ClusterPathIB")
    endpoint = _uint(p, 1, "ClusterPathIB", maximum=0xFFFF)
    cluster = _uint(p, 2, "ClusterPathIB", maximum=0xFFFFFFFF)
    version = _uint(s, 1, "DataVersionFilterIB", maximum=0xFFFFFFFF)
    assert endpoint is not None and cluster is not None and version is not None
    return DataVersionFilter(endpoint, cluster, version)


def _parse_event_filter(value: Any) -> EventFilter:
    s = _struct(value, "EventFilterIB")
    node = _uint(s, 0, "EventFilterIB", maximum=2**64 - 1, optional=True)
    event_min = _uint(s, 1, "EventFilterIB", maximum=2**64 - 1)
    assert event_min is not None
    return EventFilter(event_min, node)


def _parse_status_ib(value: Any) -> tuple[int, int | None]:
    s = _struct(value, "StatusIB")
    status = _uint(s, 0, "StatusIB", maximum=0xFF)
    assert status is not None
    return status, _uint(s, 1, "StatusIB", maximum=0xFF, optional=True)


def _parse_attribute_data(value: Any) -> AttributeData:
    s = _struct(value, "AttributeDataIB")
    if 1 not in s or 2 not in s:
        raise IMDecodeError("AttributeDataIB needs a path and data")
    version = _uint(s, 0, "AttributeDataIB", maximum=0xFFFFFFFF, optional=True)
    return AttributeData(parse_attribute_path(s[1]), s[2], version)


def _parse_command_data(value: Any) -> CommandData:
    s = _struct(value, "CommandDataIB")
    if 0 not in s:
        raise IMDecodeError("CommandDataIB lacks its path")
    ref = _uint(s, 2, "CommandDataIB", maximum=0xFFFF, optional=True)
    return CommandData(parse_command_path(s[0]), s.get(1), ref)


def _paths_and_filters(m: dict[Any, Any], attr_tag: int, event_tag: int, filter_tag: int, dvf_tag: int,
                       ff_tag: int) -> dict[str, Any]:
    return {
        "attributes": tuple(parse_attribute_path(p) for p in _array(m, attr_tag, "AttributeRequests")),
        "events": tuple(parse_event_path(p) for p in _array(m, event_tag, "EventRequests")),
        "event_filters": tuple(_parse_event_filter(f) for f in _array(m, filter_tag, "EventFilters")),
        "fabric_filtered": _bool(m, ff_tag, "IsFabricFiltered", default=True),
        "data_version_filters": tuple(_parse_dv_filter(f) for f in _array(m, dvf_tag, "DataVersionFilters")),
    }


# ============================================================================ decoders
def decode_status_response(payload: bytes) -> StatusResponse:
    m = _root(payload)
    status = _uint(m, 0, "StatusResponse", maximum=0xFF)
    assert status is not None
    return StatusResponse(status)


def decode_read_request(payload: bytes) -> ReadRequest:
    return ReadRequest(**_paths_and_filters(_root(payload), 0, 1, 2, 4, 3))


def decode_subscribe_request(payload: bytes) -> SubscribeRequest:
    m = _root(payload)
    floor = _uint(m, 1, "SubscribeRequest", maximum=0xFFFF)
    ceiling = _uint(m, 2, "SubscribeRequest", maximum=0xFFFF)
    assert floor is not None and ceiling is not None
    return SubscribeRequest(_bool(m, 0, "SubscribeRequest", default=False), floor, ceiling,
                            **_paths_and_filters(m, 3, 4, 5, 8, 7))


def decode_subscribe_response(payload: bytes) -> SubscribeResponse:
    m = _root(payload)
    sub_id = _uint(m, 0, "SubscribeResponse", maximum=0xFFFFFFFF)
    max_interval = _uint(m, 2, "SubscribeResponse", maximum=0xFFFF)
    assert sub_id is not None and max_interval is not None
    return SubscribeResponse(sub_id, max_interval)


def decode_report_data(payload: bytes) -> ReportData:
    m = _root(payload)
    attribute_reports: list[AttributeData | AttributeStatus] = []
    for report in _array(m, 1, "AttributeReportIBs"):
        r = _struct(report, "AttributeReportIB")
        if 1 in r:
            attribute_reports.append(_parse_attribute_data(r[1]))
        elif 0 in r:
            s = _struct(r[0], "AttributeStatusIB")
            status, cluster_status = _parse_status_ib(s.get(1))
            attribute_reports.append(AttributeStatus(parse_attribute_path(s.get(0)), status, cluster_status))
        else:
            raise IMDecodeError("empty AttributeReportIB")
    event_reports: list[EventData | EventStatus] = []
    for report in _array(m, 2, "EventReportIBs"):
        r = _struct(report, "EventReportIB")
        if 1 in r:
            d = _struct(r[1], "EventDataIB")
            number = _uint(d, 1, "EventDataIB", maximum=2**64 - 1)
            priority = _uint(d, 2, "EventDataIB", maximum=0xFF)
            assert number is not None and priority is not None
            event_reports.append(EventData(parse_event_path(d.get(0)), number, priority, d.get(7),
                                           _uint(d, 3, "EventDataIB", maximum=2**64 - 1, optional=True),
                                           _uint(d, 4, "EventDataIB", maximum=2**64 - 1, optional=True)))
        elif 0 in r:
            s = _struct(r[0], "EventStatusIB")
            status, cluster_status = _parse_status_ib(s.get(1))
            event_reports.append(EventStatus(parse_event_path(s.get(0)), status, cluster_status))
        else:
            raise IMDecodeError("empty EventReportIB")
    return ReportData(_uint(m, 0, "ReportData", maximum=0xFFFFFFFF, optional=True), tuple(attribute_reports),
                      tuple(event_reports), _bool(m, 3, "ReportData", default=False),
                      _bool(m, 4, "ReportData", default=False), 1 in m)


def decode_write_request(payload: bytes) -> WriteRequest:
    m = _root(payload)
    if 2 not in m:
        raise IMDecodeError("WriteRequest lacks WriteRequests")
    writes = tuple(_parse_attribute_data(w) for w in _array(m, 2, "WriteRequests"))
    return WriteRequest(writes, _bool(m, 1, "WriteRequest", default=False), _bool(m, 0, "WriteRequest", default=False),
                        _bool(m, 3, "WriteRequest", default=False))


def decode_write_response(payload: bytes) -> WriteResponse:
    m = _root(payload)
    out = []
    for item in _array(m, 0, "WriteResponses"):
        s = _struct(item, "AttributeStatusIB")
        status, cluster_status = _parse_status_ib(s.get(1))
        out.append(AttributeStatus(parse_attribute_path(s.get(0)), status, cluster_status))
    return WriteResponse(tuple(out))


def decode_invoke_request(payload: bytes) -> InvokeRequest:
    m = _root(payload)
    if 2 not in m:
        raise IMDecodeError("InvokeRequest lacks InvokeRequests")
    invokes = tuple(_parse_command_data(c) for c in _array(m, 2, "InvokeRequests"))
    return InvokeRequest(invokes, _bool(m, 1, "InvokeRequest", default=False),
                         _bool(m, 0, "InvokeRequest", default=False))


def decode_invoke_response(payload: bytes) -> InvokeResponse:
    m = _root(payload)
    out: list[CommandData | CommandStatus] = []
    for item in _array(m, 1, "InvokeResponses"):
        r = _struct(item, "InvokeResponseIB")
        if 0 in r:
            out.append(_parse_command_data(r[0]))
        elif 1 in r:
            s = _struct(r[1], "CommandStatusIB")
            status, cluster_status = _parse_status_ib(s.get(1))
            out.append(CommandStatus(parse_command_path(s.get(0)), status, cluster_status,
                                     _uint(s, 2, "CommandStatusIB", maximum=0xFFFF, optional=True)))
        else:
            raise IMDecodeError("empty InvokeResponseIB")
    return InvokeResponse(tuple(out), _bool(m, 0, "InvokeResponse", default=False),
                          _bool(m, 2, "InvokeResponse", default=False))


def decode_timed_request(payload: bytes) -> TimedRequest:
    timeout = _uint(_root(payload), 0, "TimedRequest", maximum=0xFFFF)
    assert timeout is not None
    return TimedRequest(timeout)


# ============================================================================ encoding
def _element(value: Any, tag: int | None) -> bytes:
    """Any value as one TLV element: RawTLV embedded, bytes of chip TLV objects otherwise."""
    if isinstance(value, RawTLV):
        return value.data if tag is None else retag(value.data, tag)
    encoded = tlv.encode(value, ints_unsigned=False)
    return encoded if tag is None else retag(encoded, tag)


def _container(kind: int, tag: int | None, members: Iterable[bytes]) -> bytes:
    return head(kind, tag) + b"".join(members) + _END


def _opt_uint(tag: int, value: int | None) -> bytes:
    return b"" if value is None else encode_uint(value, tag)


def _message(members: Iterable[bytes]) -> bytes:
    return _container(_STRUCT, None, [*members, encode_uint(IM_REVISION, REVISION_TAG)])


def encode_attribute_path(path: AttributePath, tag: int | None) -> bytes:
    members = [_opt_uint(1, path.node), _opt_uint(2, path.endpoint), _opt_uint(3, path.cluster),
               _opt_uint(4, path.attribute)]
    if path.list_append:
        members.append(encode_null(5))
    elif path.list_index is not None:
        members.append(encode_uint(path.list_index, 5))
    return _container(_LIST, tag, members)


def encode_event_path(path: EventPath, tag: int | None) -> bytes:
    members = [_opt_uint(0, path.node), _opt_uint(1, path.endpoint), _opt_uint(2, path.cluster),
               _opt_uint(3, path.event)]
    if path.urgent:
        members.append(encode_bool(True, 4))
    return _container(_LIST, tag, members)


def encode_command_path(path: CommandPath, tag: int | None) -> bytes:
    return _container(_LIST, tag, [_opt_uint(0, path.endpoint), encode_uint(path.cluster, 1),
                                   encode_uint(path.command, 2)])


def _status_ib(status: int, cluster_status: int | None, tag: int) -> bytes:
    return _container(_STRUCT, tag, [encode_uint(int(status), 0), _opt_uint(1, cluster_status)])


def encode_attribute_data_ib(item: AttributeData, tag: int | None = None) -> bytes:
    return _container(_STRUCT, tag, [_opt_uint(0, item.data_version), encode_attribute_path(item.path, 1),
                                     _element(item.data, 2)])


def encode_attribute_status_ib(item: AttributeStatus, tag: int | None = None) -> bytes:
    return _container(_STRUCT, tag, [encode_attribute_path(item.path, 0),
                                     _status_ib(item.status, item.cluster_status, 1)])


def encode_attribute_report_ib(item: AttributeData | AttributeStatus) -> bytes:
    if isinstance(item, AttributeData):
        return _container(_STRUCT, None, [encode_attribute_data_ib(item, 1)])
    return _container(_STRUCT, None, [encode_attribute_status_ib(item, 0)])


def encode_event_report_ib(item: EventData | EventStatus) -> bytes:
    if isinstance(item, EventStatus):
        inner = _container(_STRUCT, 0, [encode_event_path(item.path, 0),
                                        _status_ib(item.status, item.cluster_status, 1)])
    else:
        inner = _container(_STRUCT, 1, [
            encode_event_path(item.path, 0), encode_uint(item.event_number, 1), encode_uint(item.priority, 2),
            _opt_uint(3, item.epoch_timestamp_ms), _opt_uint(4, item.system_timestamp_ms), _element(item.data, 7)])
    return _container(_STRUCT, None, [inner])


def encode_status_response(status: int) -> bytes:
    return _message([encode_uint(int(status), 0)])


def _encode_paths_and_filters(req: ReadRequest | SubscribeRequest, attr_tag: int, event_tag: int, filter_tag: int,
                              ff_tag: int, dvf_tag: int) -> list[bytes]:
    members = []
    if req.attributes:
        members.append(_container(_ARRAY, attr_tag, [encode_attribute_path(p, None) for p in req.attributes]))
    if req.events:
        members.append(_container(_ARRAY, event_tag, [encode_event_path(p, None) for p in req.events]))
    if req.event_filters:
        members.append(_container(_ARRAY, filter_tag, [
            _container(_STRUCT, None, [_opt_uint(0, f.node), encode_uint(f.event_min, 1)]) for f in req.event_filters]))
    members.append(encode_bool(req.fabric_filtered, ff_tag))
    if req.data_version_filters:
        members.append(_container(_ARRAY, dvf_tag, [
            _container(_STRUCT, None, [
                _container(_LIST, 0, [encode_uint(f.endpoint, 1), encode_uint(f.cluster, 2)]),
                encode_uint(f.data_version, 1)]) for f in req.data_version_filters]))
    return members


def encode_read_request(req: ReadRequest) -> bytes:
    members = _encode_paths_and_filters(req, 0, 1, 2, 3, 4)
    return _message(sorted(members, key=lambda b: b[1]))


def encode_subscribe_request(req: SubscribeRequest) -> bytes:
    members = [encode_bool(req.keep_subscriptions, 0), encode_uint(req.min_interval_floor, 1),
               encode_uint(req.max_interval_ceiling, 2), *_encode_paths_and_filters(req, 3, 4, 5, 7, 8)]
    return _message(sorted(members, key=lambda b: b[1]))


def encode_subscribe_response(subscription_id: int, max_interval: int) -> bytes:
    return _message([encode_uint(subscription_id, 0), encode_uint(max_interval, 2)])


def encode_report_data(subscription_id: int | None, attribute_ibs: Sequence[bytes], event_ibs: Sequence[bytes],
                       *, more_chunked: bool, suppress_response: bool, always_attributes: bool = False) -> bytes:
    """A ReportData message from already-encoded AttributeReportIBs / EventReportIBs."""
    members = [_opt_uint(0, subscription_id)]
    if attribute_ibs or always_attributes:
        members.append(_container(_ARRAY, 1, attribute_ibs))
    if event_ibs:
        members.append(_container(_ARRAY, 2, event_ibs))
    if more_chunked:
        members.append(encode_bool(True, 3))
    if suppress_response:
        members.append(encode_bool(True, 4))
    return _message(members)


# Bytes a ReportData adds around its IBs (struct, subscription id, two arrays, flags, revision).
REPORT_OVERHEAD = 1 + 6 + 3 + 3 + 2 + 2 + 3 + 1


def encode_report(report: ReportData) -> bytes:
    return encode_report_data(report.subscription_id, [encode_attribute_report_ib(r) for r in report.attribute_reports],
                              [encode_event_report_ib(r) for r in report.event_reports],
                              more_chunked=report.more_chunked, suppress_response=report.suppress_response,
                              always_attributes=report.has_attribute_reports)


def encode_write_request(req: WriteRequest) -> bytes:
    members = [encode_bool(req.suppress_response, 0), encode_bool(req.timed_request, 1),
               _container(_ARRAY, 2, [encode_attribute_data_ib(w) for w in req.writes])]
    if req.more_chunked:
        members.append(encode_bool(True, 3))
    return _message(members)


def encode_write_response(statuses: Iterable[AttributeStatus]) -> bytes:
    return _message([_container(_ARRAY, 0, [encode_attribute_status_ib(s) for s in statuses])])


def _command_data_ib(item: CommandData, tag: int | None) -> bytes:
    members = [encode_command_path(item.path, 0)]
    if item.fields is not None:
        members.append(_element(item.fields, 1))
    members.append(_opt_uint(2, item.ref))
    return _container(_STRUCT, tag, members)


def encode_invoke_request(req: InvokeRequest) -> bytes:
    return _message([encode_bool(req.suppress_response, 0), encode_bool(req.timed_request, 1),
                     _container(_ARRAY, 2, [_command_data_ib(c, None) for c in req.invokes])])


def encode_invoke_response_ib(item: CommandData | CommandStatus) -> bytes:
    if isinstance(item, CommandData):
        return _container(_STRUCT, None, [_command_data_ib(item, 0)])
    return _container(_STRUCT, None, [_container(_STRUCT, 1, [
        encode_command_path(item.path, 0), _status_ib(item.status, item.cluster_status, 1),
        _opt_uint(2, item.ref)])])


def encode_invoke_response(responses: Iterable[CommandData | CommandStatus], *, suppress_response: bool = False,
                           more_chunked: bool = False) -> bytes:
    members = [encode_bool(suppress_response, 0),
               _container(_ARRAY, 1, [encode_invoke_response_ib(r) for r in responses])]
    if more_chunked:
        members.append(encode_bool(True, 2))
    return _message(members)


def encode_timed_request(timeout_ms: int) -> bytes:
    return _message([encode_uint(timeout_ms, 0)])


@dataclass
class Decoded:
    """Result of :func:`decode_any`: the opcode's message, for tests and logging."""

    opcode: int
    message: Any = field(default=None)


_DECODERS = {
    Opcode.STATUS_RESPONSE: decode_status_response, Opcode.READ_REQUEST: decode_read_request,
    Opcode.SUBSCRIBE_REQUEST: decode_subscribe_request, Opcode.SUBSCRIBE_RESPONSE: decode_subscribe_response,
    Opcode.REPORT_DATA: decode_report_data, Opcode.WRITE_REQUEST: decode_write_request,
    Opcode.WRITE_RESPONSE: decode_write_response, Opcode.INVOKE_REQUEST: decode_invoke_request,
    Opcode.INVOKE_RESPONSE: decode_invoke_response, Opcode.TIMED_REQUEST: decode_timed_request,
}


def decode_any(opcode: int, payload: bytes) -> Decoded:
    """Decode any IM message by opcode (IMDecodeError for unknown opcodes or bad payloads)."""
    decoder = _DECODERS.get(opcode)  # type: ignore[call-overload]
    if decoder is None:
        raise IMDecodeError(f"unknown IM opcode 0x{opcode:02x}")
    return Decoded(opcode, decoder(payload))
