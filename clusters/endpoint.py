"""An endpoint: the clusters of one function of a node, and the device types it implements."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

from clusters.base import ClusterServer
from clusters.runtime import Runtime
from clusters.status import HomeError, Status

EndpointListener = Callable[[int, str, str, Any, Any], None]
Watcher = Callable[[Any, Any], None]
# An endpoint's watchers: cluster, attribute, callback of each in turn, in the order they came — one flat tuple rather
# than a tuple of triples (or a dict of them): an endpoint has none (most) or a few, and a home holds hundreds.
Watchers = tuple["str | Watcher", ...]


class _ClusterMapHolder:
    """What an endpoint's map of its servers is the instance dict of (see :func:`_cluster_map`)."""


# An endpoint's (device types, parts), one tuple per distinct pair of tuples in use (a handful per process): its
# device types are a catalogue entry's tuple, its parts () but on a device's endpoint 0
_Kind = tuple[Sequence[tuple[int, int]], Sequence[int]]
_KINDS: dict[_Kind, _Kind] = {}


def _kind(device_types: Sequence[tuple[int, int]], parts: Sequence[int]) -> _Kind:
    kind = (device_types, parts)
    if type(parts) is not tuple:  # a list given (the bridge's, whose parts change): the endpoint's own
        return kind
    return _KINDS.setdefault(kind, kind)


# Endpoints with the same cluster names, in order (a catalogue entry's) → the holder class their maps share keys in
_HOLDERS: dict[tuple[str, ...], type[_ClusterMapHolder]] = {}


def _cluster_map(names: tuple[str, ...], servers: tuple[ClusterServer, ...]) -> dict[str, ClusterServer]:
    """A plain dict of ``servers`` by name, in order, made as the instance dict of a holder class kept per list of
    names: CPython shares the keys of the instance dicts of one class, so the endpoints of one shape share one table
    of names and each holds only its servers (a home holds hundreds of endpoints). It behaves as any dict."""
    holder = _HOLDERS.get(names)
    if holder is None:
        holder = _HOLDERS[names] = type("ClusterMapHolder", (_ClusterMapHolder,), {})
    found: dict[str, ClusterServer] = vars(holder())
    for name, server in zip(names, servers, strict=True):
        found[name] = server
    return found


class Endpoint:
    """Its servers' change listener is the endpoint itself (it is callable as one): a home holds hundreds of
    endpoints, so no bound method each; slots, and shared empty stand-ins until first used."""

    __slots__ = ("_kind", "_sinks", "_watchers", "clusters", "endpoint_id", "runtime")

    def __init__(
        self, endpoint_id: int, device_types: Iterable[tuple[int, int]], clusters: Iterable[ClusterServer]
    ) -> None:
        self.endpoint_id = endpoint_id
        # (device type id, revision): a catalogue entry's own tuple, shared by every endpoint built from it
        kinds = device_types if isinstance(device_types, tuple) else tuple(device_types)
        self._kind = _kind(kinds, ())
        servers = tuple(clusters)
        names = tuple(server.cluster_name for server in servers)
        if len(set(names)) != len(names):
            twice = next(name for i, name in enumerate(names) if name in names[:i])
            raise ValueError(f"endpoint {endpoint_id} has {twice} twice")
        self.clusters: dict[str, ClusterServer] = _cluster_map(names, servers)
        self._watchers: Watchers = ()
        self._sinks: EndpointListener | tuple[EndpointListener, ...] = ()  # one in practice: its device
        self.runtime: Runtime | None = None  # its servers' runtime once attached
        for server in self.clusters.values():
            server.add_listener(self)  # the endpoint itself, no tuple: a home holds hundreds of endpoints

    @property
    def device_types(self) -> Sequence[tuple[int, int]]:
        """(device type id, revision) of each device type it implements."""
        return self._kind[0]

    @property
    def parts(self) -> Sequence[int]:
        """The endpoints it is made of (a node's endpoint 0: every other)."""
        return self._kind[1]

    @parts.setter
    def parts(self, parts: Sequence[int]) -> None:
        self._kind = _kind(self._kind[0], parts)

    def attach(self, runtime: Runtime | None) -> None:
        self.runtime = runtime
        for server in self.clusters.values():
            server.attach(self, runtime)

    def cluster(self, name: str) -> ClusterServer:
        server = self.clusters.get(name)
        if server is None:
            raise HomeError.refused(
                Status.UNSUPPORTED_CLUSTER,
                f"endpoint {self.endpoint_id} has no cluster {name!r}",
                allowed=sorted(self.clusters),
            )
        return server

    def find(self, name: str) -> ClusterServer | None:
        return self.clusters.get(name)

    def watch(self, cluster: str, attribute: str, callback: Watcher) -> None:
        """Let a sibling cluster react to a change (e.g. OperationalState to OnOff going off)."""
        self._watchers = (*self._watchers, cluster, attribute, callback)

    def add_sink(self, sink: EndpointListener) -> None:
        """Tell ``sink`` of every change, after the sinks it has: an endpoint's first is kept as it is, no tuple (its
        device is its one sink in practice, and a home holds hundreds of endpoints)."""
        held = self._sinks
        if isinstance(held, tuple) and not held:
            self._sinks = sink
        else:
            self.add_sinks((sink,))

    def add_sinks(self, sinks: tuple[EndpointListener, ...]) -> None:
        """Tell each of ``sinks`` of every change, after the sinks it has, in order."""
        held = self._sinks
        self._sinks = (*held, *sinks) if isinstance(held, tuple) else (held, *sinks)

    def __call__(self, server: ClusterServer, attribute: str, old: Any, new: Any) -> None:
        """A change on one of its servers (the endpoint is their listener)."""
        sinks = self._sinks
        if isinstance(sinks, tuple):
            for sink in sinks:
                sink(self.endpoint_id, server.cluster_name, attribute, old, new)
        else:
            sinks(self.endpoint_id, server.cluster_name, attribute, old, new)
        if self._watchers:
            cluster_name = server.cluster_name
            watchers = self._watchers
            for at in range(0, len(watchers), 3):  # those of one (cluster, attribute) in their order
                if watchers[at + 1] == attribute and watchers[at] == cluster_name:
                    callback = cast(Watcher, watchers[at + 2])
                    callback(old, new)
