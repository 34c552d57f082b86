"""Golden bytes of every IM message kind and IB encoder: the wire format pinned byte for byte.

The hex strings were written by the hand-written encoders this package had before its messages became
declarative field tables; the declarative codec must reproduce them exactly (real controllers —
python-matter-server's CHIP stack and matter.js — parse these bytes). Decoding each golden payload must give
the same message objects as before too (``DECODED``), and a payload written the CHIP SDK's way decodes.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from chip.tlv import TLVList, uint

from bridge.matter.codec import tlv
from bridge.matter.im import im_messages as im
from clusters import Status

P, E, C = im.AttributePath, im.EventPath, im.CommandPath

BUILDERS: dict[str, Callable[[], bytes]] = {
    "status_response": lambda: im.encode(im.StatusResponse(0x87)),
    "read_request": lambda: im.encode(
        im.ReadRequest(
            attributes=(P(), P(endpoint=1), P(cluster=6, attribute=0xFFFD), P(3, 6, 0, node=0x1122)),
            events=(E(), E(0, 0x28, 0, urgent=True), E(1, 0x101, 2, node=5)),
            event_filters=(im.EventFilter(17), im.EventFilter(3, node=9)),
            fabric_filtered=False,
            data_version_filters=(im.DataVersionFilter(2, 6, 0xDEADBEEF), im.DataVersionFilter(0, 0x28, 1)),
        )
    ),
    "read_request_minimal": lambda: im.encode(im.ReadRequest((P(1, 6, 0),))),
    "subscribe_request": lambda: im.encode(
        im.SubscribeRequest(
            False,
            1,
            60,
            (P(), P(1, 8, 0)),
            (E(urgent=True),),
            (im.EventFilter(5),),
            False,
            (im.DataVersionFilter(0, 0x28, 1),),
        )
    ),
    "subscribe_request_keep": lambda: im.encode(im.SubscribeRequest(True, 0, 0xFFFF, (P(2, 8),))),
    "subscribe_response": lambda: im.encode(im.SubscribeResponse(0xCAFEBABE, 60)),
    "report_data": lambda: im.encode(
        im.ReportData(
            subscription_id=7,
            attribute_reports=(
                im.AttributeData(P(1, 6, 0), im.RawTLV(b"\x09"), 3),
                im.AttributeData(P(1, 29, 3, list_append=True), im.RawTLV(b"\x04\x05"), 4),
                im.AttributeData(P(1, 29, 3, list_index=2), im.RawTLV(b"\x04\x05")),
                im.AttributeStatus(P(9, 6, 0), Status.UNSUPPORTED_ENDPOINT),
                im.AttributeStatus(P(1, 6, 0x4003), Status.FAILURE, 0x12),
            ),
            event_reports=(
                im.EventData(E(0, 0x28, 0), 1, 2, im.RawTLV(b"\x15\x24\x00\x01\x18"), 1700000000000),
                im.EventData(E(1, 0x3B, 1, urgent=True), 2**40, 1, {0: uint(3)}, None, 12345),
                im.EventStatus(E(5, 6, 0), Status.UNSUPPORTED_ENDPOINT),
                im.EventStatus(E(1, 6, 0), Status.FAILURE, 3),
            ),
            more_chunked=True,
            suppress_response=True,
            has_attribute_reports=True,
        )
    ),
    "report_data_empty": lambda: im.encode(im.ReportData()),
    "report_data_empty_attrs": lambda: im.encode(im.ReportData(subscription_id=0x12345678, has_attribute_reports=True)),
    "report_data_raw": lambda: im.encode(
        im.ReportData(
            None,
            (
                im.RawTLV(
                    im.ATTRIBUTE_REPORT_IB.encode(im.AttributeData(P(0, 0x28, 1), im.RawTLV(b"\x0c\x02ab"), 9), None)
                ),
            ),
            suppress_response=True,
        )
    ),
    "write_request": lambda: im.encode(
        im.WriteRequest(
            (
                im.AttributeData(P(0, 0x1F, 0), im.RawTLV(b"\x16\x18")),
                im.AttributeData(P(0, 0x1F, 0, list_append=True), im.RawTLV(b"\x15\x24\x01\x05\x18"), 0x10000),
            ),
            timed_request=True,
            more_chunked=True,
        )
    ),
    "write_request_plain": lambda: im.encode(
        im.WriteRequest(
            (im.AttributeData(P(1, 6, 0x4001), {0: uint(5), 1: "x", 2: b"\x01", 3: -1, 4: [uint(1)], 5: None}),),
            suppress_response=True,
        )
    ),
    "write_response": lambda: im.encode(
        im.WriteResponse(
            (im.AttributeStatus(P(0, 0x1F, 0), 0), im.AttributeStatus(P(1, 6, 0), Status.UNSUPPORTED_WRITE, 2))
        )
    ),
    "invoke_request": lambda: im.encode(
        im.InvokeRequest(
            (
                im.CommandData(C(1, 6, 1), im.RawTLV(b"\x15\x18")),
                im.CommandData(C(None, 8, 0), {0: uint(5)}, 3),
                im.CommandData(C(2, 6, 2), None),
            ),
            timed_request=True,
            suppress_response=True,
        )
    ),
    "invoke_response": lambda: im.encode(
        im.InvokeResponse(
            (
                im.CommandData(C(0, 0x30, 1), im.RawTLV(b"\x15\x24\x00\x00\x2c\x01\x00\x18"), 1),
                im.CommandStatus(C(1, 6, 2), Status.UNSUPPORTED_COMMAND, ref=2),
                im.CommandStatus(C(1, 6, 3), Status.FAILURE, 5),
            ),
            suppress_response=True,
            more_chunked=True,
        )
    ),
    "invoke_response_plain": lambda: im.encode(im.InvokeResponse((im.CommandStatus(C(1, 6, 2), 0),))),
    "timed_request": lambda: im.encode(im.TimedRequest(1500)),
    "event_report_ib": lambda: im.EVENT_REPORT_IB.encode(im.EventStatus(E(1, 2, 3), 0x7E), None),
    "attribute_path_ib": lambda: im.encode(P(1, 2, 3, node=4, list_index=5), 7),
    "event_path_ib": lambda: im.encode(E(1, 2, 3, node=4, urgent=True)),
    "command_path_ib": lambda: im.encode(C(None, 2, 3), 2),
    "attribute_data_ib": lambda: im.encode(im.AttributeData(P(1, 2, 3), im.RawTLV(b"\x29\x00"))),
    "attribute_status_ib": lambda: im.encode(im.AttributeStatus(P(1, 2, 3), 0x86), 4),
    "invoke_response_ib": lambda: im.INVOKE_RESPONSE_IB.encode(im.CommandStatus(C(1, 2, 3), 0x81), None),
}

GOLDEN = {
    "status_response": "1524008724ff0b18",
    "read_request": (
        "15360017181724020118172403062504fdff181725012211240203240306240400181836011718172401002402282403"
        "002904181724000524010125020101240302181836021524011118152400092401031818280336041537002401022402"
        "06182601efbeadde1815370024010024022818240101181824ff0b18"
    ),
    "read_request_minimal": "153600172402012403062404001818290324ff0b18",
    "subscribe_request": (
        "15280024010124023c360317181724020124030824040018183604172904181836051524010518182807360815370024"
        "010024022818240101181824ff0b18"
    ),
    "subscribe_request_keep": "1529002401002502ffff3603172402022403081818290724ff0b18",
    "subscribe_response": "152600bebafeca24023c24ff0b18",
    "report_data": (
        "15240007360115350124000337012402012403062404001829021818153501240004370124020124031d240403340518"
        "2402051818153501370124020124031d240403240502182402051818153500370024020924030624040018350124007f"
        "181818153500370024020124030625040340183501240001240112181818183602153501370024010024022824030018"
        "24010124020227030068e5cf8b0100003507240001181818153501370024010124023b24030129041827010000000000"
        "010000240201250439303507240003181818153500370024010524020624030018350124007f18181815350037002401"
        "01240206240300183501240001240103181818182903290424ff0b18"
    ),
    "report_data_empty": "1524ff0b18",
    "report_data_empty_attrs": "1526007856341236011824ff0b18",
    "report_data_raw": "1536011535012400093701240200240328240401182c02026162181818290424ff0b18",
    "write_request": (
        "1528002901360215370124020024031f240400183602181815260000000100370124020024031f240400340518350224"
        "0105181818290324ff0b18"
    ),
    "write_request_plain": (
        "15290028013602153701240201240306250401401835022400052c010178300201012003ff3604040118340518181824ff0b18"
    ),
    "write_response": (
        "15360015370024020024031f240400183501240000181815370024020124030624040018350124008824010218181824ff0b18"
    ),
    "invoke_request": (
        "152900290136021537002400012401062402011835011818153700240108240200183501240005182402031815370024"
        "000224010624020218181824ff0b18"
    ),
    "invoke_response": (
        "152900360115350037002400002401302402011835012400002c01001824020118181535013700240001240106240202"
        "183501240081182402021818153501370024000124010624020318350124000124010518181818290224ff0b18"
    ),
    "invoke_response_plain": "152800360115350137002400012401062402021835012400001818181824ff0b18",
    "timed_request": "152500dc0524ff0b18",
    "event_report_ib": "153500370024010124020224030318350124007e181818",
    "attribute_path_ib": "370724010424020124030224040324050518",
    "event_path_ib": "17240004240101240202240303290418",
    "command_path_ib": "370224010224020318",
    "attribute_data_ib": "1537012402012403022404031829020018",
    "attribute_status_ib": "350437002402012403022404031835012400861818",
    "invoke_response_ib": "1535013700240001240102240203183501240081181818",
}

OPCODES = {
    "status_response": im.Opcode.STATUS_RESPONSE,
    "read_request": im.Opcode.READ_REQUEST,
    "read_request_minimal": im.Opcode.READ_REQUEST,
    "subscribe_request": im.Opcode.SUBSCRIBE_REQUEST,
    "subscribe_request_keep": im.Opcode.SUBSCRIBE_REQUEST,
    "subscribe_response": im.Opcode.SUBSCRIBE_RESPONSE,
    "report_data": im.Opcode.REPORT_DATA,
    "report_data_empty": im.Opcode.REPORT_DATA,
    "report_data_empty_attrs": im.Opcode.REPORT_DATA,
    "report_data_raw": im.Opcode.REPORT_DATA,
    "write_request": im.Opcode.WRITE_REQUEST,
    "write_request_plain": im.Opcode.WRITE_REQUEST,
    "write_response": im.Opcode.WRITE_RESPONSE,
    "invoke_request": im.Opcode.INVOKE_REQUEST,
    "invoke_response": im.Opcode.INVOKE_RESPONSE,
    "invoke_response_plain": im.Opcode.INVOKE_RESPONSE,
    "timed_request": im.Opcode.TIMED_REQUEST,
}

DECODED = {
    "status_response": "StatusResponse(status=135)",
    "read_request": (
        "ReadRequest(attributes=(AttributePath(endpoint=None, cluster=None, attribute=None, node=None, li"
        "st_index=None, list_append=False), AttributePath(endpoint=1, cluster=None, attribute=None, node="
        "None, list_index=None, list_append=False), AttributePath(endpoint=None, cluster=6, attribute=655"
        "33, node=None, list_index=None, list_append=False), AttributePath(endpoint=3, cluster=6, attribu"
        "te=0, node=4386, list_index=None, list_append=False)), events=(EventPath(endpoint=None, cluster="
        "None, event=None, node=None, urgent=False), EventPath(endpoint=0, cluster=40, event=0, node=None"
        ", urgent=True), EventPath(endpoint=1, cluster=257, event=2, node=5, urgent=False)), event_filter"
        "s=(EventFilter(event_min=17, node=None), EventFilter(event_min=3, node=9)), fabric_filtered=Fals"
        "e, data_version_filters=(DataVersionFilter(endpoint=2, cluster=6, data_version=3735928559), Data"
        "VersionFilter(endpoint=0, cluster=40, data_version=1)))"
    ),
    "read_request_minimal": (
        "ReadRequest(attributes=(AttributePath(endpoint=1, cluster=6, attribute=0, node=None, list_index="
        "None, list_append=False),), events=(), event_filters=(), fabric_filtered=True, data_version_filt"
        "ers=())"
    ),
    "subscribe_request": (
        "SubscribeRequest(keep_subscriptions=False, min_interval_floor=1, max_interval_ceiling=60, attrib"
        "utes=(AttributePath(endpoint=None, cluster=None, attribute=None, node=None, list_index=None, lis"
        "t_append=False), AttributePath(endpoint=1, cluster=8, attribute=0, node=None, list_index=None, l"
        "ist_append=False)), events=(EventPath(endpoint=None, cluster=None, event=None, node=None, urgent"
        "=True),), event_filters=(EventFilter(event_min=5, node=None),), fabric_filtered=False, data_vers"
        "ion_filters=(DataVersionFilter(endpoint=0, cluster=40, data_version=1),))"
    ),
    "subscribe_request_keep": (
        "SubscribeRequest(keep_subscriptions=True, min_interval_floor=0, max_interval_ceiling=65535, attr"
        "ibutes=(AttributePath(endpoint=2, cluster=8, attribute=None, node=None, list_index=None, list_ap"
        "pend=False),), events=(), event_filters=(), fabric_filtered=True, data_version_filters=())"
    ),
    "subscribe_response": "SubscribeResponse(subscription_id=3405691582, max_interval=60)",
    "report_data": (
        "ReportData(subscription_id=7, attribute_reports=(AttributeData(path=AttributePath(endpoint=1, cl"
        "uster=6, attribute=0, node=None, list_index=None, list_append=False), data=True, data_version=3)"
        ", AttributeData(path=AttributePath(endpoint=1, cluster=29, attribute=3, node=None, list_index=No"
        "ne, list_append=True), data=5, data_version=4), AttributeData(path=AttributePath(endpoint=1, clu"
        "ster=29, attribute=3, node=None, list_index=2, list_append=False), data=5, data_version=None), A"
        "ttributeStatus(path=AttributePath(endpoint=9, cluster=6, attribute=0, node=None, list_index=None"
        ", list_append=False), status=127, cluster_status=None), AttributeStatus(path=AttributePath(endpo"
        "int=1, cluster=6, attribute=16387, node=None, list_index=None, list_append=False), status=1, clu"
        "ster_status=18)), event_reports=(EventData(path=EventPath(endpoint=0, cluster=40, event=0, node="
        "None, urgent=False), event_number=1, priority=2, data={0: 1}, epoch_timestamp_ms=1700000000000, "
        "system_timestamp_ms=None), EventData(path=EventPath(endpoint=1, cluster=59, event=1, node=None, "
        "urgent=True), event_number=1099511627776, priority=1, data={0: 3}, epoch_timestamp_ms=None, syst"
        "em_timestamp_ms=12345), EventStatus(path=EventPath(endpoint=5, cluster=6, event=0, node=None, ur"
        "gent=False), status=127, cluster_status=None), EventStatus(path=EventPath(endpoint=1, cluster=6,"
        " event=0, node=None, urgent=False), status=1, cluster_status=3)), more_chunked=True, suppress_re"
        "sponse=True, has_attribute_reports=True)"
    ),
    "report_data_empty": (
        "ReportData(subscription_id=None, attribute_reports=(), event_reports=(), more_chunked=False, sup"
        "press_response=False, has_attribute_reports=False)"
    ),
    "report_data_empty_attrs": (
        "ReportData(subscription_id=305419896, attribute_reports=(), event_reports=(), more_chunked=False"
        ", suppress_response=False, has_attribute_reports=True)"
    ),
    "report_data_raw": (
        "ReportData(subscription_id=None, attribute_reports=(AttributeData(path=AttributePath(endpoint=0,"
        " cluster=40, attribute=1, node=None, list_index=None, list_append=False), data='ab', data_versio"
        "n=9),), event_reports=(), more_chunked=False, suppress_response=True, has_attribute_reports=True"
        ")"
    ),
    "write_request": (
        "WriteRequest(writes=(AttributeData(path=AttributePath(endpoint=0, cluster=31, attribute=0, node="
        "None, list_index=None, list_append=False), data=[], data_version=None), AttributeData(path=Attri"
        "butePath(endpoint=0, cluster=31, attribute=0, node=None, list_index=None, list_append=True), dat"
        "a={1: 5}, data_version=65536)), timed_request=True, suppress_response=False, more_chunked=True)"
    ),
    "write_request_plain": (
        "WriteRequest(writes=(AttributeData(path=AttributePath(endpoint=1, cluster=6, attribute=16385, no"
        "de=None, list_index=None, list_append=False), data={0: 5, 1: 'x', 2: b'\\x01', 3: -1, 4: [1], 5:"
        " None}, data_version=None),), timed_request=False, suppress_response=True, more_chunked=False)"
    ),
    "write_response": (
        "WriteResponse(statuses=(AttributeStatus(path=AttributePath(endpoint=0, cluster=31, attribute=0, "
        "node=None, list_index=None, list_append=False), status=0, cluster_status=None), AttributeStatus("
        "path=AttributePath(endpoint=1, cluster=6, attribute=0, node=None, list_index=None, list_append=F"
        "alse), status=136, cluster_status=2)))"
    ),
    "invoke_request": (
        "InvokeRequest(invokes=(CommandData(path=CommandPath(endpoint=1, cluster=6, command=1), fields={}"
        ", ref=None), CommandData(path=CommandPath(endpoint=None, cluster=8, command=0), fields={0: 5}, r"
        "ef=3), CommandData(path=CommandPath(endpoint=2, cluster=6, command=2), fields=None, ref=None)), "
        "timed_request=True, suppress_response=True)"
    ),
    "invoke_response": (
        "InvokeResponse(responses=(CommandData(path=CommandPath(endpoint=0, cluster=48, command=1), field"
        "s={0: 0, 1: ''}, ref=1), CommandStatus(path=CommandPath(endpoint=1, cluster=6, command=2), statu"
        "s=129, cluster_status=None, ref=2), CommandStatus(path=CommandPath(endpoint=1, cluster=6, comman"
        "d=3), status=1, cluster_status=5, ref=None)), suppress_response=True, more_chunked=True)"
    ),
    "invoke_response_plain": (
        "InvokeResponse(responses=(CommandStatus(path=CommandPath(endpoint=1, cluster=6, command=2), stat"
        "us=0, cluster_status=None, ref=None),), suppress_response=False, more_chunked=False)"
    ),
    "timed_request": "TimedRequest(timeout_ms=1500)",
}


def test_every_message_kind_is_pinned() -> None:
    assert set(BUILDERS) == set(GOLDEN)
    assert {int(op) for op in OPCODES.values()} == {int(op) for op in im.Opcode}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_encoding_is_byte_identical(name: str) -> None:
    assert BUILDERS[name]().hex() == GOLDEN[name]


@pytest.mark.parametrize("name", sorted(OPCODES))
def test_decoding_the_golden_bytes(name: str) -> None:
    assert repr(im.decode_any(OPCODES[name], bytes.fromhex(GOLDEN[name])).message) == DECODED[name]


def test_decoding_chip_sdk_style_bytes() -> None:
    """Paths as TLV lists with only the members present, the fabric filter, the revision last."""
    read = tlv.encode(
        {0: [TLVList([(2, uint(0)), (3, uint(0x28)), (4, uint(2))])], 3: False, 0xFF: uint(11)}, ints_unsigned=False
    )
    assert im.decode_any(im.Opcode.READ_REQUEST, read).message == im.ReadRequest(
        (P(0, 0x28, 2),), fabric_filtered=False
    )
    # A path given as a structure instead of a list is accepted as well.
    invoke = tlv.encode(
        {0: False, 1: False, 2: [{0: {0: uint(1), 1: uint(6), 2: uint(2)}, 1: {}}], 0xFF: uint(11)}, ints_unsigned=False
    )
    expected = im.InvokeRequest((im.CommandData(C(1, 6, 2), {}),))
    assert im.decode_any(im.Opcode.INVOKE_REQUEST, invoke).message == expected


# ReadRequests real controllers sent, as logged by other open-source Matter implementations' tests: chip-tool's
# first read after PASE (InteractionModelRevision 12) and Apple Home's read of a PartsList.
CHIP_TOOL_READ = (
    "15360017240200240330240404181724020024033024040018172402002403302404011817240200240330240402181724"
    "020024033024040318172402002403282404021817240200240328240404181724020024033818172403312504fcff18182803"
    "24ff0c18"
)
APPLE_HOME_READ = "1536001724020024031d2404031818290324ff0c18"


def test_decoding_reads_real_controllers_sent() -> None:
    chip_tool = im.decode(im.ReadRequest, bytes.fromhex(CHIP_TOOL_READ))
    commissioning = [P(0, 0x30, a) for a in (4, 0, 1, 2, 3)] + [P(0, 0x28, 2), P(0, 0x28, 4), P(0, 0x38)]
    assert chip_tool == im.ReadRequest((*commissioning, P(cluster=0x31, attribute=0xFFFC)), fabric_filtered=False)
    apple = im.decode(im.ReadRequest, bytes.fromhex(APPLE_HOME_READ))
    assert apple == im.ReadRequest((P(0, 0x1D, 3),))
    # Written back, they are the same bytes but for the revision we announce (11).
    for captured, message in ((CHIP_TOOL_READ, chip_tool), (APPLE_HOME_READ, apple)):
        assert im.encode(message).hex() == captured[:-4] + f"{im.IM_REVISION:02x}" + "18"
