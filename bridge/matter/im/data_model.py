"""What the Interaction Model needs from a node: its endpoints and cluster servers, and access control.

The IM (``bridge.matter.im.interaction``) codes only against these protocols; ``bridge.matter.node.bridge_node``
implements :class:`DataModel` over an emulated home (``emulator.emulated_home.EmulatedHome``), the node runtime
implements :class:`AccessChecker` from the AccessControl cluster's ACL.

Values crossing this boundary are JSON-style (``clusters`` conventions); attributes and commands are
named by their chip names (the IM maps wire ids to names with each server's ``model``). Every refusal is
a ``clusters.HomeError`` whose ``wire_status`` is the IM status to answer with. ``write`` and ``invoke`` are handed
the cluster server the IM has already resolved, where it has (one lookup per path).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Protocol, runtime_checkable

from bridge.matter.session.context import RequestContext
from clusters.base import ClusterServer

Privilege = Literal["view", "operate", "manage", "administer"]

# (endpoint, cluster id, attribute name) of a changed attribute.
ChangeListener = Callable[[int, int, str], None]


@runtime_checkable
class AccessChecker(Protocol):
    def check(self, ctx: RequestContext, endpoint: int, cluster_id: int, privilege: Privilege) -> bool:
        """Whether the subject of ``ctx`` holds ``privilege`` on (endpoint, cluster)."""
        ...


@runtime_checkable
class DataModel(Protocol):
    def endpoints(self) -> list[int]:
        """Every endpoint of the node, ascending."""
        ...

    def clusters(self, endpoint: int) -> dict[int, ClusterServer]:
        """Cluster id → server on ``endpoint`` (empty for an unknown endpoint)."""
        ...

    def server(self, endpoint: int, cluster_id: int) -> ClusterServer:
        """The server; HomeError UNSUPPORTED_ENDPOINT / UNSUPPORTED_CLUSTER otherwise."""
        ...

    def read(self, endpoint: int, cluster_id: int, attribute: str) -> Any: ...

    def write(
        self, endpoint: int, cluster_id: int, attribute: str, value: object, *, server: ClusterServer | None = None
    ) -> None: ...

    def invoke(
        self, endpoint: int, cluster_id: int, command: str, args: dict[str, Any], *, server: ClusterServer | None = None
    ) -> dict[str, Any] | None:
        """Run a command; returns its response fields (None when it has no response payload)."""
        ...

    def data_version(self, endpoint: int, cluster_id: int) -> int:
        """The cluster instance's DataVersion (uint32, changes whenever one of its attributes does)."""
        ...

    def add_change_listener(self, listener: ChangeListener) -> Callable[[], None]:
        """Be told of every attribute change (possibly from another thread); returns an unsubscribe."""
        ...

    @property
    def events(self) -> Any:
        """The node's ``bridge.matter.events.EventLog``."""
        ...


class AllowAll:
    """An AccessChecker that grants everything (tests and tools; never for a network-facing node)."""

    def check(self, ctx: RequestContext, endpoint: int, cluster_id: int, privilege: Privilege) -> bool:
        return True
