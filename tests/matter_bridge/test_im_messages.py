"""IM message codecs: round trips of every message, exact bytes of a few, malformed input → IM status."""

from __future__ import annotations

import contextlib
import random

import pytest
from chip.tlv import TLVList, uint

from bridge.matter.codec import tlv
from bridge.matter.im import im_messages as im
from bridge.matter.im.report_chunker import ListReport, attribute_data_report, chunk_reports
from clusters import Status

P = im.AttributePath


def test_status_response_bytes() -> None:
    assert im.encode(im.StatusResponse(Status.SUCCESS)) == bytes.fromhex("15240000 24ff0b 18".replace(" ", ""))
    assert im.decode(im.StatusResponse, im.encode(im.StatusResponse(0x87))).status == 0x87


def test_read_request_round_trip_with_wildcards_and_filters() -> None:
    req = im.ReadRequest(
        attributes=(P(), P(endpoint=1), P(cluster=6, attribute=0xFFFD), P(3, 6, 0, node=0x1122)),
        events=(im.EventPath(), im.EventPath(0, 0x28, 0, urgent=True)),
        event_filters=(im.EventFilter(17),),
        fabric_filtered=False,
        data_version_filters=(im.DataVersionFilter(2, 6, 0xDEADBEEF),),
    )
    assert im.decode(im.ReadRequest, im.encode(req)) == req


def test_read_request_paths_are_tlv_lists() -> None:
    payload = im.encode(im.ReadRequest((P(1, 6, 0),)))
    decoded = tlv.decode(payload)
    assert isinstance(decoded[0][0], TLVList)
    assert decoded[0xFF] == im.IM_REVISION


def test_read_request_from_chip_style_encoding() -> None:
    """The way the CHIP SDK writes it: a list path, fabric filter flag, revision."""
    payload = tlv.encode(
        {0: [TLVList([(2, uint(0)), (3, uint(0x28)), (4, uint(2))])], 3: False, 0xFF: uint(11)}, ints_unsigned=False
    )
    assert im.decode(im.ReadRequest, payload) == im.ReadRequest((P(0, 0x28, 2),), fabric_filtered=False)


def test_subscribe_request_and_response_round_trip() -> None:
    req = im.SubscribeRequest(
        False,
        1,
        60,
        (P(),),
        (im.EventPath(urgent=True),),
        (im.EventFilter(5),),
        False,
        (im.DataVersionFilter(0, 0x28, 1),),
    )
    assert im.decode(im.SubscribeRequest, im.encode(req)) == req
    response = im.decode(im.SubscribeResponse, im.encode(im.SubscribeResponse(0xCAFEBABE, 60)))
    assert response == im.SubscribeResponse(0xCAFEBABE, 60)


def test_report_data_round_trip() -> None:
    report = im.ReportData(
        subscription_id=7,
        attribute_reports=(
            im.AttributeData(P(1, 6, 0), im.RawTLV(b"\x09"), 3),
            im.AttributeData(P(1, 29, 3, list_append=True), im.RawTLV(b"\x04\x05"), 4),
            im.AttributeStatus(P(9, 6, 0), Status.UNSUPPORTED_ENDPOINT),
        ),
        event_reports=(
            im.EventData(im.EventPath(0, 0x28, 0), 1, 2, im.RawTLV(b"\x15\x24\x00\x01\x18"), 1700000000000),
            im.EventStatus(im.EventPath(5, 6, 0), Status.UNSUPPORTED_ENDPOINT),
        ),
        more_chunked=True,
        has_attribute_reports=True,
    )
    back = im.decode(im.ReportData, im.encode(report))
    assert back.subscription_id == 7 and back.more_chunked and not back.suppress_response
    assert back.attribute_reports[0] == im.AttributeData(P(1, 6, 0), True, 3)
    assert back.attribute_reports[1] == im.AttributeData(P(1, 29, 3, list_append=True), 5, 4)
    assert back.attribute_reports[2] == report.attribute_reports[2]
    assert back.event_reports[0] == im.EventData(im.EventPath(0, 0x28, 0), 1, 2, {0: 1}, 1700000000000)
    assert back.event_reports[1] == report.event_reports[1]


def test_write_request_response_round_trip() -> None:
    req = im.WriteRequest(
        (
            im.AttributeData(P(0, 0x1F, 0), im.RawTLV(b"\x16\x18")),
            im.AttributeData(P(0, 0x1F, 0, list_append=True), im.RawTLV(b"\x15\x24\x01\x05\x18")),
        ),
        timed_request=True,
        more_chunked=True,
    )
    back = im.decode(im.WriteRequest, im.encode(req))
    assert back.timed_request and back.more_chunked and not back.suppress_response
    assert back.writes[0] == im.AttributeData(P(0, 0x1F, 0), [])
    assert back.writes[1] == im.AttributeData(P(0, 0x1F, 0, list_append=True), {1: 5})
    statuses = (im.AttributeStatus(P(0, 0x1F, 0), 0), im.AttributeStatus(P(1, 6, 0), Status.UNSUPPORTED_WRITE))
    assert im.decode(im.WriteResponse, im.encode(im.WriteResponse(tuple(statuses)))).statuses == statuses


def test_invoke_request_response_and_timed_round_trip() -> None:
    req = im.InvokeRequest((im.CommandData(im.CommandPath(1, 6, 1), im.RawTLV(b"\x15\x18")),), timed_request=True)
    back = im.decode(im.InvokeRequest, im.encode(req))
    assert back == im.InvokeRequest((im.CommandData(im.CommandPath(1, 6, 1), {}),), timed_request=True)
    responses = (
        im.CommandData(im.CommandPath(0, 0x30, 1), im.RawTLV(b"\x15\x24\x00\x00\x2c\x01\x00\x18"), 1),
        im.CommandStatus(im.CommandPath(1, 6, 2), Status.UNSUPPORTED_COMMAND, ref=2),
    )
    back_resp = im.decode(im.InvokeResponse, im.encode(im.InvokeResponse(tuple(responses))))
    assert back_resp.responses[0] == im.CommandData(im.CommandPath(0, 0x30, 1), {0: 0, 1: ""}, 1)
    assert back_resp.responses[1] == responses[1]
    assert im.decode(im.TimedRequest, im.encode(im.TimedRequest(1500))) == im.TimedRequest(1500)


@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"\x15",
        b"\x18",
        b"\x16\x18",
        b"\x04\x01",
        b"\x15\x18\x18",
        b"\x15\x36\x00\x04\x01\x18\x18",
        b"\x15\x36\x00\x17\x24\x02\xff\x18\x18\x18",  # endpoint 255 fine, then struct ok? (valid)
        b"\x15\x36\x00\x17\x0c\x01a\x18\x18\x18",  # anonymous member in a path list
        b"\x15\x36\x00\x17\x2c\x02\x01a\x18\x18\x18",  # endpoint as a string
        b"\x15\x36\x00\x17\x26\x02\x00\x00\x01\x00\x18\x18\x18",  # endpoint > 0xFFFF
        b"\x15\x28\x03\x29\x03\x18",  # duplicate tag
    ],
)
def test_malformed_read_requests_give_invalid_action(payload: bytes) -> None:
    try:
        im.decode(im.ReadRequest, payload)
    except im.IMDecodeError as error:
        assert error.status == Status.INVALID_ACTION


def test_missing_required_fields() -> None:
    with pytest.raises(im.IMDecodeError):
        im.decode(im.SubscribeRequest, tlv.encode({0: False, 2: 60}))
    with pytest.raises(im.IMDecodeError):
        im.decode(im.InvokeRequest, tlv.encode({0: False, 1: False}))
    with pytest.raises(im.IMDecodeError):
        im.decode(im.InvokeRequest, tlv.encode({2: [{1: {}}]}))  # no command path
    with pytest.raises(im.IMDecodeError):
        im.decode(im.TimedRequest, tlv.encode({0: 70000}))
    with pytest.raises(im.IMDecodeError):
        im.decode_any(0x33, b"")


def test_random_and_mutated_payloads_only_raise_imdecodeerror() -> None:
    rng = random.Random(4)
    seeds = [
        im.encode(im.ReadRequest((P(), P(1, 6, 0)), (im.EventPath(),))),
        im.encode(im.SubscribeRequest(True, 0, 10, (P(2, 8),))),
        im.encode(im.WriteRequest((im.AttributeData(P(1, 6, 0x4001), im.RawTLV(b"\x24\x00\x05")),))),
        im.encode(im.InvokeRequest((im.CommandData(im.CommandPath(1, 8, 0), {0: uint(5)}),))),
        im.encode(im.TimedRequest(100)),
        im.encode(im.StatusResponse(0)),
    ]
    for _ in range(3000):
        seed = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 4)):
            op = rng.random()
            pos = rng.randrange(len(seed))
            if op < 0.5:
                seed[pos] = rng.randrange(256)
            elif op < 0.75:
                del seed[pos]
            else:
                seed.insert(pos, rng.randrange(256))
        for opcode in im.Opcode:
            with contextlib.suppress(im.IMDecodeError):
                im.decode_any(opcode, bytes(seed))


def test_chunker_splits_big_lists_with_null_list_index() -> None:
    big = ListReport(1, 0, 29, 3, [bytes((0x05,)) + n.to_bytes(2, "little") for n in range(2, 900)])
    small = [attribute_data_report(1, 2, 6, 0, b"\x29\x02") for _ in range(10)]
    chunks = list(chunk_reports([*small, big, *small], [], 300))
    assert all(sum(map(len, a)) <= 300 for a, _ in chunks)
    chunk_messages = [
        im.ReportData(None, tuple(map(im.RawTLV, a)), tuple(map(im.RawTLV, e)), suppress_response=True)
        for a, e in chunks
    ]
    reports = [im.decode(im.ReportData, im.encode(message)) for message in chunk_messages]
    items = [r for report in reports for r in report.attribute_reports]
    parts = [r for r in items if r.path.attribute == 3]
    assert not parts[0].path.list_append and isinstance(parts[0].data, list)
    values = list(parts[0].data) + [r.data for r in parts[1:]]
    assert all(r.path.list_append for r in parts[1:])
    assert values == list(range(2, 900))
    assert len([r for r in items if r.path.attribute == 0]) == 20


def test_empty_report_is_one_chunk() -> None:
    assert list(chunk_reports([], [], 1000)) == [([], [])]
