"""IM Subscribe: chunked priming, SubscribeResponse, change reports paced by MinInterval, keep-alives
before MaxInterval, sensor moves on time advance, KeepSubscriptions, cleanup — on a controllable clock."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import tempfile
from pathlib import Path
from typing import Any

from bridge.matter.im import im_messages as im
from bridge.matter.im.data_model import AllowAll
from bridge.matter.im.interaction import GRANTED_MAX_INTERVAL_S, InteractionModel, granted_max_interval
from bridge.matter.im.subscription import keepalive_after
from bridge.matter.node.bridge_node import BridgeNode
from clusters import Status
from emulator.emulated_home import EmulatedHome
from emulator.home_generation.generator import generate_home
from tests.emulator.helpers import fabric
from tests.matter_bridge._async import run_async
from tests.matter_bridge.im_fakes import FakeSession, ImClient, assemble

P = im.AttributePath
ON_OFF, TEMPERATURE = 0x06, 0x0402


class FakeClock:
    """Monotonic time that only moves in :meth:`advance`; sleepers wake in deadline order."""

    def __init__(self) -> None:
        self.t = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.t + seconds, next(self._seq), future))
        await future

    async def advance(self, seconds: float) -> None:
        target = self.t + seconds
        await settle()
        while self._sleepers and self._sleepers[0][0] <= target:
            due, _, future = heapq.heappop(self._sleepers)
            self.t = max(self.t, due)
            if not future.done():
                future.set_result(None)
            await settle()
        self.t = target
        await settle()


async def settle() -> None:
    for _ in range(30):
        await asyncio.sleep(0)


async def _subscribe(
    client: ImClient,
    paths: list[im.AttributePath],
    *,
    floor: int = 1,
    ceiling: int = 60,
    events: list[im.EventPath] | None = None,
    keep: bool = False,
) -> tuple[int, Any]:
    req = im.SubscribeRequest(keep, floor, ceiling, tuple(paths), tuple(events or ()))
    exchange = await client.request(im.Opcode.SUBSCRIBE_REQUEST, im.encode(req))
    (response,) = exchange.messages(im.Opcode.SUBSCRIBE_RESPONSE)
    return response.subscription_id, exchange


def _setup(home: EmulatedHome) -> tuple[BridgeNode, InteractionModel, ImClient, FakeClock]:
    clock = FakeClock()
    node = BridgeNode(home)
    model = InteractionModel(node, AllowAll(), clock=clock)
    return node, model, ImClient(model, FakeSession()), clock


@run_async
async def test_priming_report_is_chunked_then_subscribe_response() -> None:
    node, model, client, _ = _setup(EmulatedHome(generate_home("complex", 1)))
    sub_id, exchange = await _subscribe(client, [P()], events=[im.EventPath()])
    reports = exchange.messages(im.Opcode.REPORT_DATA)
    assert len(reports) > 50
    assert all(r.subscription_id == sub_id and not r.suppress_response for r in reports)
    assert all(r.more_chunked for r in reports[:-1]) and not reports[-1].more_chunked
    assert all(expect for op, _, expect in exchange.sent if op == im.Opcode.REPORT_DATA)  # every chunk acked
    assert exchange.sent[-1][0] == im.Opcode.SUBSCRIBE_RESPONSE and not exchange.sent[-1][2]
    assembled = assemble(reports)
    assert assembled.replaced == 0
    assert len(assembled.values) == sum(
        len(s.attribute_names()) for ep in node.endpoints() for s in node.clusters(ep).values()
    )
    assert len(assembled.events) == 145  # bridged StartUp events, one per device (this node has no BasicInformation)
    assert sub_id in model.subscriptions
    await model.close()


@run_async
async def test_change_reports_respect_min_interval_and_coalesce() -> None:
    home = fabric([("lamp", "on_off_light", "room"), ("plug", "smart_plug", "room")])
    node, model, client, clock = _setup(home)
    lamp = node.endpoint_of("lamp", 1)
    sub_id, _ = await _subscribe(client, [P(cluster=ON_OFF)], floor=2, ceiling=60)
    home.invoke("lamp", 1, "OnOff", "On")
    home.invoke("lamp", 1, "OnOff", "Off")
    home.invoke("lamp", 1, "OnOff", "On")
    await clock.advance(1.0)
    assert client.session.reports() == []  # MinInterval not reached yet
    await clock.advance(1.5)
    (report,) = client.session.reports()
    assert report.subscription_id == sub_id
    items = {(r.path.endpoint, r.path.attribute): r.data for r in report.attribute_reports}
    assert items == {(lamp, 0): True}  # three changes, one coalesced report with the latest value
    await model.close()


@run_async
async def test_keep_alive_before_max_interval_and_nothing_in_between() -> None:
    home = fabric([("lamp", "on_off_light", "room")])
    _, model, client, clock = _setup(home)
    sub_id, exchange = await _subscribe(client, [P()], floor=1, ceiling=30)
    (response,) = exchange.messages(im.Opcode.SUBSCRIBE_RESPONSE)
    assert response.max_interval == granted_max_interval(1, 30) <= 30
    quiet = keepalive_after(1, response.max_interval)
    assert quiet < response.max_interval
    await clock.advance(quiet - 0.5)
    assert client.session.reports() == []
    await clock.advance(1.0)
    (keepalive,) = client.session.reports()
    assert keepalive.subscription_id == sub_id and not keepalive.attribute_reports and not keepalive.event_reports
    await clock.advance(quiet)
    assert len(client.session.reports()) == 2
    await model.close()


@run_async
async def test_sensor_moves_when_time_advances() -> None:
    home = fabric([("sensor", "climate_sensor", "room")], rooms={"room": {"temperature": 2000}})
    node, model, client, clock = _setup(home)
    ep = node.endpoint_of("sensor", 1)
    await _subscribe(client, [P(ep, TEMPERATURE, 0)], floor=0, ceiling=60)
    home.set_room_state("room", "temperature", 2600)
    home.set_room_state("room", "temperature", 2600, baseline=True)
    home.advance(120)
    await clock.advance(0.1)
    reports = client.session.reports()
    values = [r.data for report in reports for r in report.attribute_reports]
    assert values and values[-1] == home.read("sensor", 1, "TemperatureMeasurement", "MeasuredValue")
    assert isinstance(values[-1], int) and values[-1] > 2000
    await model.close()


@run_async
async def test_events_are_pushed() -> None:
    home = fabric([("lamp", "on_off_light", "room")])
    node, model, client, clock = _setup(home)
    _, exchange = await _subscribe(client, [], events=[im.EventPath()], floor=0)
    primed = assemble(exchange.messages(im.Opcode.REPORT_DATA)).events
    node.set_reachable("lamp", False)
    await clock.advance(0.1)
    events = [e for report in client.session.reports() for e in report.event_reports]
    assert [(e.path.cluster, e.path.event) for e in events] == [(0x39, 3)]
    assert events[0].event_number > max(e.event_number for e in primed)
    await model.close()


@run_async
async def test_keep_subscriptions_false_replaces_and_true_keeps() -> None:
    home = fabric([("lamp", "on_off_light", "room")])
    _, model, client, _ = _setup(home)
    first, _ = await _subscribe(client, [P()])
    second, _ = await _subscribe(client, [P()], keep=True)
    assert set(model.subscriptions) == {first, second}
    third, _ = await _subscribe(client, [P()], keep=False)
    await settle()
    assert set(model.subscriptions) == {third}
    await model.close()


@run_async
async def test_subscription_ends_when_session_dies_or_controller_refuses() -> None:
    home = fabric([("lamp", "on_off_light", "room")])
    _, model, client, clock = _setup(home)
    sub_id, _ = await _subscribe(client, [P()], floor=0, ceiling=10)
    client.session.closed = True
    await clock.advance(20)
    assert sub_id not in model.subscriptions
    other = ImClient(model, FakeSession(node_id=0x3344))
    sub_id, _ = await _subscribe(other, [P()], floor=0, ceiling=10)
    other.session.report_status = Status.INVALID_SUBSCRIPTION
    home.invoke("lamp", 1, "OnOff", "On")
    await clock.advance(0.1)
    assert sub_id not in model.subscriptions
    sub_id, _ = await _subscribe(other, [P()], floor=0, ceiling=10)
    model.drop_session(other.session)
    await settle()
    assert sub_id not in model.subscriptions
    await model.close()


@run_async
async def test_invalid_subscribe_requests() -> None:
    home = fabric([("lamp", "on_off_light", "room")])
    _, model, client, _ = _setup(home)
    bad = im.SubscribeRequest(False, 10, 5, (P(),))
    exchange = await client.request(im.Opcode.SUBSCRIBE_REQUEST, im.encode(bad))
    assert [m.status for m in exchange.messages(im.Opcode.STATUS_RESPONSE)] == [Status.INVALID_ACTION]
    empty = im.SubscribeRequest(False, 0, 5)
    exchange = await client.request(im.Opcode.SUBSCRIBE_REQUEST, im.encode(empty))
    assert [m.status for m in exchange.messages(im.Opcode.STATUS_RESPONSE)] == [Status.INVALID_ACTION]
    assert not model.subscriptions


@run_async
async def test_removed_fabric_subscriptions_end_at_removal() -> None:
    """Fault 4: after RemoveFabric nothing more is reported to that fabric, even while its session lingers."""
    home = fabric([("lamp", "on_off_light", "room")])
    _, model, removed, clock = _setup(home)
    kept = ImClient(model, FakeSession(fabric_index=2, node_id=0x3344))
    gone_id, _ = await _subscribe(removed, [P()], floor=0, ceiling=10)
    kept_id, _ = await _subscribe(kept, [P()], floor=0, ceiling=10)
    reports_before = len(removed.session.reports())
    model.drop_fabric(1)
    home.invoke("lamp", 1, "OnOff", "On")
    await clock.advance(30)  # a change and several keep-alive periods
    assert set(model.subscriptions) == {kept_id} and gone_id not in model.subscriptions
    assert len(removed.session.reports()) == reports_before  # nothing went out over the removed fabric's session
    assert any(r.subscription_id == kept_id and r.attribute_reports for r in kept.session.reports())
    await model.close()


def test_granted_max_interval_is_short_but_within_the_controllers_bounds() -> None:
    assert granted_max_interval(1, 60) == GRANTED_MAX_INTERVAL_S < 60  # fast recovery: keep-alives come soon
    assert granted_max_interval(0, 1) == 1  # never above the ceiling
    assert granted_max_interval(20, 60) == 20  # never below the floor


@run_async
async def test_subscriptions_are_persisted_until_they_end_for_good() -> None:
    """Subscription resumption: what a restarted node needs is on disk; a crash keeps it, an end for good not."""
    from bridge.matter.codec.persistence import StateStore
    from bridge.matter.im.subscription_store import SubscriptionStore

    tmp_path = Path(tempfile.mkdtemp(prefix="hf-subs-"))
    home = fabric([("lamp", "on_off_light", "room")])
    clock = FakeClock()
    store = SubscriptionStore(StateStore(tmp_path))
    model = InteractionModel(BridgeNode(home), AllowAll(), clock=clock, store=store)
    client = ImClient(model, FakeSession(fabric_index=1, node_id=0x1122))
    client.session.peer_address = ("fd77::1", 5540, 0, 0)
    sub_id, _ = await _subscribe(client, [P(cluster=ON_OFF)], floor=0, ceiling=10, events=[im.EventPath(urgent=True)])
    (saved,) = SubscriptionStore(StateStore(tmp_path)).records()  # as a restarted node reads it
    assert (saved.subscription_id, saved.fabric_index, saved.node_id, saved.peer_address) == (
        sub_id,
        1,
        0x1122,
        ("fd77::1", 5540, 0, 0),
    )
    assert saved.attributes == (P(cluster=ON_OFF),) and saved.events == (im.EventPath(urgent=True),)
    assert (saved.min_interval, saved.max_interval) == (0, granted_max_interval(0, 10))
    model.drop_session(client.session)  # the session dies (shutdown, crash): still resumable
    await settle()
    assert [r.subscription_id for r in SubscriptionStore(StateStore(tmp_path)).records()] == [sub_id]
    second, _ = await _subscribe(client, [P()], floor=0, ceiling=10)  # replaces it (KeepSubscriptions false)
    await settle()
    assert [r.subscription_id for r in SubscriptionStore(StateStore(tmp_path)).records()] == [second]
    model.drop_fabric(1)
    assert SubscriptionStore(StateStore(tmp_path)).records() == []
    await model.close()


@run_async
async def test_a_resumed_subscription_primes_under_its_old_id_and_goes_on() -> None:
    from bridge.matter.codec.persistence import StateStore
    from bridge.matter.im.subscription_store import PersistedSubscription, SubscriptionStore

    tmp_path = Path(tempfile.mkdtemp(prefix="hf-subs-"))
    home = fabric([("lamp", "on_off_light", "room")])
    clock = FakeClock()
    store = SubscriptionStore(StateStore(tmp_path))
    model = InteractionModel(BridgeNode(home), AllowAll(), clock=clock, store=store)
    session = FakeSession(fabric_index=1, node_id=0x1122)
    record = PersistedSubscription(0xABCD0123, 1, 0x1122, (), ("fd77::1", 5540), (P(cluster=ON_OFF),), (), True, 0, 3)
    store.add(record)
    assert await model.resume_subscription(record, session)
    (priming,) = session.reports()
    assert priming.subscription_id == 0xABCD0123
    assert any(key[1:] == (ON_OFF, 0) for key in assemble([priming]).values)  # the lamp's OnOff, primed
    home.invoke("lamp", 1, "OnOff", "On")
    await clock.advance(0.1)
    assert [r.subscription_id for r in session.reports()[1:]] == [0xABCD0123]
    refusing = FakeSession(fabric_index=1, node_id=0x1122)
    refusing.report_status = Status.INVALID_SUBSCRIPTION  # the controller no longer knows that id
    other = PersistedSubscription(0x0BAD0BAD, 1, 0x1122, (), ("fd77::1", 5540), (P(),), (), True, 0, 3)
    store.add(other)
    assert not await model.resume_subscription(other, refusing)
    assert 0x0BAD0BAD not in model.subscriptions
    assert [r.subscription_id for r in store.records()] == [0xABCD0123]
    await model.close()
