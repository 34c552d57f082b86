"""The Matter spec's crypto primitives (spec §3), on top of ``cryptography``.

Names follow the spec: Crypto_Hash = SHA-256, Crypto_HMAC = HMAC-SHA256, Crypto_KDF = HKDF-SHA256,
Crypto_PBKDF = PBKDF2-HMAC-SHA256, Crypto_AEAD = AES-128-CCM with a 13-byte nonce and 16-byte MIC,
Crypto_Sign/Verify = ECDSA P-256/SHA-256 with raw ``r || s`` signatures, Crypto_ECDH = P-256 ECDH
returning the 32-byte x coordinate. Public keys travel as 65-byte uncompressed points.
"""

from __future__ import annotations

import hashlib
import hmac
import struct

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESCCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

__all__ = [
    "AEAD_MIC_LENGTH",
    "AEAD_NONCE_LENGTH",
    "CryptoError",
    "PrivateKey",
    "PublicKey",
    "aead_decrypt",
    "aead_encrypt",
    "der_to_raw_signature",
    "ecdh",
    "generate_private_key",
    "hkdf_sha256",
    "hmac_sha256",
    "load_private_key",
    "load_public_key",
    "message_nonce",
    "pbkdf2_sha256",
    "private_key_bytes",
    "public_key_bytes",
    "raw_to_der_signature",
    "sha1_key_id",
    "sha256",
    "sign",
    "verify",
]

AEAD_MIC_LENGTH = 16
AEAD_NONCE_LENGTH = 13
_P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551

PrivateKey = ec.EllipticCurvePrivateKey
PublicKey = ec.EllipticCurvePublicKey


class CryptoError(ValueError):
    """Authentication failed or key material is invalid."""


# ------------------------------------------------------------------------ hashes and KDFs


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def sha1_key_id(public_key: bytes) -> bytes:
    """Subject/authority key identifier: SHA-1 of the 65-byte public key (RFC 5280 §4.2.1.2 (1))."""
    return hashlib.sha1(public_key).digest()


def hmac_sha256(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest()


def hkdf_sha256(ikm: bytes, salt: bytes, info: bytes, length: int) -> bytes:
    """Crypto_KDF. An empty salt is the RFC 5869 default (HashLen zero bytes): HMAC pads keys."""
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt or None, info=info).derive(ikm)


def pbkdf2_sha256(password: bytes, salt: bytes, iterations: int, length: int) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", password, salt, iterations, length)


# ---------------------------------------------------------------------------------- AEAD


def message_nonce(security_flags: int, message_counter: int, source_node_id: int) -> bytes:
    """The 13-byte CCM nonce: security flags, counter (LE32), source node id (LE64) (spec §4.8.1.1).

    For PASE sessions and for CASE sessions without a source node id in the header, the source is
    the sender's operational node id (0, the unspecified node id, for PASE).
    """
    return struct.pack("<BIQ", security_flags & 0xFF, message_counter, source_node_id)


def aead_encrypt(key: bytes, nonce: bytes, plaintext: bytes, aad: bytes) -> bytes:
    """AES-128-CCM: returns ciphertext || 16-byte MIC."""
    return AESCCM(key, tag_length=AEAD_MIC_LENGTH).encrypt(nonce, plaintext, aad)


def aead_decrypt(key: bytes, nonce: bytes, ciphertext_and_mic: bytes, aad: bytes) -> bytes:
    """Inverse of :func:`aead_encrypt`; :class:`CryptoError` when the MIC does not verify."""
    if len(ciphertext_and_mic) < AEAD_MIC_LENGTH:
        raise CryptoError("ciphertext shorter than the MIC")
    try:
        return AESCCM(key, tag_length=AEAD_MIC_LENGTH).decrypt(nonce, ciphertext_and_mic, aad)
    except InvalidTag as exc:
        raise CryptoError("message integrity check failed") from exc


# ------------------------------------------------------------------------------- P-256 keys


def generate_private_key() -> PrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def load_private_key(raw: bytes) -> PrivateKey:
    """A private key from its 32-byte big-endian scalar."""
    if len(raw) != 32:
        raise CryptoError("a P-256 private key is 32 bytes")
    scalar = int.from_bytes(raw, "big")
    if not 0 < scalar < _P256_ORDER:
        raise CryptoError("private key out of range")
    return ec.derive_private_key(scalar, ec.SECP256R1())


def private_key_bytes(key: PrivateKey) -> bytes:
    return key.private_numbers().private_value.to_bytes(32, "big")


def load_public_key(raw: bytes) -> PublicKey:
    """A public key from its 65-byte uncompressed encoding; rejects points not on the curve."""
    if len(raw) != 65 or raw[0] != 0x04:
        raise CryptoError("a P-256 public key is 65 bytes, uncompressed")
    try:
        return ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except ValueError as exc:
        raise CryptoError("public key is not a point on P-256") from exc


def public_key_bytes(key: PublicKey | PrivateKey) -> bytes:
    if isinstance(key, ec.EllipticCurvePrivateKey):
        key = key.public_key()
    return key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


# ------------------------------------------------------------------------------ ECDSA / ECDH


def raw_to_der_signature(raw: bytes) -> bytes:
    if len(raw) != 64:
        raise CryptoError("a raw P-256 signature is 64 bytes")
    return encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))


def der_to_raw_signature(der: bytes) -> bytes:
    try:
        r, s = decode_dss_signature(der)
    except ValueError as exc:
        raise CryptoError("malformed DER signature") from exc
    if r >= 1 << 256 or s >= 1 << 256:
        raise CryptoError("signature integer too large")
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def sign(key: PrivateKey, message: bytes) -> bytes:
    """Crypto_Sign: ECDSA-SHA256 over ``message``, returned as raw ``r || s`` (64 bytes)."""
    return der_to_raw_signature(key.sign(message, ec.ECDSA(hashes.SHA256())))


def verify(key: PublicKey | bytes, message: bytes, signature: bytes) -> bool:
    """Crypto_Verify with a raw ``r || s`` signature; False instead of raising on bad input."""
    try:
        public = load_public_key(key) if isinstance(key, bytes | bytearray) else key
        public.verify(raw_to_der_signature(signature), message, ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, CryptoError):
        return False
    return True


def ecdh(private: PrivateKey, peer_public: bytes) -> bytes:
    """Crypto_ECDH: the 32-byte x coordinate of ``private * peer_public``."""
    return private.exchange(ec.ECDH(), load_public_key(peer_public))
