"""The PASE and CASE handshake messages (spec §4.14) as declarative TLV records, with one encode/decode pair.

Each message is a field table (:mod:`bridge.matter.codec.tlv_schema`): its context tags, types and lengths are
stated once and drive both directions, the way the Interaction Model's messages are declared
(:mod:`bridge.matter.im.im_messages`). :func:`decode_message` turns malformed TLV and every field that breaks its
table into the caller's handshake error (``PaseError`` / ``CaseError``), prefixed with the message's name.
"""

from __future__ import annotations

from typing import TypeVar

from bridge.matter.codec import tlv
from bridge.matter.codec.tlv_schema import (
    BOOL,
    OCTETS,
    REQUIRED,
    U16,
    Octets,
    Record,
    SchemaError,
    TLVRecord,
    UInt,
    decode_record,
    encode_record,
    record,
    tag,
)
from bridge.matter.session.secure_channel import SessionParameters

__all__ = [
    "MAX_ITERATIONS",
    "MAX_SALT",
    "RESUMPTION_ID_LENGTH",
    "Pake1",
    "Pake2",
    "Pake3",
    "PbkdfParamRequest",
    "PbkdfParamResponse",
    "PbkdfParameters",
    "SealedData",
    "Sigma1",
    "Sigma2",
    "Sigma2Resume",
    "Sigma3",
    "SignedData",
    "decode_message",
    "encode_message",
]

MAX_ITERATIONS, MAX_SALT = 100000, 32
RESUMPTION_ID_LENGTH = 16
_MAX_CERT = 400  # kMaxCHIPCertLength
RANDOM, PUBLIC_KEY, CONFIRMATION, MIC = Octets(32), Octets(65), Octets(32), Octets(16)
RESUMPTION_ID, CERTIFICATE = Octets(RESUMPTION_ID_LENGTH), Octets(max_length=_MAX_CERT)
PARAMETERS = Record(SessionParameters)
Message = TypeVar("Message", bound=TLVRecord)


def encode_message(message: TLVRecord) -> bytes:
    """One handshake message as an anonymous TLV structure."""
    return encode_record(message)


def decode_message(cls: type[Message], payload: bytes, error: type[Exception]) -> Message:
    """``payload`` as message ``cls``; anything malformed raises ``error("<message>: <what was wrong>")``."""
    try:
        decoded: Message = decode_record(cls, tlv.decode(payload))
    except (tlv.TLVError, SchemaError) as exc:
        raise error(f"{cls.tlv_name}: {exc}") from exc
    return decoded


# ------------------------------------------------------------------------------ PASE (spec §4.14.1)
@record("PBKDFParamRequest")
class PbkdfParamRequest(TLVRecord):
    initiator_random: bytes = tag(1, RANDOM, required=True, default=REQUIRED)
    initiator_session_id: int = tag(2, U16, required=True, default=REQUIRED)
    passcode_id: int = tag(3, U16, required=True, default=REQUIRED)
    has_pbkdf_parameters: bool = tag(4, BOOL, required=True, default=REQUIRED)
    session_parameters: SessionParameters | None = tag(5, PARAMETERS, default=None)


@record("PBKDF parameters")
class PbkdfParameters(TLVRecord):
    iterations: int = tag(1, UInt(MAX_ITERATIONS), required=True, default=REQUIRED)
    salt: bytes = tag(2, Octets(max_length=MAX_SALT), required=True, default=REQUIRED)


@record("PBKDFParamResponse")
class PbkdfParamResponse(TLVRecord):
    initiator_random: bytes = tag(1, RANDOM, required=True, default=REQUIRED)
    responder_random: bytes = tag(2, RANDOM, required=True, default=REQUIRED)
    responder_session_id: int = tag(3, U16, required=True, default=REQUIRED)
    # left out when the request had them
    pbkdf_parameters: PbkdfParameters | None = tag(4, Record(PbkdfParameters), default=None)
    session_parameters: SessionParameters | None = tag(5, PARAMETERS, default=None)


@record("Pake1")
class Pake1(TLVRecord):
    share_x: bytes = tag(1, PUBLIC_KEY, required=True, default=REQUIRED)  # pA


@record("Pake2")
class Pake2(TLVRecord):
    share_y: bytes = tag(1, PUBLIC_KEY, required=True, default=REQUIRED)  # pB
    confirmation: bytes = tag(2, CONFIRMATION, required=True, default=REQUIRED)  # cB


@record("Pake3")
class Pake3(TLVRecord):
    confirmation: bytes = tag(1, CONFIRMATION, required=True, default=REQUIRED)  # cA


# ------------------------------------------------------------------------------ CASE (spec §4.14.2)
@record("Sigma1")
class Sigma1(TLVRecord):
    initiator_random: bytes = tag(1, RANDOM, required=True, default=REQUIRED)
    initiator_session_id: int = tag(2, U16, required=True, default=REQUIRED)
    destination_id: bytes = tag(3, Octets(32), required=True, default=REQUIRED)
    ephemeral_public_key: bytes = tag(4, PUBLIC_KEY, required=True, default=REQUIRED)
    session_parameters: SessionParameters | None = tag(5, PARAMETERS, default=None)
    resumption_id: bytes | None = tag(6, RESUMPTION_ID, default=None)
    resume_mic: bytes | None = tag(7, MIC, default=None)


@record("Sigma2")
class Sigma2(TLVRecord):
    responder_random: bytes = tag(1, RANDOM, required=True, default=REQUIRED)
    responder_session_id: int = tag(2, U16, required=True, default=REQUIRED)
    ephemeral_public_key: bytes = tag(3, PUBLIC_KEY, required=True, default=REQUIRED)
    encrypted: bytes = tag(4, OCTETS, required=True, default=REQUIRED)  # TBEData2 under S2K
    session_parameters: SessionParameters | None = tag(5, PARAMETERS, default=None)


@record("Sigma2_Resume")
class Sigma2Resume(TLVRecord):
    resumption_id: bytes = tag(1, RESUMPTION_ID, required=True, default=REQUIRED)
    resume_mic: bytes = tag(2, MIC, required=True, default=REQUIRED)
    responder_session_id: int = tag(3, U16, required=True, default=REQUIRED)
    session_parameters: SessionParameters | None = tag(4, PARAMETERS, default=None)


@record("Sigma3")
class Sigma3(TLVRecord):
    encrypted: bytes = tag(1, OCTETS, required=True, default=REQUIRED)  # TBEData3 under S3K


@record("TBSData")
class SignedData(TLVRecord):
    """What a CASE party signs: its certificates and both ephemeral keys (own first)."""

    noc: bytes = tag(1, CERTIFICATE, required=True, default=REQUIRED)
    icac: bytes | None = tag(2, CERTIFICATE, default=REQUIRED, absent=None)
    own_key: bytes = tag(3, PUBLIC_KEY, required=True, default=REQUIRED)
    peer_key: bytes = tag(4, PUBLIC_KEY, required=True, default=REQUIRED)


@record("TBEData")
class SealedData(TLVRecord):
    """What Sigma2/Sigma3 encrypt: the sender's certificates, its signature and (Sigma2) the resumption id."""

    noc: bytes = tag(1, CERTIFICATE, required=True, default=REQUIRED)
    icac: bytes | None = tag(2, CERTIFICATE, default=REQUIRED, absent=None)
    signature: bytes = tag(3, Octets(64), required=True, default=REQUIRED)
    resumption_id: bytes | None = tag(4, RESUMPTION_ID, default=None)
