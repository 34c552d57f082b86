"""In-process stand-ins for the node runtime's exchanges and sessions, playing the controller's side.

``FakeExchange`` answers every ReportData chunk that expects a reply with StatusResponse(SUCCESS)
(as a controller does) and hands out queued replies for other messages. ``ImClient`` drives an
``InteractionModel`` like a controller and reassembles chunked reports (ListIndex-null appends).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bridge.matter.im import im_messages as im
from bridge.matter.im.interaction import InteractionModel
from bridge.matter.session.context import RequestContext
from clusters import Status


def case_context(
    session: Any = None, *, fabric_index: int = 1, node_id: int = 0x1122, timed: bool = False
) -> RequestContext:
    return RequestContext("case", fabric_index, node_id, (), None, timed, session)


class FakeExchange:
    def __init__(
        self,
        context: RequestContext,
        replies: Sequence[tuple[int, bytes]] | None = None,
        *,
        ack_reports: bool = True,
        report_status: int = Status.SUCCESS,
    ) -> None:
        self.context = context
        self.sent: list[tuple[int, bytes, bool]] = []
        self.replies = deque(replies or [])
        self.ack_reports = ack_reports
        self.report_status = report_status
        self.closed = False

    async def send(self, opcode: int, payload: bytes, *, expect_reply: bool) -> tuple[int, bytes] | None:
        self.sent.append((opcode, payload, expect_reply))
        await asyncio.sleep(0)
        if not expect_reply:
            return None
        if opcode == im.Opcode.REPORT_DATA and self.ack_reports:
            return im.Opcode.STATUS_RESPONSE, im.encode(im.StatusResponse(self.report_status))
        return self.replies.popleft() if self.replies else None

    async def close(self) -> None:
        self.closed = True

    def messages(self, opcode: int) -> list[Any]:
        return [im.decode_any(op, payload).message for op, payload, _ in self.sent if op == opcode]


class FakeSession:
    """A ReportSession: every report exchange it opens is recorded."""

    def __init__(self, *, fabric_index: int = 1, node_id: int = 0x1122) -> None:
        self.context = case_context(self, fabric_index=fabric_index, node_id=node_id)
        self.closed = False
        self.exchanges: list[FakeExchange] = []
        self.report_status = Status.SUCCESS
        self.peer_address: tuple[Any, ...] | None = None  # a real session's UDP peer; the IM persists it

    def open_exchange(self) -> FakeExchange:
        exchange = FakeExchange(self.context, report_status=self.report_status)
        self.exchanges.append(exchange)
        return exchange

    def reports(self) -> list[im.ReportData]:
        return [r for ex in self.exchanges for r in ex.messages(im.Opcode.REPORT_DATA)]


@dataclass
class Assembled:
    """Reassembled attribute values (decoded TLV objects) and statuses of a chunked report."""

    values: dict[tuple[int, int, int], Any] = field(default_factory=dict)
    versions: dict[tuple[int, int], int] = field(default_factory=dict)
    statuses: dict[tuple[int | None, int | None, int | None], int] = field(default_factory=dict)
    events: list[im.EventData] = field(default_factory=list)
    replaced: int = 0  # how many times a path was set twice (must stay 0)
    chunks: int = 0


def assemble(reports: list[im.ReportData]) -> Assembled:
    out = Assembled()
    for report in reports:
        out.chunks += 1
        for item in report.attribute_reports:
            if isinstance(item, im.AttributeStatus):
                out.statuses[(item.path.endpoint, item.path.cluster, item.path.attribute)] = item.status
                continue
            key = (item.path.endpoint, item.path.cluster, item.path.attribute)
            assert item.data_version is not None
            out.versions[key[:2]] = item.data_version
            if item.path.list_append:
                out.values[key].append(item.data)
            else:
                if key in out.values:
                    out.replaced += 1
                out.values[key] = list(item.data) if isinstance(item.data, list) else item.data
        for event in report.event_reports:
            if isinstance(event, im.EventData):
                out.events.append(event)
    return out


class ImClient:
    """Drives an InteractionModel like a controller would."""

    def __init__(self, model: InteractionModel, session: FakeSession | None = None) -> None:
        self.model = model
        self.session = session or FakeSession()

    def exchange(self, replies: list[tuple[int, bytes]] | None = None) -> FakeExchange:
        return FakeExchange(self.session.context, replies)

    async def request(
        self, opcode: int, payload: bytes, replies: list[tuple[int, bytes]] | None = None
    ) -> FakeExchange:
        exchange = self.exchange(replies)
        await self.model.handle_exchange(exchange, opcode, payload)
        return exchange

    async def read(
        self, attributes: list[im.AttributePath], events: list[im.EventPath] | None = None, **kwargs: Any
    ) -> tuple[Assembled, FakeExchange]:
        req = im.ReadRequest(tuple(attributes), tuple(events or ()), **kwargs)
        exchange = await self.request(im.Opcode.READ_REQUEST, im.encode(req))
        return assemble(exchange.messages(im.Opcode.REPORT_DATA)), exchange

    async def write(self, writes: list[im.AttributeData], *, timed: bool = False) -> list[im.AttributeStatus]:
        payload = im.encode(im.WriteRequest(tuple(writes), timed_request=timed))
        exchange = await self.request(im.Opcode.WRITE_REQUEST, payload)
        (response,) = exchange.messages(im.Opcode.WRITE_RESPONSE)
        return list(response.statuses)

    async def invoke(
        self, endpoint: int, cluster: int, command: int, fields: Any = None, *, timed: bool = False
    ) -> im.CommandData | im.CommandStatus | int:
        """The command's response IB, or the status of a StatusResponse."""
        req = im.InvokeRequest(
            (im.CommandData(im.CommandPath(endpoint, cluster, command), fields if fields is not None else {}),),
            timed_request=timed,
        )
        payload = im.encode(req)
        if timed:
            exchange = await self.request(
                im.Opcode.TIMED_REQUEST, im.encode(im.TimedRequest(1000)), [(im.Opcode.INVOKE_REQUEST, payload)]
            )
        else:
            exchange = await self.request(im.Opcode.INVOKE_REQUEST, payload)
        responses = exchange.messages(im.Opcode.INVOKE_RESPONSE)
        if responses:
            return responses[0].responses[0]
        statuses = exchange.messages(im.Opcode.STATUS_RESPONSE)
        return statuses[-1].status
