"""PASE: Passcode-Authenticated Session Establishment (spec §4.14.1), as pure state machines.

Message flow (Secure Channel opcodes)::

    initiator (commissioner)               responder (device)
    PBKDFParamRequest  0x20  ----------->
                             <-----------  PBKDFParamResponse 0x21
    Pake1 {pA}         0x22  ----------->
                             <-----------  Pake2 {pB, cB}     0x23
    Pake3 {cA}         0x24  ----------->
                             <-----------  StatusReport       0x40 (SessionEstablishmentSuccess)

Both sides feed and return *payloads* (TLV bytes); framing, MRP and retransmission are the
exchange layer's business. SPAKE2+ Context = SHA-256("CHIP PAKE V1 Commissioning" ||
PBKDFParamRequest || PBKDFParamResponse), with the payloads exactly as sent. Session keys:
``I2RKey || R2IKey || AttestationChallenge = HKDF(Ke, salt=[], "SessionKeys", 48)``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from bridge.matter.crypto.crypto import hkdf_sha256, sha256
from bridge.matter.crypto.spake2p import Spake2pError, Spake2pProver, Spake2pVerifier, compute_w0_w1
from bridge.matter.session.handshake_messages import (
    MAX_ITERATIONS,
    MAX_SALT,
    Pake1,
    Pake2,
    Pake3,
    PbkdfParameters,
    PbkdfParamRequest,
    PbkdfParamResponse,
    decode_message,
    encode_message,
)
from bridge.matter.session.secure_channel import SessionParameters, StatusReport

__all__ = [
    "MAX_ITERATIONS",
    "MAX_PASSCODE",
    "MIN_ITERATIONS",
    "PaseError",
    "PaseInitiator",
    "PaseResponder",
    "SessionKeys",
    "derive_session_keys",
    "is_valid_passcode",
    "pake_context",
]

PAKE_CONTEXT_PREFIX = b"CHIP PAKE V1 Commissioning"
SESSION_KEYS_INFO = b"SessionKeys"
MIN_ITERATIONS, MIN_SALT = 1000, 16
MAX_PASSCODE = 99999998
# Passcodes the spec forbids because they are trivially guessable (spec §5.1.7.1).
_INVALID_PASSCODES = frozenset(
    {0, 11111111, 22222222, 33333333, 44444444, 55555555, 66666666, 77777777, 88888888, 99999999, 12345678, 87654321}
)


class PaseError(ValueError):
    """The peer sent something invalid or out of order; answer with ``status_report``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.status_report = StatusReport.invalid_parameter()


def is_valid_passcode(passcode: int) -> bool:
    return 1 <= passcode <= MAX_PASSCODE and passcode not in _INVALID_PASSCODES


def pake_context(pbkdf_param_request: bytes, pbkdf_param_response: bytes) -> bytes:
    return sha256(PAKE_CONTEXT_PREFIX + pbkdf_param_request + pbkdf_param_response)


@dataclass(frozen=True)
class SessionKeys:
    i2r_key: bytes  # initiator -> responder: the device decrypts with it
    r2i_key: bytes  # responder -> initiator: the device encrypts with it
    attestation_challenge: bytes


def derive_session_keys(secret: bytes, salt: bytes = b"") -> SessionKeys:
    """``I2RKey || R2IKey || AttestationChallenge = HKDF(secret, salt, "SessionKeys", 48)``.

    PASE uses ``secret = Ke`` and an empty salt; CASE uses the ECDH secret and
    ``salt = IPK || SHA-256(Sigma1 || Sigma2 || Sigma3)``.
    """
    okm = hkdf_sha256(secret, salt, SESSION_KEYS_INFO, 48)
    return SessionKeys(okm[:16], okm[16:32], okm[32:])


@dataclass(frozen=True)
class PaseResult:
    local_session_id: int
    peer_session_id: int
    keys: SessionKeys
    peer_parameters: SessionParameters


class _State(Enum):
    EXPECT_PBKDF_REQUEST = "expect PBKDFParamRequest"
    EXPECT_PBKDF_RESPONSE = "expect PBKDFParamResponse"
    EXPECT_PAKE1 = "expect Pake1"
    EXPECT_PAKE2 = "expect Pake2"
    EXPECT_PAKE3 = "expect Pake3"
    EXPECT_STATUS = "expect StatusReport"
    DONE = "done"
    FAILED = "failed"


@dataclass
class PaseResponder:
    """The device side of one PASE attempt.

    ``w0``/``L`` come from :func:`bridge.matter.crypto.spake2p.compute_verifier`; the passcode itself is
    never needed. Any :class:`PaseError` leaves the machine FAILED: send its ``status_report``
    and count the failure toward the commissioning window's limit.
    """

    w0: bytes
    L: bytes
    salt: bytes
    iterations: int
    local_session_id: int
    local_parameters: SessionParameters = field(default_factory=SessionParameters)
    responder_random: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    spake_y: int | None = None  # injectable for deterministic tests
    state: _State = field(default=_State.EXPECT_PBKDF_REQUEST, init=False)
    result: PaseResult | None = field(default=None, init=False)
    _request: bytes = field(default=b"", init=False)
    _peer_session_id: int = field(default=0, init=False)
    _peer_parameters: SessionParameters = field(default_factory=SessionParameters, init=False)
    _verifier: Spake2pVerifier | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        if not MIN_SALT <= len(self.salt) <= MAX_SALT:
            raise ValueError("PASE salt must be 16..32 bytes")
        if not MIN_ITERATIONS <= self.iterations <= MAX_ITERATIONS:
            raise ValueError("PBKDF iterations must be 1000..100000")

    def _expect(self, state: _State) -> None:
        if self.state is not state:
            message = f"unexpected message: in state '{self.state.value}', not '{state.value}'"
            self.state = _State.FAILED
            raise PaseError(message)

    def handle_pbkdf_param_request(self, payload: bytes) -> bytes:
        """PBKDFParamRequest -> PBKDFParamResponse payload."""
        self._expect(_State.EXPECT_PBKDF_REQUEST)
        try:
            request = decode_message(PbkdfParamRequest, payload, PaseError)
            if request.passcode_id != 0:
                raise PaseError("PBKDFParamRequest: only the default passcode id 0 exists")
        except PaseError:
            self.state = _State.FAILED
            raise
        self._peer_session_id = request.initiator_session_id
        self._peer_parameters = request.session_parameters or SessionParameters()
        pbkdf = None if request.has_pbkdf_parameters else PbkdfParameters(self.iterations, self.salt)
        response_bytes = encode_message(
            PbkdfParamResponse(
                request.initiator_random, self.responder_random, self.local_session_id, pbkdf, self.local_parameters
            )
        )
        self._request = bytes(payload)
        context = pake_context(self._request, response_bytes)
        kwargs: dict[str, Any] = {} if self.spake_y is None else {"y": self.spake_y}
        self._verifier = Spake2pVerifier(w0=self.w0, L=self.L, context=context, **kwargs)
        self.state = _State.EXPECT_PAKE1
        return response_bytes

    def handle_pake1(self, payload: bytes) -> bytes:
        """Pake1 {pA} -> Pake2 {pB, cB} payload."""
        self._expect(_State.EXPECT_PAKE1)
        assert self._verifier is not None
        try:
            share_y, confirm_b = self._verifier.respond(decode_message(Pake1, payload, PaseError).share_x)
        except PaseError:
            self.state = _State.FAILED
            raise
        except Spake2pError as exc:
            self.state = _State.FAILED
            raise PaseError(f"Pake1: {exc}") from exc
        self.state = _State.EXPECT_PAKE3
        return encode_message(Pake2(share_y, confirm_b))

    def handle_pake3(self, payload: bytes) -> bytes:
        """Pake3 {cA} -> StatusReport payload; on success :attr:`result` holds the session keys."""
        self._expect(_State.EXPECT_PAKE3)
        assert self._verifier is not None
        try:
            ke = self._verifier.confirm(decode_message(Pake3, payload, PaseError).confirmation)
        except PaseError:
            self.state = _State.FAILED
            raise
        except Spake2pError as exc:
            self.state = _State.FAILED
            raise PaseError(f"Pake3: {exc}") from exc
        self.result = PaseResult(
            self.local_session_id, self._peer_session_id, derive_session_keys(ke), self._peer_parameters
        )
        self.state = _State.DONE
        return StatusReport.session_success().encode()


@dataclass
class PaseInitiator:
    """The commissioner side, for tests and tools."""

    passcode: int
    local_session_id: int
    local_parameters: SessionParameters = field(default_factory=SessionParameters)
    initiator_random: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    spake_x: int | None = None
    state: _State = field(default=_State.EXPECT_PBKDF_RESPONSE, init=False)
    result: PaseResult | None = field(default=None, init=False)
    _request: bytes = field(default=b"", init=False)
    _peer_session_id: int = field(default=0, init=False)
    _peer_parameters: SessionParameters = field(default_factory=SessionParameters, init=False)
    _prover: Spake2pProver | None = field(default=None, init=False)
    _ke: bytes = field(default=b"", init=False)

    def start(self) -> bytes:
        """The PBKDFParamRequest payload (asking the device for its PBKDF parameters)."""
        self._request = encode_message(
            PbkdfParamRequest(self.initiator_random, self.local_session_id, 0, False, self.local_parameters)
        )
        return self._request

    def handle_pbkdf_param_response(self, payload: bytes) -> bytes:
        """PBKDFParamResponse -> Pake1 payload."""
        if self.state is not _State.EXPECT_PBKDF_RESPONSE:
            raise PaseError("unexpected PBKDFParamResponse")
        try:
            response = decode_message(PbkdfParamResponse, payload, PaseError)
            if response.initiator_random != self.initiator_random:
                raise PaseError("PBKDFParamResponse echoes a different initiator random")
            if response.pbkdf_parameters is None:
                raise PaseError("PBKDFParamResponse: missing field 4 (we asked for the PBKDF parameters)")
        except PaseError:
            self.state = _State.FAILED
            raise
        self._peer_session_id = response.responder_session_id
        self._peer_parameters = response.session_parameters or SessionParameters()
        w0, w1 = compute_w0_w1(self.passcode, response.pbkdf_parameters.salt, response.pbkdf_parameters.iterations)
        kwargs: dict[str, Any] = {} if self.spake_x is None else {"x": self.spake_x}
        self._prover = Spake2pProver(w0=w0, w1=w1, context=pake_context(self._request, bytes(payload)), **kwargs)
        self.state = _State.EXPECT_PAKE2
        return encode_message(Pake1(self._prover.start()))

    def handle_pake2(self, payload: bytes) -> bytes:
        """Pake2 -> Pake3 payload."""
        if self.state is not _State.EXPECT_PAKE2 or self._prover is None:
            raise PaseError("unexpected Pake2")
        try:
            pake2 = decode_message(Pake2, payload, PaseError)
            confirm_a, self._ke = self._prover.finish(pake2.share_y, pake2.confirmation)
        except PaseError:
            self.state = _State.FAILED
            raise
        except Spake2pError as exc:
            self.state = _State.FAILED
            raise PaseError(f"Pake2: {exc}") from exc
        self.state = _State.EXPECT_STATUS
        return encode_message(Pake3(confirm_a))

    def handle_status_report(self, payload: bytes) -> PaseResult:
        if self.state is not _State.EXPECT_STATUS:
            raise PaseError("unexpected StatusReport")
        if not StatusReport.decode(payload).is_session_success:
            self.state = _State.FAILED
            raise PaseError("the device refused the session")
        self.result = PaseResult(
            self.local_session_id, self._peer_session_id, derive_session_keys(self._ke), self._peer_parameters
        )
        self.state = _State.DONE
        return self.result
