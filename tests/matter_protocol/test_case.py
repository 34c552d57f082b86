"""CASE and fabric derivations.

Vectors: the spec's operational-discovery and destination-identifier examples as used by
connectedhomeip src/crypto/tests/TestChipCryptoPAL.cpp (TestCompressedFabricIdentifier) and
src/protocols/secure_channel/tests/TestCASESession.cpp (DestinationIdTest). No published Sigma
transcript exists with fixed randoms, so the handshake is proven by our initiator against our
responder with certificate chains issued by certificates.issue().
"""

from __future__ import annotations

import dataclasses

import pytest

from bridge.matter.codec import tlv
from bridge.matter.crypto import certificates as certs
from bridge.matter.crypto.certificates import DNAttribute, IssueRequest
from bridge.matter.crypto.crypto import PrivateKey, generate_private_key, public_key_bytes
from bridge.matter.crypto.fabric_keys import compressed_fabric_id, destination_id, operational_group_key
from bridge.matter.session.case import CaseError, CaseFabric, CaseInitiator, CaseResponder
from bridge.matter.session.secure_channel import SecureChannelStatus, SessionParameters, StatusReport

SPEC_ROOT_PUBLIC_KEY = bytes.fromhex(
    "044a9f42b1ca4840d37292bbc7f6a7e11e22200c976fc900dbc98a7a383a641cb8"
    "254a2e56d4e295a847943b4e3897c4a773e930277b4d9fbede8a052686bfacfa"
)
SPEC_FABRIC_ID = 0x2906C908D115D362


def test_compressed_fabric_id_spec_vector() -> None:
    assert compressed_fabric_id(SPEC_ROOT_PUBLIC_KEY, SPEC_FABRIC_ID) == bytes.fromhex("87e1b004e235a130")


def test_destination_id_spec_vector() -> None:
    ipk = bytes.fromhex("9bc61cd9c62a2df6d64dfcaa9dc472d4")
    random1 = bytes.fromhex("7e171231568dfa17206b3accf8faec2f4d21b580113196f47c7c4deb810a73dc")
    assert destination_id(ipk, random1, SPEC_ROOT_PUBLIC_KEY, SPEC_FABRIC_ID, 0xCD5544AA7B13EF14) == bytes.fromhex(
        "dc35dd5fc9134cc5544538c9c3fc4297c1ec3370c839136a80e10796451d4c53"
    )


def test_operational_group_key_is_hkdf_over_the_compressed_fabric_id() -> None:
    from bridge.matter.crypto.crypto import hkdf_sha256

    cfid = bytes.fromhex("87e1b004e235a130")
    assert operational_group_key(b"temporary ipk 01", cfid) == hkdf_sha256(
        b"temporary ipk 01", cfid, b"GroupKey v1.0", 16
    )


@dataclasses.dataclass
class _Fabric:
    fabric_id: int
    root_key: PrivateKey
    rcac: bytes
    ipk: bytes

    def member(self, node_id: int, *, signer: PrivateKey | None = None) -> CaseFabric:
        root_dn = certs.decode_tlv(self.rcac).subject
        key = generate_private_key()
        noc = certs.issue(
            IssueRequest(
                [(DNAttribute.NODE_ID, node_id), (DNAttribute.FABRIC_ID, self.fabric_id)],
                public_key_bytes(key),
                root_dn,
                signer or self.root_key,
                is_ca=False,
            )
        )
        root_public = public_key_bytes(self.root_key)
        return CaseFabric(self.fabric_id, node_id, root_public, self.rcac, certs.encode_tlv(noc), None, key, self.ipk)


def _new_fabric(fabric_id: int = SPEC_FABRIC_ID) -> _Fabric:
    root_key = generate_private_key()
    dn = [(DNAttribute.RCAC_ID, 1), (DNAttribute.FABRIC_ID, fabric_id)]
    rcac = certs.encode_tlv(certs.issue(IssueRequest(dn, public_key_bytes(root_key), dn, root_key, is_ca=True)))
    ipk = operational_group_key(b"temporary ipk 01", compressed_fabric_id(public_key_bytes(root_key), fabric_id))
    return _Fabric(fabric_id, root_key, rcac, ipk)


def test_full_handshake_agrees_on_session_keys() -> None:
    fabric = _new_fabric()
    other = _new_fabric(fabric_id=7)
    device = CaseResponder(
        fabrics=[other.member(0x99), fabric.member(0x55)],
        local_session_id=0x2222,
        local_parameters=SessionParameters(idle_interval_ms=500),
    )
    controller = CaseInitiator(fabric=fabric.member(0x1), peer_node_id=0x55, local_session_id=0x1111)
    sigma2 = device.handle_sigma1(controller.start())
    status = device.handle_sigma3(controller.handle_sigma2(sigma2))
    ours = controller.handle_status_report(status)
    theirs = device.result
    assert theirs is not None
    assert ours.keys == theirs.keys
    assert (theirs.peer_node_id, theirs.fabric.fabric_id, theirs.peer_session_id) == (0x1, SPEC_FABRIC_ID, 0x1111)
    assert (ours.peer_node_id, ours.peer_session_id) == (0x55, 0x2222)
    assert ours.peer_parameters.idle_interval_ms == 500
    # Sigma2's ciphertext is TBEData2 sealed with a 16-byte MIC; the message itself is a plain TLV struct.
    decoded = tlv.decode(sigma2)
    assert set(decoded) == {1, 2, 3, 4, 5} and decoded[2] == 0x2222


def test_unknown_destination_gets_no_shared_trust_roots() -> None:
    device = CaseResponder(fabrics=[_new_fabric().member(0x55)], local_session_id=1)
    stranger = CaseInitiator(fabric=_new_fabric().member(0x1), peer_node_id=0x55, local_session_id=2)
    with pytest.raises(CaseError) as failure:
        device.handle_sigma1(stranger.start())
    status = StatusReport.decode(failure.value.status_report.encode())
    assert status.protocol_code == SecureChannelStatus.NO_SHARED_TRUST_ROOTS


def test_initiator_with_a_forged_noc_is_refused_at_sigma3() -> None:
    fabric = _new_fabric()
    device = CaseResponder(fabrics=[fabric.member(0x55)], local_session_id=1)
    impostor = fabric.member(0x1, signer=generate_private_key())  # right root DN, wrong signing key
    controller = CaseInitiator(fabric=impostor, peer_node_id=0x55, local_session_id=2)
    sigma3 = controller.handle_sigma2(device.handle_sigma1(controller.start()))
    with pytest.raises(CaseError, match="certificate chain"):
        device.handle_sigma3(sigma3)
    assert device.result is None


def test_tampered_sigma2_and_sigma3_are_refused() -> None:
    fabric = _new_fabric()
    device = CaseResponder(fabrics=[fabric.member(0x55)], local_session_id=1)
    controller = CaseInitiator(fabric=fabric.member(0x1), peer_node_id=0x55, local_session_id=2)
    sigma2 = bytearray(device.handle_sigma1(controller.start()))
    sigma2[-30] ^= 0x01  # inside encrypted2 (sessionParams follow it)
    with pytest.raises(CaseError):
        controller.handle_sigma2(bytes(sigma2))
    with pytest.raises(CaseError):
        device.handle_sigma3(tlv.encode({1: b"\x00" * 40}))


@pytest.mark.parametrize(
    "payload",
    [b"", b"\x15\x18", tlv.encode({1: b"x" * 32, 2: 1, 3: b"y" * 32, 4: b"\x04" + b"\x01" * 64})],
)
def test_malformed_sigma1_is_refused(payload: bytes) -> None:
    with pytest.raises(CaseError):
        CaseResponder(fabrics=[_new_fabric().member(0x55)], local_session_id=1).handle_sigma1(payload)
