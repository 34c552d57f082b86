"""Exchanges (spec §4.10) with MRP reliability (spec §4.12) on a message channel.

An exchange is identified by (exchange id, whether we initiated it). At most one reliable message
is in flight per exchange; :meth:`Exchange.send` retransmits it with the *same* datagram (same
counter) until the peer acknowledges, and raises :class:`ExchangeClosed` after
``MAX_TRANSMISSIONS``. Acks for the peer's R-flagged messages are piggybacked on our next message
or sent standalone after ``STANDALONE_ACK_TIMEOUT_S``. An exchange knows only its
:class:`~bridge.matter.session.channel.MessageChannel` (the session that opened it implements one), never the
session or its manager.
"""

from __future__ import annotations

import asyncio
import logging

from bridge.matter.codec.message import ExchangeFlags, ProtocolHeader, ProtocolId
from bridge.matter.session.channel import MessageChannel
from bridge.matter.session.context import RequestContext
from bridge.matter.session.exchange_api import ExchangeClosed
from bridge.matter.session.mrp import MAX_TRANSMISSIONS, STANDALONE_ACK_TIMEOUT_S, TimerHandle
from bridge.matter.session.secure_channel import Opcode

__all__ = ["DEFAULT_REPLY_TIMEOUT_S", "Exchange", "ExchangeClosed"]

log = logging.getLogger(__name__)
DEFAULT_REPLY_TIMEOUT_S = 30.0


class _Pending:
    """The one unacknowledged reliable message of an exchange."""

    def __init__(self, counter: int, datagram: bytes, done: asyncio.Future[None]) -> None:
        self.counter = counter
        self.datagram = datagram
        self.transmissions = 1
        self.done = done
        self.timer: TimerHandle | None = None


class Exchange:
    """One exchange; implements :class:`bridge.matter.session.exchange_api.IMExchange`."""

    def __init__(self, channel: MessageChannel, exchange_id: int, *, initiator: bool, protocol_id: int) -> None:
        self.channel = channel
        self.exchange_id = exchange_id
        self.initiator = initiator  # we opened it
        self.protocol_id = protocol_id
        self.reply_timeout_s = DEFAULT_REPLY_TIMEOUT_S
        self.closed = False
        self._inbox: asyncio.Queue[tuple[int, int, bytes] | None] = asyncio.Queue()
        self._pending: _Pending | None = None
        self._ack_counter: int | None = None  # peer counter we still owe an ack for
        self._ack_timer: TimerHandle | None = None
        self._error: Exception | None = None

    @property
    def key(self) -> tuple[int, bool]:
        return (self.exchange_id, self.initiator)

    @property
    def context(self) -> RequestContext:
        return self.channel.context

    # ------------------------------------------------------------------------------ sending
    async def send(
        self, opcode: int, payload: bytes, *, expect_reply: bool, protocol_id: int | None = None
    ) -> tuple[int, bytes] | None:
        """Send reliably; with ``expect_reply`` return the peer's next ``(opcode, payload)`` (None on timeout)."""
        if self.closed or self._error is not None:
            raise ExchangeClosed(f"exchange {self.exchange_id} is closed")
        if self._pending is not None:
            await asyncio.shield(self._pending.done)  # MRP: one reliable message in flight per exchange
        header = self._header(opcode, ExchangeFlags.RELIABLE, protocol_id)
        datagram, counter = self.channel.seal(header, payload)
        loop = asyncio.get_running_loop()
        pending = _Pending(counter, datagram, loop.create_future())
        self._pending = pending
        self.channel.transmit(datagram)
        self._arm_retransmit(pending)
        if not expect_reply:
            await asyncio.shield(pending.done)  # raises ExchangeClosed when MRP gives up
            return None
        try:
            item = await asyncio.wait_for(self._inbox.get(), self.reply_timeout_s)
        except TimeoutError:
            return None
        if item is None:
            raise self._error or ExchangeClosed("exchange closed")
        _, reply_opcode, reply_payload = item
        return reply_opcode, reply_payload

    async def receive(self, timeout_s: float | None = None) -> tuple[int, int, bytes] | None:
        """The next ``(protocol, opcode, payload)`` that arrived on this exchange (None on timeout)."""
        try:
            item = await asyncio.wait_for(self._inbox.get(), timeout_s or self.reply_timeout_s)
        except TimeoutError:
            return None
        if item is None:
            raise self._error or ExchangeClosed("exchange closed")
        return item

    def _header(self, opcode: int, flags: int, protocol_id: int | None) -> ProtocolHeader:
        if self.initiator:
            flags |= ExchangeFlags.INITIATOR
        header = ProtocolHeader(
            exchange_flags=flags,
            opcode=opcode,
            exchange_id=self.exchange_id,
            protocol_id=self.protocol_id if protocol_id is None else protocol_id,
            ack_counter=self._take_ack(),
        )
        return header

    def _take_ack(self) -> int | None:
        counter, self._ack_counter = self._ack_counter, None
        if self._ack_timer is not None:
            self._ack_timer.cancel()
            self._ack_timer = None
        return counter

    def _arm_retransmit(self, pending: _Pending) -> None:
        delay = self.channel.retransmit_delay_s(pending.transmissions - 1)
        pending.timer = self.channel.call_later(delay, lambda: self._retransmit(pending))

    def _retransmit(self, pending: _Pending) -> None:
        if pending.done.done() or self._pending is not pending:
            return
        if pending.transmissions >= MAX_TRANSMISSIONS or self.channel.closed:
            log.info("MRP gave up on exchange %d counter %d", self.exchange_id, pending.counter)
            self._fail(ExchangeClosed(f"no ack for counter {pending.counter} after {pending.transmissions} sends"))
            return
        pending.transmissions += 1
        self.channel.transmit(pending.datagram)  # same bytes: same message counter
        self._arm_retransmit(pending)

    # ------------------------------------------------------------------------------ receiving
    def on_ack(self, counter: int) -> None:
        pending = self._pending
        if pending is not None and pending.counter == counter:
            if pending.timer is not None:
                pending.timer.cancel()
            self._pending = None
            if not pending.done.done():
                pending.done.set_result(None)
            if self.closed:
                self.channel.release(self)

    def owe_ack(self, counter: int) -> None:
        """The peer's message ``counter`` had the R flag: ack it (piggybacked if we answer in time)."""
        if self._ack_counter is not None and self._ack_counter != counter:
            self.flush_ack()  # only one pending ack per exchange
        self._ack_counter = counter
        if self._ack_timer is None:
            self._ack_timer = self.channel.call_later(STANDALONE_ACK_TIMEOUT_S, self.flush_ack)

    def flush_ack(self) -> None:
        if self._ack_counter is None:
            return
        header = self._header(Opcode.STANDALONE_ACK, 0, ProtocolId.SECURE_CHANNEL)
        datagram, _ = self.channel.seal(header, b"")
        self.channel.transmit(datagram)

    def deliver(self, protocol_id: int, opcode: int, payload: bytes) -> None:
        self._inbox.put_nowait((protocol_id, opcode, payload))

    # ------------------------------------------------------------------------------ closing
    def _fail(self, error: Exception) -> None:
        self._error = error
        pending, self._pending = self._pending, None
        if pending is not None:
            if pending.timer is not None:
                pending.timer.cancel()
            if not pending.done.done():
                pending.done.set_exception(error)
                pending.done.exception()  # mark retrieved: nobody may be waiting any more
        self._inbox.put_nowait(None)
        self.closed = True
        self.channel.release(self)

    def abort(self) -> None:
        """Drop the exchange now (session gone): wake waiters with ExchangeClosed."""
        if self._ack_timer is not None:
            self._ack_timer.cancel()
            self._ack_timer = None
        self._fail(ExchangeClosed("session closed"))

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.flush_ack()
        if self._pending is None:
            self.channel.release(self)
        # else: kept until the last message is acked or MRP gives up
