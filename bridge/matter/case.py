"""CASE: Certificate-Authenticated Session Establishment (spec §4.14.2), as pure state machines.

::

    initiator (controller)                      responder (device)
    Sigma1 {random, sessionId, destinationId, ephPubKey}  ------->
                  <-------  Sigma2 {random, sessionId, ephPubKey, encrypted2 = AES-CCM(S2K, TBEData2)}
    Sigma3 {encrypted3 = AES-CCM(S3K, TBEData3)}           ------->
                  <-------  StatusReport (SessionEstablishmentSuccess)

TBEData = {NOC, [ICAC], signature over TBSData = {NOC, [ICAC], own eph key, peer eph key}}.
S2K = HKDF(ECDH, IPK || responderRandom || responderEphPubKey || SHA256(Sigma1), "Sigma2");
S3K = HKDF(ECDH, IPK || SHA256(Sigma1 || Sigma2), "Sigma3"); session keys =
HKDF(ECDH, IPK || SHA256(Sigma1 || Sigma2 || Sigma3), "SessionKeys"). Session resumption is
not offered: a Sigma1 with resumption fields simply gets a full Sigma2, which the spec allows.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from bridge.matter import tlv
from bridge.matter.certificates import CertificateError, decode_tlv, validate_chain
from bridge.matter.crypto import (
    CryptoError,
    PrivateKey,
    aead_decrypt,
    aead_encrypt,
    ecdh,
    generate_private_key,
    hkdf_sha256,
    public_key_bytes,
    sha256,
    sign,
    verify,
)
from bridge.matter.fabric_keys import destination_id
from bridge.matter.pase import SessionKeys, derive_session_keys
from bridge.matter.secure_channel import GeneralCode, SecureChannelStatus, SessionParameters, StatusReport
from bridge.matter.tlv import TLVError, field_bytes, field_struct, field_uint

__all__ = ["CaseError", "CaseFabric", "CaseInitiator", "CaseResponder", "CaseResult"]

_SIGMA2_NONCE = b"NCASE_Sigma2N"
_SIGMA3_NONCE = b"NCASE_Sigma3N"
_MAX_CERT = 400  # kMaxCHIPCertLength


class CaseError(ValueError):
    """Handshake failure; send ``status_report`` to the peer."""

    def __init__(self, message: str, status: SecureChannelStatus = SecureChannelStatus.INVALID_PARAMETER) -> None:
        super().__init__(message)
        self.status_report = StatusReport(GeneralCode.FAILURE, 0, status)


@dataclass(frozen=True)
class CaseFabric:
    """One fabric as CASE needs it: our operational identity plus the fabric's trust anchor and IPK."""

    fabric_id: int
    node_id: int
    root_public_key: bytes
    rcac: bytes
    noc: bytes
    icac: bytes | None
    operational_key: PrivateKey
    ipk: bytes  # operational group key (16 bytes)


@dataclass(frozen=True)
class CaseResult:
    local_session_id: int
    peer_session_id: int
    keys: SessionKeys
    fabric: CaseFabric
    peer_node_id: int
    peer_cats: tuple[int, ...]
    peer_parameters: SessionParameters


class _State(Enum):
    EXPECT_SIGMA1 = "expect Sigma1"
    EXPECT_SIGMA2 = "expect Sigma2"
    EXPECT_SIGMA3 = "expect Sigma3"
    EXPECT_STATUS = "expect StatusReport"
    DONE = "done"
    FAILED = "failed"


def _decode(payload: bytes, what: str) -> dict:
    try:
        value = tlv.decode(payload)
    except TLVError as exc:
        raise CaseError(f"{what}: {exc}") from exc
    if not isinstance(value, dict):
        raise CaseError(f"{what}: expected a structure")
    return value


def _tbs(noc: bytes, icac: bytes | None, own_key: bytes, peer_key: bytes) -> bytes:
    data: dict[int, bytes] = {1: noc, 3: own_key, 4: peer_key}
    if icac is not None:
        data[2] = icac
    return tlv.encode(data)


def _tbe(noc: bytes, icac: bytes | None, signature: bytes, resumption_id: bytes | None = None) -> bytes:
    data: dict[int, bytes] = {1: noc, 3: signature}
    if icac is not None:
        data[2] = icac
    if resumption_id is not None:
        data[4] = resumption_id
    return tlv.encode(data)


def _open_tbe(key: bytes, nonce: bytes, sealed: bytes, what: str) -> tuple[bytes, bytes | None, bytes]:
    try:
        tbe = _decode(aead_decrypt(key, nonce, sealed, b""), what)
        noc = field_bytes(tbe, 1, max_length=_MAX_CERT)
        icac = field_bytes(tbe, 2, max_length=_MAX_CERT, optional=True)
        signature = field_bytes(tbe, 3, length=64)
    except (CryptoError, TLVError) as exc:
        raise CaseError(f"{what}: {exc}") from exc
    return noc, icac, signature


def _check_peer(
    fabric: CaseFabric, noc: bytes, icac: bytes | None, signature: bytes, tbs: bytes, what: str
) -> tuple[int, tuple[int, ...]]:
    """Validate the peer's chain against our fabric's root and its signature; returns its node id and CATs."""
    try:
        info = validate_chain(noc, icac, fabric.rcac)
    except CertificateError as exc:
        raise CaseError(f"{what}: peer certificate chain: {exc}") from exc
    if info.fabric_id != fabric.fabric_id:
        raise CaseError(f"{what}: peer belongs to another fabric")
    if not verify(decode_tlv(noc).public_key, tbs, signature):
        raise CaseError(f"{what}: signature does not verify")
    return info.node_id, info.cats


@dataclass
class CaseResponder:
    """The device side. ``fabrics`` are all fabrics this node belongs to (one per controller admin)."""

    fabrics: Sequence[CaseFabric]
    local_session_id: int
    local_parameters: SessionParameters = field(default_factory=SessionParameters)
    ephemeral_key: PrivateKey = field(default_factory=generate_private_key)
    responder_random: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    state: _State = field(default=_State.EXPECT_SIGMA1, init=False)
    result: CaseResult | None = field(default=None, init=False)
    _fabric: CaseFabric | None = field(default=None, init=False)
    _shared: bytes = field(default=b"", init=False)
    _transcript: bytes = field(default=b"", init=False)
    _peer_key: bytes = field(default=b"", init=False)
    _peer_session_id: int = field(default=0, init=False)
    _peer_parameters: SessionParameters = field(default_factory=SessionParameters, init=False)

    def handle_sigma1(self, payload: bytes) -> bytes:
        """Sigma1 -> Sigma2 payload, or :class:`CaseError` (NO_SHARED_TRUST_ROOTS if no fabric matches)."""
        if self.state is not _State.EXPECT_SIGMA1:
            self.state = _State.FAILED
            raise CaseError("unexpected Sigma1")
        self.state = _State.FAILED  # until proven otherwise
        try:
            sigma1 = _decode(payload, "Sigma1")
            initiator_random = field_bytes(sigma1, 1, length=32)
            self._peer_session_id = field_uint(sigma1, 2, maximum=0xFFFF)
            wanted = field_bytes(sigma1, 3, length=32)
            self._peer_key = field_bytes(sigma1, 4, length=65)
            params = field_struct(sigma1, 5, optional=True)
            self._peer_parameters = SessionParameters.from_tlv(params) if params is not None else SessionParameters()
        except TLVError as exc:
            raise CaseError(f"Sigma1: {exc}") from exc
        self._fabric = next(
            (
                fabric
                for fabric in self.fabrics
                if hmac.compare_digest(
                    destination_id(
                        fabric.ipk, initiator_random, fabric.root_public_key, fabric.fabric_id, fabric.node_id
                    ),
                    wanted,
                )
            ),
            None,
        )
        if self._fabric is None:
            raise CaseError("Sigma1: no fabric matches the destination id", SecureChannelStatus.NO_SHARED_TRUST_ROOTS)
        fabric = self._fabric
        try:
            self._shared = ecdh(self.ephemeral_key, self._peer_key)
        except CryptoError as exc:
            raise CaseError(f"Sigma1: {exc}") from exc
        own_key = public_key_bytes(self.ephemeral_key)
        signature = sign(fabric.operational_key, _tbs(fabric.noc, fabric.icac, own_key, self._peer_key))
        s2k = hkdf_sha256(self._shared, fabric.ipk + self.responder_random + own_key + sha256(payload), b"Sigma2", 16)
        resumption_id = secrets.token_bytes(16)
        encrypted2 = aead_encrypt(s2k, _SIGMA2_NONCE, _tbe(fabric.noc, fabric.icac, signature, resumption_id), b"")
        sigma2 = tlv.encode(
            {
                1: self.responder_random,
                2: self.local_session_id,
                3: own_key,
                4: encrypted2,
                5: self.local_parameters.to_tlv(),
            }
        )
        self._transcript = bytes(payload) + sigma2
        self.state = _State.EXPECT_SIGMA3
        return sigma2

    def handle_sigma3(self, payload: bytes) -> bytes:
        """Sigma3 -> StatusReport payload; on success :attr:`result` holds the session."""
        if self.state is not _State.EXPECT_SIGMA3 or self._fabric is None:
            self.state = _State.FAILED
            raise CaseError("unexpected Sigma3")
        self.state = _State.FAILED
        fabric = self._fabric
        try:
            encrypted3 = field_bytes(_decode(payload, "Sigma3"), 1)
        except TLVError as exc:
            raise CaseError(f"Sigma3: {exc}") from exc
        s3k = hkdf_sha256(self._shared, fabric.ipk + sha256(self._transcript), b"Sigma3", 16)
        noc, icac, signature = _open_tbe(s3k, _SIGMA3_NONCE, encrypted3, "Sigma3")
        tbs = _tbs(noc, icac, self._peer_key, public_key_bytes(self.ephemeral_key))
        peer_node, peer_cats = _check_peer(fabric, noc, icac, signature, tbs, "Sigma3")
        salt = fabric.ipk + sha256(self._transcript + bytes(payload))
        self.result = CaseResult(
            self.local_session_id,
            self._peer_session_id,
            derive_session_keys(self._shared, salt),
            fabric,
            peer_node,
            peer_cats,
            self._peer_parameters,
        )
        self.state = _State.DONE
        return StatusReport.session_success().encode()


@dataclass
class CaseInitiator:
    """The controller side (tests and tools): reach ``peer_node_id`` on ``fabric``."""

    fabric: CaseFabric
    peer_node_id: int
    local_session_id: int
    local_parameters: SessionParameters = field(default_factory=SessionParameters)
    ephemeral_key: PrivateKey = field(default_factory=generate_private_key)
    initiator_random: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    state: _State = field(default=_State.EXPECT_SIGMA2, init=False)
    result: CaseResult | None = field(default=None, init=False)
    _sigma1: bytes = field(default=b"", init=False)
    _transcript: bytes = field(default=b"", init=False)
    _shared: bytes = field(default=b"", init=False)
    _peer: tuple[int, int, tuple[int, ...], SessionParameters] | None = field(default=None, init=False)

    def start(self) -> bytes:
        fabric = self.fabric
        wanted = destination_id(
            fabric.ipk, self.initiator_random, fabric.root_public_key, fabric.fabric_id, self.peer_node_id
        )
        self._sigma1 = tlv.encode(
            {
                1: self.initiator_random,
                2: self.local_session_id,
                3: wanted,
                4: public_key_bytes(self.ephemeral_key),
                5: self.local_parameters.to_tlv(),
            }
        )
        return self._sigma1

    def handle_sigma2(self, payload: bytes) -> bytes:
        """Sigma2 -> Sigma3 payload (after checking the device's certificate chain and signature)."""
        if self.state is not _State.EXPECT_SIGMA2:
            raise CaseError("unexpected Sigma2")
        self.state = _State.FAILED
        fabric = self.fabric
        try:
            sigma2 = _decode(payload, "Sigma2")
            responder_random = field_bytes(sigma2, 1, length=32)
            peer_session = field_uint(sigma2, 2, maximum=0xFFFF)
            peer_key = field_bytes(sigma2, 3, length=65)
            encrypted2 = field_bytes(sigma2, 4)
            params = field_struct(sigma2, 5, optional=True)
            self._shared = ecdh(self.ephemeral_key, peer_key)
        except (TLVError, CryptoError) as exc:
            raise CaseError(f"Sigma2: {exc}") from exc
        s2k = hkdf_sha256(self._shared, fabric.ipk + responder_random + peer_key + sha256(self._sigma1), b"Sigma2", 16)
        noc, icac, signature = _open_tbe(s2k, _SIGMA2_NONCE, encrypted2, "Sigma2")
        own_key = public_key_bytes(self.ephemeral_key)
        peer_node, peer_cats = _check_peer(fabric, noc, icac, signature, _tbs(noc, icac, peer_key, own_key), "Sigma2")
        if peer_node != self.peer_node_id:
            raise CaseError("Sigma2: answered by another node")
        peer_parameters = SessionParameters.from_tlv(params) if params is not None else SessionParameters()
        self._peer = (peer_session, peer_node, peer_cats, peer_parameters)
        self._transcript = self._sigma1 + bytes(payload)
        s3k = hkdf_sha256(self._shared, fabric.ipk + sha256(self._transcript), b"Sigma3", 16)
        signature3 = sign(fabric.operational_key, _tbs(fabric.noc, fabric.icac, own_key, peer_key))
        sigma3 = tlv.encode({1: aead_encrypt(s3k, _SIGMA3_NONCE, _tbe(fabric.noc, fabric.icac, signature3), b"")})
        self._transcript += sigma3
        self.state = _State.EXPECT_STATUS
        return sigma3

    def handle_status_report(self, payload: bytes) -> CaseResult:
        if self.state is not _State.EXPECT_STATUS or self._peer is None:
            raise CaseError("unexpected StatusReport")
        if not StatusReport.decode(payload).is_session_success:
            self.state = _State.FAILED
            raise CaseError("the device refused the session")
        peer_session, peer_node, peer_cats, peer_parameters = self._peer
        keys = derive_session_keys(self._shared, self.fabric.ipk + sha256(self._transcript))
        self.result = CaseResult(
            self.local_session_id, peer_session, keys, self.fabric, peer_node, peer_cats, peer_parameters
        )
        self.state = _State.DONE
        return self.result
