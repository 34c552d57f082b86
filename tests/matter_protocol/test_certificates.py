"""Matter TLV certificates <-> X.509 DER, byte-exact on connectedhomeip's published test certificates
(src/credentials/tests/CHIPCert_test_vectors.cpp), plus chain validation and issuing."""

from __future__ import annotations

import dataclasses

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from bridge.matter.crypto import certificates as certs
from bridge.matter.crypto.certificates import CertificateError, DNAttribute, IssueRequest, MatterCertificate
from bridge.matter.crypto.crypto import generate_private_key, load_private_key, public_key_bytes, sign
from tests.matter_protocol import vectors_certificates as vc


@pytest.mark.parametrize(("name", "chip", "der"), vc.ALL, ids=[name for name, _, _ in vc.ALL])
def test_tlv_to_der_and_back_is_byte_exact(name: str, chip: bytes, der: bytes) -> None:
    cert = certs.decode_tlv(chip)
    assert certs.to_der(cert) == der
    assert certs.encode_tlv(certs.from_der(der)) == chip
    assert certs.encode_tlv(cert) == chip
    # An independent X.509 parser agrees on the fields we rebuilt.
    parsed = x509.load_der_x509_certificate(certs.to_der(cert))
    assert parsed.serial_number == int.from_bytes(cert.serial, "big")
    assert parsed.tbs_certificate_bytes == certs.tbs_der(cert)


def test_decoded_fields_match_the_vector_comments() -> None:
    root = certs.decode_tlv(vc.ROOT02_CHIP)
    assert root.subject_value(DNAttribute.RCAC_ID) == 0xCACACACA00000002
    assert root.fabric_id == 0xFAB000000000001D
    assert root.is_ca and root.path_length == 1
    assert root.key_usage == certs.KeyUsage.KEY_CERT_SIGN | certs.KeyUsage.CRL_SIGN
    assert root.subject_key_id == bytes.fromhex("62BEB9671C91C355C86F06FA6C08801451E1A0EA")
    node = certs.decode_tlv(vc.NODE02_01_CHIP)
    assert node.node_id == 0xDEDEDEDE00020001 and node.fabric_id == 0xFAB000000000001D
    assert not node.is_ca and node.key_usage == certs.KeyUsage.DIGITAL_SIGNATURE
    assert node.extended_key_usage == [2, 1]  # clientAuth, serverAuth, in the vector's order
    assert certs.MATTER_EPOCH.timestamp() + node.not_before == 1602771823  # Oct 15 14:23:43 2020 GMT
    assert certs.decode_tlv(vc.ROOT03_CHIP).not_after == 0  # "Dec 31 23:59:59 9999 GMT"
    assert public_key_bytes(load_private_key(vc.NODE02_01_PRIVATE_KEY)) == node.public_key


def test_published_signatures_verify() -> None:
    root01 = certs.decode_tlv(vc.ROOT01_CHIP)
    assert certs.verify_signature(root01, root01.public_key)
    assert certs.verify_signature(certs.decode_tlv(vc.ICA01_CHIP), root01.public_key)
    assert not certs.verify_signature(certs.decode_tlv(vc.ICA02_CHIP), root01.public_key)


def test_validates_the_published_chain() -> None:
    info = certs.validate_chain(vc.NODE02_01_CHIP, vc.ICA02_CHIP, vc.ROOT02_CHIP, at=700_000_000)
    assert (info.node_id, info.fabric_id) == (0xDEDEDEDE00020001, 0xFAB000000000001D)
    assert info.root_public_key == certs.decode_tlv(vc.ROOT02_CHIP).public_key
    with pytest.raises(CertificateError, match="not valid"):
        certs.validate_chain(vc.NODE02_01_CHIP, vc.ICA02_CHIP, vc.ROOT02_CHIP, at=1_300_000_000)  # after 2040


@pytest.mark.parametrize(
    ("noc", "icac", "rcac", "reason"),
    [
        (vc.NODE02_01_CHIP, None, vc.ROOT02_CHIP, "issuer"),  # ICAC left out
        (vc.NODE02_01_CHIP, vc.ICA02_CHIP, vc.ROOT01_CHIP, "issuer"),  # another root
        (vc.NODE02_01_CHIP, vc.ICA01_CHIP, vc.ROOT01_CHIP, "issuer"),  # NOC not under ICA01
        (vc.ICA02_CHIP, None, vc.ROOT02_CHIP, "CA"),  # a CA as NOC
        (vc.NODE02_01_CHIP, vc.ICA02_CHIP, vc.ICA02_CHIP, "rcac-id"),  # an ICAC as root
    ],
)
def test_rejects_broken_chains(noc: bytes, icac: bytes | None, rcac: bytes, reason: str) -> None:
    with pytest.raises(CertificateError, match=reason):
        certs.validate_chain(noc, icac, rcac)


def test_rejects_tampered_certificates() -> None:
    node = certs.decode_tlv(vc.NODE02_01_CHIP)
    forged = dataclasses.replace(node, subject=[(DNAttribute.NODE_ID, 1), (DNAttribute.FABRIC_ID, node.fabric_id)])
    with pytest.raises(CertificateError, match=r"issuer does not match|signature"):
        certs.validate_chain(certs.encode_tlv(forged), vc.ICA02_CHIP, vc.ROOT02_CHIP)
    flipped = bytearray(vc.NODE02_01_CHIP)
    flipped[-5] ^= 1  # inside the signature
    with pytest.raises(CertificateError, match="signature"):
        certs.validate_chain(bytes(flipped), vc.ICA02_CHIP, vc.ROOT02_CHIP)


@pytest.mark.parametrize(
    "data",
    [b"", b"\x15\x18", vc.ROOT01_CHIP[:-1], vc.ROOT01_CHIP.replace(b"\x24\x02\x01", b"\x24\x02\x02", 1)],
)
def test_rejects_malformed_tlv(data: bytes) -> None:
    with pytest.raises(CertificateError):
        certs.decode_tlv(data)


def test_rejects_malformed_der() -> None:
    for data in (b"", vc.ROOT01_DER[:-3], vc.ROOT01_DER + b"\x00", b"\x30\x03\x02\x01\x01"):
        with pytest.raises(CertificateError):
            certs.from_der(data)


def _fresh_chain(*, with_icac: bool, node_id: int = 0x0000000000000055) -> tuple[bytes, bytes | None, bytes, object]:
    fabric = 0x2906C908D115D362
    root_key, ica_key, node_key = generate_private_key(), generate_private_key(), generate_private_key()
    root_dn = [(DNAttribute.RCAC_ID, 1), (DNAttribute.FABRIC_ID, fabric)]
    root = certs.issue(
        IssueRequest(root_dn, public_key_bytes(root_key), root_dn, root_key, is_ca=True, not_before=1, path_length=1)
    )
    issuer_dn, issuer_key, icac = root_dn, root_key, None
    if with_icac:
        ica_dn = [(DNAttribute.ICAC_ID, 2), (DNAttribute.FABRIC_ID, fabric)]
        icac = certs.issue(IssueRequest(ica_dn, public_key_bytes(ica_key), root_dn, root_key, is_ca=True))
        issuer_dn, issuer_key = ica_dn, ica_key
    node_dn = [(DNAttribute.NODE_ID, node_id), (DNAttribute.FABRIC_ID, fabric), (DNAttribute.NOC_CAT, 0x00010001)]
    noc = certs.issue(IssueRequest(node_dn, public_key_bytes(node_key), issuer_dn, issuer_key, is_ca=False))
    return (
        certs.encode_tlv(noc),
        certs.encode_tlv(icac) if icac else None,
        certs.encode_tlv(root),
        node_key,
    )


@pytest.mark.parametrize("with_icac", [True, False])
def test_issued_chains_validate_and_parse_as_x509(with_icac: bool) -> None:
    noc, icac, rcac, _ = _fresh_chain(with_icac=with_icac)
    info = certs.validate_chain(noc, icac, rcac, at=100)
    assert (info.node_id, info.fabric_id, info.cats) == (0x55, 0x2906C908D115D362, (0x00010001,))
    # cryptography verifies our DER signature independently.
    parent = x509.load_der_x509_certificate(certs.to_der(certs.decode_tlv(icac or rcac)))
    child = x509.load_der_x509_certificate(certs.to_der(certs.decode_tlv(noc)))
    parent_key = parent.public_key()
    assert isinstance(parent_key, ec.EllipticCurvePublicKey)
    parent_key.verify(child.signature, child.tbs_certificate_bytes, ec.ECDSA(hashes.SHA256()))
    assert child.extensions.get_extension_for_class(x509.KeyUsage).value.digital_signature


def test_rejects_non_operational_node_id() -> None:
    noc, icac, rcac, _ = _fresh_chain(with_icac=True, node_id=0xFFFFFFFD00000001)  # a CAT-range id
    with pytest.raises(CertificateError, match="operational node id"):
        certs.validate_chain(noc, icac, rcac)


def test_key_usage_bit_strings() -> None:
    assert certs._bit_string_from_flags(0x60) == b"\x01\x06"
    assert certs._bit_string_from_flags(0x01) == b"\x07\x80"
    assert certs._bit_string_from_flags(0x100) == b"\x07\x00\x80"
    for flags in (0x01, 0x60, 0x1FF, 0x100, 0x21):
        assert certs._flags_from_bit_string(certs._bit_string_from_flags(flags)) == flags


def test_signature_is_over_tbs_der() -> None:
    key = generate_private_key()
    dn = [(DNAttribute.RCAC_ID, 7)]
    cert = MatterCertificate(b"\x01", dn, 0, 0, dn, public_key_bytes(key), [(1, {1: True}), (2, 0x60)])
    cert.signature = sign(key, certs.tbs_der(cert))
    assert certs.verify_signature(cert, cert.public_key)
