"""Matter operational certificates (RCAC, ICAC, NOC): TLV form <-> X.509 DER, issuing, chain checks.

Spec §6.5. The TLV form is what travels (AddTrustedRootCertificate, AddNOC, CASE); signatures
are computed over the DER form of the TBS certificate, so :func:`to_der` must rebuild it
byte-exactly. TLV layout::

    { 1 serial (octets), 2 sig-algo (1 = ecdsa-with-SHA256), 3 issuer (list), 4 not-before,
      5 not-after (Matter epoch seconds, 0 = no expiry), 6 subject (list), 7 pub-key-algo (1 = EC),
      8 curve (1 = prime256v1), 9 public key (65 octets), 10 extensions (list),
      11 signature (64 octets r||s) }

DN lists hold context-tagged attributes; Matter attributes (node id, fabric id, RCAC/ICAC ids,
CASE Authenticated Tags) are integers in TLV and upper-case hex UTF8Strings in DER.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from bridge.matter.codec import der, tlv
from bridge.matter.codec.der import DerError
from bridge.matter.codec.tlv import TLVError, TLVList
from bridge.matter.crypto.crypto import (
    CryptoError,
    PrivateKey,
    der_to_raw_signature,
    load_public_key,
    public_key_bytes,
    raw_to_der_signature,
    sha1_key_id,
    sign,
    verify,
)

__all__ = [
    "MATTER_EPOCH",
    "CertificateError",
    "ChainInfo",
    "DNAttribute",
    "Extensions",
    "KeyUsage",
    "MatterCertificate",
    "decode_tlv",
    "encode_tlv",
    "from_der",
    "issue",
    "to_der",
    "validate_chain",
]

MATTER_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_NO_EXPIRY = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)

_OID_ECDSA_SHA256 = "1.2.840.10045.4.3.2"
_OID_EC_PUBLIC_KEY = "1.2.840.10045.2.1"
_OID_PRIME256V1 = "1.2.840.10045.3.1.7"
_OID_BASIC_CONSTRAINTS = "2.5.29.19"
_OID_KEY_USAGE = "2.5.29.15"
_OID_EXT_KEY_USAGE = "2.5.29.37"
_OID_SUBJECT_KEY_ID = "2.5.29.14"
_OID_AUTHORITY_KEY_ID = "2.5.29.35"
_KEY_PURPOSE_PREFIX = "1.3.6.1.5.5.7.3."  # + 1 serverAuth, 2 clientAuth, 3 codeSigning, ...


class DNAttribute:
    """TLV tags of DN attributes; add ``PRINTABLE`` (0x80) to tags 1..15 for PrintableString."""

    COMMON_NAME = 1
    DOMAIN_COMPONENT = 16
    NODE_ID = 17
    FIRMWARE_SIGNING_ID = 18
    ICAC_ID = 19
    RCAC_ID = 20
    FABRIC_ID = 21
    NOC_CAT = 22
    PRINTABLE = 0x80


_STRING_OIDS = {
    1: "2.5.4.3",  # commonName
    2: "2.5.4.4",  # surname
    3: "2.5.4.5",  # serialNumber
    4: "2.5.4.6",  # countryName
    5: "2.5.4.7",  # localityName
    6: "2.5.4.8",  # stateOrProvinceName
    7: "2.5.4.10",  # organizationName
    8: "2.5.4.11",  # organizationalUnitName
    9: "2.5.4.12",  # title
    10: "2.5.4.41",  # name
    11: "2.5.4.42",  # givenName
    12: "2.5.4.43",  # initials
    13: "2.5.4.44",  # generationQualifier
    14: "2.5.4.46",  # dnQualifier
    15: "2.5.4.65",  # pseudonym
    16: "0.9.2342.19200300.100.1.25",  # domainComponent (IA5String)
}
_MATTER_OIDS = {tag: f"1.3.6.1.4.1.37244.1.{tag - 16}" for tag in range(17, 23)}
_OID_TO_TAG = {oid: tag for tag, oid in {**_STRING_OIDS, **_MATTER_OIDS}.items()}


class KeyUsage:
    DIGITAL_SIGNATURE = 0x0001
    NON_REPUDIATION = 0x0002
    KEY_ENCIPHERMENT = 0x0004
    DATA_ENCIPHERMENT = 0x0008
    KEY_AGREEMENT = 0x0010
    KEY_CERT_SIGN = 0x0020
    CRL_SIGN = 0x0040
    ENCIPHER_ONLY = 0x0080
    DECIPHER_ONLY = 0x0100


class ExtKeyUsage:
    SERVER_AUTH = 1
    CLIENT_AUTH = 2


class CertificateError(ValueError):
    """The certificate is malformed, or the chain does not validate."""


class Extensions:
    """TLV tags of the extensions list."""

    BASIC_CONSTRAINTS = 1
    KEY_USAGE = 2
    EXTENDED_KEY_USAGE = 3
    SUBJECT_KEY_ID = 4
    AUTHORITY_KEY_ID = 5
    FUTURE_EXTENSION = 6


DN = list[tuple[int, Any]]


@dataclass
class MatterCertificate:
    """A decoded Matter certificate; ``extensions`` keeps TLV order so re-encoding is exact."""

    serial: bytes
    issuer: DN
    not_before: int
    not_after: int
    subject: DN
    public_key: bytes
    extensions: list[tuple[int, Any]]
    signature: bytes = b""

    # ------------------------------------------------------------------ convenient views

    def _extension(self, tag: int) -> Any:
        return next((value for ext_tag, value in self.extensions if ext_tag == tag), None)

    @property
    def is_ca(self) -> bool:
        constraints = self._extension(Extensions.BASIC_CONSTRAINTS)
        return bool(constraints and constraints.get(1))

    @property
    def path_length(self) -> int | None:
        constraints = self._extension(Extensions.BASIC_CONSTRAINTS)
        return None if not constraints or constraints.get(2) is None else int(constraints[2])

    @property
    def key_usage(self) -> int:
        return int(self._extension(Extensions.KEY_USAGE) or 0)

    @property
    def extended_key_usage(self) -> list[int]:
        return [int(x) for x in self._extension(Extensions.EXTENDED_KEY_USAGE) or []]

    @property
    def subject_key_id(self) -> bytes | None:
        return cast(bytes | None, self._extension(Extensions.SUBJECT_KEY_ID))

    @property
    def authority_key_id(self) -> bytes | None:
        return cast(bytes | None, self._extension(Extensions.AUTHORITY_KEY_ID))

    def subject_value(self, tag: int) -> Any:
        return _dn_value(self.subject, tag)

    def issuer_value(self, tag: int) -> Any:
        return _dn_value(self.issuer, tag)

    @property
    def node_id(self) -> int | None:
        return cast(int | None, self.subject_value(DNAttribute.NODE_ID))

    @property
    def fabric_id(self) -> int | None:
        return cast(int | None, self.subject_value(DNAttribute.FABRIC_ID))

    @property
    def cats(self) -> list[int]:
        return [int(value) for tag, value in self.subject if tag == DNAttribute.NOC_CAT]


def _dn_value(dn: DN, tag: int) -> Any:
    return next((value for attr_tag, value in dn if attr_tag == tag), None)


# ------------------------------------------------------------------------------ TLV form


def decode_tlv(data: bytes) -> MatterCertificate:
    """Parse a Matter TLV certificate (structure checks only; see :func:`validate_chain`)."""
    try:
        cert = tlv.decode(data)
        if not isinstance(cert, dict):
            raise CertificateError("certificate is not a TLV structure")
        if tlv.field_uint(cert, 2) != 1 or tlv.field_uint(cert, 7) != 1 or tlv.field_uint(cert, 8) != 1:
            raise CertificateError("only ecdsa-with-SHA256 over prime256v1 is supported")
        result = MatterCertificate(
            serial=tlv.field_bytes(cert, 1, max_length=20),
            issuer=_dn_from_tlv(cert.get(3)),
            not_before=tlv.field_uint(cert, 4, maximum=0xFFFFFFFF),
            not_after=tlv.field_uint(cert, 5, maximum=0xFFFFFFFF),
            subject=_dn_from_tlv(cert.get(6)),
            public_key=tlv.field_bytes(cert, 9, length=65),
            extensions=_extensions_from_tlv(cert.get(10)),
            signature=tlv.field_bytes(cert, 11, length=64),
        )
    except TLVError as exc:
        raise CertificateError(f"malformed certificate: {exc}") from exc
    if set(cert) - set(range(1, 12)):
        raise CertificateError("unknown certificate field")
    return result


def _dn_from_tlv(value: object) -> DN:
    if not isinstance(value, TLVList):
        raise CertificateError("a distinguished name must be a TLV list")
    dn: DN = []
    for tag, item in value:
        base = (tag or 0) & ~DNAttribute.PRINTABLE
        if base in _MATTER_OIDS and tag == base:
            limit = 0xFFFFFFFF if tag == DNAttribute.NOC_CAT else 0xFFFFFFFFFFFFFFFF
            if not isinstance(item, tlv.uint) or item > limit:
                raise CertificateError(f"DN attribute {tag} must be an unsigned integer")
            dn.append((tag, int(item)))
        elif base in _STRING_OIDS and isinstance(item, str):
            dn.append((tag, item))
        else:
            raise CertificateError(f"unsupported DN attribute {tag}")
    return dn


def _extensions_from_tlv(value: object) -> list[tuple[int, Any]]:
    if not isinstance(value, TLVList):
        raise CertificateError("extensions must be a TLV list")
    out: list[tuple[int, Any]] = []
    for tag, item in value:
        if tag == Extensions.BASIC_CONSTRAINTS:
            is_ca = tlv.field_bool(item, 1)
            path = tlv.field_uint(item, 2, maximum=0xFF, optional=True)
            out.append((tag, {1: is_ca} if path is None else {1: is_ca, 2: path}))
        elif tag == Extensions.KEY_USAGE:
            if not isinstance(item, tlv.uint) or item > 0x1FF:
                raise CertificateError("key usage must be a 9-bit unsigned integer")
            out.append((tag, int(item)))
        elif tag == Extensions.EXTENDED_KEY_USAGE:
            if not isinstance(item, list) or not all(isinstance(x, tlv.uint) and 0 < x < 128 for x in item):
                raise CertificateError("extended key usage must be an array of key purposes")
            out.append((tag, [int(x) for x in item]))
        elif tag in (Extensions.SUBJECT_KEY_ID, Extensions.AUTHORITY_KEY_ID):
            if not isinstance(item, bytes) or len(item) != 20:
                raise CertificateError("key identifiers are 20 bytes")
            out.append((tag, item))
        elif tag == Extensions.FUTURE_EXTENSION and isinstance(item, bytes):
            out.append((tag, item))
        else:
            raise CertificateError(f"unsupported extension {tag}")
    return out


def encode_tlv(cert: MatterCertificate) -> bytes:
    extensions = TLVList([(tag, value) for tag, value in cert.extensions])
    return tlv.encode(
        {
            1: cert.serial,
            2: 1,
            3: TLVList(cert.issuer),
            4: cert.not_before,
            5: cert.not_after,
            6: TLVList(cert.subject),
            7: 1,
            8: 1,
            9: cert.public_key,
            10: extensions,
            11: cert.signature,
        }
    )


# ------------------------------------------------------------------------------- DER form


def _dn_to_der(dn: DN) -> bytes:
    rdns = []
    for tag, value in dn:
        base = tag & ~DNAttribute.PRINTABLE
        if tag in _MATTER_OIDS:
            width = 8 if tag == DNAttribute.NOC_CAT else 16
            encoded = der.element(der.UTF8_STRING, f"{value:0{width}X}".encode())
            oid = _MATTER_OIDS[tag]
        else:
            oid = _STRING_OIDS[base]
            if base == DNAttribute.DOMAIN_COMPONENT:
                string_tag = der.IA5_STRING
            elif tag & DNAttribute.PRINTABLE:
                string_tag = der.PRINTABLE_STRING
            else:
                string_tag = der.UTF8_STRING
            encoded = der.element(string_tag, value.encode())
        attribute = der.element(der.SEQUENCE, der.element(der.OID, der.encode_oid(oid)), encoded)
        rdns.append(der.element(der.SET, attribute))  # one attribute per RDN, as CHIP does
    return der.element(der.SEQUENCE, *rdns)


def _dn_from_der(content: bytes) -> DN:
    dn: DN = []
    for rdn_tag, rdn in der.children(content):
        if rdn_tag != der.SET:
            raise CertificateError("RDN must be a SET")
        for attr_tag, attribute in der.children(rdn):
            parts = der.children(attribute)
            if attr_tag != der.SEQUENCE or len(parts) != 2 or parts[0][0] != der.OID:
                raise CertificateError("malformed DN attribute")
            oid = der.decode_oid(parts[0][1])
            string_tag, raw = parts[1]
            tag = _OID_TO_TAG.get(oid)
            if tag is None:
                raise CertificateError(f"DN attribute {oid} has no Matter TLV form")
            if tag in _MATTER_OIDS:
                width = 8 if tag == DNAttribute.NOC_CAT else 16
                text = raw.decode("ascii", "replace")
                if len(text) != width or text.upper() != text or any(c not in "0123456789ABCDEF" for c in text):
                    raise CertificateError(f"DN attribute {oid} must be {width} upper-case hex digits")
                dn.append((tag, int(text, 16)))
            else:
                if string_tag == der.PRINTABLE_STRING and tag != DNAttribute.DOMAIN_COMPONENT:
                    tag |= DNAttribute.PRINTABLE
                dn.append((tag, raw.decode("utf-8")))
    return dn


def _time_to_der(epoch_seconds: int, *, not_after: bool) -> bytes:
    moment = _NO_EXPIRY if not_after and epoch_seconds == 0 else MATTER_EPOCH + timedelta(seconds=epoch_seconds)
    if 1950 <= moment.year < 2050:
        return der.element(der.UTC_TIME, moment.strftime("%y%m%d%H%M%SZ").encode())
    return der.element(der.GENERALIZED_TIME, moment.strftime("%Y%m%d%H%M%SZ").encode())


def _time_from_der(tag: int, content: bytes) -> int:
    text = content.decode("ascii", "replace")
    try:
        if tag == der.UTC_TIME:
            moment = datetime.strptime(text, "%y%m%d%H%M%SZ").replace(tzinfo=UTC)
            if moment.year >= 2050:
                moment = moment.replace(year=moment.year - 100)
        elif tag == der.GENERALIZED_TIME:
            moment = datetime.strptime(text, "%Y%m%d%H%M%SZ").replace(tzinfo=UTC)
        else:
            raise CertificateError("validity must be UTCTime or GeneralizedTime")
    except ValueError as exc:
        raise CertificateError(f"malformed time {text!r}") from exc
    if moment == _NO_EXPIRY:
        return 0
    seconds = int((moment - MATTER_EPOCH).total_seconds())
    if not 0 <= seconds <= 0xFFFFFFFF:
        raise CertificateError("time outside the Matter epoch range")
    return seconds


def _bit_string_from_flags(flags: int) -> bytes:
    """Key usage flags (bit i = named bit i) -> DER BIT STRING content, trailing zero bits removed."""
    if flags == 0:
        return b"\x00"
    n_bits = flags.bit_length()
    n_bytes = (n_bits + 7) // 8
    value = 0
    for bit in range(n_bits):
        if flags >> bit & 1:
            value |= 1 << (n_bytes * 8 - 1 - bit)
    return bytes([n_bytes * 8 - n_bits]) + value.to_bytes(n_bytes, "big")


def _flags_from_bit_string(content: bytes) -> int:
    if not content or content[0] > 7:
        raise CertificateError("malformed BIT STRING")
    data = content[1:]
    total = len(data) * 8
    flags = 0
    for bit in range(total):
        if data[bit // 8] >> (7 - bit % 8) & 1:
            flags |= 1 << bit
    return flags


def _extension_to_der(tag: int, value: Any) -> bytes:
    if tag == Extensions.FUTURE_EXTENSION:
        return cast(bytes, value)  # already a complete DER Extension
    critical = der.element(der.BOOLEAN, b"\xff")
    if tag == Extensions.BASIC_CONSTRAINTS:
        inner = b""
        if value.get(1):
            inner += der.element(der.BOOLEAN, b"\xff")
        if value.get(2) is not None:
            inner += der.element(der.INTEGER, _der_uint(value[2]))
        return _ext(_OID_BASIC_CONSTRAINTS, critical, der.element(der.SEQUENCE, inner))
    if tag == Extensions.KEY_USAGE:
        return _ext(_OID_KEY_USAGE, critical, der.element(der.BIT_STRING, _bit_string_from_flags(value)))
    if tag == Extensions.EXTENDED_KEY_USAGE:
        purposes = [der.element(der.OID, der.encode_oid(f"{_KEY_PURPOSE_PREFIX}{p}")) for p in value]
        return _ext(_OID_EXT_KEY_USAGE, critical, der.element(der.SEQUENCE, *purposes))
    if tag == Extensions.SUBJECT_KEY_ID:
        return _ext(_OID_SUBJECT_KEY_ID, b"", der.element(der.OCTET_STRING, value))
    if tag == Extensions.AUTHORITY_KEY_ID:
        return _ext(_OID_AUTHORITY_KEY_ID, b"", der.element(der.SEQUENCE, der.element(0x80, value)))
    raise CertificateError(f"unsupported extension {tag}")


def _ext(oid: str, critical: bytes, value: bytes) -> bytes:
    return der.element(
        der.SEQUENCE, der.element(der.OID, der.encode_oid(oid)), critical, der.element(der.OCTET_STRING, value)
    )


def _der_uint(value: int) -> bytes:
    return value.to_bytes(value.bit_length() // 8 + 1, "big")  # leading 0x00 keeps it positive


def _extension_from_der(content: bytes) -> tuple[int, Any]:
    parts = der.children(content)
    if len(parts) not in (2, 3) or parts[0][0] != der.OID or parts[-1][0] != der.OCTET_STRING:
        raise CertificateError("malformed extension")
    oid = der.decode_oid(parts[0][1])
    critical = len(parts) == 3 and parts[1] == (der.BOOLEAN, b"\xff")
    tag_inner, value = der.read_single(parts[-1][1])
    if oid == _OID_BASIC_CONSTRAINTS and critical and tag_inner == der.SEQUENCE:
        fields = der.children(value)
        result: dict[int, Any] = {1: False}
        for field_tag, field_value in fields:
            if field_tag == der.BOOLEAN:
                result[1] = field_value == b"\xff"
            elif field_tag == der.INTEGER:
                result[2] = int.from_bytes(field_value, "big")
        return Extensions.BASIC_CONSTRAINTS, result
    if oid == _OID_KEY_USAGE and critical and tag_inner == der.BIT_STRING:
        return Extensions.KEY_USAGE, _flags_from_bit_string(value)
    if oid == _OID_EXT_KEY_USAGE and critical and tag_inner == der.SEQUENCE:
        purposes = []
        for purpose_tag, purpose in der.children(value):
            dotted = der.decode_oid(purpose) if purpose_tag == der.OID else ""
            if not dotted.startswith(_KEY_PURPOSE_PREFIX):
                raise CertificateError(f"unsupported key purpose {dotted}")
            purposes.append(int(dotted[len(_KEY_PURPOSE_PREFIX) :]))
        return Extensions.EXTENDED_KEY_USAGE, purposes
    if oid == _OID_SUBJECT_KEY_ID and not critical and tag_inner == der.OCTET_STRING:
        return Extensions.SUBJECT_KEY_ID, value
    if oid == _OID_AUTHORITY_KEY_ID and not critical and tag_inner == der.SEQUENCE:
        key_id = der.children(value)
        if len(key_id) != 1 or key_id[0][0] != 0x80:
            raise CertificateError("only keyIdentifier is supported in AuthorityKeyIdentifier")
        return Extensions.AUTHORITY_KEY_ID, key_id[0][1]
    return Extensions.FUTURE_EXTENSION, der.element(der.SEQUENCE, content)


def tbs_der(cert: MatterCertificate) -> bytes:
    """The DER TBSCertificate: the bytes the issuer signs."""
    algorithm = der.element(der.SEQUENCE, der.element(der.OID, der.encode_oid(_OID_ECDSA_SHA256)))
    spki = der.element(
        der.SEQUENCE,
        der.element(
            der.SEQUENCE,
            der.element(der.OID, der.encode_oid(_OID_EC_PUBLIC_KEY)),
            der.element(der.OID, der.encode_oid(_OID_PRIME256V1)),
        ),
        der.element(der.BIT_STRING, b"\x00" + cert.public_key),
    )
    extensions = der.element(
        0xA3, der.element(der.SEQUENCE, *(_extension_to_der(tag, value) for tag, value in cert.extensions))
    )
    return der.element(
        der.SEQUENCE,
        der.element(0xA0, der.element(der.INTEGER, b"\x02")),  # version v3
        der.element(der.INTEGER, cert.serial),
        algorithm,
        _dn_to_der(cert.issuer),
        der.element(
            der.SEQUENCE,
            _time_to_der(cert.not_before, not_after=False),
            _time_to_der(cert.not_after, not_after=True),
        ),
        _dn_to_der(cert.subject),
        spki,
        extensions,
    )


def to_der(cert: MatterCertificate) -> bytes:
    """The X.509 DER encoding of a Matter certificate."""
    algorithm = der.element(der.SEQUENCE, der.element(der.OID, der.encode_oid(_OID_ECDSA_SHA256)))
    signature = der.element(der.BIT_STRING, b"\x00" + raw_to_der_signature(cert.signature))
    return der.element(der.SEQUENCE, tbs_der(cert), algorithm, signature)


def from_der(data: bytes) -> MatterCertificate:
    """Convert an X.509 DER certificate that fits the Matter profile to its TLV model."""
    try:
        _, certificate = der.read_single(data, der.SEQUENCE)
        parts = der.children(certificate)
        if len(parts) != 3 or parts[0][0] != der.SEQUENCE or parts[2][0] != der.BIT_STRING:
            raise CertificateError("not an X.509 certificate")
        tbs = der.children(parts[0][1])
        if len(tbs) != 8 or tbs[0] != (0xA0, der.element(der.INTEGER, b"\x02")):
            raise CertificateError("only X.509 v3 certificates with exactly the Matter fields are supported")
        _, serial, algorithm, issuer, validity, subject, spki, extensions = tbs
        if serial[0] != der.INTEGER or der.children(algorithm[1]) != [(der.OID, der.encode_oid(_OID_ECDSA_SHA256))]:
            raise CertificateError("signature algorithm must be ecdsa-with-SHA256")
        times = der.children(validity[1])
        key_parts = der.children(spki[1])
        if der.children(key_parts[0][1]) != [
            (der.OID, der.encode_oid(_OID_EC_PUBLIC_KEY)),
            (der.OID, der.encode_oid(_OID_PRIME256V1)),
        ] or not key_parts[1][1].startswith(b"\x00\x04"):
            raise CertificateError("public key must be an uncompressed prime256v1 point")
        if extensions[0] != 0xA3:
            raise CertificateError("extensions missing")
        _, extension_seq = der.read_single(extensions[1], der.SEQUENCE)
        if parts[2][1][:1] != b"\x00":
            raise CertificateError("signature BIT STRING has unused bits")
        return MatterCertificate(
            serial=serial[1],
            issuer=_dn_from_der(issuer[1]),
            not_before=_time_from_der(*times[0]),
            not_after=_time_from_der(*times[1]),
            subject=_dn_from_der(subject[1]),
            public_key=key_parts[1][1][1:],
            extensions=[_extension_from_der(ext) for _, ext in der.children(extension_seq)],
            signature=der_to_raw_signature(parts[2][1][1:]),
        )
    except (DerError, CryptoError, IndexError, UnicodeDecodeError) as exc:
        raise CertificateError(f"malformed DER certificate: {exc}") from exc


# ------------------------------------------------------------------------------ issuing


@dataclass
class IssueRequest:
    """What :func:`issue` needs; ``is_ca`` picks CA (RCAC/ICAC) or NOC profile extensions."""

    subject: DN
    public_key: bytes
    issuer: DN
    issuer_key: PrivateKey
    is_ca: bool
    not_before: int = 0
    not_after: int = 0
    path_length: int | None = None
    serial: bytes = field(default_factory=lambda: bytes([secrets.randbits(7) + 1]) + secrets.token_bytes(7))


def issue(request: IssueRequest) -> MatterCertificate:
    """Build and sign a certificate with the Matter profile's extensions (spec §6.5.11)."""
    constraints: dict[int, Any] = {1: request.is_ca}
    if request.path_length is not None:
        constraints[2] = request.path_length
    if request.is_ca:
        usage: list[tuple[int, Any]] = [(Extensions.KEY_USAGE, KeyUsage.KEY_CERT_SIGN | KeyUsage.CRL_SIGN)]
    else:
        usage = [
            (Extensions.KEY_USAGE, KeyUsage.DIGITAL_SIGNATURE),
            (Extensions.EXTENDED_KEY_USAGE, [ExtKeyUsage.CLIENT_AUTH, ExtKeyUsage.SERVER_AUTH]),
        ]
    cert = MatterCertificate(
        serial=request.serial,
        issuer=request.issuer,
        not_before=request.not_before,
        not_after=request.not_after,
        subject=request.subject,
        public_key=request.public_key,
        extensions=[
            (Extensions.BASIC_CONSTRAINTS, constraints),
            *usage,
            (Extensions.SUBJECT_KEY_ID, sha1_key_id(request.public_key)),
            (Extensions.AUTHORITY_KEY_ID, sha1_key_id(public_key_bytes(request.issuer_key))),
        ],
    )
    cert.signature = sign(request.issuer_key, tbs_der(cert))
    return cert


# ------------------------------------------------------------------------ chain validation

_MAX_OPERATIONAL_NODE_ID = 0xFFFFFFEFFFFFFFFF


@dataclass(frozen=True)
class ChainInfo:
    node_id: int
    fabric_id: int
    root_public_key: bytes
    cats: tuple[int, ...]


def verify_signature(cert: MatterCertificate, issuer_public_key: bytes) -> bool:
    return verify(issuer_public_key, tbs_der(cert), cert.signature)


def _check_ca(cert: MatterCertificate, role: str) -> None:
    if not cert.is_ca:
        raise CertificateError(f"{role} is not a CA certificate")
    if not cert.key_usage & KeyUsage.KEY_CERT_SIGN:
        raise CertificateError(f"{role} may not sign certificates")
    if cert.subject_key_id is None:
        raise CertificateError(f"{role} lacks a subject key id")


def _check_issued_by(child: MatterCertificate, parent: MatterCertificate, child_role: str) -> None:
    if child.issuer != parent.subject:
        raise CertificateError(f"{child_role} issuer does not match its issuer's subject")
    if child.authority_key_id != parent.subject_key_id:
        raise CertificateError(f"{child_role} authority key id does not match its issuer")
    if not verify_signature(child, parent.public_key):
        raise CertificateError(f"{child_role} signature does not verify")


def _check_validity(cert: MatterCertificate, role: str, at: int | None) -> None:
    if at is None:
        return
    if at < cert.not_before or (cert.not_after != 0 and at > cert.not_after):
        raise CertificateError(f"{role} is not valid at the given time")


def validate_chain(noc: bytes, icac: bytes | None, rcac: bytes, *, at: int | None = None) -> ChainInfo:
    """Validate NOC <- [ICAC] <- RCAC (TLV forms) per spec §6.5; returns the NOC's identity.

    ``at`` (Matter epoch seconds) checks validity periods; None skips it (no trusted time yet).
    """
    root = decode_tlv(rcac)
    node = decode_tlv(noc)
    intermediate = decode_tlv(icac) if icac is not None else None

    _check_ca(root, "RCAC")
    if root.subject_value(DNAttribute.RCAC_ID) is None:
        raise CertificateError("RCAC subject lacks a matter-rcac-id")
    if root.issuer != root.subject or root.authority_key_id not in (None, root.subject_key_id):
        raise CertificateError("RCAC is not self-issued")
    if not verify_signature(root, root.public_key):
        raise CertificateError("RCAC self-signature does not verify")
    _check_validity(root, "RCAC", at)

    parent = root
    if intermediate is not None:
        _check_ca(intermediate, "ICAC")
        if intermediate.subject_value(DNAttribute.ICAC_ID) is None:
            raise CertificateError("ICAC subject lacks a matter-icac-id")
        _check_issued_by(intermediate, root, "ICAC")
        _check_validity(intermediate, "ICAC", at)
        parent = intermediate

    if node.is_ca:
        raise CertificateError("NOC must not be a CA")
    if not node.key_usage & KeyUsage.DIGITAL_SIGNATURE:
        raise CertificateError("NOC key usage lacks digitalSignature")
    if not {ExtKeyUsage.CLIENT_AUTH, ExtKeyUsage.SERVER_AUTH} <= set(node.extended_key_usage):
        raise CertificateError("NOC extended key usage lacks clientAuth/serverAuth")
    node_id, fabric_id = node.node_id, node.fabric_id
    if node_id is None or not 1 <= node_id <= _MAX_OPERATIONAL_NODE_ID:
        raise CertificateError("NOC lacks an operational node id")
    if not fabric_id:
        raise CertificateError("NOC lacks a fabric id")
    for ca, role in ((root, "RCAC"), (intermediate, "ICAC")):
        ca_fabric = ca.fabric_id if ca is not None else None
        if ca_fabric is not None and ca_fabric != fabric_id:
            raise CertificateError(f"{role} fabric id differs from the NOC's")
    if len(node.cats) > 3:
        raise CertificateError("a NOC carries at most three CASE Authenticated Tags")
    _check_issued_by(node, parent, "NOC")
    _check_validity(node, "NOC", at)
    try:
        load_public_key(node.public_key)
    except CryptoError as exc:
        raise CertificateError("NOC public key is not a P-256 point") from exc
    return ChainInfo(node_id, fabric_id, root.public_key, tuple(node.cats))
