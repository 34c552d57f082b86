"""Who is asking: the per-request security context handed from the session layer to the IM and clusters.

The runtime sets ``current_request`` around every IM exchange so cluster servers on endpoint 0 (which need
the fabric index, the attestation challenge or the session itself) can read it without threading it through
every ``read/write/invoke`` signature.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field
from typing import Any, Literal

SessionKind = Literal["pase", "case", "unsecured", "group"]


@dataclass(frozen=True)
class RequestContext:
    """The security facts of one incoming request (Matter core spec §6.6.2 "incoming subject descriptor")."""

    session_kind: SessionKind
    fabric_index: int | None = None  # accessing fabric; None over PASE before AddNOC and on unsecured sessions
    subject_node_id: int | None = None  # peer operational node id (CASE) or None
    cats: tuple[int, ...] = ()  # CASE Authenticated Tags from the peer NOC
    attestation_challenge: bytes | None = None  # from the session keys (PASE/CASE)
    timed: bool = False  # the request arrived inside a valid TimedRequest window
    session: Any = field(default=None, compare=False, repr=False)  # the runtime's SecureSession (opaque to the IM)
    group_id: int | None = None  # the destination group of a group message (session_kind "group")


current_request: contextvars.ContextVar[RequestContext] = contextvars.ContextVar("matter_current_request")
