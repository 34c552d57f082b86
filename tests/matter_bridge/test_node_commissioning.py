"""The node over real UDP (no mDNS): PASE, IM dispatch with the request context, the commissioning
cluster sequence a controller runs, CASE on the new fabric, fail-safe rollback, restart persistence."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec

from bridge.matter.codec import tlv
from bridge.matter.crypto.crypto import public_key_bytes, verify
from bridge.matter.node.node import MatterNode
from bridge.matter.session.context import RequestContext, current_request
from bridge.matter.session.secure_channel import StatusReport
from clusters.status import HomeError, Status
from tests.matter_bridge._async import run_async
from tests.matter_bridge.controller import EPOCH_KEY, FabricAuthority, FakeController

PASSCODE = 20202021
ADMIN_NODE = 0x1B669


class StubIM:
    """Records every IM exchange and answers with one StatusResponse."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, RequestContext]] = []

    async def handle_exchange(self, exchange: Any, opcode: int, payload: bytes) -> None:
        self.seen.append((opcode, current_request.get()))
        await exchange.send(0x01, tlv.encode({0: 0, 0xFF: 11}), expect_reply=False)


class RootOnly:
    def __init__(self, root: list) -> None:
        self.root = {server.cluster_id: server for server in root}

    def endpoints(self) -> list[int]:
        return [0]

    def clusters(self, endpoint: int) -> dict:
        return self.root if endpoint == 0 else {}

    def server(self, endpoint: int, cluster_id: int) -> Any:
        return self.root[cluster_id]


def make_node(state: Path, im: StubIM) -> MatterNode:
    return MatterNode(RootOnly, state, port=0, mdns=False, interaction=im)


def cluster(node: MatterNode, name: str) -> Any:
    return next(s for s in node.root_clusters if s.cluster_name == name)


def invoke(node: MatterNode, ctx: RequestContext, cluster_name: str, command: str, **args: Any) -> Any:
    token = current_request.set(ctx)
    try:
        return cluster(node, cluster_name).invoke(command, args)
    finally:
        current_request.reset(token)


def commission_over_pase(node: MatterNode, ctx: RequestContext, fabric: FabricAuthority) -> int:
    """The command sequence of the SDK commissioner (facts §4.2), minus the IM encoding."""
    assert invoke(node, ctx, "GeneralCommissioning", "ArmFailSafe", expiryLengthSeconds=60, breadcrumb=1) == {
        "errorCode": 0,
        "debugText": "",
    }
    invoke(
        node, ctx, "GeneralCommissioning", "SetRegulatoryConfig", newRegulatoryConfig=2, countryCode="XX", breadcrumb=2
    )
    pai = invoke(node, ctx, "OperationalCredentials", "CertificateChainRequest", certificateType=2)["certificate"]
    dac = invoke(node, ctx, "OperationalCredentials", "CertificateChainRequest", certificateType=1)["certificate"]
    nonce = bytes(range(32))
    att = invoke(node, ctx, "OperationalCredentials", "AttestationRequest", attestationNonce=nonce.hex())
    dac_cert = x509.load_der_x509_certificate(bytes.fromhex(dac))
    dac_pub = dac_cert.public_key()
    assert isinstance(dac_pub, ec.EllipticCurvePublicKey)  # Matter DACs are P-256
    assert ctx.attestation_challenge is not None
    elements = bytes.fromhex(att["attestationElements"])
    assert verify(dac_pub, elements + ctx.attestation_challenge, bytes.fromhex(att["attestationSignature"]))
    assert tlv.decode(elements)[2] == nonce
    assert x509.load_der_x509_certificate(bytes.fromhex(pai)).subject == dac_cert.issuer
    csr = invoke(node, ctx, "OperationalCredentials", "CSRRequest", CSRNonce=nonce.hex())
    csr_der = tlv.decode(bytes.fromhex(csr["NOCSRElements"]))[1]
    csr_key = x509.load_der_x509_csr(csr_der).public_key()
    assert isinstance(csr_key, ec.EllipticCurvePublicKey)  # the operational key is P-256
    csr_pub = public_key_bytes(csr_key)
    invoke(node, ctx, "OperationalCredentials", "AddTrustedRootCertificate", rootCACertificate=fabric.rcac.hex())
    response = invoke(
        node,
        ctx,
        "OperationalCredentials",
        "AddNOC",
        NOCValue=fabric.noc_for(csr_pub, 0x55).hex(),
        IPKValue=EPOCH_KEY.hex(),
        caseAdminSubject=ADMIN_NODE,
        adminVendorId=0xFFF1,
    )
    assert response["statusCode"] == 0, response
    return response["fabricIndex"]


@run_async
async def test_pase_case_and_commissioning(tmp_path: Path | None = None) -> None:
    import tempfile

    state = Path(tempfile.mkdtemp())
    im = StubIM()
    node = make_node(state, im)
    await node.start()
    controller = await FakeController.connect(node.port)
    try:
        # IM on the unsecured session: acknowledged, never dispatched.
        controller.send(0x02, tlv.encode({}), protocol=1, secure=False, new_exchange=True)
        with contextlib.suppress(TimeoutError):
            await controller.receive(0.4)
        assert im.seen == []

        challenge = await controller.pase(PASSCODE)
        controller.send(0x02, tlv.encode({}), protocol=1, secure=True, new_exchange=True)
        proto, _ = await controller.receive()
        assert proto.opcode == 0x01 and proto.protocol_id == 1
        opcode, ctx = im.seen[-1]
        assert (opcode, ctx.session_kind, ctx.fabric_index, ctx.attestation_challenge) == (
            0x02,
            "pase",
            None,
            challenge,
        )
        assert not node.window.advertising  # PASE in use: commissionable withdrawn

        fabric = FabricAuthority.create()
        index = commission_over_pase(node, ctx, fabric)
        assert ctx.session.fabric_index == index  # the PASE session now acts for the new fabric
        assert node.table.acl_for(index)[0]["subjects"] == [ADMIN_NODE]

        admin = fabric.member(ADMIN_NODE)
        await controller.case(admin, 0x55)
        controller.send(0x02, tlv.encode({}), protocol=1, secure=True, new_exchange=True)
        await controller.receive()
        case_ctx = im.seen[-1][1]
        assert (case_ctx.session_kind, case_ctx.fabric_index, case_ctx.subject_node_id) == ("case", index, ADMIN_NODE)
        assert node.access.check(case_ctx, 0, 0x30, "administer")

        done = invoke(node, case_ctx, "GeneralCommissioning", "CommissioningComplete")
        assert done["errorCode"] == 0
        assert not node.failsafe.armed and not node.window.is_open
        # Multi-admin right away: a second commissioner's PASE session, opened before the delayed cleanup
        # of the first commissioning runs, is not part of that cleanup.
        node.window.open_basic(60)
        second = await FakeController.connect(node.port)
        await second.pase(PASSCODE)
        (second_pase,) = [s for s in node.sessions.sessions(kind="pase") if s.fabric_index is None]
        await asyncio.sleep(0.7)  # the first commissioning's PASE sessions expire after the response
        assert node.sessions.sessions(kind="pase") == [second_pase]
        second.close()
    finally:
        controller.close()
        await node.stop()

    # Restart from the state directory: the fabric survives and CASE works without recommissioning.
    node2 = make_node(state, StubIM())
    await node2.start()
    controller2 = await FakeController.connect(node2.port)
    try:
        assert list(node2.table.fabrics) == [index]
        assert not node2.window.is_open
        await controller2.case(admin, 0x55)
    finally:
        controller2.close()
        await node2.stop()


@run_async
async def test_failsafe_expiry_rolls_back_everything() -> None:
    import tempfile

    node = make_node(Path(tempfile.mkdtemp()), StubIM())
    await node.start()
    controller = await FakeController.connect(node.port)
    try:
        await controller.pase(PASSCODE)
        controller.send(0x02, b"\x15\x18", protocol=1, secure=True, new_exchange=True)
        await controller.receive()
        ctx = node.interaction.seen[-1][1]
        index = commission_over_pase(node, ctx, FabricAuthority.create())
        assert index in node.table.fabrics and node.table.acl
        general = cluster(node, "GeneralCommissioning")
        assert general.read("Breadcrumb") == 2
        # Re-arm with a 1 s expiry and let it lapse.
        invoke(node, ctx, "GeneralCommissioning", "ArmFailSafe", expiryLengthSeconds=1, breadcrumb=3)
        await asyncio.sleep(1.3)
        assert not node.failsafe.armed
        assert node.table.fabrics == {} and node.table.acl == [] and node.table.group_key_sets == {}
        assert node.state.load("fabrics")["fabrics"] == []  # persisted rollback
        assert general.read("Breadcrumb") == 0
        assert node.failsafe.pending_root is None and node.failsafe.csr_key is None
        assert not node.sessions.sessions(kind="pase")  # PASE closed on expiry
        assert node.window.is_open and node.window.advertising  # commissionable again
        ops = cluster(node, "OperationalCredentials")
        token = current_request.set(RequestContext("pase"))
        try:
            assert ops.read("TrustedRootCertificates") == [] and ops.read("CommissionedFabrics") == 0
        finally:
            current_request.reset(token)
    finally:
        controller.close()
        await node.stop()


@run_async
async def test_pase_failures_close_the_window() -> None:
    import tempfile

    from bridge.matter.node import commissioning

    node = make_node(Path(tempfile.mkdtemp()), StubIM())
    await node.start()
    try:
        for _ in range(commissioning.PASE_FAILURE_LIMIT):
            controller = await FakeController.connect(node.port)
            try:
                await controller.pase(12345679)  # wrong passcode
            except Exception:
                pass
            finally:
                controller.close()
        await asyncio.sleep(0.2)
        assert not node.window.is_open
        controller = await FakeController.connect(node.port)
        try:
            from bridge.matter.session.pase import PaseInitiator

            controller.send(
                0x20,
                PaseInitiator(passcode=PASSCODE, local_session_id=5).start(),
                protocol=0,
                secure=False,
                new_exchange=True,
            )
            try:
                await controller.receive(0.5)
                raise AssertionError("a closed window must not answer PASE")
            except TimeoutError:
                pass
        finally:
            controller.close()
    finally:
        await node.stop()


def test_commands_outside_a_session_are_refused() -> None:
    import tempfile

    node = make_node(Path(tempfile.mkdtemp()), StubIM())
    try:
        cluster(node, "GeneralCommissioning").invoke("ArmFailSafe", {"expiryLengthSeconds": 5, "breadcrumb": 0})
        raise AssertionError("expected a refusal")
    except HomeError as exc:
        assert exc.status == Status.UNSUPPORTED_ACCESS


def test_status_report_helpers() -> None:
    assert StatusReport.session_success().is_session_success
