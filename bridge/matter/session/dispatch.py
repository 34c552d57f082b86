"""Protocol dispatch: who handles a message that opens an exchange, by (protocol, opcode, session kind).

Handlers register here instead of sitting in an if/elif ladder over protocol ids and opcodes (the way
matter.js registers protocol handlers): the session manager routes the close-session StatusReport and
refuses IM on an unsecured session, the handshake server takes PASE's PBKDFParamRequest and CASE's Sigma1,
the Interaction Model its requests. A route registered twice is refused at registration, so two layers can
never silently claim the same message. ``opcode`` None is "any other opcode of the protocol".

An *inline* handler runs synchronously while the datagram is processed, on an exchange that is already
acked and closed (nothing is answered on it); any other handler runs as a task owning the exchange.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

SessionSide = Literal["secure", "unsecured"]
ExchangeHandler = Callable[[Any, int, bytes], Awaitable[None]]
InlineHandler = Callable[[Any, int, bytes], None]


@dataclass(frozen=True)
class Route:
    handler: ExchangeHandler | InlineHandler
    inline: bool
    owner: str  # who registered it, for the duplicate error


class ProtocolDispatch:
    """Routes keyed by (protocol id, opcode or None, session side); duplicates are refused."""

    def __init__(self) -> None:
        self._routes: dict[tuple[int, int | None, SessionSide], Route] = {}

    def register(
        self,
        protocol_id: int,
        opcode: int | None,
        handler: ExchangeHandler | InlineHandler,
        *,
        session: SessionSide,
        inline: bool = False,
        owner: str = "",
    ) -> None:
        if session not in ("secure", "unsecured"):
            raise ValueError(f"session must be 'secure' or 'unsecured', not {session!r}")
        key = (int(protocol_id), None if opcode is None else int(opcode), session)
        taken = self._routes.get(key)
        if taken is not None:
            what = "any opcode" if opcode is None else f"opcode 0x{int(opcode):02x}"
            raise ValueError(
                f"protocol 0x{int(protocol_id):04x} {what} on {session} sessions is already handled by {taken.owner}"
            )
        self._routes[key] = Route(handler, inline, owner or getattr(handler, "__qualname__", repr(handler)))

    def unregister(self, protocol_id: int, opcode: int | None, *, session: SessionSide) -> Route:
        return self._routes.pop((int(protocol_id), None if opcode is None else int(opcode), session))

    def route(self, protocol_id: int, opcode: int, session: SessionSide) -> Route | None:
        """The handler for this message: its exact opcode's, else its protocol's catch-all, else None."""
        return self._routes.get((protocol_id, opcode, session)) or self._routes.get((protocol_id, None, session))
