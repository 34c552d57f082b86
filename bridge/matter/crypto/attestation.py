"""Device attestation credentials: PAA -> PAI -> DAC chain and a development Certification Declaration.

TEST-ONLY MATERIAL. The PAA certificate/key and the CD signing key below are the *public* test
credentials published in connectedhomeip (``credentials/test/attestation/Chip-Test-PAA-NoVID-*``
and ``credentials/test/certification-declaration/Chip-Test-CD-Signing-*``). Anyone can sign with
them; controllers accept them only because they are configured to trust test roots (the PAA
exported by :func:`export_paa`) and because the CD says certification_type 0 (development).
Never use them for a product.

Per installation we generate (once, persisted in the state directory) a PAI signed by the test
PAA and a DAC signed by that PAI, both carrying the node's VID/PID in the subject (Matter OIDs
1.3.6.1.4.1.37244.2.1/2.2), so VID/PID agree across Basic Information, DAC, PAI and CD.
"""

from __future__ import annotations

import datetime
import os
import time
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from bridge.matter.codec import der, tlv
from bridge.matter.codec.persistence import StateStore
from bridge.matter.crypto.crypto import (
    PrivateKey,
    load_private_key,
    private_key_bytes,
    public_key_bytes,
    sha1_key_id,
    sign,
)
from clusters.device_types import ROOT_NODE

__all__ = [
    "PAA_DER_FILE",
    "PAA_PEM_FILE",
    "TEST_CD_SIGNING_KEY_ID",
    "TEST_PAA_KEY_ID",
    "AttestationCredentials",
    "certification_declaration",
    "export_paa",
    "load_or_create",
    "test_cd_signing_key",
    "test_paa_certificate",
    "test_paa_key",
]

# TEST-ONLY: connectedhomeip credentials/test/attestation/Chip-Test-PAA-NoVID-Cert.pem (CN "Matter Test PAA").
_TEST_PAA_CERT_PEM = b"""-----BEGIN CERTIFICATE-----
MIIBkTCCATegAwIBAgIHC4+6qN2G7jAKBggqhkjOPQQDAjAaMRgwFgYDVQQDDA9N
YXR0ZXIgVGVzdCBQQUEwIBcNMjEwNjI4MTQyMzQzWhgPOTk5OTEyMzEyMzU5NTla
MBoxGDAWBgNVBAMMD01hdHRlciBUZXN0IFBBQTBZMBMGByqGSM49AgEGCCqGSM49
AwEHA0IABBDvAqgah7aBIfuo0xl4+AejF+UKqKgoRGgokUuTPejt1KXDnJ/3Gkzj
ZH/X9iZTt9JJX8ukwPR/h2iAA54HIEqjZjBkMBIGA1UdEwEB/wQIMAYBAf8CAQEw
DgYDVR0PAQH/BAQDAgEGMB0GA1UdDgQWBBR4XOcFuGuPTm/Hk6pgy0PqaWiC1TAf
BgNVHSMEGDAWgBR4XOcFuGuPTm/Hk6pgy0PqaWiC1TAKBggqhkjOPQQDAgNIADBF
AiEAue/bPqBqUuwL8B5h2u0sLRVt22zwFBAdq3mPrAX6R+UCIGAGHT411g2dSw1E
ja12EvfoXFguP8MS3Bh5TdNzcV5d
-----END CERTIFICATE-----
"""
# TEST-ONLY: connectedhomeip credentials/test/attestation/Chip-Test-PAA-NoVID-Key.pem (public test key).
_TEST_PAA_KEY_PEM = b"""-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIOHwc8k0hTuv+zi/fova16CmdBB8d2mJKg/y4GwaLvenoAoGCCqGSM49
AwEHoUQDQgAEEO8CqBqHtoEh+6jTGXj4B6MX5QqoqChEaCiRS5M96O3UpcOcn/ca
TONkf9f2JlO30klfy6TA9H+HaIADngcgSg==
-----END EC PRIVATE KEY-----
"""
# TEST-ONLY: connectedhomeip credentials/test/certification-declaration/Chip-Test-CD-Signing-Key.pem.
_TEST_CD_KEY_PEM = b"""-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIK7zSEEW6UgexXvgRy30G/SZBk5QJK2GnspeiJgC1IB1oAoGCCqGSM49
AwEHoUQDQgAEPDmJIkUrVcrzicJb0bykZWlSzLkOiGkkmthHRlMBTL+V1oeWXgNr
UhxRA35rjO3vyh60QEZpT6CIgu7WUZ3sug==
-----END EC PRIVATE KEY-----
"""
# The file names ``export_paa`` writes the PAA under: connectedhomeip's own, which a controller's PAA store expects.
PAA_DER_FILE, PAA_PEM_FILE = "Chip-Test-PAA-NoVID-Cert.der", "Chip-Test-PAA-NoVID-Cert.pem"
# Subject key ids as published (facts §3): the controller looks the PAA up by it, and knows the CD key by it.
TEST_PAA_KEY_ID = bytes.fromhex("785CE705B86B8F4E6FC793AA60CB43EA696882D5")
TEST_CD_SIGNING_KEY_ID = bytes.fromhex("62FA823359ACFAA9963E1CFA140ADDF504F37160")

_OID_VENDOR_ID = x509.ObjectIdentifier("1.3.6.1.4.1.37244.2.1")
_OID_PRODUCT_ID = x509.ObjectIdentifier("1.3.6.1.4.1.37244.2.2")
_NOT_BEFORE = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
_NO_EXPIRY = datetime.datetime(9999, 12, 31, 23, 59, 59, tzinfo=datetime.UTC)  # "no well-defined expiration"
CERTIFICATE_ID = "CSA00000SWC00000-00"  # development CD certificate id format
CD_DEVICE_TYPE = ROOT_NODE[0]  # the SDK does not match it against the data model


def _load_key(pem: bytes) -> PrivateKey:
    key = serialization.load_pem_private_key(pem, password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    return key


def test_paa_certificate() -> x509.Certificate:
    return x509.load_pem_x509_certificate(_TEST_PAA_CERT_PEM)


def test_paa_key() -> PrivateKey:
    return _load_key(_TEST_PAA_KEY_PEM)


def test_cd_signing_key() -> PrivateKey:
    return _load_key(_TEST_CD_KEY_PEM)


def _subject(common_name: str, vendor_id: int, product_id: int | None) -> x509.Name:
    attrs = [
        x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        x509.NameAttribute(_OID_VENDOR_ID, f"{vendor_id:04X}"),
    ]
    if product_id is not None:
        attrs.append(x509.NameAttribute(_OID_PRODUCT_ID, f"{product_id:04X}"))
    return x509.Name(attrs)


def _issue(
    subject: x509.Name, key: PrivateKey, issuer: x509.Name, issuer_key: PrivateKey, *, ca: bool
) -> x509.Certificate:
    """A certificate in the Matter attestation profile (spec §6.2.2)."""
    usage = dict.fromkeys(
        (
            "digital_signature",
            "content_commitment",
            "key_encipherment",
            "data_encipherment",
            "key_agreement",
            "key_cert_sign",
            "crl_sign",
            "encipher_only",
            "decipher_only",
        ),
        False,
    )
    if ca:
        usage.update(key_cert_sign=True, crl_sign=True)
    else:
        usage.update(digital_signature=True)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(_NOT_BEFORE)
        .not_valid_after(_NO_EXPIRY)
        .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None), critical=True)
        .add_extension(x509.KeyUsage(**usage), critical=True)
        .add_extension(x509.SubjectKeyIdentifier(sha1_key_id(public_key_bytes(key))), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier(sha1_key_id(public_key_bytes(issuer_key)), None, None), critical=False
        )
    )
    return builder.sign(issuer_key, hashes.SHA256())


@dataclass(frozen=True)
class AttestationCredentials:
    """What OperationalCredentials answers with: PAI/DAC (DER), the DAC key and the signed CD."""

    vendor_id: int
    product_id: int
    pai_der: bytes
    dac_der: bytes
    dac_key: PrivateKey
    certification_declaration: bytes

    def sign_with_dac(self, message: bytes) -> bytes:
        return sign(self.dac_key, message)


def certification_declaration(vendor_id: int, product_ids: list[int], *, version_number: int = 1) -> bytes:
    """A development CD (certification_type 0) as CMS SignedData signed with the TEST-ONLY CD key."""
    content = tlv.encode(
        {
            0: 1,  # format_version
            1: vendor_id,
            2: list(product_ids),
            3: CD_DEVICE_TYPE,
            4: CERTIFICATE_ID,
            5: 0,  # security_level
            6: 0,  # security_information
            7: version_number,
            8: 0,  # certification_type: development/test
        }
    )
    key = test_cd_signing_key()
    signature = key.sign(content, ec.ECDSA(hashes.SHA256()))  # DER Ecdsa-Sig-Value, as CMS wants
    sha256_alg = der.element(der.SEQUENCE, der.element(der.OID, der.encode_oid("2.16.840.1.101.3.4.2.1")))
    signer_info = der.element(
        der.SEQUENCE,
        der.element(der.INTEGER, b"\x03"),
        der.element(0x80, sha1_key_id(public_key_bytes(key))),  # sid: [0] subjectKeyIdentifier
        sha256_alg,
        der.element(der.SEQUENCE, der.element(der.OID, der.encode_oid("1.2.840.10045.4.3.2"))),
        der.element(der.OCTET_STRING, signature),
    )
    signed_data = der.element(
        der.SEQUENCE,
        der.element(der.INTEGER, b"\x03"),
        der.element(der.SET, sha256_alg),
        der.element(
            der.SEQUENCE,
            der.element(der.OID, der.encode_oid("1.2.840.113549.1.7.1")),
            der.element(0xA0, der.element(der.OCTET_STRING, content)),
        ),
        der.element(der.SET, signer_info),
    )
    return der.element(
        der.SEQUENCE,
        der.element(der.OID, der.encode_oid("1.2.840.113549.1.7.2")),
        der.element(0xA0, signed_data),
    )


def _create(vendor_id: int, product_id: int) -> dict[str, str | int]:
    paa = test_paa_certificate()
    paa_key = test_paa_key()
    pai_key = ec.generate_private_key(ec.SECP256R1())
    pai = _issue(_subject("HomeFabric Test PAI", vendor_id, None), pai_key, paa.subject, paa_key, ca=True)
    dac_key = ec.generate_private_key(ec.SECP256R1())
    dac = _issue(_subject("HomeFabric Test DAC", vendor_id, product_id), dac_key, pai.subject, pai_key, ca=False)
    return {
        "vendor_id": vendor_id,
        "product_id": product_id,
        "pai": pai.public_bytes(serialization.Encoding.DER).hex(),
        "pai_key": private_key_bytes(pai_key).hex(),
        "dac": dac.public_bytes(serialization.Encoding.DER).hex(),
        "dac_key": private_key_bytes(dac_key).hex(),
    }


def load_or_create(store: StateStore, vendor_id: int, product_id: int) -> AttestationCredentials:
    """The installation's PAI/DAC (generated on first start, regenerated if VID/PID changed)."""
    stored = store.load("attestation")
    if not stored or stored.get("vendor_id") != vendor_id or stored.get("product_id") != product_id:
        stored = _create(vendor_id, product_id)
        store.save("attestation", stored)
    return AttestationCredentials(
        vendor_id=vendor_id,
        product_id=product_id,
        pai_der=bytes.fromhex(stored["pai"]),
        dac_der=bytes.fromhex(stored["dac"]),
        dac_key=load_private_key(bytes.fromhex(stored["dac_key"])),
        certification_declaration=certification_declaration(vendor_id, [product_id]),
    )


def export_paa(directory: str | os.PathLike[str]) -> Path:
    """Write the TEST-ONLY PAA (DER and PEM) into ``directory`` plus a fresh ``.version``.

    python-matter-server deletes every file of a PAA directory that lacks a ``.version`` younger
    than 24 h (facts §3.2), so the marker is (re)written each time.
    """
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    paa = test_paa_certificate()
    (target / PAA_DER_FILE).write_bytes(paa.public_bytes(serialization.Encoding.DER))
    (target / PAA_PEM_FILE).write_bytes(paa.public_bytes(serialization.Encoding.PEM))
    version = target / ".version"
    version.write_text(f"homefabric {int(time.time())}\n")
    now = time.time()
    os.utime(version, (now, now))
    return target
