"""Cluster-specific statuses reach the wire (StatusIB ClusterStatus, spec §8.10.2) on invoke and write
responses — for every served cluster whose model defines IM-level cluster status codes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import chip.clusters.Objects as Objects
import pytest
from chip.tlv import uint

from bridge.matter.im import im_messages as im
from bridge.matter.im.data_model import AllowAll
from bridge.matter.im.interaction import InteractionModel
from bridge.matter.node.bridge_node import BridgeNode
from bridge.matter.node.node import MatterNode
from clusters import ClusterServer, HomeError, Status
from clusters.registry import SERVER_CLASSES
from tests.emulator.helpers import fabric
from tests.matter_bridge.im_fakes import ImClient

ADMIN_COMMISSIONING = Objects.AdministratorCommissioning
StatusCode = ADMIN_COMMISSIONING.Enums.StatusCode
OPEN_WINDOW, OPEN_BASIC_WINDOW, REVOKE = 0, 1, 2
# Clusters whose StatusCode enum travels in a command-response field (ChangeToModeResponse.status), not
# in the StatusIB: tested with their servers (tests/clusters/test_modes.py).
IN_BAND = {"RvcRunMode", "RvcCleanMode"}
TESTED_ON_THE_WIRE = {"AdministratorCommissioning"}


class LabelServer(ClusterServer):
    """A writable attribute whose refusal carries a cluster status (the write path's wire test)."""

    cluster_name = "UserLabel"
    revision = 1
    defaults = {"LabelList": []}

    def check_write(self, name: str, value: Any) -> None:
        if value:
            raise HomeError.refused(Status.FAILURE, "refused", cluster_status=0x42)


def _client(tmp_path: Path) -> tuple[MatterNode, ImClient]:
    home = fabric([("lamp", "on_off_light", "r")])
    node = MatterNode(lambda roots: BridgeNode(home, [*roots, LabelServer()]), tmp_path, mdns=False)
    return node, ImClient(InteractionModel(node.data_model, AllowAll()))


def test_every_served_cluster_with_cluster_statuses_is_tested_on_the_wire(tmp_path: Path) -> None:
    node, _ = _client(tmp_path)
    served = {type(s).cluster_name for s in node.root_clusters} | set(SERVER_CLASSES)
    defining = {name for name in served if hasattr(getattr(getattr(Objects, name), "Enums", None), "StatusCode")}
    assert defining == TESTED_ON_THE_WIRE | IN_BAND


async def _test_revoke_without_a_window_answers_failure_window_not_open(tmp_path: Path) -> None:
    node, client = _client(tmp_path)
    reply = await client.invoke(0, ADMIN_COMMISSIONING.id, REVOKE, {}, timed=True)
    assert reply == im.CommandStatus(
        im.CommandPath(0, ADMIN_COMMISSIONING.id, REVOKE), Status.FAILURE, int(StatusCode.kWindowNotOpen)
    )
    assert not node.window.is_open


async def _test_busy_and_pake_parameter_error(tmp_path: Path) -> None:
    node, client = _client(tmp_path)
    opened = await client.invoke(0, ADMIN_COMMISSIONING.id, OPEN_BASIC_WINDOW, {0: uint(180)}, timed=True)
    assert opened.status == Status.SUCCESS and opened.cluster_status is None
    assert node.window.is_open
    busy = await client.invoke(0, ADMIN_COMMISSIONING.id, OPEN_BASIC_WINDOW, {0: uint(180)}, timed=True)
    assert (busy.status, busy.cluster_status) == (Status.FAILURE, int(StatusCode.kBusy))
    revoked = await client.invoke(0, ADMIN_COMMISSIONING.id, REVOKE, {}, timed=True)
    assert revoked.status == Status.SUCCESS and not node.window.is_open
    bad_verifier = {0: uint(180), 1: b"\x01" * 10, 2: uint(3840), 3: uint(1000), 4: b"s" * 16}
    pake = await client.invoke(0, ADMIN_COMMISSIONING.id, OPEN_WINDOW, bad_verifier, timed=True)
    assert (pake.status, pake.cluster_status) == (Status.FAILURE, int(StatusCode.kPAKEParameterError))
    assert not node.window.is_open


async def _test_write_responses_carry_the_cluster_status(tmp_path: Path) -> None:
    _, client = _client(tmp_path)
    path = im.AttributePath(0, Objects.UserLabel.id, 0)
    refused = await client.write([im.AttributeData(path, [{0: "a", 1: "b"}])])
    assert refused == [im.AttributeStatus(path, Status.FAILURE, 0x42)]
    accepted = await client.write([im.AttributeData(path, [])])
    assert accepted == [im.AttributeStatus(path, Status.SUCCESS)]


@pytest.mark.parametrize("member", [m for m in StatusCode if m.name != "kUnknownEnumValue"])
def test_cluster_specific_errors_name_their_code(member: Any) -> None:
    error = HomeError.cluster_specific(member, "x")
    assert (error.status, error.cluster_status) == (Status.FAILURE, int(member))
    assert error.to_dict()["cluster_status"] == int(member)
    assert (
        error.reason
        == {"kBusy": "BUSY", "kPAKEParameterError": "PAKE_PARAMETER_ERROR", "kWindowNotOpen": "WINDOW_NOT_OPEN"}[
            member.name
        ]
    )


def test_revoke_without_a_window_answers_failure_window_not_open(tmp_path: Path) -> None:
    asyncio.run(_test_revoke_without_a_window_answers_failure_window_not_open(tmp_path))


def test_busy_and_pake_parameter_error(tmp_path: Path) -> None:
    asyncio.run(_test_busy_and_pake_parameter_error(tmp_path))


def test_write_responses_carry_the_cluster_status(tmp_path: Path) -> None:
    asyncio.run(_test_write_responses_carry_the_cluster_status(tmp_path))
