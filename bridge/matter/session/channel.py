"""What an exchange runs on: a message channel to one peer (the model is matter.js's ``MessageChannel``).

An exchange (:mod:`bridge.matter.session.exchange`) frames its messages and runs MRP, but never sees the session
behind it: it seals and transmits datagrams, asks for the next retransmission delay and a timer, and hands itself
back when it is done — all through this protocol. The sessions (:mod:`bridge.matter.session.sessions`) implement
it, so the dependency runs one way: sessions know exchanges, exchanges know only a channel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from bridge.matter.codec.message import ProtocolHeader
from bridge.matter.session.context import RequestContext
from bridge.matter.session.mrp import TimerHandle


class MessageChannel(Protocol):
    """One peer reached over one session (unsecured or secure), as an exchange sees it."""

    @property
    def closed(self) -> bool:
        """The session behind the channel is gone: nothing more is sent."""
        ...

    @property
    def peer_address(self) -> tuple[Any, ...]:
        """Where the peer was last heard from."""
        ...

    @property
    def context(self) -> RequestContext:
        """The security facts of a request that arrives on this channel."""
        ...

    def seal(self, header: ProtocolHeader, payload: bytes) -> tuple[bytes, int]:
        """The datagram for one message (framed, and encrypted on a secure session) and its message counter."""
        ...

    def transmit(self, datagram: bytes) -> None:
        """Put a datagram on the wire (nothing once the channel is closed)."""
        ...

    def retransmit_delay_s(self, retransmissions: int) -> float:
        """MRP: how long to wait for an ack after the first send (0) or the n-th retransmission."""
        ...

    def call_later(self, delay_s: float, callback: Callable[[], None]) -> TimerHandle:
        """A timer on the channel's MRP clock."""
        ...

    def release(self, exchange: KeyedExchange) -> None:
        """``exchange`` is finished: forget it (if it is still the one under its key)."""
        ...


class KeyedExchange(Protocol):
    """An exchange as its channel files it: by (exchange id, whether we initiated it)."""

    @property
    def key(self) -> tuple[int, bool]: ...
