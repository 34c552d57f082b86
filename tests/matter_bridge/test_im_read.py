"""IM Read over the bridge: chunked wildcard reads of big homes, concrete paths, filters, ACL, events."""

from __future__ import annotations

import asyncio
from typing import Any

from bridge.matter.codec.values_tlv import decode_value, encode_value
from bridge.matter.im import im_messages as im
from bridge.matter.im.data_model import AllowAll, Privilege
from bridge.matter.im.interaction import InteractionModel, fabric_filter
from bridge.matter.node.bridge_node import BridgeNode
from bridge.matter.session.context import RequestContext
from clusters import Status
from clusters.basic_information import BasicInformationServer
from emulator.emulated_home import EmulatedHome
from emulator.home_generation.generator import generate_home
from tests.emulator.helpers import fabric
from tests.matter_bridge._async import run_async
from tests.matter_bridge.im_fakes import ImClient

P = im.AttributePath
ON_OFF, DESCRIPTOR, BDBI = 0x06, 0x1D, 0x39


class DenyCluster:
    """Grants everything except ``cluster`` (on every endpoint)."""

    def __init__(self, cluster: int) -> None:
        self.cluster = cluster

    def check(self, ctx: RequestContext, endpoint: int, cluster_id: int, privilege: Privilege) -> bool:
        return cluster_id != self.cluster


def _client(home: EmulatedHome, access: Any = None, **kwargs: Any) -> tuple[BridgeNode, ImClient]:
    node = BridgeNode(home)
    return node, ImClient(InteractionModel(node, access or AllowAll(), **kwargs))


async def _check_whole_home_read(home: EmulatedHome) -> int:
    node, client = _client(home)
    result, exchange = await client.read([P()], fabric_filtered=False)
    sent = exchange.sent
    assert all(len(payload) <= client.model.max_payload for _, payload, _ in sent)
    reports = exchange.messages(im.Opcode.REPORT_DATA)
    assert len(reports) == result.chunks > 1
    for report, (_, _, expect_reply) in zip(reports[:-1], sent[:-1], strict=True):
        assert report.more_chunked and not report.suppress_response and expect_reply
    assert not reports[-1].more_chunked and reports[-1].suppress_response and not sent[-1][2]
    assert result.replaced == 0 and not result.statuses
    expected = {
        (ep, cid, server.model.attributes[name].attribute_id): (server, name)
        for ep in node.endpoints()
        for cid, server in node.clusters(ep).items()
        for name in server.attribute_names()
    }
    assert set(result.values) == set(expected)  # every attribute of every endpoint, exactly once
    for (ep, cid, aid), raw in result.values.items():
        server, name = expected[(ep, cid, aid)]
        info = server.model.attributes[name].type
        got = decode_value(raw, info)
        want = node.read(ep, cid, name)
        assert encode_value(got, info) == encode_value(want, info), (ep, cid, name)
        assert result.versions[(ep, cid)] == node.data_version(ep, cid)
    return len(reports)


@run_async
async def test_wildcard_read_of_the_complex_home_arrives_whole_in_chunks() -> None:
    home = EmulatedHome(generate_home("complex", 1))
    assert len(home.devices()) == 145  # 135 in its rooms + its systems (solar, battery, charger, valve, wall switches…)
    assert await _check_whole_home_read(home) > 50


def test_wildcard_read_of_the_stress_home_arrives_whole_in_chunks() -> None:
    home = EmulatedHome(generate_home("stress", 1))
    assert len(home.devices()) == 1000
    # Decoding and checking ~70,000 attributes takes a while on a slow runner: a roomier bound.
    chunks = asyncio.run(asyncio.wait_for(_check_whole_home_read(home), 180))
    assert chunks > 1000


@run_async
async def test_big_parts_list_is_split_with_list_appends() -> None:
    home = fabric([(f"lamp{i:03d}", "on_off_light", "room") for i in range(600)])
    node, client = _client(home)
    result, exchange = await client.read([P(0, DESCRIPTOR, 3)])
    reports = exchange.messages(im.Opcode.REPORT_DATA)
    assert len(reports) > 1
    appends = [r for report in reports for r in report.attribute_reports if r.path.list_append]
    assert appends
    assert result.values[(0, DESCRIPTOR, 3)] == node.read(0, DESCRIPTOR, "PartsList")


@run_async
async def test_concrete_paths_get_statuses() -> None:
    home = fabric([("lamp", "on_off_light", "room")])
    node, client = _client(home)
    lamp = node.endpoint_of("lamp", 1)
    result, _ = await client.read([P(lamp, ON_OFF, 0), P(99, ON_OFF, 0), P(lamp, 0x0300, 0), P(lamp, ON_OFF, 0x7777)])
    assert result.values[(lamp, ON_OFF, 0)] is False
    assert result.statuses == {
        (99, ON_OFF, 0): Status.UNSUPPORTED_ENDPOINT,
        (lamp, 0x0300, 0): Status.UNSUPPORTED_CLUSTER,
        (lamp, ON_OFF, 0x7777): Status.UNSUPPORTED_ATTRIBUTE,
    }


@run_async
async def test_wildcards_skip_missing_paths_silently() -> None:
    home = fabric([("lamp", "on_off_light", "room"), ("sensor", "contact_sensor", "room")])
    node, client = _client(home)
    result, _ = await client.read([P(cluster=ON_OFF, attribute=0), P(99), P(cluster=0x0300)])
    assert set(result.values) == {(node.endpoint_of("lamp", 1), ON_OFF, 0)}
    assert not result.statuses
    result, _ = await client.read([P(cluster=ON_OFF)])
    assert {k[2] for k in result.values} >= {0, 0xFFFD, 0xFFFC, 0xFFFB}


@run_async
async def test_global_attribute_over_all_clusters_and_invalid_cluster_wildcard() -> None:
    home = fabric([("lamp", "on_off_light", "room")])
    node, client = _client(home)
    result, _ = await client.read([P(attribute=0xFFFD)])
    assert len(result.values) == sum(len(node.clusters(ep)) for ep in node.endpoints())
    _, exchange = await client.read([P(attribute=0)])  # a cluster wildcard may only name a global attribute
    (status,) = exchange.messages(im.Opcode.STATUS_RESPONSE)
    assert status.status == Status.INVALID_ACTION


@run_async
async def test_data_version_filter_skips_unchanged_clusters() -> None:
    home = fabric([("lamp", "on_off_light", "room")])
    node, client = _client(home)
    lamp = node.endpoint_of("lamp", 1)
    assert lamp is not None
    version = node.data_version(lamp, ON_OFF)
    result, _ = await client.read([P(lamp)], data_version_filters=(im.DataVersionFilter(lamp, ON_OFF, version),))
    assert not [k for k in result.values if k[1] == ON_OFF] and [k for k in result.values if k[1] == DESCRIPTOR]
    home.invoke("lamp", 1, "OnOff", "Toggle")
    result, _ = await client.read([P(lamp)], data_version_filters=(im.DataVersionFilter(lamp, ON_OFF, version),))
    assert result.values[(lamp, ON_OFF, 0)] is True


@run_async
async def test_acl_denial_concrete_status_wildcard_silent() -> None:
    home = fabric([("lamp", "on_off_light", "room")])
    node, client = _client(home, DenyCluster(ON_OFF))
    lamp = node.endpoint_of("lamp", 1)
    result, _ = await client.read([P(lamp, ON_OFF, 0)])
    assert result.statuses == {(lamp, ON_OFF, 0): Status.UNSUPPORTED_ACCESS}
    result, _ = await client.read([P()])
    assert not result.statuses and not [k for k in result.values if k[1] == ON_OFF]
    assert [k for k in result.values if k[1] == DESCRIPTOR]


@run_async
async def test_unsecured_sessions_are_refused() -> None:
    home = fabric([("lamp", "on_off_light", "room")])
    _, client = _client(home)
    client.session.context = RequestContext("unsecured")
    _, exchange = await client.read([P()])
    (status,) = exchange.messages(im.Opcode.STATUS_RESPONSE)
    assert status.status == Status.UNSUPPORTED_ACCESS
    assert not exchange.messages(im.Opcode.REPORT_DATA)


@run_async
async def test_malformed_read_gets_invalid_action() -> None:
    home = fabric([("lamp", "on_off_light", "room")])
    _, client = _client(home)
    for payload in (b"", b"\x15\x18", b"\x15\x36\x00\x04\x01\x18\x18", b"\xff\xff"):
        exchange = await client.request(im.Opcode.READ_REQUEST, payload)
        assert [m.status for m in exchange.messages(im.Opcode.STATUS_RESPONSE)] == [Status.INVALID_ACTION]


@run_async
async def test_startup_events_are_readable_and_filtered() -> None:
    home = fabric([("lamp", "on_off_light", "room"), ("plug", "smart_plug", "room")])
    client = ImClient(InteractionModel(BridgeNode(home, [BasicInformationServer()]), AllowAll()))
    result, _ = await client.read([], [im.EventPath(0, 0x28, 0)])
    (startup,) = result.events
    assert startup.path == im.EventPath(0, 0x28, 0) and startup.priority == 2 and startup.data == {0: 1}
    assert startup.epoch_timestamp_ms and startup.epoch_timestamp_ms > 1_600_000_000_000
    result, _ = await client.read([], [im.EventPath()])
    assert len(result.events) == 3  # root + 2 bridged StartUp
    numbers = [e.event_number for e in result.events]
    assert numbers == sorted(numbers)
    result, _ = await client.read([], [im.EventPath()], event_filters=(im.EventFilter(numbers[-1]),))
    assert [e.event_number for e in result.events] == [numbers[-1]]


def test_fabric_filter_keeps_the_accessing_fabric() -> None:
    entries = [{"fabricIndex": 1, "x": 1}, {"fabricIndex": 2, "x": 2}]
    assert fabric_filter(entries, 2) == [{"fabricIndex": 2, "x": 2}]
    assert fabric_filter([1, 2], 2) == [1, 2]
