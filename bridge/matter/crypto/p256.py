"""NIST P-256 group arithmetic on affine points, for SPAKE2+.

``cryptography`` offers ECDSA/ECDH but no point addition or multiplication of arbitrary points,
which SPAKE2+ needs (``X + w0*M``, ``y*(X - w0*N)``...). This is a small constant-curve
implementation in Jacobian coordinates; it is not constant-time, which is acceptable for an
emulator whose secrets are test passcodes.
"""

from __future__ import annotations

__all__ = ["N_ORDER", "B", "G", "P", "Point", "add", "decode_point", "encode_point", "is_on_curve", "mul", "neg"]

P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
A = P - 3
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
N_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
G = (
    0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
    0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5,
)

Point = tuple[int, int] | None  # None is the point at infinity


def is_on_curve(point: Point) -> bool:
    if point is None:
        return False
    x, y = point
    return 0 <= x < P and 0 <= y < P and (y * y - (x * x * x + A * x + B)) % P == 0


def encode_point(point: Point) -> bytes:
    """SEC1 uncompressed encoding (65 bytes)."""
    if point is None:
        raise ValueError("the point at infinity has no uncompressed encoding")
    return b"\x04" + point[0].to_bytes(32, "big") + point[1].to_bytes(32, "big")


def decode_point(data: bytes) -> tuple[int, int]:
    """Decode an uncompressed (65-byte) or compressed (33-byte) point and check it is on the curve."""
    if len(data) == 65 and data[0] == 0x04:
        point = (int.from_bytes(data[1:33], "big"), int.from_bytes(data[33:], "big"))
    elif len(data) == 33 and data[0] in (0x02, 0x03):
        x = int.from_bytes(data[1:], "big")
        if x >= P:
            raise ValueError("x coordinate out of range")
        y = pow((x * x * x + A * x + B) % P, (P + 1) // 4, P)  # P = 3 mod 4
        if y & 1 != data[0] & 1:
            y = P - y
        point = (x, y)
    else:
        raise ValueError("not a SEC1 P-256 point encoding")
    if not is_on_curve(point):
        raise ValueError("point is not on P-256")
    return point


def neg(point: Point) -> Point:
    return None if point is None else (point[0], (-point[1]) % P)


def add(p1: Point, p2: Point) -> Point:
    return _to_affine(_jacobian_add(_to_jacobian(p1), _to_jacobian(p2)))


def mul(scalar: int, point: Point) -> Point:
    """``scalar * point`` by left-to-right double-and-add."""
    scalar %= N_ORDER
    if scalar == 0 or point is None:
        return None
    base = _to_jacobian(point)
    acc = (1, 1, 0)
    for bit in bin(scalar)[2:]:
        acc = _jacobian_double(acc)
        if bit == "1":
            acc = _jacobian_add(acc, base)
    return _to_affine(acc)


# Jacobian coordinates: (X, Y, Z) represents (X/Z^2, Y/Z^3); Z == 0 is infinity.
_Jacobian = tuple[int, int, int]


def _to_jacobian(point: Point) -> _Jacobian:
    return (1, 1, 0) if point is None else (point[0], point[1], 1)


def _to_affine(point: _Jacobian) -> Point:
    x, y, z = point
    if z == 0:
        return None
    z_inv = pow(z, -1, P)
    z_inv2 = z_inv * z_inv % P
    return (x * z_inv2 % P, y * z_inv2 * z_inv % P)


def _jacobian_double(point: _Jacobian) -> _Jacobian:
    x, y, z = point
    if z == 0 or y == 0:
        return (1, 1, 0)
    # a = -3 lets M = 3(X - Z^2)(X + Z^2).
    z2 = z * z % P
    y2 = y * y % P
    s = 4 * x * y2 % P
    m = 3 * (x - z2) * (x + z2) % P
    x3 = (m * m - 2 * s) % P
    y3 = (m * (s - x3) - 8 * y2 * y2) % P
    z3 = 2 * y * z % P
    return (x3, y3, z3)


def _jacobian_add(p1: _Jacobian, p2: _Jacobian) -> _Jacobian:
    x1, y1, z1 = p1
    x2, y2, z2 = p2
    if z1 == 0:
        return p2
    if z2 == 0:
        return p1
    z1z1 = z1 * z1 % P
    z2z2 = z2 * z2 % P
    u1 = x1 * z2z2 % P
    u2 = x2 * z1z1 % P
    s1 = y1 * z2 * z2z2 % P
    s2 = y2 * z1 * z1z1 % P
    if u1 == u2:
        return _jacobian_double(p1) if s1 == s2 else (1, 1, 0)
    h = (u2 - u1) % P
    r = (s2 - s1) % P
    h2 = h * h % P
    h3 = h * h2 % P
    u1h2 = u1 * h2 % P
    x3 = (r * r - h3 - 2 * u1h2) % P
    y3 = (r * (u1h2 - x3) - s1 * h3) % P
    z3 = h * z1 * z2 % P
    return (x3, y3, z3)
