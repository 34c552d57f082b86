"""The Interaction Model server (Matter core spec chapter 8): Read, Subscribe, Write, Invoke, Timed.

The node runtime routes every unsolicited IM message that opens an exchange to
:meth:`InteractionModel.handle_exchange` (``bridge.matter.session.dispatch``), which finds the request's
handler in a table filled by ``@_request_handler(opcode)``; everything else (more chunks, status responses)
flows on that exchange through ``IMExchange.send(..., expect_reply=True)``. Subscriptions push their reports
on new exchanges of the subscriber's session (``ReportSession.open_exchange``).

Every path is resolved against the node (``DataModel``) and access control (``AccessChecker``) by the one
``bridge.matter.im.path_resolver.PathResolver``: a concrete path that fails gets its status
(UNSUPPORTED_ENDPOINT/CLUSTER/ATTRIBUTE/ACCESS, …); a wildcard path silently skips what does not exist or is
not accessible (spec §8.4.3.2). Malformed messages get a StatusResponse INVALID_ACTION; malformed command
fields INVALID_COMMAND; no exception escapes.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any, TypeVar

from bridge.matter.codec.values_tlv import decode_fields, decode_value, encode_fields, encoder
from bridge.matter.im import im_messages as im
from bridge.matter.im.data_model import AccessChecker, DataModel
from bridge.matter.im.event_log import EventRecord
from bridge.matter.im.path_resolver import PathResolver, RequestAccess, Resolved, attribute_id
from bridge.matter.im.privileges import event_privilege
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
from clusters import ClusterServer, HomeError, Status
from clusters.chip_model import response_model
from emulator.loop_handoff import LoopHandoff

log = logging.getLogger(__name__)
_F = TypeVar("_F", bound=Callable[..., Any])

DEFAULT_MAX_PAYLOAD = 1200  # IM payload per message: fits a 1280-byte IPv6 datagram with headers and MIC
MAX_SUBSCRIPTIONS = 64
MAX_PATHS_PER_INVOKE = 1
# The MaxInterval we grant (never above the controller's ceiling, never below its floor; spec §8.5.1): short,
# so a controller notices a node that went away (and could not resume its subscriptions after coming back,
# see bridge.matter.im.subscription_store) within seconds rather than a minute; an empty keep-alive report costs
# next to nothing.
GRANTED_MAX_INTERVAL_S = 3


@functools.cache
def _value_encoders(server_class: type[ClusterServer], name: str) -> tuple[Any, Any]:
    """(element encoder for a list attribute else None, value encoder): looked up once per attribute."""
    info = server_class.class_model().attributes[name].type
    return (encoder(info.element) if info.is_list else None), encoder(info)


def _needs_timed_write(server: ClusterServer, name: str) -> bool:
    attr = server.model.attributes.get(name)
    return attr is not None and attr.timed_write


def _needs_timed_invoke(server: ClusterServer, name: str) -> bool:
    cmd = server.model.commands.get(name)
    return cmd is not None and cmd.timed_invoke


def fabric_filter(value: object, fabric_index: int | None) -> Any:
    """Entries of a fabric-scoped list that belong to the accessing fabric (spec §7.13.5)."""
    if not isinstance(value, list) or not value or not isinstance(value[0], dict) or "fabricIndex" not in value[0]:
        return value
    return [v for v in value if isinstance(v, dict) and v.get("fabricIndex") == fabric_index]


# The requests that open an IM transaction and the group-addressable ones, by opcode: filled by the decorators
# below as the class body is executed; an opcode claimed twice fails at import.
_REQUEST_HANDLERS: dict[int, Callable[..., Awaitable[None]]] = {}
_GROUP_HANDLERS: dict[int, Callable[..., int]] = {}


def _registrar(table: dict[int, Any], kind: str) -> Callable[[im.Opcode], Callable[[_F], _F]]:
    def register(opcode: im.Opcode) -> Callable[[_F], _F]:
        def wrap(method: _F) -> _F:
            if opcode in table:
                raise TypeError(f"{kind} opcode {opcode.name} is handled by {table[opcode].__name__} already")
            table[opcode] = method
            return method

        return wrap

    return register


_request_handler = _registrar(_REQUEST_HANDLERS, "IM request")
_TIMED_ACTIONS = frozenset({im.Opcode.WRITE_REQUEST, im.Opcode.INVOKE_REQUEST})  # what may follow a TimedRequest
_group_handler = _registrar(_GROUP_HANDLERS, "IM group message")


def granted_max_interval(floor: int, ceiling: int) -> int:
    return max(min(ceiling, GRANTED_MAX_INTERVAL_S), floor, 1)


class InteractionModel:
    def __init__(
        self,
        node: DataModel,
        access: AccessChecker,
        *,
        clock: Clock | None = None,
        max_payload: int = DEFAULT_MAX_PAYLOAD,
        max_subscriptions: int = MAX_SUBSCRIPTIONS,
        store: SubscriptionStore | None = None,
    ) -> None:
        self.node = node
        self.store = store  # persisted subscriptions, for resumption after a restart
        self.access = access
        self.clock: Clock = clock or MonotonicClock()
        self.max_payload = max_payload
        self.max_subscriptions = max_subscriptions
        self._subscriptions: dict[int, Subscription] = {}
        self._handoff = LoopHandoff()  # changes arrive on the fabric's thread; subscriptions live on this loop
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
            handler = _REQUEST_HANDLERS.get(opcode)
            if handler is None:
                await self._status(exchange, Status.INVALID_ACTION)
            else:
                await handler(self, exchange, ctx, payload)
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

    def handle_group_message(
        self, fabric_index: int, source_node_id: int, group_id: int, opcode: int, payload: bytes
    ) -> int:
        """Act on a group-addressed Invoke or Write (Core §8.2.2): on every endpoint in the group that has
        the path, as far as the group's ACL allows; nothing is answered. Returns how many were acted on."""
        self._bind_loop_if_running()
        ctx = RequestContext("group", fabric_index, source_node_id, group_id=group_id)
        members = getattr(self.node, "group_endpoints", None)
        endpoints = members(fabric_index, group_id) if members is not None else []
        token = current_request.set(ctx)
        try:
            act = _GROUP_HANDLERS.get(opcode)
            if act is not None:
                return act(self, ctx, endpoints, payload)
            log.info("group 0x%04x: IM opcode 0x%02x is not allowed in a group message", group_id, opcode)
        except im.IMDecodeError as error:
            log.info("group 0x%04x: malformed message from 0x%016x: %s", group_id, source_node_id, error)
        finally:
            current_request.reset(token)
        return 0

    @_group_handler(im.Opcode.INVOKE_REQUEST)
    def _group_invokes(self, ctx: RequestContext, endpoints: list[int], payload: bytes) -> int:
        return sum(self._group_invoke(ctx, endpoints, c) for c in im.decode(im.InvokeRequest, payload).invokes)

    @_group_handler(im.Opcode.WRITE_REQUEST)
    def _group_writes(self, ctx: RequestContext, endpoints: list[int], payload: bytes) -> int:
        return sum(self._group_write(ctx, endpoints, w) for w in im.decode(im.WriteRequest, payload).writes)

    def _group_invoke(self, ctx: RequestContext, endpoints: list[int], command: im.CommandData) -> int:
        path, done = command.path, 0
        if path.endpoint is not None:  # a group invoke names no endpoint: it acts on the group's
            return 0
        for target in PathResolver(self.node, RequestAccess(self.access, ctx)).command(path, endpoints):
            endpoint, server, name = target.endpoint, target.server, target.name
            assert server is not None and name is not None
            if target.status != Status.SUCCESS or _needs_timed_invoke(server, name):  # no timed group interaction
                continue
            try:
                args = decode_fields(
                    server.command_spec(name).model.fields,
                    command.fields,
                    f"{server.cluster_name}.{name}",
                    fabric_index=ctx.fabric_index,
                )
                self.node.invoke(endpoint, path.cluster, name, args, server=server)
                done += 1
            except HomeError as error:
                log.info("group invoke %d/%s.%s refused: %s", endpoint, server.cluster_name, name, error.message)
        return done

    def _group_write(self, ctx: RequestContext, endpoints: list[int], item: im.AttributeData) -> int:
        path, done = item.path, 0
        if path.endpoint is not None or path.cluster is None or path.attribute is None:
            return 0  # a group write names no endpoint, but its cluster and attribute
        for target in PathResolver(self.node, RequestAccess(self.access, ctx)).attributes(path, "write", endpoints):
            endpoint, server, name = target.endpoint, target.server, target.name
            assert server is not None and name is not None
            if target.status != Status.SUCCESS or not server.is_writable(name) or _needs_timed_write(server, name):
                continue
            try:
                info = server.model.attributes[name].type
                value = decode_value(item.data, info, name, fabric_index=ctx.fabric_index)
                self.node.write(endpoint, path.cluster, name, value, server=server)
                done += 1
            except HomeError as error:
                log.info("group write %d/%s.%s refused: %s", endpoint, server.cluster_name, name, error.message)
        return done

    def _bind_loop_if_running(self) -> None:
        with contextlib.suppress(RuntimeError):
            self._bind_loop()

    def _bind_loop(self) -> None:
        if not self._handoff.bound:
            self._handoff.bind()

    async def _status(self, exchange: IMExchange, status: int) -> None:
        await exchange.send(im.Opcode.STATUS_RESPONSE, im.encode(im.StatusResponse(status)), expect_reply=False)

    @staticmethod
    def _is_success(reply: tuple[int, bytes] | None) -> bool:
        if reply is None or reply[0] != im.Opcode.STATUS_RESPONSE:
            return False
        try:
            return im.decode(im.StatusResponse, reply[1]).status == Status.SUCCESS
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

    def _attribute_reports(
        self,
        access: RequestAccess,
        ctx: RequestContext,
        paths: Iterable[im.AttributePath],
        filters: Iterable[im.DataVersionFilter],
        fabric_filtered: bool,
    ) -> Iterator[ReportItem]:
        """Report items of every path, lazily; concrete failures become status IBs, wildcard ones are skipped."""
        node, resolver = self.node, PathResolver(self.node, access)
        skip = {(f.endpoint, f.cluster) for f in filters if f.data_version == self._version_or_none(f)}
        paths = list(paths)
        seen: set[tuple[int, int, int]] | None = set() if len(paths) > 1 else None
        success = Status.SUCCESS
        for path in paths:
            cluster_key: tuple[int, int] | None = None
            version: int | None = 0
            for endpoint, cluster_id, attr_id, status, server, name, concrete in resolver.attributes(path, "read"):
                if (endpoint, cluster_id) != cluster_key:  # wildcards walk a cluster's attributes in a row
                    cluster_key, skipped = (endpoint, cluster_id), (endpoint, cluster_id) in skip
                    version = node.data_version(endpoint, cluster_id) if status == success and not skipped else None
                if skipped and not concrete:
                    continue
                if seen is not None:
                    if (endpoint, cluster_id, attr_id) in seen:
                        continue
                    seen.add((endpoint, cluster_id, attr_id))
                if status != success:
                    if concrete:
                        yield attribute_status_report(endpoint, cluster_id, attr_id, status)
                    continue
                if skipped:
                    continue
                if concrete or version is None:  # a concrete path reads its version now, as it always did
                    version = node.data_version(endpoint, cluster_id)
                # A successful path has its server and name (the resolver's contract; mypy cannot see it: the ignores).
                item = self._encode_attribute(
                    ctx,
                    version,
                    endpoint,
                    cluster_id,
                    attr_id,
                    server,  # type: ignore[arg-type]
                    name,  # type: ignore[arg-type]
                    fabric_filtered,
                )
                if isinstance(item, int):  # unreadable: a concrete path reports why, a wildcard skips it
                    if concrete:
                        yield attribute_status_report(endpoint, cluster_id, attr_id, item)
                    continue
                yield item

    def _version_or_none(self, f: im.DataVersionFilter) -> int | None:
        if f.cluster not in self.node.clusters(f.endpoint):
            return None
        return self.node.data_version(f.endpoint, f.cluster)

    def _encode_attribute(
        self,
        ctx: RequestContext,
        version: int,
        endpoint: int,
        cluster_id: int,
        attr_id: int,
        server: ClusterServer,
        name: str,
        fabric_filtered: bool,
    ) -> ReportItem | int:
        """The report item of one attribute, or the status of why it cannot be read."""
        try:
            value = self.node.read(endpoint, cluster_id, name)
            if fabric_filtered:
                value = fabric_filter(value, ctx.fabric_index)
            element, whole = _value_encoders(type(server), name)  # type: ignore[arg-type]  # mypy checks a class object's __hash__ as the instances' (python/mypy#11470)
            if element is not None and value is not None:
                return ListReport(version, endpoint, cluster_id, attr_id, [element(v, None) for v in value])
            return attribute_data_report(version, endpoint, cluster_id, attr_id, whole(value, 2))
        except HomeError as error:
            return int(error.wire_status)
        except Exception:
            log.exception("reading %d/0x%04x/0x%04x (%s) failed", endpoint, cluster_id, attr_id, name)
            return int(Status.FAILURE)

    def _event_reports(
        self,
        access: RequestAccess,
        paths: Iterable[im.EventPath],
        filters: Iterable[im.EventFilter],
        *,
        with_status: bool = True,
    ) -> tuple[list[bytes], int]:
        """Encoded EventReportIBs of the matching events and the highest event number included."""
        paths = list(paths)
        if not paths:
            return [], 0
        event_min = max((f.event_min for f in filters), default=0)
        out: list[bytes] = []
        resolver = PathResolver(self.node, access)
        for path in paths if with_status else ():
            status = resolver.event_path_status(path)
            if status is not None:
                out.append(self._event_status(path, status))
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
        return im.EVENT_REPORT_IB.encode(im.EventStatus(path, status), None)

    @staticmethod
    def _event_report(record: EventRecord) -> bytes:
        return im.EVENT_REPORT_IB.encode(
            im.EventData(
                im.EventPath(record.endpoint, record.cluster_id, record.event_id),
                record.number,
                record.priority,
                im.RawTLV(record.payload),
                epoch_timestamp_ms=record.epoch_ms,
            ),
            None,
        )

    # ============================================================================ sending reports
    async def _send_report(
        self,
        exchange: IMExchange,
        subscription_id: int | None,
        attribute_items: Iterable[ReportItem],
        event_items: Iterable[bytes],
        *,
        suppress_final: bool,
    ) -> bool:
        """Send a (chunked) report on ``exchange``; True when the peer accepted every chunk.

        Non-final chunks carry MoreChunkedMessages and never SuppressResponse: the peer answers each with
        a StatusResponse before the next goes out (chunking stalls otherwise, facts §4.3).
        """
        chunks = chunk_reports(attribute_items, event_items, self.budget)
        current = next(chunks)
        while True:
            upcoming = next(chunks, None)
            last = upcoming is None
            attributes, events = (im.RawTLV(b"".join(ibs)) if ibs else () for ibs in current)
            payload = im.encode(
                im.ReportData(
                    subscription_id,
                    attributes,
                    events,
                    more_chunked=not last,
                    suppress_response=last and suppress_final,
                )
            )
            if last and suppress_final:
                await exchange.send(im.Opcode.REPORT_DATA, payload, expect_reply=False)
                return True
            reply = await exchange.send(im.Opcode.REPORT_DATA, payload, expect_reply=True)
            if not self._is_success(reply):
                log.info("report chunk not acknowledged (%r); abandoning the report", reply and reply[0])
                return False
            if upcoming is None:  # the last chunk
                return True
            current = upcoming

    # ============================================================================ Read
    @_request_handler(im.Opcode.READ_REQUEST)
    async def _read(self, exchange: IMExchange, ctx: RequestContext, payload: bytes) -> None:
        try:
            req = im.decode(im.ReadRequest, payload)
            if not req.attributes and not req.events:
                raise im.IMDecodeError("a read needs attribute or event paths")
            self._check_paths(req.attributes)
        except im.IMDecodeError as error:
            await self._status(exchange, error.status)
            return
        access = RequestAccess(self.access, ctx)
        events, _ = self._event_reports(access, req.events, req.event_filters)
        items = self._attribute_reports(access, ctx, req.attributes, req.data_version_filters, req.fabric_filtered)
        await self._send_report(exchange, None, items, events, suppress_final=True)

    # ============================================================================ Subscribe
    @_request_handler(im.Opcode.SUBSCRIBE_REQUEST)
    async def _subscribe(self, exchange: IMExchange, ctx: RequestContext, payload: bytes) -> None:
        try:
            req = im.decode(im.SubscribeRequest, payload)
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
        sub = Subscription(
            subscription_id,
            ctx,
            session,
            req.attributes,
            req.events,
            req.fabric_filtered,
            req.min_interval_floor,
            max_interval,
            req.data_version_filters,
        )
        self._subscriptions[subscription_id] = sub  # changes during priming are caught
        access = RequestAccess(self.access, ctx)
        events, last_event = self._event_reports(access, req.events, req.event_filters)
        sub.event_min = max(last_event + 1, max((f.event_min for f in req.event_filters), default=0))
        items = self._attribute_reports(access, ctx, req.attributes, req.data_version_filters, req.fabric_filtered)
        sub.dirty.clear()
        ok = await self._send_report(exchange, subscription_id, items, events, suppress_final=False)
        if not ok or subscription_id not in self._subscriptions:
            self._subscriptions.pop(subscription_id, None)
            return
        response = im.encode(im.SubscribeResponse(subscription_id, max_interval))
        await exchange.send(im.Opcode.SUBSCRIBE_RESPONSE, response, expect_reply=False)
        sub.last_report = self.clock.now()
        sub.task = asyncio.get_running_loop().create_task(self._run_subscription(sub))
        self._persist(sub)
        log.info(
            "event=subscription_established subscription=0x%08x fabric=%s node=0x%016X attribute_paths=%d "
            "event_paths=%d min_s=%d max_s=%d requested_max_s=%d",
            subscription_id,
            ctx.fabric_index,
            ctx.subject_node_id or 0,
            len(req.attributes),
            len(req.events),
            req.min_interval_floor,
            max_interval,
            req.max_interval_ceiling,
        )

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
        self.store.add(
            PersistedSubscription(
                sub.subscription_id,
                sub.ctx.fabric_index,
                sub.ctx.subject_node_id or 0,
                tuple(sub.ctx.cats),
                tuple(address),
                sub.attributes,
                sub.events,
                sub.fabric_filtered,
                sub.min_interval,
                sub.max_interval,
            )
        )

    async def resume_subscription(self, record: PersistedSubscription, session: Any) -> bool:
        """Continue a persisted subscription over a new CASE session we set up: a priming report under the
        old subscription id, then reports as before. False (and forgotten) when the subscriber refuses it."""
        self._bind_loop()
        ctx = session.context
        sub = Subscription(
            record.subscription_id,
            ctx,
            session,
            record.attributes,
            record.events,
            record.fabric_filtered,
            record.min_interval,
            record.max_interval,
        )
        self._subscriptions[sub.subscription_id] = sub
        access = RequestAccess(self.access, ctx)
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
            log.info(
                "event=subscription_resume_refused subscription=0x%08x fabric=%d node=0x%016X",
                sub.subscription_id,
                record.fabric_index,
                record.node_id,
            )
            self._drop(sub, forget=True)
            return False
        sub.last_report = self.clock.now()
        sub.task = asyncio.get_running_loop().create_task(self._run_subscription(sub))
        log.info(
            "event=subscription_resumed subscription=0x%08x fabric=%d node=0x%016X max_s=%d",
            sub.subscription_id,
            record.fabric_index,
            record.node_id,
            sub.max_interval,
        )
        return True

    def drop_session(self, session: object) -> None:
        """The runtime calls this when a session dies: its subscriptions end now."""
        for sub in list(self._subscriptions.values()):
            if sub.session is session:
                self._drop(sub)

    def drop_fabric(self, fabric_index: int) -> None:
        """A fabric was removed: its subscriptions end now, before another report can leave (fault 4)."""
        for sub in list(self._subscriptions.values()):
            if sub.ctx.fabric_index == fabric_index:
                log.info(
                    "event=subscription_ended subscription=0x%08x fabric=%d reason=fabric_removed",
                    sub.subscription_id,
                    fabric_index,
                )
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
                log.info(
                    "event=subscription_ended subscription=0x%08x fabric=%s reports=%d",
                    sub.subscription_id,
                    sub.ctx.fabric_index,
                    sub.reports_sent,
                )

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
        access = RequestAccess(self.access, sub.ctx)
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

    def _changed_reports(
        self, access: RequestAccess, sub: Subscription, dirty: list[tuple[int, int, int]]
    ) -> Iterator[ReportItem]:
        resolver = PathResolver(self.node, access)
        for endpoint, cluster_id, attr_id in dirty:
            target = next(resolver.attributes(im.AttributePath(endpoint, cluster_id, attr_id), "read"))
            if target.status != Status.SUCCESS:  # gone, or no longer readable by this subscriber
                continue
            assert target.server is not None and target.name is not None
            version = self.node.data_version(endpoint, cluster_id)
            item = self._encode_attribute(
                sub.ctx, version, endpoint, cluster_id, attr_id, target.server, target.name, sub.fabric_filtered
            )
            if not isinstance(item, int):
                yield item

    # ---------------------------------------------------------------------------- change fan-out
    def _on_change(self, endpoint: int, cluster_id: int, attribute: str) -> None:
        """Called by the node for every attribute change, possibly from another thread."""
        if not self._subscriptions or not self._handoff.bound:
            return
        try:
            server = self.node.clusters(endpoint).get(cluster_id)
            if server is None or attribute not in server.model.attributes:
                return
            key = (endpoint, cluster_id, attribute_id(server, attribute))
        except Exception:
            return
        self._handoff.call(self._mark, key)

    def _mark(self, key: tuple[int, int, int]) -> None:
        for sub in self._subscriptions.values():
            if sub.matches_attribute(*key):
                sub.mark(key)

    def _on_event(self, record: EventRecord) -> None:
        if not self._subscriptions or not self._handoff.bound:
            return
        self._handoff.call(self._mark_event, record)

    def _mark_event(self, record: EventRecord) -> None:
        for sub in self._subscriptions.values():
            if sub.matches_event(record.endpoint, record.cluster_id, record.event_id):
                sub.mark_events()

    # ============================================================================ Timed
    @_request_handler(im.Opcode.TIMED_REQUEST)
    async def _timed(self, exchange: IMExchange, ctx: RequestContext, payload: bytes) -> None:
        started = self.clock.now()
        try:
            req = im.decode(im.TimedRequest, payload)
        except im.IMDecodeError as error:
            await self._status(exchange, error.status)
            return
        reply = await exchange.send(
            im.Opcode.STATUS_RESPONSE, im.encode(im.StatusResponse(Status.SUCCESS)), expect_reply=True
        )
        if reply is None:
            return
        opcode, body = reply
        if opcode not in _TIMED_ACTIONS:
            await self._status(exchange, Status.INVALID_ACTION)
            return
        if self.clock.now() - started > req.timeout_ms / 1000:
            await self._status(exchange, Status.TIMEOUT)
            return
        timed_ctx = dataclasses.replace(ctx, timed=True)
        token = current_request.set(timed_ctx)
        try:
            await _REQUEST_HANDLERS[opcode](self, exchange, timed_ctx, body, timed=True)
        finally:
            current_request.reset(token)

    # ============================================================================ Write
    @_request_handler(im.Opcode.WRITE_REQUEST)
    async def _write(self, exchange: IMExchange, ctx: RequestContext, payload: bytes, *, timed: bool = False) -> None:
        while True:
            try:
                req = im.decode(im.WriteRequest, payload)
            except im.IMDecodeError as error:
                await self._status(exchange, error.status)
                return
            if req.timed_request != timed:
                await self._status(exchange, Status.TIMED_REQUEST_MISMATCH)
                return
            access = RequestAccess(self.access, ctx)
            statuses: list[im.AttributeStatus] = []
            for item in req.writes:
                statuses.extend(self._write_one(access, ctx, item, timed))
            if req.suppress_response and not req.more_chunked:
                return
            reply = await exchange.send(
                im.Opcode.WRITE_RESPONSE, im.encode(im.WriteResponse(tuple(statuses))), expect_reply=req.more_chunked
            )
            if not req.more_chunked or reply is None or reply[0] != im.Opcode.WRITE_REQUEST:
                return
            payload = reply[1]

    def _write_one(
        self, access: RequestAccess, ctx: RequestContext, item: im.AttributeData, timed: bool
    ) -> list[im.AttributeStatus]:
        path = item.path
        if path.cluster is None or path.attribute is None or path.list_index is not None:
            return [im.AttributeStatus(path, Status.INVALID_ACTION)]
        # A wildcard endpoint writes every endpoint with the attribute, and answers only the successes.
        out = []
        for target in PathResolver(self.node, access).attributes(path, "write"):
            status = self._write_concrete(ctx, item, target, timed)
            if target.concrete or status.status == Status.SUCCESS:
                out.append(status)
        return out

    def _write_concrete(
        self, ctx: RequestContext, item: im.AttributeData, target: Resolved, timed: bool
    ) -> im.AttributeStatus:
        path = item.path
        endpoint, cluster_id, attr_id, server, name = (
            target.endpoint,
            target.cluster,
            target.element,
            target.server,
            target.name,
        )
        reply_path = im.AttributePath(endpoint, cluster_id, attr_id)

        def status(code: int, cluster_status: int | None = None) -> im.AttributeStatus:
            return im.AttributeStatus(reply_path, int(code), cluster_status)

        if target.status != Status.SUCCESS:
            return status(target.status)
        assert server is not None and name is not None
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
            self.node.write(endpoint, cluster_id, name, value, server=server)
        except HomeError as error:
            return status(error.wire_status, error.cluster_status)
        except Exception:
            log.exception("write to %d/0x%04x/0x%04x failed", endpoint, cluster_id, attr_id)
            return status(Status.FAILURE)
        return status(Status.SUCCESS)

    # ============================================================================ Invoke
    @_request_handler(im.Opcode.INVOKE_REQUEST)
    async def _invoke(self, exchange: IMExchange, ctx: RequestContext, payload: bytes, *, timed: bool = False) -> None:
        try:
            req = im.decode(im.InvokeRequest, payload)
            if not req.invokes or len(req.invokes) > MAX_PATHS_PER_INVOKE:
                raise im.IMDecodeError("an invoke carries exactly one command here (MaxPathsPerInvoke = 1)")
        except im.IMDecodeError as error:
            await self._status(exchange, error.status)
            return
        if req.timed_request != timed:
            await self._status(exchange, Status.TIMED_REQUEST_MISMATCH)
            return
        access = RequestAccess(self.access, ctx)
        responses = [self._invoke_one(access, ctx, command, timed) for command in req.invokes]
        if req.suppress_response:
            return
        response = im.encode(im.InvokeResponse(tuple(responses)))
        await exchange.send(im.Opcode.INVOKE_RESPONSE, response, expect_reply=False)

    def _invoke_one(
        self, access: RequestAccess, ctx: RequestContext, command: im.CommandData, timed: bool
    ) -> im.CommandData | im.CommandStatus:
        path = command.path

        def status(code: int, cluster_status: int | None = None) -> im.CommandStatus:
            return im.CommandStatus(path, int(code), cluster_status, ref=command.ref)

        if path.endpoint is None:
            return status(Status.INVALID_ACTION)  # wildcard invokes are group-only
        target = next(PathResolver(self.node, access).command(path))
        if target.status != Status.SUCCESS:
            return status(target.status)
        server, name = target.server, target.name
        assert server is not None and name is not None
        if _needs_timed_invoke(server, name) and not timed:
            return status(Status.NEEDS_TIMED_INTERACTION)
        spec = server.command_spec(name)
        try:
            args = decode_fields(
                spec.model.fields, command.fields, f"{server.cluster_name}.{name}", fabric_index=ctx.fabric_index
            )
            response = self.node.invoke(path.endpoint, path.cluster, name, args, server=server)
        except HomeError as error:
            if error.response is not None:  # an in-band failure: the response payload, IM status SUCCESS
                return self._command_response(server, name, path, error.response, command.ref) or status(Status.FAILURE)
            return status(error.wire_status, error.cluster_status)
        except Exception:
            log.exception("invoke %d/0x%04x/0x%02x failed", path.endpoint, path.cluster, path.command)
            return status(Status.FAILURE)
        if spec.model.response is None:
            return status(Status.SUCCESS)
        return self._command_response(server, name, path, response or {}, command.ref) or status(Status.FAILURE)

    @staticmethod
    def _command_response(
        server: ClusterServer, name: str, path: im.CommandPath, fields: dict[str, Any], ref: int | None
    ) -> im.CommandData | None:
        response_name = server.command_spec(name).model.response
        if response_name is None:
            return None
        model = response_model(server.cluster_name, response_name)
        try:
            encoded = encode_fields(model.fields, fields)
        except Exception:
            log.exception(
                "%s.%s returned fields that do not fit %s: %r", server.cluster_name, name, response_name, fields
            )
            return None
        return im.CommandData(im.CommandPath(path.endpoint, path.cluster, model.command_id), im.RawTLV(encoded), ref)
