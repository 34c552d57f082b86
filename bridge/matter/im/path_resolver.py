"""One path/access resolver for read, subscribe, write, invoke and group messages (Matter core spec §8.4.3.2, §9.10).

A request path — possibly a wildcard — expands to the concrete (endpoint, cluster, attribute or command) paths
it names, each with its status: UNSUPPORTED_ENDPOINT / UNSUPPORTED_CLUSTER / UNSUPPORTED_ACCESS /
UNSUPPORTED_ATTRIBUTE or UNSUPPORTED_COMMAND, checked in that order, or SUCCESS when the action may go ahead.
A concrete request path gives exactly one result, whose failure the caller answers with; a wildcard gives only
paths that exist, and the caller skips those that are not SUCCESS (a wildcard never reports errors).

Access decisions are cached per request and (endpoint, cluster, privilege) and logged once when denied.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Iterator
from typing import Literal, NamedTuple

from bridge.matter.im import im_messages as im
from bridge.matter.im.data_model import AccessChecker, DataModel, Privilege
from bridge.matter.im.privileges import invoke_privilege, read_privilege, write_privilege
from bridge.matter.session.context import RequestContext
from clusters import ClusterServer, Status

log = logging.getLogger(__name__)

AttributeAction = Literal["read", "write"]
_ATTRIBUTE_PRIVILEGE = {"read": read_privilege, "write": write_privilege}


@functools.cache
def _attribute_names_by_id(server_class: type[ClusterServer]) -> dict[int, str]:
    model = server_class._model
    return {a.attribute_id: name for name, a in model.attributes.items()}


def attribute_name(server: ClusterServer, attribute_id: int) -> str | None:
    """The supported attribute with this id on this server, else None."""
    name = _attribute_names_by_id(type(server)).get(attribute_id)  # type: ignore[arg-type]  # mypy checks a class object's __hash__ as the instances' (python/mypy#11470)
    return name if name is not None and server.has_attribute(name) else None


def attribute_id(server: ClusterServer, name: str) -> int:
    return server.model.attributes[name].attribute_id


def command_name(server: ClusterServer, command_id: int) -> str | None:
    for name in server.command_names():
        if server.command_spec(name).model.command_id == command_id:
            return name
    return None


class RequestAccess:
    """Access decisions of one request, cached per (endpoint, cluster, privilege)."""

    def __init__(self, checker: AccessChecker, ctx: RequestContext) -> None:
        self._checker = checker
        self._ctx = ctx
        self._cache: dict[tuple[int, int, str], bool] = {}

    @property
    def fabric_index(self) -> int | None:
        return self._ctx.fabric_index

    def allowed(self, endpoint: int, cluster_id: int, privilege: Privilege) -> bool:
        key = (endpoint, cluster_id, privilege)
        decision = self._cache.get(key)
        if decision is None:
            try:
                decision = bool(self._checker.check(self._ctx, endpoint, cluster_id, privilege))
            except Exception:  # a failing checker denies
                log.exception("access check failed")
                decision = False
            self._cache[key] = decision
            if not decision:  # once per request and (endpoint, cluster, privilege): the cache above
                log.info(
                    "event=acl_denied fabric=%s node=0x%016X endpoint=%d cluster=0x%04X privilege=%s",
                    self._ctx.fabric_index,
                    self._ctx.subject_node_id or 0,
                    endpoint,
                    cluster_id,
                    getattr(privilege, "name", privilege),
                )
        return decision


class Resolved(NamedTuple):
    """One concrete path of a request path: ``element`` is the attribute or command id, ``name`` its chip name."""

    endpoint: int
    cluster: int
    element: int
    status: Status
    server: ClusterServer | None = None
    name: str | None = None
    concrete: bool = True  # the request path was concrete: a failure is answered, not skipped


class PathResolver:
    """Expands request paths against a node and checks them against one request's access."""

    def __init__(self, node: DataModel, access: RequestAccess) -> None:
        self.node = node
        self.access = access

    def _concrete(self, endpoint: int, cluster_id: int, element: int, privilege: Privilege, lookup: str) -> Resolved:
        if endpoint not in self.node.endpoints():
            return Resolved(endpoint, cluster_id, element, Status.UNSUPPORTED_ENDPOINT)
        server = self.node.clusters(endpoint).get(cluster_id)
        if server is None:
            return Resolved(endpoint, cluster_id, element, Status.UNSUPPORTED_CLUSTER)
        if not self.access.allowed(endpoint, cluster_id, privilege):
            return Resolved(endpoint, cluster_id, element, Status.UNSUPPORTED_ACCESS, server)
        if lookup == "attribute":
            name, missing = attribute_name(server, element), Status.UNSUPPORTED_ATTRIBUTE
        else:
            name, missing = command_name(server, element), Status.UNSUPPORTED_COMMAND
        if name is None:
            return Resolved(endpoint, cluster_id, element, missing, server)
        return Resolved(endpoint, cluster_id, element, Status.SUCCESS, server, name)

    def attributes(
        self, path: im.AttributePath, action: AttributeAction, endpoints: Iterable[int] | None = None
    ) -> Iterator[Resolved]:
        """The concrete attribute paths of ``path`` (``endpoints``: expand a wildcard endpoint over these)."""
        privilege = _ATTRIBUTE_PRIVILEGE[action]
        if not path.is_wildcard:
            assert path.endpoint is not None and path.cluster is not None and path.attribute is not None
            yield self._concrete(
                path.endpoint, path.cluster, path.attribute, privilege(path.cluster, path.attribute), "attribute"
            )
            return
        node, allowed = self.node, self.access.allowed
        make, success, denied = tuple.__new__, Status.SUCCESS, Status.UNSUPPORTED_ACCESS  # the hot loop of a big read
        if path.endpoint is not None:
            endpoints = [path.endpoint]
        elif endpoints is None:
            endpoints = node.endpoints()
        for endpoint in endpoints:
            servers = node.clusters(endpoint)
            if path.cluster is not None:
                server = servers.get(path.cluster)
                cluster_items = [(path.cluster, server)] if server is not None else []
            else:
                cluster_items = sorted(servers.items())
            for cluster_id, server in cluster_items:
                if path.attribute is not None:
                    name = attribute_name(server, path.attribute)
                    names = [(path.attribute, name)] if name is not None else []
                else:
                    names = [(attribute_id(server, n), n) for n in server.attribute_names()]
                for attr_id, name in names:
                    status = success if allowed(endpoint, cluster_id, privilege(cluster_id, attr_id)) else denied
                    yield make(Resolved, (endpoint, cluster_id, attr_id, status, server, name, False))

    def command(self, path: im.CommandPath, endpoints: Iterable[int] | None = None) -> Iterator[Resolved]:
        """The concrete command paths of ``path``; a wildcard endpoint expands over ``endpoints`` (a group's)
        only — a unicast invoke has no wildcard (the caller answers INVALID_ACTION first)."""
        privilege = invoke_privilege(path.cluster, path.command)
        if path.endpoint is not None:
            yield self._concrete(path.endpoint, path.cluster, path.command, privilege, "command")
            return
        for endpoint in endpoints or ():
            server = self.node.clusters(endpoint).get(path.cluster)
            name = command_name(server, path.command) if server is not None else None
            if name is None:
                continue
            ok = self.access.allowed(endpoint, path.cluster, privilege)
            yield Resolved(
                endpoint,
                path.cluster,
                path.command,
                Status.SUCCESS if ok else Status.UNSUPPORTED_ACCESS,
                server,
                name,
                False,
            )

    def event_path_status(self, path: im.EventPath) -> Status | None:
        """The status a concrete event path is answered with when it cannot be served, else None."""
        if path.endpoint is not None and path.endpoint not in self.node.endpoints():
            return None if path.is_wildcard else Status.UNSUPPORTED_ENDPOINT
        if (
            path.endpoint is not None
            and path.cluster is not None
            and path.cluster not in self.node.clusters(path.endpoint)
        ):
            return None if path.is_wildcard else Status.UNSUPPORTED_CLUSTER
        # Concrete paths need View here; the events themselves are filtered by event_privilege when queried.
        # (A path that is not a wildcard has its endpoint and cluster: the ignore.)
        if not path.is_wildcard and not self.access.allowed(path.endpoint, path.cluster, "view"):  # type: ignore[arg-type]
            return Status.UNSUPPORTED_ACCESS
        return None
