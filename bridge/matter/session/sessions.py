"""Sessions (spec §4.13): the unsecured session per peer and PASE/CASE secure sessions, and the
dispatcher that turns datagrams into exchange messages.

* Unsecured sessions are keyed by (peer address, ephemeral initiator node id); they use the global
  unencrypted counter and a rollover-tolerant reception window. They carry only session
  establishment: IM messages on them are acknowledged (so the sender stops retransmitting) and
  discarded, since the unsecured session is reserved for the Secure Channel protocol (§4.13.2.1).
* Secure sessions are keyed by our local session id (the peer puts it in the header); messages are
  AES-CCM protected (:mod:`bridge.matter.session.message_security`), counters strictly increase, and the
  nonce source node id is the sender's operational node id (0 over PASE).
* A message that opens an exchange goes to the handler registered for its (protocol, opcode, session kind)
  in ``routes`` (:mod:`bridge.matter.session.dispatch`), run with ``current_request`` set: the handshake
  server registers PASE/CASE, the node the Interaction Model; the manager itself handles CloseSession and
  refuses IM on unsecured sessions. Anything unrouted is acknowledged and dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bridge.matter.codec.message import (
    MessageCounter,
    MessageError,
    MessageHeader,
    ProtocolHeader,
    ProtocolId,
    ReceptionState,
    SecurityFlags,
    SessionType,
)
from bridge.matter.crypto.crypto import CryptoError
from bridge.matter.session.channel import KeyedExchange
from bridge.matter.session.context import RequestContext, SessionKind, current_request
from bridge.matter.session.dispatch import ProtocolDispatch, SessionSide
from bridge.matter.session.exchange import Exchange
from bridge.matter.session.exchange_api import ExchangeClosed
from bridge.matter.session.message_security import decrypt_message, encrypt_message
from bridge.matter.session.mrp import LoopClock, MrpClock, MrpTiming, TimerHandle
from bridge.matter.session.refusal_log import RefusalLog
from bridge.matter.session.secure_channel import (
    GeneralCode,
    Opcode,
    SecureChannelStatus,
    SessionParameters,
    StatusReport,
)

__all__ = ["SecureSession", "Session", "SessionManager", "UnsecuredSession"]

log = logging.getLogger(__name__)

Address = tuple[Any, ...]
ExchangeHandler = Callable[[Exchange, int, bytes], Awaitable[None]]
MAX_SECURE_SESSIONS = 32
MAX_UNSECURED_SESSIONS = 16


class Session:
    """What both session kinds share: the peer address, exchanges, MRP timing and duplicate window.

    A session is the :class:`~bridge.matter.session.channel.MessageChannel` its exchanges run on."""

    kind: SessionKind = "unsecured"

    def __init__(self, manager: SessionManager, peer_address: Address, reception: ReceptionState) -> None:
        self.manager = manager
        self.peer_address = peer_address
        self.reception = reception
        self.exchanges: dict[tuple[int, bool], Exchange] = {}
        self.mrp = MrpTiming()
        self.last_rx = manager.clock.now()
        self.closed = False

    # --- framing (per kind)
    def seal(self, header: ProtocolHeader, payload: bytes) -> tuple[bytes, int]:
        raise NotImplementedError

    def transmit(self, datagram: bytes) -> None:
        if not self.closed:
            self.manager.send_datagram(datagram, self.peer_address)

    @property
    def context(self) -> RequestContext:
        return RequestContext(session_kind="unsecured", session=self)

    def retransmit_delay_s(self, retransmissions: int) -> float:
        return self.mrp.delay_s(retransmissions, self.manager.clock.now() - self.last_rx)

    def call_later(self, delay_s: float, callback: Callable[[], None]) -> TimerHandle:
        return self.manager.clock.call_later(delay_s, callback)

    # --- exchanges
    def open_exchange(self, protocol_id: int = ProtocolId.INTERACTION_MODEL) -> Exchange:
        """A new exchange that we initiate (e.g. a subscription report)."""
        if self.closed:
            raise ExchangeClosed("session closed")
        exchange_id = self.manager.next_exchange_id()
        exchange = Exchange(self, exchange_id, initiator=True, protocol_id=protocol_id)
        self.exchanges[exchange.key] = exchange
        return exchange

    def release(self, exchange: KeyedExchange) -> None:
        if self.exchanges.get(exchange.key) is exchange:
            del self.exchanges[exchange.key]

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for exchange in list(self.exchanges.values()):
            exchange.abort()
        self.exchanges.clear()


class UnsecuredSession(Session):
    """``initiator``: we start a handshake (e.g. CASE to resume a subscription) under our own ephemeral
    node id, sent as the source; otherwise the peer's ephemeral id is the destination of our answers."""

    def __init__(
        self, manager: SessionManager, peer_address: Address, ephemeral_node_id: int, *, initiator: bool = False
    ) -> None:
        super().__init__(manager, peer_address, ReceptionState(rollover=True, reset_behind=True))
        self.ephemeral_node_id = ephemeral_node_id
        self.initiator = initiator

    def seal(self, header: ProtocolHeader, payload: bytes) -> tuple[bytes, int]:
        counter = self.manager.unsecured_counter.next()
        if self.initiator:
            message = MessageHeader(session_id=0, message_counter=counter, source_node_id=self.ephemeral_node_id)
        else:
            message = MessageHeader(session_id=0, message_counter=counter, destination_node_id=self.ephemeral_node_id)
        return message.encode() + header.encode() + payload, counter

    def close(self) -> None:
        super().close()
        if self.initiator and self.manager.initiated.get(self.ephemeral_node_id) is self:
            del self.manager.initiated[self.ephemeral_node_id]


@dataclass
class SecureSessionKeys:
    encrypt_key: bytes  # R2I: we are always the responder of PASE/CASE
    decrypt_key: bytes  # I2R
    attestation_challenge: bytes


class SecureSession(Session):
    def __init__(
        self,
        manager: SessionManager,
        peer_address: Address,
        *,
        kind: SessionKind,
        local_session_id: int,
        peer_session_id: int,
        keys: SecureSessionKeys,
        peer_parameters: SessionParameters | None = None,
        local_node_id: int = 0,
        peer_node_id: int = 0,
        fabric_index: int | None = None,
        cats: tuple[int, ...] = (),
    ) -> None:
        super().__init__(manager, peer_address, ReceptionState(rollover=False))
        self.kind = kind
        self.local_session_id = local_session_id
        self.peer_session_id = peer_session_id
        self.keys = keys
        self.local_node_id = local_node_id
        self.peer_node_id = peer_node_id
        self.fabric_index = fabric_index
        self.cats = cats
        self.counter = MessageCounter()
        self.mrp = MrpTiming.from_parameters(peer_parameters)
        self.peer_parameters = peer_parameters or SessionParameters()
        self.created = time.monotonic()

    @property
    def context(self) -> RequestContext:
        return RequestContext(
            session_kind=self.kind,
            fabric_index=self.fabric_index,
            subject_node_id=self.peer_node_id if self.kind == "case" else None,
            cats=self.cats,
            attestation_challenge=self.keys.attestation_challenge,
            session=self,
        )

    def seal(self, header: ProtocolHeader, payload: bytes) -> tuple[bytes, int]:
        counter = self.counter.next()
        message = MessageHeader(session_id=self.peer_session_id, message_counter=counter)
        datagram = encrypt_message(message, header.encode() + payload, self.keys.encrypt_key, self.local_node_id)
        return datagram, counter

    def open(self, datagram: bytes) -> tuple[MessageHeader, bytes]:
        return decrypt_message(datagram, self.keys.decrypt_key, self.peer_node_id)

    def close(self) -> None:
        if not self.closed:
            log.info(
                "event=session_closed kind=%s session=%d fabric=%s node=0x%016X",
                self.kind,
                self.local_session_id,
                self.fabric_index,
                self.peer_node_id,
            )
            super().close()
            self.manager.forget_session(self)


@dataclass
class SessionManager:
    """Owns every session; ``on_datagram`` is the transport's receive callback."""

    send_datagram: Callable[[bytes, Address], None]
    handle_group: Callable[[bytes], Any] | None = None  # group-session datagrams (bridge.matter.session.group_messages)
    unsecured_counter: MessageCounter = field(default_factory=lambda: MessageCounter(allow_rollover=True))
    secure: OrderedDict[int, SecureSession] = field(default_factory=OrderedDict)  # LRU order
    unsecured: OrderedDict[tuple[Any, int], UnsecuredSession] = field(default_factory=OrderedDict)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    on_session_closed: list[Callable[[SecureSession], None]] = field(default_factory=list)
    refusals: RefusalLog = field(default_factory=RefusalLog)  # rate-limited log lines + counters of refusals
    initiated: dict[int, UnsecuredSession] = field(default_factory=dict)  # ours, by our ephemeral node id
    _exchange_id: int = field(default_factory=lambda: secrets.randbits(16))
    clock: MrpClock = field(default_factory=LoopClock)  # MRP timers and peer-activity times
    routes: ProtocolDispatch = field(default_factory=ProtocolDispatch)  # exchange-opening messages → handlers

    def __post_init__(self) -> None:
        self.routes.register(
            ProtocolId.SECURE_CHANNEL,
            Opcode.STATUS_REPORT,
            self._peer_status_report,
            session="secure",
            inline=True,
            owner="SessionManager (CloseSession)",
        )
        self.routes.register(
            ProtocolId.INTERACTION_MODEL,
            None,
            self._refuse_unsecured_im,
            session="unsecured",
            inline=True,
            owner="SessionManager (IM needs a secure session)",
        )

    # ------------------------------------------------------------------------------ ids
    def next_exchange_id(self) -> int:
        self._exchange_id = (self._exchange_id + 1) & 0xFFFF
        return self._exchange_id

    def allocate_session_id(self) -> int:
        while True:
            candidate = secrets.randbits(16)
            if candidate and candidate not in self.secure:
                return candidate

    # ------------------------------------------------------------------------------ sessions
    def add_secure_session(self, session: SecureSession) -> None:
        while len(self.secure) >= MAX_SECURE_SESSIONS:
            _, victim = next(iter(self.secure.items()))  # least recently used
            log.info("evicting %s session %d", victim.kind, victim.local_session_id)
            victim.close()
        self.secure[session.local_session_id] = session

    def forget_session(self, session: SecureSession) -> None:
        if self.secure.get(session.local_session_id) is session:
            del self.secure[session.local_session_id]
        for listener in list(self.on_session_closed):  # e.g. the IM ends the session's subscriptions now
            try:
                listener(session)
            except Exception:
                log.exception("session-closed listener failed")

    def sessions(self, *, kind: SessionKind | None = None, fabric_index: int | None = None) -> list[SecureSession]:
        return [
            s
            for s in self.secure.values()
            if (kind is None or s.kind == kind) and (fabric_index is None or s.fabric_index == fabric_index)
        ]

    def expire(self, *, kind: SessionKind | None = None, fabric_index: int | None = None) -> None:
        for session in self.sessions(kind=kind, fabric_index=fabric_index):
            session.close()

    def initiate_unsecured(self, address: Address) -> UnsecuredSession:
        """An unsecured session to start a handshake with ``address``; close it when done."""
        while True:
            node_id = secrets.randbits(64)
            if node_id and node_id not in self.initiated:
                break
        session = UnsecuredSession(self, address, node_id, initiator=True)
        self.initiated[node_id] = session
        return session

    def close_all(self) -> None:
        for session in list(self.secure.values()) + list(self.unsecured.values()) + list(self.initiated.values()):
            session.close()
        self.unsecured.clear()
        for task in list(self.tasks):
            task.cancel()

    def _unsecured_for(self, address: Address, node_id: int) -> UnsecuredSession:
        key = (address[:2], node_id)
        session = self.unsecured.get(key)
        if session is None:
            while len(self.unsecured) >= MAX_UNSECURED_SESSIONS:
                _, victim = self.unsecured.popitem(last=False)
                victim.close()
            session = UnsecuredSession(self, address, node_id)
            self.unsecured[key] = session
        else:
            self.unsecured.move_to_end(key)
        return session

    # ------------------------------------------------------------------------------ receiving
    def on_datagram(self, data: bytes, address: Address) -> None:
        """Decode, authenticate, de-duplicate and route one datagram; never raises on bad input."""
        try:
            self._receive(bytes(data), address)
        except (MessageError, CryptoError) as exc:
            self.refusals.refused(
                log, logging.DEBUG, "undecodable datagram", "dropped datagram from %s: %s", address, exc
            )
        except Exception:  # a malformed datagram must never take the node down
            self.refusals.refused(
                log, logging.ERROR, "datagram handling failed", "dropped datagram from %s", address, exc_info=True
            )

    def _receive(self, data: bytes, address: Address) -> None:
        header, offset = MessageHeader.decode(data)
        if header.security_flags & SecurityFlags.CONTROL:
            return  # MCSP control messages are not supported
        if header.session_type == SessionType.GROUP:
            if self.handle_group is not None:
                self.handle_group(data)
            return
        session: Session
        if not header.is_secure:
            if header.source_node_id is None:
                # Only an answer to a handshake we started names us (our ephemeral id) instead (§4.13.2.1).
                initiated = self.initiated.get(header.destination_node_id or 0)
                if initiated is None:
                    return
                session = initiated
            else:
                session = self._unsecured_for(address, header.source_node_id)
            payload = data[offset:]
        else:
            secure = self.secure.get(header.session_id)
            if secure is None:
                return
            header, payload = secure.open(data)
            self.secure.move_to_end(secure.local_session_id)
            session = secure
        duplicate = not session.reception.check_and_mark(header.message_counter)
        protocol, offset = ProtocolHeader.decode(payload)
        if not duplicate:
            session.peer_address = address  # follow the peer (e.g. IPv4 -> link-local IPv6)
            session.last_rx = self.clock.now()
        self._on_message(session, header, protocol, payload[offset:], duplicate)

    def _on_message(
        self, session: Session, header: MessageHeader, protocol: ProtocolHeader, payload: bytes, duplicate: bool
    ) -> None:
        key = (protocol.exchange_id, not protocol.initiator)
        exchange = session.exchanges.get(key)
        if protocol.ack_counter is not None and exchange is not None:
            exchange.on_ack(protocol.ack_counter)
        is_ack_only = protocol.protocol_id == ProtocolId.SECURE_CHANNEL and protocol.opcode == Opcode.STANDALONE_ACK
        if duplicate or is_ack_only or (exchange is None and not protocol.initiator) or session.closed:
            # Nothing to process, but a reliable message must still be acked or the peer retransmits.
            if protocol.needs_ack and not is_ack_only:
                self._ack_outside_exchange(session, protocol, header.message_counter)
            return
        if exchange is None:
            exchange = Exchange(session, protocol.exchange_id, initiator=False, protocol_id=protocol.protocol_id)
            session.exchanges[exchange.key] = exchange
            if protocol.needs_ack:
                exchange.owe_ack(header.message_counter)
            self._dispatch(session, exchange, protocol, payload)
            return
        if protocol.needs_ack:
            exchange.owe_ack(header.message_counter)
        exchange.deliver(protocol.protocol_id, protocol.opcode, payload)

    def _ack_outside_exchange(self, session: Session, protocol: ProtocolHeader, counter: int) -> None:
        ephemeral = Exchange(session, protocol.exchange_id, initiator=not protocol.initiator, protocol_id=0)
        ephemeral.owe_ack(counter)
        ephemeral.flush_ack()

    def _dispatch(self, session: Session, exchange: Exchange, protocol: ProtocolHeader, payload: bytes) -> None:
        side: SessionSide = "secure" if isinstance(session, SecureSession) else "unsecured"
        route = self.routes.route(protocol.protocol_id, protocol.opcode, side)
        if route is None or route.inline:  # nothing is answered on this exchange: ack it and let it go
            exchange.flush_ack()
            exchange.closed = True
            session.release(exchange)
            if route is not None:
                route.handler(exchange, protocol.opcode, payload)
            return
        # A route registered without inline=True holds an ExchangeHandler (ProtocolDispatch.register): the ignore.
        self._spawn(self._run_handler(route.handler, session, exchange, protocol.opcode, payload))  # type: ignore[arg-type]

    def _refuse_unsecured_im(self, exchange: Exchange, opcode: int, payload: bytes) -> None:
        self.refusals.refused(
            log,
            logging.WARNING,
            "IM on an unsecured session",
            "refused IM opcode 0x%02x on an unsecured session from %s",
            opcode,
            exchange.channel.peer_address,
        )

    def _peer_status_report(self, exchange: Exchange, opcode: int, payload: bytes) -> None:
        session = exchange.channel  # the route is for secure sessions: this manager's SecureSession
        if not isinstance(session, SecureSession):
            return
        try:
            report = StatusReport.decode(payload)
        except ValueError:
            return
        if report.protocol_id == 0 and report.protocol_code == SecureChannelStatus.CLOSE_SESSION:
            log.info("peer closed %s session %d", session.kind, session.local_session_id)
            session.close()

    async def _run_handler(
        self, handler: ExchangeHandler, session: Session, exchange: Exchange, opcode: int, payload: bytes
    ) -> None:
        token = current_request.set(session.context)
        try:
            await handler(exchange, opcode, payload)
        except Exception:
            log.exception("exchange handler failed (opcode 0x%02x)", opcode)
        finally:
            current_request.reset(token)
            await exchange.close()

    def _spawn(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # ------------------------------------------------------------------------------ closing
    async def send_close_session(self, session: SecureSession) -> None:
        """Tell the peer we drop the session (StatusReport CloseSession), then drop it."""
        report = StatusReport(GeneralCode.SUCCESS, 0, SecureChannelStatus.CLOSE_SESSION)
        exchange = session.open_exchange(ProtocolId.SECURE_CHANNEL)
        with contextlib.suppress(Exception):  # best effort: the session goes either way
            await asyncio.wait_for(exchange.send(Opcode.STATUS_REPORT, report.encode(), expect_reply=False), 5)
        session.close()
