"""The fabric table (spec §11.18.5): fabrics this node joined, their ACL entries and group keys.

One JSON document (``fabrics``) holds everything, so a fabric and the ACL entry that goes with it
are written atomically together. Values follow the cluster layer's conventions (structs as dicts
with chip lowerCamel labels, octet strings as hex text), so the root clusters can serve them as is.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from bridge.matter.codec.persistence import StateStore
from bridge.matter.crypto.crypto import load_private_key
from bridge.matter.crypto.fabric_keys import compressed_fabric_id, operational_group_key
from bridge.matter.session.case import CaseFabric
from clusters.status import HomeError, Status

__all__ = ["MAX_FABRICS", "FabricRecord", "FabricTable"]

log = logging.getLogger(__name__)

MAX_FABRICS = 5  # SupportedFabrics
MAX_ACL_ENTRIES_PER_FABRIC = 4
MAX_GROUP_KEYS_PER_FABRIC = 3
MAX_GROUPS_PER_FABRIC = 4


@dataclass
class FabricRecord:
    fabric_index: int
    fabric_id: int
    node_id: int
    vendor_id: int
    rcac: str  # TLV certificates, hex
    noc: str
    icac: str | None
    operational_key: str  # our private key for this fabric, hex (32 bytes)
    ipk_epoch_key: str  # from AddNOC IPKValue, hex
    label: str = ""

    @property
    def root_public_key(self) -> bytes:
        from bridge.matter.crypto.certificates import decode_tlv

        return decode_tlv(bytes.fromhex(self.rcac)).public_key

    @property
    def compressed_fabric_id(self) -> bytes:
        return compressed_fabric_id(self.root_public_key, self.fabric_id)

    def case_fabric(self) -> CaseFabric:
        cfid = self.compressed_fabric_id
        return CaseFabric(
            fabric_id=self.fabric_id,
            node_id=self.node_id,
            root_public_key=self.root_public_key,
            rcac=bytes.fromhex(self.rcac),
            noc=bytes.fromhex(self.noc),
            icac=bytes.fromhex(self.icac) if self.icac else None,
            operational_key=load_private_key(bytes.fromhex(self.operational_key)),
            ipk=operational_group_key(bytes.fromhex(self.ipk_epoch_key), cfid),
        )

    def descriptor(self) -> dict[str, Any]:
        """FabricDescriptorStruct."""
        return {
            "rootPublicKey": self.root_public_key.hex(),
            "vendorID": self.vendor_id,
            "fabricID": self.fabric_id,
            "nodeID": self.node_id,
            "label": self.label,
            "fabricIndex": self.fabric_index,
        }


class FabricTable:
    """In-memory table backed by the ``fabrics`` document; ``save()`` after every committed change.

    The document also carries the armed fail-safe's rollback point (``failsafe_rollback``): a node that
    stops while a fail-safe is armed — even by kill -9 — rolls back on the next start exactly as an expiry
    would (Core §11.10.7.2), so a half-commissioned fabric never survives a restart. A save that fails (a full
    disk) puts the in-memory table back to what is on disk before the error reaches the command, so memory
    never holds a fabric the disk does not.
    """

    def __init__(self, store: StateStore) -> None:
        self.store = store
        self.listeners: list[Callable[[], None]] = []  # told after every change (mDNS, reports)
        doc = store.load("fabrics", {}) or {}
        self._set_state(doc)
        self.pending_rollback: dict[str, Any] | None = None
        self._persisted = self._document()
        rollback = doc.get("failsafe_rollback")
        if rollback is not None:
            log.warning("the node stopped while a fail-safe was armed: rolling back as on expiry (Core §11.10.7.2)")
            self.restore(rollback)

    def _set_state(self, doc: dict[str, Any]) -> None:
        self.fabrics: dict[int, FabricRecord] = {
            int(r["fabric_index"]): FabricRecord(**r) for r in doc.get("fabrics", [])
        }
        self.acl: list[dict[str, Any]] = copy.deepcopy(list(doc.get("acl", [])))
        self.group_key_sets: dict[int, list[dict[str, Any]]] = {
            int(k): copy.deepcopy(v) for k, v in (doc.get("group_key_sets") or {}).items()
        }
        self.group_key_map: list[dict[str, Any]] = copy.deepcopy(list(doc.get("group_key_map", [])))
        self.next_index = int(doc.get("next_index", 1))

    # ------------------------------------------------------------------------------ persistence
    def snapshot(self) -> dict[str, Any]:
        return copy.deepcopy(
            {
                "fabrics": [asdict(r) for r in sorted(self.fabrics.values(), key=lambda r: r.fabric_index)],
                "acl": self.acl,
                "group_key_sets": {str(k): v for k, v in self.group_key_sets.items()},
                "group_key_map": self.group_key_map,
                "next_index": self.next_index,
            }
        )

    def _document(self) -> dict[str, Any]:
        doc = self.snapshot()
        if self.pending_rollback is not None:
            doc["failsafe_rollback"] = copy.deepcopy(self.pending_rollback)
        return doc

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Back to an earlier :meth:`snapshot` (fail-safe rollback); the fail-safe's rollback point goes too.

        The rollback happens in memory even when it cannot be written: the document on disk then still holds
        the rollback point, so the next start rolls back too."""
        self._set_state(snapshot)
        self.pending_rollback = None
        try:
            self.save()
        except HomeError:
            self._set_state(snapshot)
            self.pending_rollback = None
            log.error("the fail-safe rollback could not be stored: the next start rolls back from disk")

    def arm_rollback(self, snapshot: dict[str, Any] | None) -> None:
        """Persist (or, with None, clear) the armed fail-safe's rollback point; refused as a whole on failure."""
        previous = self.pending_rollback
        self.pending_rollback = snapshot
        try:
            self.save()
        except HomeError:
            self.pending_rollback = previous
            raise

    def save(self) -> None:
        document = self._document()
        try:
            self.store.save("fabrics", document)
        except OSError as error:
            # Memory goes back to what the disk holds: a command must not succeed in memory only.
            persisted = self._persisted
            self._set_state(persisted)
            self.pending_rollback = persisted.get("failsafe_rollback")
            log.error("could not write the fabric table (%s): the change is undone", error.strerror or error)
            raise HomeError.refused(
                Status.FAILURE, f"the fabric table could not be stored ({error.strerror or error}); nothing was changed"
            ) from None
        self._persisted = document
        for listener in list(self.listeners):
            listener()

    # ------------------------------------------------------------------------------ fabrics
    def allocate_index(self) -> int:
        """Fabric indices 1..254, not reused while in use (spec: monotonic where possible)."""
        for _ in range(254):
            candidate = self.next_index
            self.next_index = candidate % 254 + 1
            if candidate not in self.fabrics:
                return candidate
        raise RuntimeError("no free fabric index")

    def add(self, record: FabricRecord) -> None:
        self.fabrics[record.fabric_index] = record

    def remove(self, fabric_index: int) -> FabricRecord | None:
        record = self.fabrics.pop(fabric_index, None)
        self.acl = [e for e in self.acl if e.get("fabricIndex") != fabric_index]
        self.group_key_sets.pop(fabric_index, None)
        self.group_key_map = [e for e in self.group_key_map if e.get("fabricIndex") != fabric_index]
        return record

    def find(self, root_public_key: bytes, fabric_id: int) -> FabricRecord | None:
        return next(
            (r for r in self.fabrics.values() if r.fabric_id == fabric_id and r.root_public_key == root_public_key),
            None,
        )

    def case_fabrics(self) -> list[tuple[int, CaseFabric]]:
        return [(index, record.case_fabric()) for index, record in sorted(self.fabrics.items())]

    # ------------------------------------------------------------------------------ ACL
    def acl_for(self, fabric_index: int) -> list[dict[str, Any]]:
        return [e for e in self.acl if e.get("fabricIndex") == fabric_index]

    def set_acl_for(self, fabric_index: int, entries: list[dict[str, Any]]) -> None:
        self.acl = [e for e in self.acl if e.get("fabricIndex") != fabric_index] + [
            {**e, "fabricIndex": fabric_index} for e in entries
        ]
