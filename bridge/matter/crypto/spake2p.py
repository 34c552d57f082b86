"""SPAKE2+ over P-256 with SHA-256, HKDF and HMAC, as profiled by Matter (spec §3.10).

The device is the *verifier* (it stores only ``w0`` and ``L = w1*G``); the commissioner is the
*prover* (it knows the passcode). The prover here exists for tests and tools.

Transcript: ``TT = len||Context || len||idP || len||idV || len||M || len||N || len||X || len||Y ||
len||Z || len||V || len||w0`` with 8-byte little-endian lengths; ``Ka || Ke = Hash(TT)``;
``KcA || KcB = HKDF(Ka, salt=[], "ConfirmationKeys", 32)``; ``cA = HMAC(KcA, Y)``,
``cB = HMAC(KcB, X)``. Matter uses empty identities and a Context derived from the PBKDF messages
(see :func:`bridge.matter.session.pase.pake_context`).
"""

from __future__ import annotations

import hmac as _hmac
import secrets
import struct
from dataclasses import dataclass, field

from bridge.matter.crypto import p256
from bridge.matter.crypto.crypto import hkdf_sha256, hmac_sha256, pbkdf2_sha256, sha256

__all__ = [
    "M",
    "N",
    "Spake2pError",
    "Spake2pProver",
    "Spake2pVerifier",
    "compute_verifier",
    "compute_w0_w1",
]

# The spec's fixed points (compressed SEC1), nothing-up-my-sleeve constants from the SPAKE2+ draft.
M_BYTES = bytes.fromhex("02886e2f97ace46e55ba9dd7242579f2993b64e16ef3dcab95afd497333d8fa12f")
N_BYTES = bytes.fromhex("03d8bbd6c639c62937b04d997f38c3770719c629d7014d49a24b4f98baa1292b49")
M = p256.decode_point(M_BYTES)
N = p256.decode_point(N_BYTES)

_WS_LENGTH = 40  # each of w0s, w1s: 40 bytes before reduction mod n (spec: CRYPTO_W_SIZE_BYTES + 8)


class Spake2pError(ValueError):
    """A share is not a valid point, or key confirmation failed."""


def compute_w0_w1(passcode: int, salt: bytes, iterations: int) -> tuple[int, int]:
    """``w0s || w1s = PBKDF2(passcode as LE32, salt, iterations, 80)``; reduce each mod n."""
    ws = pbkdf2_sha256(struct.pack("<I", passcode), salt, iterations, 2 * _WS_LENGTH)
    w0 = int.from_bytes(ws[:_WS_LENGTH], "big") % p256.N_ORDER
    w1 = int.from_bytes(ws[_WS_LENGTH:], "big") % p256.N_ORDER
    return w0, w1


def compute_verifier(passcode: int, salt: bytes, iterations: int) -> tuple[bytes, bytes]:
    """What a device stores: ``(w0 as 32 bytes, L = w1*G uncompressed)``."""
    w0, w1 = compute_w0_w1(passcode, salt, iterations)
    return w0.to_bytes(32, "big"), p256.encode_point(p256.mul(w1, p256.G))


def _random_scalar() -> int:
    return secrets.randbelow(p256.N_ORDER - 1) + 1


def _decode_share(data: bytes) -> tuple[int, int]:
    try:
        return p256.decode_point(bytes(data))
    except ValueError as exc:
        raise Spake2pError(f"invalid share: {exc}") from exc


@dataclass
class _Keys:
    ka: bytes
    ke: bytes
    kca: bytes
    kcb: bytes


def _transcript_keys(
    context: bytes, id_prover: bytes, id_verifier: bytes, x: bytes, y: bytes, z: bytes, v: bytes, w0: int
) -> _Keys:
    parts = (context, id_prover, id_verifier, p256.encode_point(M), p256.encode_point(N), x, y, z, v)
    tt = b"".join(struct.pack("<Q", len(part)) + part for part in parts)
    tt += struct.pack("<Q", 32) + w0.to_bytes(32, "big")
    digest = sha256(tt)
    ka, ke = digest[:16], digest[16:]
    kc = hkdf_sha256(ka, b"", b"ConfirmationKeys", 32)
    return _Keys(ka=ka, ke=ke, kca=kc[:16], kcb=kc[16:])


@dataclass
class Spake2pVerifier:
    """The device side. Call :meth:`respond` with the prover's share, then :meth:`confirm`."""

    w0: bytes
    L: bytes
    context: bytes
    id_prover: bytes = b""
    id_verifier: bytes = b""
    y: int = field(default_factory=_random_scalar)  # injectable for test vectors
    keys: _Keys | None = field(default=None, init=False)
    share_x: bytes = field(default=b"", init=False)
    share_y: bytes = field(default=b"", init=False)
    point_z: bytes = field(default=b"", init=False)
    point_v: bytes = field(default=b"", init=False)

    def respond(self, share_x: bytes) -> tuple[bytes, bytes]:
        """From the prover's ``X``, compute ``(Y, cB)`` (Pake2 content)."""
        w0 = int.from_bytes(self.w0, "big")
        point_x = _decode_share(share_x)
        point_l = _decode_share(self.L)
        point_y = p256.add(p256.mul(self.y, p256.G), p256.mul(w0, N))
        unblinded = p256.add(point_x, p256.neg(p256.mul(w0, M)))
        if unblinded is None:
            raise Spake2pError("degenerate share")
        self.share_x = p256.encode_point(point_x)
        self.share_y = p256.encode_point(point_y)
        self.point_z = p256.encode_point(p256.mul(self.y, unblinded))
        self.point_v = p256.encode_point(p256.mul(self.y, point_l))
        self.keys = _transcript_keys(
            self.context, self.id_prover, self.id_verifier, self.share_x, self.share_y, self.point_z, self.point_v, w0
        )
        return self.share_y, hmac_sha256(self.keys.kcb, self.share_x)

    def confirm(self, c_a: bytes) -> bytes:
        """Check the prover's ``cA`` (Pake3); returns the shared secret ``Ke``."""
        if self.keys is None:
            raise Spake2pError("respond() must come first")
        if not _hmac.compare_digest(hmac_sha256(self.keys.kca, self.share_y), bytes(c_a)):
            raise Spake2pError("key confirmation failed (wrong passcode?)")
        return self.keys.ke


@dataclass
class Spake2pProver:
    """The commissioner side (used by tests): :meth:`start`, then :meth:`finish`."""

    w0: int
    w1: int
    context: bytes
    id_prover: bytes = b""
    id_verifier: bytes = b""
    x: int = field(default_factory=_random_scalar)
    keys: _Keys | None = field(default=None, init=False)
    share_x: bytes = field(default=b"", init=False)
    point_z: bytes = field(default=b"", init=False)
    point_v: bytes = field(default=b"", init=False)

    @classmethod
    def from_passcode(cls, passcode: int, salt: bytes, iterations: int, context: bytes) -> Spake2pProver:
        w0, w1 = compute_w0_w1(passcode, salt, iterations)
        return cls(w0=w0, w1=w1, context=context)

    def start(self) -> bytes:
        """The prover's share ``X = x*G + w0*M`` (Pake1 content)."""
        self.share_x = p256.encode_point(p256.add(p256.mul(self.x, p256.G), p256.mul(self.w0, M)))
        return self.share_x

    def finish(self, share_y: bytes, c_b: bytes) -> tuple[bytes, bytes]:
        """Check the verifier's ``cB``; returns ``(cA, Ke)`` (Pake3 content and shared secret)."""
        point_y = _decode_share(share_y)
        unblinded = p256.add(point_y, p256.neg(p256.mul(self.w0, N)))
        if unblinded is None:
            raise Spake2pError("degenerate share")
        self.point_z = p256.encode_point(p256.mul(self.x, unblinded))
        self.point_v = p256.encode_point(p256.mul(self.w1, unblinded))
        y_bytes = p256.encode_point(point_y)
        self.keys = _transcript_keys(
            self.context, self.id_prover, self.id_verifier, self.share_x, y_bytes, self.point_z, self.point_v, self.w0
        )
        if not _hmac.compare_digest(hmac_sha256(self.keys.kcb, self.share_x), bytes(c_b)):
            raise Spake2pError("verifier's key confirmation failed")
        return hmac_sha256(self.keys.kca, y_bytes), self.keys.ke
