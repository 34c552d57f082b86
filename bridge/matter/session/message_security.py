"""Securing whole messages on a unicast session (spec §4.8): AES-CCM over the payload.

The message header is sent in clear and authenticated as additional data; the protocol header and
application payload are encrypted. Privacy obfuscation of the header (P flag) is not supported:
CHIP commissioners do not use it on unicast sessions, and such messages are rejected.
"""

from __future__ import annotations

from bridge.matter.codec.message import MessageError, MessageHeader
from bridge.matter.crypto.crypto import AEAD_MIC_LENGTH, CryptoError, aead_decrypt, aead_encrypt, message_nonce

__all__ = ["decrypt_message", "encrypt_message"]


def encrypt_message(header: MessageHeader, plaintext: bytes, key: bytes, nonce_source_node_id: int) -> bytes:
    """``header || AES-CCM(protocol header || payload) || MIC``, ready to send.

    ``nonce_source_node_id`` is the sender's node id (0 on PASE sessions); it is part of the nonce
    even when the header itself carries no source node id.
    """
    if header.privacy:
        raise MessageError("privacy-obfuscated messages are not supported")
    aad = header.encode()
    nonce = message_nonce(aad[3], header.message_counter, nonce_source_node_id)
    return aad + aead_encrypt(key, nonce, plaintext, aad)


def decrypt_message(datagram: bytes, key: bytes, nonce_source_node_id: int) -> tuple[MessageHeader, bytes]:
    """Authenticate and decrypt a datagram; returns its header and the decrypted payload.

    Raises :class:`MessageError` for a malformed header and :class:`CryptoError` when the MIC
    does not verify (wrong key, wrong nonce source, tampering).
    """
    header, offset = MessageHeader.decode(datagram)
    if header.privacy:
        raise MessageError("privacy-obfuscated messages are not supported")
    if len(datagram) - offset < AEAD_MIC_LENGTH:
        raise CryptoError("message shorter than its MIC")
    aad = bytes(datagram[:offset])
    nonce = message_nonce(aad[3], header.message_counter, nonce_source_node_id)
    return header, aead_decrypt(key, nonce, bytes(datagram[offset:]), aad)
