"""Subscriptions persisted for subscription resumption after a restart (spec §8.5: a publisher may keep its
subscriptions and, once up again, re-establish CASE to the subscriber and continue them).

Without it, a controller whose device crashed notices only when its liveness timer runs out (MaxInterval
plus its MRP allowance: over a minute for python-matter-server's [1, 60] s request). With it, the restarted
node reaches the controller itself within a round trip or two and sends the subscription's priming report
under the old subscription id.

A record is written when a subscription is established and deleted when it ends for good (replaced,
refused by the subscriber, its fabric removed, or resumption failed); a crash, kill -9 or a shutdown leaves
it in place, which is the point. Document ``subscriptions`` in the state directory, at most
:data:`MAX_RECORDS` (the oldest dropped first).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from bridge.matter.codec.persistence import StateStore
from bridge.matter.im.im_messages import AttributePath, EventPath

__all__ = ["MAX_RECORDS", "PersistedSubscription", "SubscriptionStore"]

MAX_RECORDS = 16
DOCUMENT = "subscriptions"


@dataclass(frozen=True)
class PersistedSubscription:
    subscription_id: int
    fabric_index: int
    node_id: int  # the subscriber
    cats: tuple[int, ...]
    peer_address: tuple[Any, ...]  # where the subscriber was reachable (its UDP socket)
    attributes: tuple[AttributePath, ...]
    events: tuple[EventPath, ...]
    fabric_filtered: bool
    min_interval: int
    max_interval: int

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["attributes"] = [[p.endpoint, p.cluster, p.attribute] for p in self.attributes]
        out["events"] = [[p.endpoint, p.cluster, p.event, p.urgent] for p in self.events]
        out["peer_address"] = list(self.peer_address)
        out["cats"] = list(self.cats)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PersistedSubscription:
        return cls(
            int(data["subscription_id"]),
            int(data["fabric_index"]),
            int(data["node_id"]),
            tuple(int(c) for c in data.get("cats", ())),
            tuple(data["peer_address"]),
            tuple(AttributePath(*p) for p in data["attributes"]),
            tuple(EventPath(p[0], p[1], p[2], None, bool(p[3])) for p in data["events"]),
            bool(data["fabric_filtered"]),
            int(data["min_interval"]),
            int(data["max_interval"]),
        )


class SubscriptionStore:
    def __init__(self, store: StateStore) -> None:
        self._store = store
        self._records: dict[int, PersistedSubscription] = {}
        for entry in store.load(DOCUMENT, []) or []:
            try:
                record = PersistedSubscription.from_json(entry)
            except (KeyError, TypeError, ValueError, IndexError):
                continue  # a damaged entry: that subscriber finds out through its own liveness timer
            self._records[record.subscription_id] = record

    def records(self) -> list[PersistedSubscription]:
        return list(self._records.values())

    def add(self, record: PersistedSubscription) -> None:
        self._records[record.subscription_id] = record
        while len(self._records) > MAX_RECORDS:
            del self._records[next(iter(self._records))]
        self._save()

    def remove_subscriber(self, fabric_index: int, node_id: int) -> None:
        """Forget every subscription of one subscriber (it has just replaced them with a new one)."""
        gone = [
            r.subscription_id for r in self._records.values() if r.fabric_index == fabric_index and r.node_id == node_id
        ]
        for subscription_id in gone:
            del self._records[subscription_id]
        if gone:
            self._save()

    def remove(self, subscription_id: int) -> None:
        if self._records.pop(subscription_id, None) is not None:
            self._save()

    def _save(self) -> None:
        self._store.save(DOCUMENT, [r.to_json() for r in self._records.values()])
