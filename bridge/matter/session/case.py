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
HKDF(ECDH, IPK || SHA256(Sigma1 || Sigma2 || Sigma3), "SessionKeys").

Resumption (spec §4.14.2.2; the same derivations as connectedhomeip's CASESession and matter.js's
CaseServer): every session leaves a record (resumption id, ECDH secret, peer). A Sigma1 carrying a known
resumption id (tag 6) and a MIC (tag 7) that verifies under S1RK = HKDF(secret, initiatorRandom ||
resumptionId, "Sigma1_Resume") is answered with Sigma2_Resume {new id, MIC under S2RK = HKDF(secret,
initiatorRandom || newId, "Sigma2_Resume"), session id}; the initiator's StatusReport completes it, and
the keys are HKDF(secret, initiatorRandom || resumptionId, "SessionResumptionKeys"): one round trip, no
certificates, no signatures. An unknown id or a bad MIC gets a full Sigma2, as the spec says.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from bridge.matter.crypto.certificates import CertificateError, decode_tlv, validate_chain
from bridge.matter.crypto.crypto import (
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
from bridge.matter.crypto.fabric_keys import destination_id
from bridge.matter.session.handshake_messages import (
    RESUMPTION_ID_LENGTH,
    SealedData,
    Sigma1,
    Sigma2,
    Sigma2Resume,
    Sigma3,
    SignedData,
    decode_message,
    encode_message,
)
from bridge.matter.session.pase import SessionKeys, derive_session_keys
from bridge.matter.session.secure_channel import GeneralCode, SecureChannelStatus, SessionParameters, StatusReport

__all__ = ["CaseError", "CaseFabric", "CaseInitiator", "CaseResponder", "CaseResult", "ResumptionRecord"]

_SIGMA2_NONCE = b"NCASE_Sigma2N"
_SIGMA3_NONCE = b"NCASE_Sigma3N"
_RESUME1_NONCE = b"NCASE_SigmaS1"
_RESUME2_NONCE = b"NCASE_SigmaS2"
_RESUME1_INFO = b"Sigma1_Resume"
_RESUME2_INFO = b"Sigma2_Resume"
_RESUMPTION_KEYS_INFO = b"SessionResumptionKeys"


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
class ResumptionRecord:
    """What resuming a session needs (kept by both sides): the id the peer will quote, the ECDH secret,
    and who the peer was. ``fabric_id``/``root_public_key`` pick the fabric again on resumption."""

    resumption_id: bytes
    shared_secret: bytes
    fabric_id: int
    root_public_key: bytes
    peer_node_id: int
    peer_cats: tuple[int, ...] = ()


@dataclass(frozen=True)
class CaseResult:
    local_session_id: int
    peer_session_id: int
    keys: SessionKeys
    fabric: CaseFabric
    peer_node_id: int
    peer_cats: tuple[int, ...]
    peer_parameters: SessionParameters
    resumption: ResumptionRecord | None = None  # the record for the *next* resumption
    resumed: bool = False


def resume_mic(secret: bytes, initiator_random: bytes, resumption_id: bytes, *, sigma: int) -> bytes:
    """initiatorResumeMIC (sigma=1) or sigma2ResumeMIC (sigma=2): AES-CCM of nothing under S1RK/S2RK."""
    info, nonce = (_RESUME1_INFO, _RESUME1_NONCE) if sigma == 1 else (_RESUME2_INFO, _RESUME2_NONCE)
    key = hkdf_sha256(secret, initiator_random + resumption_id, info, 16)
    return aead_encrypt(key, nonce, b"", b"")


def resumption_keys(secret: bytes, initiator_random: bytes, resumption_id: bytes) -> SessionKeys:
    okm = hkdf_sha256(secret, initiator_random + resumption_id, _RESUMPTION_KEYS_INFO, 48)
    return SessionKeys(okm[:16], okm[16:32], okm[32:])


class _State(Enum):
    EXPECT_SIGMA1 = "expect Sigma1"
    EXPECT_SIGMA2 = "expect Sigma2"
    EXPECT_SIGMA3 = "expect Sigma3"
    EXPECT_STATUS = "expect StatusReport"
    DONE = "done"
    FAILED = "failed"


def _tbs(noc: bytes, icac: bytes | None, own_key: bytes, peer_key: bytes) -> bytes:
    return encode_message(SignedData(noc, icac, own_key, peer_key))


def _open_tbe(key: bytes, nonce: bytes, sealed: bytes, what: str) -> SealedData:
    """The TBEData2/3 inside a Sigma2/Sigma3."""
    try:
        plain = aead_decrypt(key, nonce, sealed, b"")
    except CryptoError as exc:
        raise CaseError(f"{what}: {exc}") from exc
    try:
        return decode_message(SealedData, plain, CaseError)
    except CaseError as exc:
        raise CaseError(f"{what}: {exc}") from exc


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
    find_resumption: Callable[[bytes], ResumptionRecord | None] = lambda resumption_id: None
    new_resumption_id: bytes = field(default_factory=lambda: secrets.token_bytes(RESUMPTION_ID_LENGTH))
    state: _State = field(default=_State.EXPECT_SIGMA1, init=False)
    result: CaseResult | None = field(default=None, init=False)
    resuming: bool = field(default=False, init=False)  # handle_sigma1 answered Sigma2_Resume
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
        sigma1 = decode_message(Sigma1, payload, CaseError)
        initiator_random, wanted = sigma1.initiator_random, sigma1.destination_id
        resumption_id, initiator_mic = sigma1.resumption_id, sigma1.resume_mic
        self._peer_session_id, self._peer_key = sigma1.initiator_session_id, sigma1.ephemeral_public_key
        self._peer_parameters = sigma1.session_parameters or SessionParameters()
        if (resumption_id is None) != (initiator_mic is None):
            raise CaseError("Sigma1: resumption id and resume MIC come together or not at all")
        if resumption_id is not None and initiator_mic is not None:
            resumed = self._try_resume(initiator_random, resumption_id, initiator_mic)
            if resumed is not None:
                return resumed
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
        tbe = encode_message(SealedData(fabric.noc, fabric.icac, signature, self.new_resumption_id))
        encrypted2 = aead_encrypt(s2k, _SIGMA2_NONCE, tbe, b"")
        sigma2 = encode_message(
            Sigma2(self.responder_random, self.local_session_id, own_key, encrypted2, self.local_parameters)
        )
        self._transcript = bytes(payload) + sigma2
        self.state = _State.EXPECT_SIGMA3
        return sigma2

    def _try_resume(self, initiator_random: bytes, resumption_id: bytes, initiator_mic: bytes) -> bytes | None:
        """Sigma2_Resume payload when the record is known and the MIC verifies; None: fall back to Sigma2."""
        record = self.find_resumption(resumption_id)
        if record is None:
            return None
        expected = resume_mic(record.shared_secret, initiator_random, resumption_id, sigma=1)
        if not hmac.compare_digest(expected, initiator_mic):
            return None
        fabric = next(
            (
                f
                for f in self.fabrics
                if f.fabric_id == record.fabric_id and f.root_public_key == record.root_public_key
            ),
            None,
        )
        if fabric is None:  # the fabric was removed since: no resumption into it
            return None
        new_id = self.new_resumption_id
        self.result = CaseResult(
            self.local_session_id,
            self._peer_session_id,
            resumption_keys(record.shared_secret, initiator_random, resumption_id),
            fabric,
            record.peer_node_id,
            record.peer_cats,
            self._peer_parameters,
            resumption=ResumptionRecord(
                new_id,
                record.shared_secret,
                record.fabric_id,
                record.root_public_key,
                record.peer_node_id,
                record.peer_cats,
            ),
            resumed=True,
        )
        self.resuming = True
        self.state = _State.EXPECT_STATUS
        return encode_message(
            Sigma2Resume(
                new_id,
                resume_mic(record.shared_secret, initiator_random, new_id, sigma=2),
                self.local_session_id,
                self.local_parameters,
            )
        )

    def handle_resume_status(self, payload: bytes) -> None:
        """The initiator's StatusReport after Sigma2_Resume: success completes :attr:`result`."""
        if self.state is not _State.EXPECT_STATUS:
            raise CaseError("unexpected StatusReport")
        try:
            ok = StatusReport.decode(payload).is_session_success
        except ValueError:
            ok = False
        if not ok:
            self.state = _State.FAILED
            self.result = None
            raise CaseError("the initiator refused the resumed session")
        self.state = _State.DONE

    def handle_sigma3(self, payload: bytes) -> bytes:
        """Sigma3 -> StatusReport payload; on success :attr:`result` holds the session."""
        if self.state is not _State.EXPECT_SIGMA3 or self._fabric is None:
            self.state = _State.FAILED
            raise CaseError("unexpected Sigma3")
        self.state = _State.FAILED
        fabric = self._fabric
        encrypted3 = decode_message(Sigma3, payload, CaseError).encrypted
        s3k = hkdf_sha256(self._shared, fabric.ipk + sha256(self._transcript), b"Sigma3", 16)
        tbe = _open_tbe(s3k, _SIGMA3_NONCE, encrypted3, "Sigma3")
        tbs = _tbs(tbe.noc, tbe.icac, self._peer_key, public_key_bytes(self.ephemeral_key))
        peer_node, peer_cats = _check_peer(fabric, tbe.noc, tbe.icac, tbe.signature, tbs, "Sigma3")
        salt = fabric.ipk + sha256(self._transcript + bytes(payload))
        self.result = CaseResult(
            self.local_session_id,
            self._peer_session_id,
            derive_session_keys(self._shared, salt),
            fabric,
            peer_node,
            peer_cats,
            self._peer_parameters,
            resumption=ResumptionRecord(
                self.new_resumption_id, self._shared, fabric.fabric_id, fabric.root_public_key, peer_node, peer_cats
            ),
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
    resume_with: ResumptionRecord | None = None  # offer resumption of an earlier session
    state: _State = field(default=_State.EXPECT_SIGMA2, init=False)
    result: CaseResult | None = field(default=None, init=False)
    _sigma1: bytes = field(default=b"", init=False)
    _transcript: bytes = field(default=b"", init=False)
    _shared: bytes = field(default=b"", init=False)
    _peer: tuple[int, int, tuple[int, ...], SessionParameters] | None = field(default=None, init=False)
    _next_resumption_id: bytes | None = field(default=None, init=False)

    def start(self) -> bytes:
        fabric = self.fabric
        wanted = destination_id(
            fabric.ipk, self.initiator_random, fabric.root_public_key, fabric.fabric_id, self.peer_node_id
        )
        resume = self.resume_with
        self._sigma1 = encode_message(
            Sigma1(
                self.initiator_random,
                self.local_session_id,
                wanted,
                public_key_bytes(self.ephemeral_key),
                self.local_parameters,
                None if resume is None else resume.resumption_id,
                None
                if resume is None
                else resume_mic(resume.shared_secret, self.initiator_random, resume.resumption_id, sigma=1),
            )
        )
        return self._sigma1

    def handle_sigma2_resume(self, payload: bytes) -> tuple[bytes, CaseResult]:
        """Sigma2_Resume -> (StatusReport payload to send, the resumed session)."""
        record = self.resume_with
        if self.state is not _State.EXPECT_SIGMA2 or record is None:
            raise CaseError("unexpected Sigma2_Resume")
        self.state = _State.FAILED
        message = decode_message(Sigma2Resume, payload, CaseError)
        new_id = message.resumption_id
        if not hmac.compare_digest(
            resume_mic(record.shared_secret, self.initiator_random, new_id, sigma=2), message.resume_mic
        ):
            raise CaseError("Sigma2_Resume: MIC does not verify")
        self.result = CaseResult(
            self.local_session_id,
            message.responder_session_id,
            resumption_keys(record.shared_secret, self.initiator_random, record.resumption_id),
            self.fabric,
            record.peer_node_id,
            record.peer_cats,
            message.session_parameters or SessionParameters(),
            resumption=ResumptionRecord(
                new_id,
                record.shared_secret,
                record.fabric_id,
                record.root_public_key,
                record.peer_node_id,
                record.peer_cats,
            ),
            resumed=True,
        )
        self.state = _State.DONE
        return StatusReport.session_success().encode(), self.result

    def handle_sigma2(self, payload: bytes) -> bytes:
        """Sigma2 -> Sigma3 payload (after checking the device's certificate chain and signature)."""
        if self.state is not _State.EXPECT_SIGMA2:
            raise CaseError("unexpected Sigma2")
        self.state = _State.FAILED
        fabric = self.fabric
        sigma2 = decode_message(Sigma2, payload, CaseError)
        peer_key = sigma2.ephemeral_public_key
        try:
            self._shared = ecdh(self.ephemeral_key, peer_key)
        except CryptoError as exc:
            raise CaseError(f"Sigma2: {exc}") from exc
        s2k = hkdf_sha256(
            self._shared, fabric.ipk + sigma2.responder_random + peer_key + sha256(self._sigma1), b"Sigma2", 16
        )
        tbe = _open_tbe(s2k, _SIGMA2_NONCE, sigma2.encrypted, "Sigma2")
        self._next_resumption_id = tbe.resumption_id
        own_key = public_key_bytes(self.ephemeral_key)
        peer_node, peer_cats = _check_peer(
            fabric, tbe.noc, tbe.icac, tbe.signature, _tbs(tbe.noc, tbe.icac, peer_key, own_key), "Sigma2"
        )
        if peer_node != self.peer_node_id:
            raise CaseError("Sigma2: answered by another node")
        peer_parameters = sigma2.session_parameters or SessionParameters()
        self._peer = (sigma2.responder_session_id, peer_node, peer_cats, peer_parameters)
        self._transcript = self._sigma1 + bytes(payload)
        s3k = hkdf_sha256(self._shared, fabric.ipk + sha256(self._transcript), b"Sigma3", 16)
        signature3 = sign(fabric.operational_key, _tbs(fabric.noc, fabric.icac, own_key, peer_key))
        tbe3 = encode_message(SealedData(fabric.noc, fabric.icac, signature3))
        sigma3 = encode_message(Sigma3(aead_encrypt(s3k, _SIGMA3_NONCE, tbe3, b"")))
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
        resumption = (
            None
            if self._next_resumption_id is None
            else ResumptionRecord(
                self._next_resumption_id,
                self._shared,
                self.fabric.fabric_id,
                self.fabric.root_public_key,
                peer_node,
                peer_cats,
            )
        )
        self.result = CaseResult(
            self.local_session_id,
            peer_session,
            keys,
            self.fabric,
            peer_node,
            peer_cats,
            peer_parameters,
            resumption=resumption,
        )
        self.state = _State.DONE
        return self.result
