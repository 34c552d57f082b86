"""Receiving group-addressed messages (Core spec §4.16 groupcast, §4.17 group keys).

The fabric table's group key sets give, per fabric, operational group keys (HKDF of each epoch key with
the compressed fabric id) and their 16-bit group session ids. A datagram of session type Group is
tried against every key with its session id (the nonce uses the sender's node id from the header);
the one that authenticates names the fabric. The message is then accepted only if the fabric's
GroupKeyMap maps the destination group to that key set, and its counter is new for the sender
(trust-first, per fabric and source node, Core §4.6.5.2). What passes is handed on as a
``GroupMessage``; group messages are never acknowledged or answered.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from bridge.matter.codec.message import MessageError, MessageHeader, ProtocolHeader, ReceptionState, SessionType
from bridge.matter.crypto.crypto import AEAD_MIC_LENGTH, CryptoError, aead_decrypt, message_nonce
from bridge.matter.crypto.fabric_keys import group_multicast_address, group_session_id, operational_group_key
from bridge.matter.session.fabric_table import FabricTable

__all__ = ["GroupKey", "GroupMessage", "GroupReceiver"]

log = logging.getLogger(__name__)
_EPOCH_KEYS = ("epochKey0", "epochKey1", "epochKey2")
MAX_PEERS = 256  # receive windows kept (oldest dropped first)


@dataclass(frozen=True)
class GroupKey:
    fabric_index: int
    key_set_id: int
    operational_key: bytes
    session_id: int


@dataclass(frozen=True)
class GroupMessage:
    fabric_index: int
    source_node_id: int
    group_id: int
    protocol: ProtocolHeader
    payload: bytes  # the application payload after the protocol header


class GroupReceiver:
    def __init__(self, table: FabricTable, deliver: Callable[[GroupMessage], None]) -> None:
        self.table = table
        self._deliver = deliver
        self._keys: dict[int, list[GroupKey]] = {}
        self._windows: dict[tuple[int, int], ReceptionState] = {}
        self.rebuild()
        table.listeners.append(self.rebuild)

    def rebuild(self) -> None:
        """Derive the operational group keys of every fabric's key sets (after any fabric-table change)."""
        keys: dict[int, list[GroupKey]] = {}
        for fabric_index, key_sets in self.table.group_key_sets.items():
            record = self.table.fabrics.get(fabric_index)
            if record is None:
                continue
            compressed = record.compressed_fabric_id
            for key_set in key_sets:
                if int(key_set["groupKeySetID"]) == 0:
                    continue  # the IPK key set is for CASE, not for group messages
                for name in _EPOCH_KEYS:
                    epoch = key_set.get(name)
                    if not epoch:
                        continue
                    key = operational_group_key(bytes.fromhex(epoch), compressed)
                    entry = GroupKey(fabric_index, int(key_set["groupKeySetID"]), key, group_session_id(key))
                    keys.setdefault(entry.session_id, []).append(entry)
        self._keys = keys
        live = set(self.table.fabrics)
        self._windows = {k: v for k, v in self._windows.items() if k[0] in live}

    def multicast_addresses(self) -> list[str]:
        """The groups' IPv6 multicast addresses this node must listen on (per GroupKeyMap entry)."""
        out = set()
        for entry in self.table.group_key_map:
            record = self.table.fabrics.get(int(entry.get("fabricIndex", 0)))
            if record is not None:
                out.add(group_multicast_address(record.fabric_id, int(entry["groupId"])))
        return sorted(out)

    def _mapped(self, fabric_index: int, group_id: int, key_set_id: int) -> bool:
        return any(
            int(e.get("fabricIndex", 0)) == fabric_index
            and int(e["groupId"]) == group_id
            and int(e["groupKeySetID"]) == key_set_id
            for e in self.table.group_key_map
        )

    def receive(self, datagram: bytes) -> GroupMessage | None:
        """Open one group-session datagram; delivers and returns it, or None when it is dropped."""
        header, offset = MessageHeader.decode(datagram)
        if header.session_type != SessionType.GROUP:
            raise MessageError("not a group message")
        if header.privacy:
            log.debug("group message with privacy obfuscation dropped (not supported)")
            return None
        if header.source_node_id is None or header.destination_group_id is None:
            return None  # a group message names its sender and its group (§4.4.1.1)
        if len(datagram) - offset < AEAD_MIC_LENGTH:
            return None
        aad = bytes(datagram[:offset])
        nonce = message_nonce(aad[3], header.message_counter, header.source_node_id)
        for key in self._keys.get(header.session_id, ()):
            try:
                plaintext = aead_decrypt(key.operational_key, nonce, bytes(datagram[offset:]), aad)
            except CryptoError:
                continue
            return self._accept(key, header, plaintext)
        return None

    def _accept(self, key: GroupKey, header: MessageHeader, plaintext: bytes) -> GroupMessage | None:
        group_id = header.destination_group_id
        assert group_id is not None and header.source_node_id is not None
        if not self._mapped(key.fabric_index, group_id, key.key_set_id):
            log.debug("group 0x%04x has no key map entry for key set %d", group_id, key.key_set_id)
            return None
        window_key = (key.fabric_index, header.source_node_id)
        window = self._windows.pop(window_key, None) or ReceptionState(rollover=True)
        self._windows[window_key] = window  # most recent last
        while len(self._windows) > MAX_PEERS:
            self._windows.pop(next(iter(self._windows)))
        if not window.check_and_mark(header.message_counter):
            return None  # a duplicate (multicast often arrives more than once)
        protocol, offset = ProtocolHeader.decode(plaintext)
        message = GroupMessage(key.fabric_index, header.source_node_id, group_id, protocol, plaintext[offset:])
        self._deliver(message)
        return message
