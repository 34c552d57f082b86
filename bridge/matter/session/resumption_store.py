"""CASE resumption records, persisted so that a restarted node still resumes its controllers' sessions.

One record per (fabric, peer node): the newest session's resumption id and ECDH secret (spec §4.14.2.2).
They live in the state directory's ``case_resumption`` document (written atomically, like the fabric table,
whose operational keys are as sensitive), at most :data:`MAX_RECORDS` of them, the least recently used
dropped first. A removed fabric's records go with it.

A save that fails (a full disk, a read-only state directory) is a one-line warning, not a failed handshake:
the records stay in memory and this run still resumes; only a restart before the next good save forgets them
(each peer then does one full CASE handshake).
"""

from __future__ import annotations

import logging

from bridge.matter.codec.persistence import StateStore
from bridge.matter.session.case import ResumptionRecord

__all__ = ["MAX_RECORDS", "ResumptionStore"]

MAX_RECORDS = 32  # as many as the node keeps secure sessions
DOCUMENT = "case_resumption"
log = logging.getLogger(__name__)


class ResumptionStore:
    def __init__(self, store: StateStore) -> None:
        self._store = store
        self._records: list[tuple[int, ResumptionRecord]] = []  # (fabric index, record), oldest first
        for entry in store.load(DOCUMENT, []) or []:
            try:
                self._records.append(
                    (
                        int(entry["fabric_index"]),
                        ResumptionRecord(
                            bytes.fromhex(entry["resumption_id"]),
                            bytes.fromhex(entry["shared_secret"]),
                            int(entry["fabric_id"]),
                            bytes.fromhex(entry["root_public_key"]),
                            int(entry["peer_node_id"]),
                            tuple(int(c) for c in entry.get("peer_cats", ())),
                        ),
                    )
                )
            except (KeyError, TypeError, ValueError):
                continue  # a damaged entry only costs that peer one full CASE handshake

    def __len__(self) -> int:
        return len(self._records)

    def find(self, resumption_id: bytes) -> ResumptionRecord | None:
        return next((record for _, record in self._records if record.resumption_id == resumption_id), None)

    def for_peer(self, fabric_index: int, peer_node_id: int) -> ResumptionRecord | None:
        return next((r for index, r in self._records if index == fabric_index and r.peer_node_id == peer_node_id), None)

    def remember(self, fabric_index: int, record: ResumptionRecord) -> None:
        """Keep ``record`` as the peer's only one (replacing its older session's)."""
        self._records = [
            (index, r)
            for index, r in self._records
            if not (index == fabric_index and r.peer_node_id == record.peer_node_id)
        ]
        self._records.append((fabric_index, record))
        del self._records[:-MAX_RECORDS]
        self._save()

    def forget_fabric(self, fabric_index: int) -> None:
        kept = [(index, r) for index, r in self._records if index != fabric_index]
        if len(kept) != len(self._records):
            self._records = kept
            self._save()

    def _save(self) -> None:
        try:
            self._write()
        except OSError as error:
            log.warning(
                "CASE resumption data not saved (%s): sessions resume until a restart, then need one "
                "full handshake each",
                error.strerror or error,
            )

    def _write(self) -> None:
        self._store.save(
            DOCUMENT,
            [
                {
                    "fabric_index": index,
                    "resumption_id": r.resumption_id.hex(),
                    "shared_secret": r.shared_secret.hex(),
                    "fabric_id": r.fabric_id,
                    "root_public_key": r.root_public_key.hex(),
                    "peer_node_id": r.peer_node_id,
                    "peer_cats": list(r.peer_cats),
                }
                for index, r in self._records
            ],
        )
