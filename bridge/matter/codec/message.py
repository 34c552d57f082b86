"""Matter message framing (spec §4.4) and message counters (spec §4.6).

A datagram is ``message header || [protocol header || payload]``, where the bracketed part is
AES-CCM encrypted on secure sessions (the message header is then the additional data). This
module only encodes/decodes the two headers and keeps counters; encryption lives in
:mod:`bridge.matter.session.message_security`.
"""

from __future__ import annotations

import secrets
import struct
from dataclasses import dataclass, field
from enum import IntEnum, IntFlag

__all__ = [
    "DSIZ_GROUP",
    "DSIZ_NODE",
    "DSIZ_NONE",
    "ExchangeFlags",
    "MessageCounter",
    "MessageError",
    "MessageHeader",
    "ProtocolHeader",
    "ProtocolId",
    "ReceptionState",
    "SecurityFlags",
    "SessionType",
    "initial_counter_value",
]

DSIZ_NONE, DSIZ_NODE, DSIZ_GROUP = 0, 1, 2
_FLAG_S = 0x04  # message flags bit 2: source node id present
_VERSION_MASK = 0xF0


class MessageError(ValueError):
    """A header could not be decoded or encoded."""


class SecurityFlags(IntFlag):
    PRIVACY = 0x80
    CONTROL = 0x40
    EXTENSIONS = 0x20


class SessionType(IntEnum):
    UNICAST = 0
    GROUP = 1


class ExchangeFlags(IntFlag):
    INITIATOR = 0x01
    ACK = 0x02
    RELIABLE = 0x04
    SECURED_EXTENSIONS = 0x08
    VENDOR = 0x10


class ProtocolId(IntEnum):
    SECURE_CHANNEL = 0x0000
    INTERACTION_MODEL = 0x0001
    BDX = 0x0002
    USER_DIRECTED_COMMISSIONING = 0x0003


@dataclass
class MessageHeader:
    """The unencrypted message header; ``encode()`` output is the AES-CCM additional data."""

    session_id: int = 0
    message_counter: int = 0
    security_flags: int = 0  # P/C/MX bits and the 2-bit session type
    source_node_id: int | None = None
    destination_node_id: int | None = None
    destination_group_id: int | None = None
    extensions: bytes | None = None  # message extensions (MX), carried opaquely

    @property
    def session_type(self) -> SessionType:
        return SessionType(self.security_flags & 0x03)

    @property
    def is_secure(self) -> bool:
        # Session id 0 with unicast type is the unsecured session (spec §4.13.2.1).
        return not (self.session_id == 0 and self.security_flags & 0x03 == SessionType.UNICAST)

    @property
    def privacy(self) -> bool:
        return bool(self.security_flags & SecurityFlags.PRIVACY)

    def encode(self) -> bytes:
        if self.destination_node_id is not None and self.destination_group_id is not None:
            raise MessageError("a message has one destination: a node or a group")
        flags = 0
        if self.source_node_id is not None:
            flags |= _FLAG_S
        if self.destination_node_id is not None:
            flags |= DSIZ_NODE
        elif self.destination_group_id is not None:
            flags |= DSIZ_GROUP
        security = self.security_flags & ~SecurityFlags.EXTENSIONS
        if self.extensions is not None:
            security |= SecurityFlags.EXTENSIONS
        out = bytearray(struct.pack("<BHBI", flags, self.session_id, security, self.message_counter))
        if self.source_node_id is not None:
            out += struct.pack("<Q", self.source_node_id)
        if self.destination_node_id is not None:
            out += struct.pack("<Q", self.destination_node_id)
        elif self.destination_group_id is not None:
            out += struct.pack("<H", self.destination_group_id)
        if self.extensions is not None:
            out += struct.pack("<H", len(self.extensions)) + self.extensions
        return bytes(out)

    @classmethod
    def decode(cls, data: bytes) -> tuple[MessageHeader, int]:
        """Decode the header at the start of ``data``; returns it and the offset of what follows."""
        if len(data) < 8:
            raise MessageError("message shorter than the minimal header")
        flags, session_id, security, counter = struct.unpack_from("<BHBI", data, 0)
        if flags & _VERSION_MASK:
            raise MessageError(f"unsupported message version {flags >> 4}")
        dsiz = flags & 0x03
        if dsiz == 3:
            raise MessageError("reserved DSIZ value")
        if security & 0x03 > SessionType.GROUP:
            raise MessageError("reserved session type")
        header = cls(
            session_id=session_id, message_counter=counter, security_flags=security & ~SecurityFlags.EXTENSIONS
        )
        pos = 8
        try:
            if flags & _FLAG_S:
                (header.source_node_id,) = struct.unpack_from("<Q", data, pos)
                pos += 8
            if dsiz == DSIZ_NODE:
                (header.destination_node_id,) = struct.unpack_from("<Q", data, pos)
                pos += 8
            elif dsiz == DSIZ_GROUP:
                (header.destination_group_id,) = struct.unpack_from("<H", data, pos)
                pos += 2
            if security & SecurityFlags.EXTENSIONS:
                (length,) = struct.unpack_from("<H", data, pos)
                pos += 2
                if pos + length > len(data):
                    raise MessageError("truncated message extensions")
                header.extensions = bytes(data[pos : pos + length])
                pos += length
        except struct.error as exc:
            raise MessageError("truncated message header") from exc
        if security & 0x03 == SessionType.GROUP and dsiz != DSIZ_GROUP:
            raise MessageError("group session message without a group destination")
        return header, pos


@dataclass
class ProtocolHeader:
    """The protocol (exchange) header that starts the (decrypted) message payload."""

    exchange_flags: int = 0  # I and R bits; A/V/SX follow from ack_counter/vendor_id/secured_extensions
    opcode: int = 0
    exchange_id: int = 0
    protocol_id: int = 0
    vendor_id: int | None = None  # None means the standard vendor (0x0000) and no V flag
    ack_counter: int | None = None
    secured_extensions: bytes | None = None

    @property
    def initiator(self) -> bool:
        return bool(self.exchange_flags & ExchangeFlags.INITIATOR)

    @property
    def needs_ack(self) -> bool:
        return bool(self.exchange_flags & ExchangeFlags.RELIABLE)

    def encode(self) -> bytes:
        flags = self.exchange_flags & (ExchangeFlags.INITIATOR | ExchangeFlags.RELIABLE)
        if self.ack_counter is not None:
            flags |= ExchangeFlags.ACK
        if self.vendor_id is not None:
            flags |= ExchangeFlags.VENDOR
        if self.secured_extensions is not None:
            flags |= ExchangeFlags.SECURED_EXTENSIONS
        out = bytearray(struct.pack("<BBH", flags, self.opcode, self.exchange_id))
        if self.vendor_id is not None:
            out += struct.pack("<H", self.vendor_id)
        out += struct.pack("<H", self.protocol_id)
        if self.ack_counter is not None:
            out += struct.pack("<I", self.ack_counter)
        if self.secured_extensions is not None:
            out += struct.pack("<H", len(self.secured_extensions)) + self.secured_extensions
        return bytes(out)

    @classmethod
    def decode(cls, data: bytes) -> tuple[ProtocolHeader, int]:
        """Decode the protocol header at the start of ``data``; returns it and the payload offset."""
        try:
            flags, opcode, exchange_id = struct.unpack_from("<BBH", data, 0)
            # Only I and R live in exchange_flags; A, V and SX are implied by the optional fields.
            header = cls(
                exchange_flags=flags & (ExchangeFlags.INITIATOR | ExchangeFlags.RELIABLE),
                opcode=opcode,
                exchange_id=exchange_id,
            )
            pos = 4
            if flags & ExchangeFlags.VENDOR:
                (header.vendor_id,) = struct.unpack_from("<H", data, pos)
                pos += 2
            (header.protocol_id,) = struct.unpack_from("<H", data, pos)
            pos += 2
            if flags & ExchangeFlags.ACK:
                (header.ack_counter,) = struct.unpack_from("<I", data, pos)
                pos += 4
            if flags & ExchangeFlags.SECURED_EXTENSIONS:
                (length,) = struct.unpack_from("<H", data, pos)
                pos += 2
                if pos + length > len(data):
                    raise MessageError("truncated secured extensions")
                header.secured_extensions = bytes(data[pos : pos + length])
                pos += length
        except struct.error as exc:
            raise MessageError("truncated protocol header") from exc
        return header, pos


# ------------------------------------------------------------------------------------- counters


def initial_counter_value() -> int:
    """Random start in [1, 2^28] for the global unencrypted and per-session counters (spec §4.6.1)."""
    return secrets.randbits(28) + 1


@dataclass
class MessageCounter:
    """An outgoing message counter.

    Secure unicast session counters must never wrap (the session must end instead, spec §4.6.1.1);
    the global unencrypted counter wraps modulo 2^32.
    """

    value: int = field(default_factory=initial_counter_value)
    allow_rollover: bool = False

    def next(self) -> int:
        """The counter for the next new message (a retransmission reuses its first counter)."""
        current = self.value
        if current > 0xFFFFFFFF:
            raise OverflowError("message counter exhausted: the session must be re-established")
        self.value = current + 1
        if self.allow_rollover:
            self.value &= 0xFFFFFFFF
        return current


WINDOW_SIZE = 32  # MSG_COUNTER_WINDOW_SIZE


@dataclass
class ReceptionState:
    """Receive-side duplicate detection for one peer (spec §4.6.5).

    ``max_counter`` is the largest counter seen; bit ``i`` of ``bitmap`` means counter
    ``max_counter - i - 1`` was seen. Two behaviours exist:

    * encrypted unicast (``rollover=False``): counters only grow; anything at or behind the window
      is a duplicate;
    * unencrypted and group (``rollover=True``): arithmetic is modulo 2^32, a counter "ahead" is
      one less than 2^31 ahead; for unencrypted sessions a counter behind the window is accepted as
      a new start (``reset_behind=True``: the peer rebooted and re-randomised its counter).
    """

    rollover: bool = False
    reset_behind: bool = False
    max_counter: int | None = None
    bitmap: int = 0

    def check_and_mark(self, counter: int) -> bool:
        """Record ``counter``; True when the message is new, False when it is a duplicate."""
        if self.max_counter is None:
            # Trust-first: the first message from a peer defines the window.
            self._restart(counter)
            return True
        if self.rollover:
            ahead = (counter - self.max_counter) & 0xFFFFFFFF
            is_ahead = 0 < ahead < 0x80000000
            behind = (self.max_counter - counter) & 0xFFFFFFFF
        else:
            ahead = counter - self.max_counter
            is_ahead = ahead > 0
            behind = self.max_counter - counter
        if is_ahead:
            self.bitmap = ((self.bitmap << ahead) | (1 << (ahead - 1))) & 0xFFFFFFFF if ahead <= WINDOW_SIZE else 0
            self.max_counter = counter
            return True
        if behind == 0:
            return False
        if behind <= WINDOW_SIZE:
            bit = 1 << (behind - 1)
            if self.bitmap & bit:
                return False
            self.bitmap |= bit
            return True
        if self.reset_behind:
            self._restart(counter)
            return True
        return False

    def _restart(self, counter: int) -> None:
        self.max_counter = counter
        self.bitmap = 0
