"""A tiny controller for in-process tests: PASE/CASE over real UDP against a MatterNode.

It acks every reliable message it receives (standalone) and sends its own messages with the R
flag, so the node's MRP sees a well-behaved peer.
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field

from bridge.matter.codec.message import ExchangeFlags, MessageError, MessageHeader, ProtocolHeader
from bridge.matter.crypto import certificates as certs
from bridge.matter.crypto.certificates import DNAttribute, IssueRequest
from bridge.matter.crypto.crypto import CryptoError, PrivateKey, generate_private_key, public_key_bytes
from bridge.matter.crypto.fabric_keys import compressed_fabric_id, operational_group_key
from bridge.matter.session.case import CaseFabric, CaseInitiator
from bridge.matter.session.message_security import decrypt_message, encrypt_message
from bridge.matter.session.pase import PaseInitiator
from bridge.matter.session.secure_channel import Opcode, StatusReport

EPOCH_KEY = b"temporary ipk 01"


@dataclass
class FabricAuthority:
    fabric_id: int
    root_key: PrivateKey
    rcac: bytes

    @classmethod
    def create(cls, fabric_id: int = 0xFAB1) -> FabricAuthority:
        key = generate_private_key()
        dn = [(DNAttribute.RCAC_ID, 1), (DNAttribute.FABRIC_ID, fabric_id)]
        rcac = certs.encode_tlv(certs.issue(IssueRequest(dn, public_key_bytes(key), dn, key, is_ca=True)))
        return cls(fabric_id, key, rcac)

    @property
    def ipk(self) -> bytes:
        return operational_group_key(EPOCH_KEY, compressed_fabric_id(public_key_bytes(self.root_key), self.fabric_id))

    def noc_for(self, public_key: bytes, node_id: int) -> bytes:
        root_dn = certs.decode_tlv(self.rcac).subject
        noc = certs.issue(
            IssueRequest(
                [(DNAttribute.NODE_ID, node_id), (DNAttribute.FABRIC_ID, self.fabric_id)],
                public_key,
                root_dn,
                self.root_key,
                is_ca=False,
            )
        )
        return certs.encode_tlv(noc)

    def member(self, node_id: int) -> CaseFabric:
        key = generate_private_key()
        return CaseFabric(
            self.fabric_id,
            node_id,
            public_key_bytes(self.root_key),
            self.rcac,
            self.noc_for(public_key_bytes(key), node_id),
            None,
            key,
            self.ipk,
        )


@dataclass
class _Secure:
    local_id: int
    peer_id: int
    i2r: bytes
    r2i: bytes
    own_node: int
    peer_node: int
    counter: int = field(default_factory=lambda: secrets.randbits(28) + 1)


class FakeController(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.node_id = secrets.randbits(63) | 1
        self.counter = secrets.randbits(28) + 1
        self.inbox: asyncio.Queue[tuple[ProtocolHeader, bytes]] = asyncio.Queue()
        self.secure: _Secure | None = None
        self.transport: asyncio.DatagramTransport | None = None
        self.target: tuple[str, int] = ("127.0.0.1", 5540)
        self.exchange_id = secrets.randbits(16)
        self.dropped = 0  # datagrams that could not be decoded or authenticated

    @classmethod
    async def connect(cls, port: int) -> FakeController:
        loop = asyncio.get_running_loop()
        controller = cls()
        controller.target = ("127.0.0.1", port)
        await loop.create_datagram_endpoint(lambda: controller, local_addr=("127.0.0.1", 0))
        return controller

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def datagram_received(self, data: bytes, addr: tuple) -> None:
        try:
            header, offset = MessageHeader.decode(data)
            if header.session_id == 0:
                payload = data[offset:]
            else:
                if self.secure is None:
                    self.dropped += 1
                    return
                header, payload = decrypt_message(data, self.secure.r2i, self.secure.peer_node)
        except (MessageError, CryptoError):
            # As a real controller does: a message it cannot decode or authenticate (e.g. a retransmission
            # under the keys of a session it has since replaced) is dropped.
            self.dropped += 1
            return
        proto, pos = ProtocolHeader.decode(payload)
        if proto.needs_ack:
            self._send(
                proto.exchange_id,
                Opcode.STANDALONE_ACK,
                b"",
                protocol=0,
                reliable=False,
                ack=header.message_counter,
                secure=header.session_id != 0,
            )
        if proto.protocol_id == 0 and proto.opcode == Opcode.STANDALONE_ACK:
            return
        self.inbox.put_nowait((proto, payload[pos:]))

    def _send(
        self,
        exchange_id: int,
        opcode: int,
        payload: bytes,
        *,
        protocol: int,
        reliable: bool = True,
        ack: int | None = None,
        secure: bool = False,
    ) -> None:
        assert self.transport is not None
        flags = ExchangeFlags.INITIATOR | (ExchangeFlags.RELIABLE if reliable else 0)
        proto = ProtocolHeader(
            exchange_flags=flags, opcode=opcode, exchange_id=exchange_id, protocol_id=protocol, ack_counter=ack
        )
        if secure:
            assert self.secure is not None
            self.secure.counter += 1
            header = MessageHeader(session_id=self.secure.peer_id, message_counter=self.secure.counter)
            data = encrypt_message(header, proto.encode() + payload, self.secure.i2r, self.secure.own_node)
        else:
            self.counter += 1
            header = MessageHeader(session_id=0, message_counter=self.counter, source_node_id=self.node_id)
            data = header.encode() + proto.encode() + payload
        self.transport.sendto(data, self.target)

    def send(self, opcode: int, payload: bytes, *, protocol: int, secure: bool, new_exchange: bool = False) -> None:
        if new_exchange:
            self.exchange_id = (self.exchange_id + 1) & 0xFFFF
        self._send(self.exchange_id, opcode, payload, protocol=protocol, secure=secure)

    async def receive(self, timeout: float = 5.0) -> tuple[ProtocolHeader, bytes]:
        return await asyncio.wait_for(self.inbox.get(), timeout)

    async def pase(self, passcode: int) -> bytes:
        """Run PASE; returns the attestation challenge."""
        local_id = secrets.randbits(16) | 1
        initiator = PaseInitiator(passcode=passcode, local_session_id=local_id)
        self.send(Opcode.PBKDF_PARAM_REQUEST, initiator.start(), protocol=0, secure=False, new_exchange=True)
        _, response = await self.receive()
        self.send(Opcode.PASE_PAKE1, initiator.handle_pbkdf_param_response(response), protocol=0, secure=False)
        _, pake2 = await self.receive()
        try:
            pake3 = initiator.handle_pake2(pake2)
        except Exception:
            self.send(Opcode.STATUS_REPORT, StatusReport.invalid_parameter().encode(), protocol=0, secure=False)
            raise
        self.send(Opcode.PASE_PAKE3, pake3, protocol=0, secure=False)
        _, status = await self.receive()
        result = initiator.handle_status_report(status)
        self.secure = _Secure(local_id, result.peer_session_id, result.keys.i2r_key, result.keys.r2i_key, 0, 0)
        return result.keys.attestation_challenge

    async def case(self, fabric: CaseFabric, peer_node_id: int) -> None:
        local_id = secrets.randbits(16) | 1
        initiator = CaseInitiator(fabric=fabric, peer_node_id=peer_node_id, local_session_id=local_id)
        self.send(Opcode.CASE_SIGMA1, initiator.start(), protocol=0, secure=False, new_exchange=True)
        _, sigma2 = await self.receive()
        self.send(Opcode.CASE_SIGMA3, initiator.handle_sigma2(sigma2), protocol=0, secure=False)
        _, status = await self.receive()
        result = initiator.handle_status_report(status)
        self.secure = _Secure(
            local_id, result.peer_session_id, result.keys.i2r_key, result.keys.r2i_key, fabric.node_id, peer_node_id
        )
