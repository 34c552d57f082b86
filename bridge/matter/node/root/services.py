"""What the endpoint-0 commissioning clusters share: fabric table, fail-safe, window, credentials.

The clusters are ordinary ``ClusterServer`` subclasses; this object is their way into the node
(the session manager to bind/close sessions, a timer to act after a response has gone out).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bridge.matter.codec.persistence import StateStore
from bridge.matter.crypto.attestation import AttestationCredentials
from bridge.matter.node.commissioning import CommissioningWindow, FailSafe
from bridge.matter.session.context import RequestContext, current_request
from bridge.matter.session.fabric_table import FabricTable
from clusters.status import HomeError, Status

if TYPE_CHECKING:
    from bridge.matter.session.sessions import SessionManager

__all__ = ["RootServices", "request_context"]

AFTER_RESPONSE_DELAY_S = 0.5  # long enough for the response (and its ack) to leave first


def request_context() -> RequestContext:
    """The current request's context; commissioning commands outside a request are refused."""
    try:
        return current_request.get()
    except LookupError:
        raise HomeError.refused(Status.UNSUPPORTED_ACCESS, "no Matter session context for this request") from None


@dataclass
class RootServices:
    store: StateStore
    table: FabricTable
    failsafe: FailSafe
    window: CommissioningWindow
    attestation: AttestationCredentials
    vendor_id: int
    product_id: int
    sessions: SessionManager | None = None
    on_commissioning_complete: list[Callable[[int], None]] = field(default_factory=list)
    on_fabric_removed: list[Callable[[int], None]] = field(default_factory=list)  # told at once, by index

    def after_response(self, action: Callable[[], None]) -> None:
        """Run ``action`` once the current response has been sent (e.g. closing its own session)."""
        try:
            asyncio.get_running_loop().call_later(AFTER_RESPONSE_DELAY_S, action)
        except RuntimeError:
            action()  # no loop (unit tests): act now
