"""Secure Channel protocol (id 0x0000) vocabulary shared by PASE and CASE (spec §4.11, §4.12).

Opcodes, the StatusReport message, status codes and the session-parameter structure that both
handshakes carry.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

from bridge.matter.codec.tlv_schema import U16, U32, TLVRecord, record, tag

__all__ = [
    "GeneralCode",
    "Opcode",
    "SecureChannelStatus",
    "SessionParameters",
    "StatusReport",
    "StatusReportError",
]


class Opcode(IntEnum):
    MSG_COUNTER_SYNC_REQ = 0x00
    MSG_COUNTER_SYNC_RSP = 0x01
    STANDALONE_ACK = 0x10
    PBKDF_PARAM_REQUEST = 0x20
    PBKDF_PARAM_RESPONSE = 0x21
    PASE_PAKE1 = 0x22
    PASE_PAKE2 = 0x23
    PASE_PAKE3 = 0x24
    CASE_SIGMA1 = 0x30
    CASE_SIGMA2 = 0x31
    CASE_SIGMA3 = 0x32
    CASE_SIGMA2_RESUME = 0x33
    STATUS_REPORT = 0x40
    ICD_CHECK_IN = 0x50


class GeneralCode(IntEnum):
    SUCCESS = 0
    FAILURE = 1
    BAD_PRECONDITION = 2
    OUT_OF_RANGE = 3
    BAD_REQUEST = 4
    UNSUPPORTED = 5
    UNEXPECTED = 6
    RESOURCE_EXHAUSTED = 7
    BUSY = 8
    TIMEOUT = 9
    CONTINUE = 10
    ABORTED = 11
    INVALID_ARGUMENT = 12
    NOT_FOUND = 13
    ALREADY_EXISTS = 14
    PERMISSION_DENIED = 15
    DATA_LOSS = 16
    MESSAGE_TOO_LARGE = 17


class SecureChannelStatus(IntEnum):
    SESSION_ESTABLISHMENT_SUCCESS = 0x0000
    NO_SHARED_TRUST_ROOTS = 0x0001
    INVALID_PARAMETER = 0x0002
    CLOSE_SESSION = 0x0003
    BUSY = 0x0004


class StatusReportError(ValueError):
    """A StatusReport payload is too short."""


@dataclass(frozen=True)
class StatusReport:
    """``GeneralCode (u16) | ProtocolId (u32: vendor << 16 | protocol) | ProtocolCode (u16) | data``."""

    general_code: int
    protocol_id: int
    protocol_code: int
    protocol_data: bytes = b""

    def encode(self) -> bytes:
        return struct.pack("<HIH", self.general_code, self.protocol_id, self.protocol_code) + self.protocol_data

    @classmethod
    def decode(cls, payload: bytes) -> StatusReport:
        if len(payload) < 8:
            raise StatusReportError("StatusReport shorter than 8 bytes")
        general, protocol, code = struct.unpack_from("<HIH", payload, 0)
        return cls(general, protocol, code, bytes(payload[8:]))

    @classmethod
    def session_success(cls) -> StatusReport:
        return cls(GeneralCode.SUCCESS, 0, SecureChannelStatus.SESSION_ESTABLISHMENT_SUCCESS)

    @classmethod
    def invalid_parameter(cls) -> StatusReport:
        return cls(GeneralCode.FAILURE, 0, SecureChannelStatus.INVALID_PARAMETER)

    @classmethod
    def busy(cls, retry_after_ms: int) -> StatusReport:
        return cls(GeneralCode.BUSY, 0, SecureChannelStatus.BUSY, struct.pack("<H", retry_after_ms))

    @property
    def is_session_success(self) -> bool:
        return (
            self.general_code == GeneralCode.SUCCESS
            and self.protocol_id == 0
            and self.protocol_code == SecureChannelStatus.SESSION_ESTABLISHMENT_SUCCESS
        )


@record("session parameters")
class SessionParameters(TLVRecord):
    """session-parameter-struct (spec §4.12.8): MRP timing and the peer's revisions.

    Unknown members are ignored on decode so newer peers stay compatible.
    """

    idle_interval_ms: int | None = tag(1, U32, default=None)  # SII
    active_interval_ms: int | None = tag(2, U32, default=None)  # SAI
    active_threshold_ms: int | None = tag(3, U16, default=None)  # SAT
    data_model_revision: int | None = tag(4, U16, default=None)
    interaction_model_revision: int | None = tag(5, U16, default=None)
    specification_version: int | None = tag(6, U32, default=None)
    max_paths_per_invoke: int | None = tag(7, U16, default=None)
