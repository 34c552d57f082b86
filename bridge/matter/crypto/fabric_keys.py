"""Per-fabric derivations (spec §4.3.2.2, §4.17.2, §4.14.2.4).

* compressed fabric id: names the fabric in operational DNS-SD (``<CFID>-<NodeID>._matter._tcp``);
* operational group key (IPK) derived from the epoch key the commissioner sends in AddNOC;
* CASE destination identifier: lets a responder find which fabric/node a Sigma1 is meant for.
"""

from __future__ import annotations

import socket
import struct

from bridge.matter.crypto.crypto import hkdf_sha256, hmac_sha256

__all__ = [
    "compressed_fabric_id",
    "destination_id",
    "group_multicast_address",
    "group_session_id",
    "operational_group_key",
]


def compressed_fabric_id(root_public_key: bytes, fabric_id: int) -> bytes:
    """HKDF(root public key without its 0x04 prefix, salt = fabric id BE64, "CompressedFabric", 8)."""
    return hkdf_sha256(root_public_key[1:], struct.pack(">Q", fabric_id), b"CompressedFabric", 8)


def operational_group_key(epoch_key: bytes, compressed_fabric: bytes) -> bytes:
    """The IPK used by CASE: HKDF(epoch key, salt = compressed fabric id, "GroupKey v1.0", 16)."""
    return hkdf_sha256(epoch_key, compressed_fabric, b"GroupKey v1.0", 16)


def destination_id(ipk: bytes, initiator_random: bytes, root_public_key: bytes, fabric_id: int, node_id: int) -> bytes:
    """HMAC(IPK, initiatorRandom || root public key || fabric id LE64 || node id LE64)."""
    return hmac_sha256(ipk, initiator_random + root_public_key + struct.pack("<QQ", fabric_id, node_id))


def group_session_id(operational_key: bytes) -> int:
    """The 16-bit group session id of an operational group key: HKDF(key, [], "GroupKeyHash", 2), big-endian."""
    return int.from_bytes(hkdf_sha256(operational_key, b"", b"GroupKeyHash", 2), "big")


def group_multicast_address(fabric_id: int, group_id: int) -> str:
    """The IPv6 multicast address of a fabric's group (Core §2.5.6.2): FF35:0040:FD<fabric id>00:<group id>."""
    raw = bytes((0xFF, 0x35, 0x00, 0x40, 0xFD)) + struct.pack(">Q", fabric_id) + b"\x00" + struct.pack(">H", group_id)
    return socket.inet_ntop(socket.AF_INET6, raw)
