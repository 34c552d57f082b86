"""The seam between the node runtime (sessions, exchanges, MRP) and the Interaction Model.

The runtime implements these protocols; the IM only codes against them. Opcodes are IM opcodes
(protocol 0x0001); payloads are the raw TLV application payloads (no message/protocol headers).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from bridge.matter.session.context import RequestContext


@runtime_checkable
class IMExchange(Protocol):
    """One Matter exchange on one secure session, seen from the IM layer."""

    context: RequestContext

    async def send(self, opcode: int, payload: bytes, *, expect_reply: bool) -> tuple[int, bytes] | None:
        """Send reliably (MRP) on this exchange.

        With ``expect_reply`` wait for the peer's next message on the exchange and return
        ``(opcode, payload)``; return None when the exchange closed or timed out meanwhile.
        Raises ``ExchangeClosed`` if the message could not be delivered (MRP gave up, session gone).
        """
        ...

    async def close(self) -> None:
        """Close the exchange (flushes a pending ack as a standalone ack)."""
        ...


@runtime_checkable
class ReportSession(Protocol):
    """A secure session that the IM may push reports on (subscriptions)."""

    context: RequestContext

    @property
    def closed(self) -> bool: ...

    def open_exchange(self) -> IMExchange:
        """A new initiator exchange on this session (for ReportData of a subscription)."""
        ...


class ExchangeClosed(Exception):
    """The exchange or its session is gone, or MRP gave up delivering a message."""
