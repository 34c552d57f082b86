"""The Interaction Model server (Matter core spec chapter 8): Read, Subscribe, Write, Invoke, Timed.

The node runtime hands every unsolicited IM message that opens an exchange to
:meth:`InteractionModel.handle_exchange`; everything else (more chunks, status responses) flows on that
exchange through ``IMExchange.send(..., expect_reply=True)``. Subscriptions push their reports on new
exchanges of the subscriber's session (``ReportSession.open_exchange``).

Every path is checked against the node (``DataModel``) and access control (``AccessChecker``): a
concrete path that fails gets its status (UNSUPPORTED_ENDPOINT/CLUSTER/ATTRIBUTE/ACCESS, …); a wildcard
path silently skips what does not exist or is not accessible (spec §8.4.3.2). Malformed messages get a
StatusResponse INVALID_ACTION; malformed command fields INVALID_COMMAND; no exception escapes.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import secrets
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from bridge.matter.codec.values_tlv import decode_fields, decode_value, encode_fields, encoder
from bridge.matter.im import im_messages as im
from bridge.matter.im.data_model import AccessChecker, DataModel, Privilege
from bridge.matter.im.event_log import EventRecord
from bridge.matter.im.privileges import event_privilege, invoke_privilege, read_privilege, write_privilege
from bridge.matter.im.report_chunker import (
    ListReport,
    ReportItem,
    attribute_data_report,
    attribute_status_report,
    chunk_reports,
)
from bridge.matter.im.subscription import Clock, MonotonicClock, Subscription
from bridge.matter.im.subscription_store import PersistedSubscription, SubscriptionStore
from bridge.matter.session.context import RequestContext, current_request
from bridge.matter.session.exchange_api import ExchangeClosed, IMExchange
from clusters import ClusterError, ClusterServer, Status
from clusters.chip_model import response_model

log = logging.getLogger(__name__)

DEFAULT_MAX_PAYLOAD = 1200  # IM payload per message: fits a 1280-byte IPv6 datagram with headers and MIC
MAX_SUBSCRIPTIONS = 64
MAX_PATHS_PER_INVOKE = 1
# The MaxInterval we grant (never above the controller's ceiling, never below its floor; spec §8.5.1): short,
# so a controller notices a node that went away (and could not resume its subscriptions after coming back,
# see bridge.matter.im.subscription_store) within seconds rather than a minute; an empty keep-alive report costs
# next to nothing.
GRANTED_MAX_INTERVAL_S = 3


@functools.cache
def _attribute_names_by_id(server_class: type) -> dict[int, str]:
    model = server_class.class_model()
    return {a.attribute_id: name for name, a in model.attributes.items()}


def attribute_name(server: ClusterServer, attribute_id: int) -> str | None:
    """The supported attribute with this id on this server, else None."""
    name = _attribute_names_by_id(type(server)).get(attribute_id)
    return name if name is not None and server.has_attribute(name) else None


@functools.cache
def _value_encoders(server_class: type, name: str) -> tuple[Any, Any]:
    """(element encoder for a list attribute else None, value encoder): looked up once per attribute."""
    info = server_class.class_model().attributes[name].type
    return (encoder(info.element) if info.is_list else None), encoder(info)


def attribute_id(server: ClusterServer, name: str) -> int:
    return server.model.attributes[name].attribute_id


def _needs_timed_write(server: ClusterServer, name: str) -> bool:
    attr = getattr(server.model.chip_class.Attributes, name, None)
    return bool(getattr(attr, "must_use_timed_write", False))


def _needs_timed_invoke(server: ClusterServer, name: str) -> bool:
    cmd = getattr(getattr(server.model.chip_class, "Commands", None), name, None)
    return bool(getattr(cmd, "must_use_timed_invoke", False))


def _command_name(server: ClusterServer, command_id: int) -> str | None:
    for name in server.command_names():
        if server.command_spec(name).model.command_id == command_id:
            return name
    return None


def fabric_filter(value: Any, fabric_index: int | None) -> Any:
    """Entries of a fabric-scoped list that belong to the accessing fabric (spec §7.13.5)."""
    if not isinstance(value, list) or not value or not isinstance(value[0], dict) or "fabricIndex" not in value[0]:
        return value
    return [v for v in value if isinstance(v, dict) and v.get("fabricIndex") == fabric_index]


class _RequestAccess:
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
                log.info("event=acl_denied fabric=%s node=0x%016X endpoint=%d cluster=0x%04X privilege=%s",
                         self._ctx.fabric_index, self._ctx.subject_node_id or 0, endpoint, cluster_id,
                         getattr(privilege, "name", privilege))
        return decision


def granted_max_interval(floor: int, ceiling: int) -> int:
    return max(min(ceiling, GRANTED_MAX_INTERVAL_S), floor, 1)


class InteractionModel:
    def __init__(self, node: DataModel, access: AccessChecker, *, clock: Clock | None = None,
                 max_payload: int = DEFAULT_MAX_PAYLOAD, max_subscriptions: int = MAX_SUBSCRIPTIONS,
                 store: SubscriptionStore | None = None) -> None:
        self.node = node
        self.store = store  # persisted subscriptions, for resumption after a restart
        self.access = access
        self.clock: Clock = clock or MonotonicClock()
        self.max_payload = max_payload
        self.max_subscriptions = max_subscriptions
        self._subscriptions: dict[int, Subscription] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._unsubscribe = [node.add_change_listener(self._on_change), node.events.add_listener(self._on_event)]

    @property
    def budget(self) -> int:
        return self.max_payload - im.REPORT_OVERHEAD

    @property
    def subscriptions(self) -> dict[int, Subscription]:
        return dict(self._subscriptions)

    # ============================================================================ dispatch
    async def handle_exchange(self, exchange: IMExchange, opcode: int, payload: bytes) -> None:
        """Serve one IM transaction opened by the peer; never raises."""
        self._bind_loop()
        ctx = exchange.context
        token = current_request.set(ctx)
        try:
            if ctx.session_kind == "unsecured":
                await self._status(exchange, Status.UNSUPPORTED_ACCESS)
                return
            if opcode == im.Opcode.READ_REQUEST:
                await self._read(exchange, ctx, payload)
            elif opcode == im.Opcode.SUBSCRIBE_REQUEST:
                await self._subscribe(exchange, ctx, payload)
            elif opcode == im.Opcode.WRITE_REQUEST:
                await self._write(exchange, ctx, payload, timed=False)
            elif opcode == im.Opcode.INVOKE_REQUEST:
                await self._invoke(exchange, ctx, payload, timed=False)
            elif opcode == im.Opcode.TIMED_REQUEST:
                await self._timed(exchange, ctx, payload)
            else:
                await self._status(exchange, Status.INVALID_ACTION)
        except asyncio.CancelledError:
            raise
        except ExchangeClosed as closed:  # the peer went away or closed the session: nothing left to answer
            log.info("IM transaction (opcode 0x%02x) ended: %s", opcode, closed)
        except Exception:
            log.exception("IM transaction (opcode 0x%02x) failed", opcode)
            with contextlib.suppress(Exception):
                await self._status(exchange, Status.FAILURE)
        finally:
            current_request.reset(token)

    def handle_group_message(self, fabric_index: int, source_node_id: int, group_id: int, opcode: int,
                             payload: bytes) -> int:
        """Act on a group-addressed Invoke or Write (Core §8.2.2): on every endpoint in the group that has
        the path, as far as the group's ACL allows; nothing is answered. Returns how many were acted on."""
        self._bind_loop_if_running()
        ctx = RequestContext("group", fabric_index, source_node_id, group_id=group_id)
        members = getattr(self.node, "group_endpoints", None)
        endpoints = members(fabric_index, group_id) if members is not None else []
        token = current_request.set(ctx)
        try:
            if opcode == im.Opcode.INVOKE_REQUEST:
                req = im.decode_invoke_request(payload)
                return sum(self._group_invoke(ctx, endpoints, command) for command in req.invokes)
            if opcode == im.Opcode.WRITE_REQUEST:
                writes = im.decode_write_request(payload).writes
                return sum(self._group_write(ctx, endpoints, item) for item in writes)
            log.info("group 0x%04x: IM opcode 0x%02x is not allowed in a group message", group_id, opcode)
        except im.IMDecodeError as error:
            log.info("group 0x%04x: malformed message from 0x%016x: %s", group_id, source_node_id, error)
        finally:
            current_request.reset(token)
        return 0

    def _group_invoke(self, ctx: RequestContext, endpoints: list[int], command: im.CommandData) -> int:
        path, access, done = command.path, _RequestAccess(self.access, ctx), 0
        for endpoint in endpoints if path.endpoint is None else []:
            server = self.node.clusters(endpoint).get(path.cluster)
            name = _command_name(server, path.command) if server is not None else None
            if name is None or _needs_timed_invoke(server, name):  # a group cannot do a timed interaction
                continue
            if not access.allowed(endpoint, path.cluster, invoke_privilege(path.cluster, path.command)):
                continue
            try:
                args = decode_fields(server.command_spec(name).model.fields, command.fields,
                                     f"{server.cluster_name}.{name}", fabric_index=ctx.fabric_index)
                self.node.invoke(endpoint, path.cluster, name, args)
                done += 1
            except ClusterError as error:
                log.info("group invoke %d/%s.%s refused: %s", endpoint, server.cluster_name, name, error.message)
        return done

    def _group_write(self, ctx: RequestContext, endpoints: list[int], item: im.AttributeData) -> int:
        path, access, done = item.path, _RequestAccess(self.access, ctx), 0
        for endpoint in endpoints if path.endpoint is None else []:
            server = self.node.clusters(endpoint).get(path.cluster)
            has_path = server is not None and path.attribute is not None
            name = attribute_name(server, path.attribute) if has_path else None  # type: ignore[arg-type]
            if name is None or not server.is_writable(name) or _needs_timed_write(server, name):
                continue
            if not access.allowed(endpoint, path.cluster, write_privilege(path.cluster, path.attribute)):
                continue
            try:
                info = server.model.attributes[name].type
                self.node.write(endpoint, path.cluster, name, decode_value(item.data, info, name,
                                                                           fabric_index=ctx.fabric_index))
                done += 1
            except ClusterError as error:
                log.info("group write %d/%s.%s refused: %s", endpoint, server.cluster_name, name, error.message)
        return done

    def _bind_loop_if_running(self) -> None:
        with contextlib.suppress(RuntimeError):
            self._bind_loop()

    def _bind_loop(self) -> None:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._loop_thread = threading.get_ident()

    async def _status(self, exchange: IMExchange, status: int) -> None:
        await exchange.send(im.Opcode.STATUS_RESPONSE, im.encode_status_response(status), expect_reply=False)

    @staticmethod
    def _is_success(reply: tuple[int, bytes] | None) -> bool:
        if reply is None or reply[0] != im.Opcode.STATUS_RESPONSE:
            return False
        try:
            return im.decode_status_response(reply[1]).status == Status.SUCCESS
        except im.IMDecodeError:
            return False

    # ============================================================================ paths
    @staticmethod
    def _check_paths(paths: Iterable[im.AttributePath]) -> None:
        for path in paths:
            if path.cluster is None and path.attribute is not None and path.attribute not in im.GLOBAL_ATTRIBUTE_IDS:
                raise im.IMDecodeError("a cluster-wildcard path may only name a global attribute")
            if path.list_index is not None or path.list_append:
                raise im.IMDecodeError("list indexes are not allowed in read paths")

    def _attribute_reports(self, access: _RequestAccess, ctx: RequestContext, paths: Iterable[im.AttributePath],
                           filters: Iterable[im.DataVersionFilter], fabric_filtered: bool) -> Iterator[ReportItem]:
        """Report items of every path, lazily; concrete failures become status IBs."""
        node = self.node
        skip = {(f.endpoint, f.cluster) for f in filters if f.data_version == self._version_or_none(f)}
        paths = list(paths)
        seen: set[tuple[int, int, int]] | None = set() if len(paths) > 1 else None
        for path in paths:
            if not path.is_wildcard:
                yield from self._concrete_report(access, ctx, path, skip, fabric_filtered, seen)
                continue
            endpoints = node.endpoints() if path.endpoint is None else [path.endpoint]
            for endpoint in endpoints:
                servers = node.clusters(endpoint)
                if path.cluster is not None:
                    server = servers.get(path.cluster)
                    cluster_items = [(path.cluster, server)] if server is not None else []
                else:
                    cluster_items = sorted(servers.items())
                for cluster_id, server in cluster_items:
                    if (endpoint, cluster_id) in skip:
                        continue
                    if path.attribute is not None:
                        name = attribute_name(server, path.attribute)
                        names = [(path.attribute, name)] if name is not None else []
                    else:
                        names = [(attribute_id(server, n), n) for n in server.attribute_names()]
                    version = node.data_version(endpoint, cluster_id)
                    for attr_id, name in names:
                        if seen is not None:
                            key = (endpoint, cluster_id, attr_id)
                            if key in seen:
                                continue
                            seen.add(key)
                        if not access.allowed(endpoint, cluster_id, read_privilege(cluster_id, attr_id)):
                            continue
                        item = self._encode_attribute(ctx, version, endpoint, cluster_id, attr_id, server, name,
                                                      fabric_filtered)
                        if isinstance(item, int):
                            continue  # wildcard: unreadable attributes are skipped
                        yield item

    def _version_or_none(self, f: im.DataVersionFilter) -> int | None:
        if f.cluster not in self.node.clusters(f.endpoint):
            return None
        return self.node.data_version(f.endpoint, f.cluster)

    def _concrete_report(self, access: _RequestAccess, ctx: RequestContext, path: im.AttributePath,
                         skip: set[tuple[int, int]], fabric_filtered: bool,
                         seen: set[tuple[int, int, int]] | None) -> Iterator[ReportItem]:
        endpoint, cluster_id, attr_id = path.endpoint, path.cluster, path.attribute
        assert endpoint is not None and cluster_id is not None and attr_id is not None
        if seen is not None:
            if (endpoint, cluster_id, attr_id) in seen:
                return
            seen.add((endpoint, cluster_id, attr_id))
        if endpoint not in self.node.endpoints():
            yield attribute_status_report(endpoint, cluster_id, attr_id, Status.UNSUPPORTED_ENDPOINT)
            return
        server = self.node.clusters(endpoint).get(cluster_id)
        if server is None:
            yield attribute_status_report(endpoint, cluster_id, attr_id, Status.UNSUPPORTED_CLUSTER)
            return
        if not access.allowed(endpoint, cluster_id, read_privilege(cluster_id, attr_id)):
            yield attribute_status_report(endpoint, cluster_id, attr_id, Status.UNSUPPORTED_ACCESS)
            return
        name = attribute_name(server, attr_id)
        if name is None:
            yield attribute_status_report(endpoint, cluster_id, attr_id, Status.UNSUPPORTED_ATTRIBUTE)
            return
        if (endpoint, cluster_id) in skip:
            return
        version = self.node.data_version(endpoint, cluster_id)
        item = self._encode_attribute(ctx, version, endpoint, cluster_id, attr_id, server, name, fabric_filtered)
        yield attribute_status_report(endpoint, cluster_id, attr_id, item) if isinstance(item, int) else item

    def _encode_attribute(self, ctx: RequestContext, version: int, endpoint: int, cluster_id: int, attr_id: int,
                          server: ClusterServer, name: str, fabric_filtered: bool) -> ReportItem | int:
        """The report item of one attribute, or the status of why it cannot be read."""
        try:
            value = self.node.read(endpoint, cluster_id, name)
            if fabric_filtered:
                value = fabric_filter(value, ctx.fabric_index)
            element, whole = _value_encoders(type(server), name)
            if element is not None and value is not None:
                return ListReport(version, endpoint, cluster_id, attr_id, [element(v, None) for v in value])
            return attribute_data_report(version, endpoint, cluster_id, attr_id, whole(value, 2))
        except ClusterError as error:
            return int(error.status)
        except Exception:
            log.exception("reading %d/0x%04x/0x%04x (%s) failed", endpoint, cluster_id, attr_id, name)
            return int(Status.FAILURE)

    def _event_reports(self, access: _RequestAccess, paths: Iterable[im.EventPath],
                       filters: Iterable[im.EventFilter], *, with_status: bool = True) -> tuple[list[bytes], int]:
        """Encoded EventReportIBs of the matching events and the highest event number included."""
        paths = list(paths)
        if not paths:
            return [], 0
        event_min = max((f.event_min for f in filters), default=0)
        out: list[bytes] = []
        for path in paths if with_status else ():
            if path.endpoint is not None and path.endpoint not in self.node.endpoints():
                if not path.is_wildcard:
                    out.append(self._event_status(path, Status.UNSUPPORTED_ENDPOINT))
            elif path.endpoint is not None and path.cluster is not None \
                    and path.cluster not in self.node.clusters(path.endpoint):
                if not path.is_wildcard:
                    out.append(self._event_status(path, Status.UNSUPPORTED_CLUSTER))
            elif not path.is_wildcard and not access.allowed(path.endpoint, path.cluster, "view"):  # type: ignore[arg-type]
                out.append(self._event_status(path, Status.UNSUPPORTED_ACCESS))
        last = 0
        for record in self.node.events.query(paths, event_min):
            if record.fabric_index is not None and record.fabric_index != access.fabric_index:
                continue  # a fabric-scoped event of another fabric
            if not access.allowed(record.endpoint, record.cluster_id, event_privilege(record.cluster_id)):
                continue
            out.append(self._event_report(record))
            last = max(last, record.number)
        return out, last

    @staticmethod
    def _event_status(path: im.EventPath, status: int) -> bytes:
        return im.encode_event_report_ib(im.EventStatus(path, status))

    @staticmethod
    def _event_report(record: EventRecord) -> bytes:
        return im.encode_event_report_ib(im.EventData(
            im.EventPath(record.endpoint, record.cluster_id, record.event_id), record.number, record.priority,
            im.RawTLV(record.payload), epoch_timestamp_ms=record.epoch_ms))

    # ============================================================================ sending reports
    async def _send_report(self, exchange: IMExchange, subscription_id: int | None,
                           attribute_items: Iterable[ReportItem], event_items: Iterable[bytes], *,
                           suppress_final: bool) -> bool:
        """Send a (chunked) report on ``exchange``; True when the peer accepted every chunk.

        Non-final chunks carry MoreChunkedMessages and never SuppressResponse: the peer answers each with
        a StatusResponse before the next goes out (chunking stalls otherwise, facts §4.3).
        """
        chunks = chunk_reports(attribute_items, event_items, self.budget)
        current = next(chunks)
        while True:
            upcoming = next(chunks, None)
            last = upcoming is None
            payload = im.encode_report_data(subscription_id, current[0], current[1], more_chunked=not last,
                                            suppress_response=last and suppress_final)
            if last and suppress_final:
                await exchange.send(im.Opcode.REPORT_DATA, payload, expect_reply=False)
                return True
            reply = await exchange.send(im.Opcode.REPORT_DATA, payload, expect_reply=True)
            if not self._is_success(reply):
                log.info("report chunk not acknowledged (%r); abandoning the report", reply and reply[0])
                return False
            if last:
                return True
            current = upcoming  # type: ignore[assignment]

    # ============================================================================ Read
    async def _read(self, exchange: IMExchange, ctx: RequestContext, payload: bytes) -> None:
        try:
            req = im.decode_read_request(payload)
            if not req.attributes and not req.events:
                raise im.IMDecodeError("a read needs attribute or event paths")
            self._check_paths(req.attributes)
        except im.IMDecodeError as error:
            await self._status(exchange, error.status)
            return
        access = _RequestAccess(self.access, ctx)
        events, _ = self._event_reports(access, req.events, req.event_filters)
        items = self._attribute_reports(access, ctx, req.attributes, req.data_version_filters, req.fabric_filtered)
        await self._send_report(exchange, None, items, events, suppress_final=True)

    # ============================================================================ Subscribe
    async def _subscribe(self, exchange: IMExchange, ctx: RequestContext, payload: bytes) -> None:
        try:
            req = im.decode_subscribe_request(payload)
            if not req.attributes and not req.events:
                raise im.IMDecodeError("a subscription needs attribute or event paths")
            if req.min_interval_floor > req.max_interval_ceiling:
                raise im.IMDecodeError("MinIntervalFloor above MaxIntervalCeiling")
            self._check_paths(req.attributes)
        except im.IMDecodeError as error:
            await self._status(exchange, error.status)
            return
        session = ctx.session
        if session is None or not hasattr(session, "open_exchange"):
            await self._status(exchange, Status.FAILURE)
            return
        if not req.keep_subscriptions:
            for sub in list(self._subscriptions.values()):
                if self._same_subscriber(sub.ctx, ctx):
                    self._drop(sub, forget=True)
            if self.store is not None and ctx.session_kind == "case" and ctx.fabric_index is not None:
                self.store.remove_subscriber(ctx.fabric_index, ctx.subject_node_id or 0)  # incl. ended ones
        if len(self._subscriptions) >= self.max_subscriptions:
            await self._status(exchange, Status.RESOURCE_EXHAUSTED)
            return
        subscription_id = secrets.randbits(32)
        while subscription_id in self._subscriptions:
            subscription_id = secrets.randbits(32)
        max_interval = granted_max_interval(req.min_interval_floor, req.max_interval_ceiling)
        sub = Subscription(subscription_id, ctx, session, req.attributes, req.events, req.fabric_filtered,
                           req.min_interval_floor, max_interval, req.data_version_filters)
        self._subscriptions[subscription_id] = sub  # changes during priming are caught
        access = _RequestAccess(self.access, ctx)
        events, last_event = self._event_reports(access, req.events, req.event_filters)
        sub.event_min = max(last_event + 1, max((f.event_min for f in req.event_filters), default=0))
        items = self._attribute_reports(access, ctx, req.attributes, req.data_version_filters, req.fabric_filtered)
        sub.dirty.clear()
        ok = await self._send_report(exchange, subscription_id, items, events, suppress_final=False)
        if not ok or subscription_id not in self._subscriptions:
            self._subscriptions.pop(subscription_id, None)
            return
        await exchange.send(im.Opcode.SUBSCRIBE_RESPONSE, im.encode_subscribe_response(subscription_id, max_interval),
                            expect_reply=False)
        sub.last_report = self.clock.now()
        sub.task = asyncio.get_running_loop().create_task(self._run_subscription(sub))
        self._persist(sub)
        log.info("event=subscription_established subscription=0x%08x fabric=%s node=0x%016X attribute_paths=%d "
                 "event_paths=%d min_s=%d max_s=%d requested_max_s=%d", subscription_id, ctx.fabric_index,
                 ctx.subject_node_id or 0, len(req.attributes), len(req.events), req.min_interval_floor, max_interval,
                 req.max_interval_ceiling)

    @staticmethod
    def _same_subscriber(a: RequestContext, b: RequestContext) -> bool:
        if a.session_kind == "case" and b.session_kind == "case":
            return a.fabric_index == b.fabric_index and a.subject_node_id == b.subject_node_id
        return a.session is b.session

    def _drop(self, sub: Subscription, *, forget: bool = False) -> None:
        """End ``sub`` here; ``forget``: for good (replaced, refused, fabric gone), not to be resumed after a
        restart. A subscription that ends with its session (shutdown, crash) stays resumable."""
        self._subscriptions.pop(sub.subscription_id, None)
        if forget and self.store is not None:
            self.store.remove(sub.subscription_id)
        if sub.task is not None and sub.task is not asyncio.current_task():
            sub.task.cancel()

    def _persist(self, sub: Subscription) -> None:
        address = getattr(sub.session, "peer_address", None)
        if self.store is None or address is None or sub.ctx.session_kind != "case" or sub.ctx.fabric_index is None:
            return
        self.store.add(PersistedSubscription(
            sub.subscription_id, sub.ctx.fabric_index, sub.ctx.subject_node_id or 0, tuple(sub.ctx.cats),
            tuple(address), sub.attributes, sub.events, sub.fabric_filtered, sub.min_interval, sub.max_interval))

    async def resume_subscription(self, record: PersistedSubscription, session: Any) -> bool:
        """Continue a persisted subscription over a new CASE session we set up: a priming report under the
        old subscription id, then reports as before. False (and forgotten) when the subscriber refuses it."""
        self._bind_loop()
        ctx = session.context
        sub = Subscription(record.subscription_id, ctx, session, record.attributes, record.events,
                           record.fabric_filtered, record.min_interval, record.max_interval)
        self._subscriptions[sub.subscription_id] = sub
        access = _RequestAccess(self.access, ctx)
        _, last_event = self._event_reports(access, sub.events, [], with_status=False)
        sub.event_min = last_event + 1  # events before the restart are in the controller's history already
        items = self._attribute_reports(access, ctx, sub.attributes, (), sub.fabric_filtered)
        sub.dirty.clear()
        exchange = session.open_exchange()
        try:
            ok = await self._send_report(exchange, sub.subscription_id, items, [], suppress_final=False)
        except Exception as error:
            log.info("event=subscription_resume_failed subscription=0x%08x reason=%r", sub.subscription_id, str(error))
            ok = False
        finally:
            with contextlib.suppress(Exception):
                await exchange.close()
        if not ok or self._subscriptions.get(sub.subscription_id) is not sub:
            log.info("event=subscription_resume_refused subscription=0x%08x fabric=%d node=0x%016X",
                     sub.subscription_id, record.fabric_index, record.node_id)
            self._drop(sub, forget=True)
            return False
        sub.last_report = self.clock.now()
        sub.task = asyncio.get_running_loop().create_task(self._run_subscription(sub))
        log.info("event=subscription_resumed subscription=0x%08x fabric=%d node=0x%016X max_s=%d",
                 sub.subscription_id, record.fabric_index, record.node_id, sub.max_interval)
        return True

    def drop_session(self, session: Any) -> None:
        """The runtime calls this when a session dies: its subscriptions end now."""
        for sub in list(self._subscriptions.values()):
            if sub.session is session:
                self._drop(sub)

    def drop_fabric(self, fabric_index: int) -> None:
        """A fabric was removed: its subscriptions end now, before another report can leave (fault 4)."""
        for sub in list(self._subscriptions.values()):
            if sub.ctx.fabric_index == fabric_index:
                log.info("event=subscription_ended subscription=0x%08x fabric=%d reason=fabric_removed",
                         sub.subscription_id, fabric_index)
                self._drop(sub, forget=True)

    async def close(self) -> None:
        for sub in list(self._subscriptions.values()):
            self._drop(sub)
        for unsubscribe in self._unsubscribe:
            unsubscribe()

    async def _run_subscription(self, sub: Subscription) -> None:
        try:
            while sub.subscription_id in self._subscriptions:
                if getattr(sub.session, "closed", False):
                    break
                now = self.clock.now()
                due = sub.due()
                if now >= due:
                    if not await self._send_subscription_report(sub):
                        if self.store is not None:  # refused or unreachable: the subscriber starts afresh
                            self.store.remove(sub.subscription_id)
                        break
                    continue
                await self._wait(sub, due - now)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("subscription 0x%08x failed", sub.subscription_id)
        finally:
            if self._subscriptions.get(sub.subscription_id) is sub:
                del self._subscriptions[sub.subscription_id]
                log.info("event=subscription_ended subscription=0x%08x fabric=%s reports=%d", sub.subscription_id,
                         sub.ctx.fabric_index, sub.reports_sent)

    async def _wait(self, sub: Subscription, seconds: float) -> None:
        sleeper = asyncio.ensure_future(self.clock.sleep(seconds))
        waker = asyncio.ensure_future(sub.wake.wait())
        try:
            await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeper.cancel()
            waker.cancel()

    async def _send_subscription_report(self, sub: Subscription) -> bool:
        dirty, events_pending = sub.take()
        access = _RequestAccess(self.access, sub.ctx)
        events: list[bytes] = []
        if events_pending and sub.events:
            # Status IBs of bad concrete event paths went out with the priming report already.
            events, last = self._event_reports(access, sub.events, [im.EventFilter(sub.event_min)], with_status=False)
            if last:
                sub.event_min = last + 1
        items = self._changed_reports(access, sub, dirty)
        exchange = sub.session.open_exchange()
        try:
            ok = await self._send_report(exchange, sub.subscription_id, items, events, suppress_final=False)
        except Exception as error:  # ExchangeClosed: MRP gave up, the session is gone
            log.info("subscription 0x%08x: report failed: %r", sub.subscription_id, error)
            ok = False
        finally:
            with contextlib.suppress(Exception):
                await exchange.close()
        sub.last_report = self.clock.now()
        sub.reports_sent += 1
        return ok

    def _changed_reports(self, access: _RequestAccess, sub: Subscription,
                         dirty: list[tuple[int, int, int]]) -> Iterator[ReportItem]:
        for endpoint, cluster_id, attr_id in dirty:
            server = self.node.clusters(endpoint).get(cluster_id)
            if server is None:
                continue
            name = attribute_name(server, attr_id)
            if name is None or not access.allowed(endpoint, cluster_id, read_privilege(cluster_id, attr_id)):
                continue
            version = self.node.data_version(endpoint, cluster_id)
            item = self._encode_attribute(sub.ctx, version, endpoint, cluster_id, attr_id, server, name,
                                          sub.fabric_filtered)
            if not isinstance(item, int):
                yield item

    # ---------------------------------------------------------------------------- change fan-out
    def _on_change(self, endpoint: int, cluster_id: int, attribute: str) -> None:
        """Called by the node for every attribute change, possibly from another thread."""
        if not self._subscriptions or self._loop is None:
            return
        try:
            server = self.node.clusters(endpoint).get(cluster_id)
            if server is None or attribute not in server.model.attributes:
                return
            key = (endpoint, cluster_id, attribute_id(server, attribute))
        except Exception:
            return
        if threading.get_ident() == self._loop_thread:
            self._mark(key)
        else:
            self._loop.call_soon_threadsafe(self._mark, key)

    def _mark(self, key: tuple[int, int, int]) -> None:
        for sub in self._subscriptions.values():
            if sub.matches_attribute(*key):
                sub.mark(key)

    def _on_event(self, record: EventRecord) -> None:
        if not self._subscriptions or self._loop is None:
            return
        if threading.get_ident() == self._loop_thread:
            self._mark_event(record)
        else:
            self._loop.call_soon_threadsafe(self._mark_event, record)

    def _mark_event(self, record: EventRecord) -> None:
        for sub in self._subscriptions.values():
            if sub.matches_event(record.endpoint, record.cluster_id, record.event_id):
                sub.mark_events()

    # ============================================================================ Timed
    async def _timed(self, exchange: IMExchange, ctx: RequestContext, payload: bytes) -> None:
        started = self.clock.now()
        try:
            req = im.decode_timed_request(payload)
        except im.IMDecodeError as error:
            await self._status(exchange, error.status)
            return
        reply = await exchange.send(im.Opcode.STATUS_RESPONSE, im.encode_status_response(Status.SUCCESS),
                                    expect_reply=True)
        if reply is None:
            return
        opcode, body = reply
        if opcode not in (im.Opcode.WRITE_REQUEST, im.Opcode.INVOKE_REQUEST):
            await self._status(exchange, Status.INVALID_ACTION)
            return
        if self.clock.now() - started > req.timeout_ms / 1000:
            await self._status(exchange, Status.TIMEOUT)
            return
        timed_ctx = dataclasses.replace(ctx, timed=True)
        token = current_request.set(timed_ctx)
        try:
            if opcode == im.Opcode.WRITE_REQUEST:
                await self._write(exchange, timed_ctx, body, timed=True)
            else:
                await self._invoke(exchange, timed_ctx, body, timed=True)
        finally:
            current_request.reset(token)

    # ============================================================================ Write
    async def _write(self, exchange: IMExchange, ctx: RequestContext, payload: bytes, *, timed: bool) -> None:
        while True:
            try:
                req = im.decode_write_request(payload)
            except im.IMDecodeError as error:
                await self._status(exchange, error.status)
                return
            if req.timed_request != timed:
                await self._status(exchange, Status.TIMED_REQUEST_MISMATCH)
                return
            access = _RequestAccess(self.access, ctx)
            statuses: list[im.AttributeStatus] = []
            for item in req.writes:
                statuses.extend(self._write_one(access, ctx, item, timed))
            if req.suppress_response and not req.more_chunked:
                return
            reply = await exchange.send(im.Opcode.WRITE_RESPONSE, im.encode_write_response(statuses),
                                        expect_reply=req.more_chunked)
            if not req.more_chunked or reply is None or reply[0] != im.Opcode.WRITE_REQUEST:
                return
            payload = reply[1]

    def _write_one(self, access: _RequestAccess, ctx: RequestContext, item: im.AttributeData,
                   timed: bool) -> list[im.AttributeStatus]:
        path = item.path
        if path.cluster is None or path.attribute is None or path.list_index is not None:
            return [im.AttributeStatus(path, Status.INVALID_ACTION)]
        if path.endpoint is None:  # wildcard endpoint: every endpoint with the attribute, errors suppressed
            out = []
            for endpoint in self.node.endpoints():
                server = self.node.clusters(endpoint).get(path.cluster)
                if server is not None and attribute_name(server, path.attribute) is not None:
                    concrete = dataclasses.replace(item, path=dataclasses.replace(path, endpoint=endpoint))
                    status = self._write_concrete(access, ctx, concrete, timed)
                    if status.status == Status.SUCCESS:
                        out.append(status)
            return out
        return [self._write_concrete(access, ctx, item, timed)]

    def _write_concrete(self, access: _RequestAccess, ctx: RequestContext, item: im.AttributeData,
                        timed: bool) -> im.AttributeStatus:
        path = item.path
        endpoint, cluster_id, attr_id = path.endpoint, path.cluster, path.attribute
        assert endpoint is not None and cluster_id is not None and attr_id is not None
        reply_path = im.AttributePath(endpoint, cluster_id, attr_id)

        def status(code: int, cluster_status: int | None = None) -> im.AttributeStatus:
            return im.AttributeStatus(reply_path, int(code), cluster_status)

        if endpoint not in self.node.endpoints():
            return status(Status.UNSUPPORTED_ENDPOINT)
        server = self.node.clusters(endpoint).get(cluster_id)
        if server is None:
            return status(Status.UNSUPPORTED_CLUSTER)
        if not access.allowed(endpoint, cluster_id, write_privilege(cluster_id, attr_id)):
            return status(Status.UNSUPPORTED_ACCESS)
        name = attribute_name(server, attr_id)
        if name is None:
            return status(Status.UNSUPPORTED_ATTRIBUTE)
        if not server.is_writable(name):
            return status(Status.UNSUPPORTED_WRITE)
        if _needs_timed_write(server, name) and not timed:
            return status(Status.NEEDS_TIMED_INTERACTION)
        if item.data_version is not None and item.data_version != self.node.data_version(endpoint, cluster_id):
            return status(Status.DATA_VERSION_MISMATCH)
        info = server.model.attributes[name].type
        try:
            if path.list_append:
                if not info.is_list:
                    return status(Status.INVALID_ACTION)
                element = decode_value(item.data, info.element, name, fabric_index=ctx.fabric_index)
                current = self.node.read(endpoint, cluster_id, name) or []
                value = [*current, element]
            else:
                value = decode_value(item.data, info, name, fabric_index=ctx.fabric_index)
            self.node.write(endpoint, cluster_id, name, value)
        except ClusterError as error:
            return status(error.status, error.cluster_status)
        except Exception:
            log.exception("write to %d/0x%04x/0x%04x failed", endpoint, cluster_id, attr_id)
            return status(Status.FAILURE)
        return status(Status.SUCCESS)

    # ============================================================================ Invoke
    async def _invoke(self, exchange: IMExchange, ctx: RequestContext, payload: bytes, *, timed: bool) -> None:
        try:
            req = im.decode_invoke_request(payload)
            if not req.invokes or len(req.invokes) > MAX_PATHS_PER_INVOKE:
                raise im.IMDecodeError("an invoke carries exactly one command here (MaxPathsPerInvoke = 1)")
        except im.IMDecodeError as error:
            await self._status(exchange, error.status)
            return
        if req.timed_request != timed:
            await self._status(exchange, Status.TIMED_REQUEST_MISMATCH)
            return
        access = _RequestAccess(self.access, ctx)
        responses = [self._invoke_one(access, ctx, command, timed) for command in req.invokes]
        if req.suppress_response:
            return
        await exchange.send(im.Opcode.INVOKE_RESPONSE, im.encode_invoke_response(responses), expect_reply=False)

    def _invoke_one(self, access: _RequestAccess, ctx: RequestContext, command: im.CommandData,
                    timed: bool) -> im.CommandData | im.CommandStatus:
        path = command.path

        def status(code: int, cluster_status: int | None = None) -> im.CommandStatus:
            return im.CommandStatus(path, int(code), cluster_status, ref=command.ref)

        if path.endpoint is None:
            return status(Status.INVALID_ACTION)  # wildcard invokes are group-only
        if path.endpoint not in self.node.endpoints():
            return status(Status.UNSUPPORTED_ENDPOINT)
        server = self.node.clusters(path.endpoint).get(path.cluster)
        if server is None:
            return status(Status.UNSUPPORTED_CLUSTER)
        if not access.allowed(path.endpoint, path.cluster, invoke_privilege(path.cluster, path.command)):
            return status(Status.UNSUPPORTED_ACCESS)
        name = _command_name(server, path.command)
        if name is None:
            return status(Status.UNSUPPORTED_COMMAND)
        if _needs_timed_invoke(server, name) and not timed:
            return status(Status.NEEDS_TIMED_INTERACTION)
        spec = server.command_spec(name)
        try:
            args = decode_fields(spec.model.fields, command.fields, f"{server.cluster_name}.{name}",
                                 fabric_index=ctx.fabric_index)
            response = self.node.invoke(path.endpoint, path.cluster, name, args)
        except ClusterError as error:
            if error.response is not None:  # an in-band failure: the response payload, IM status SUCCESS
                return self._command_response(server, name, path, error.response, command.ref) or status(
                    Status.FAILURE)
            return status(error.status, error.cluster_status)
        except Exception:
            log.exception("invoke %d/0x%04x/0x%02x failed", path.endpoint, path.cluster, path.command)
            return status(Status.FAILURE)
        if spec.model.response is None:
            return status(Status.SUCCESS)
        return self._command_response(server, name, path, response or {}, command.ref) or status(Status.FAILURE)

    @staticmethod
    def _command_response(server: ClusterServer, name: str, path: im.CommandPath, fields: dict[str, Any],
                          ref: int | None) -> im.CommandData | None:
        response_name = server.command_spec(name).model.response
        if response_name is None:
            return None
        model = response_model(server.cluster_name, response_name)
        try:
            encoded = encode_fields(model.fields, fields)
        except Exception:
            log.exception("%s.%s returned fields that do not fit %s: %r", server.cluster_name, name, response_name,
                          fields)
            return None
        return im.CommandData(im.CommandPath(path.endpoint, path.cluster, model.command_id), im.RawTLV(encoded), ref)
