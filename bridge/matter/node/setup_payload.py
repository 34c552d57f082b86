"""Onboarding payloads (spec §5.1): the 11-digit manual pairing code and the ``MT:`` QR payload.

The terminal QR code uses ``segno``: pure Python, no dependencies (``qrcode`` pulls Pillow for
most uses), and it renders directly to a terminal with ``segno.make(...).terminal(compact=True)``.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

__all__ = ["SetupPayload", "base38_encode", "verhoeff_check_digit"]

DISCOVERY_SOFT_AP = 0x01
DISCOVERY_BLE = 0x02
DISCOVERY_ON_NETWORK = 0x04

_BASE38 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-."

# Verhoeff tables: dihedral group D5 multiplication, position permutation, inverse.
_D = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
    [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
    [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
    [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
    [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
    [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
    [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
]
_P = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
    [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
    [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
    [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
    [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
    [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
    [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
]
_INV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def verhoeff_check_digit(digits: str) -> str:
    check = 0
    for position, char in enumerate(reversed(digits)):
        check = _D[check][_P[(position + 1) % 8][int(char)]]
    return str(_INV[check])


def base38_encode(data: bytes) -> str:
    """Spec §5.1.3.1: 3-byte little-endian chunks -> 5 chars, 2 bytes -> 4 chars, 1 byte -> 2 chars."""
    out = []
    for start in range(0, len(data), 3):
        chunk = data[start : start + 3]
        value = int.from_bytes(chunk, "little")
        for _ in range({3: 5, 2: 4, 1: 2}[len(chunk)]):
            value, digit = divmod(value, 38)
            out.append(_BASE38[digit])
    return "".join(out)


@dataclass(frozen=True)
class SetupPayload:
    passcode: int
    discriminator: int  # 12 bits
    vendor_id: int
    product_id: int
    discovery: int = DISCOVERY_ON_NETWORK
    flow: int = 0  # standard commissioning flow

    def __post_init__(self) -> None:
        if not 0 <= self.discriminator <= 0xFFF:
            raise ValueError("the discriminator has 12 bits")
        if not 1 <= self.passcode <= 99999998:
            raise ValueError("the passcode is 1..99999998")

    @property
    def short_discriminator(self) -> int:
        return self.discriminator >> 8

    def manual_code(self) -> str:
        """The 11-digit manual pairing code (no VID/PID: standard flow)."""
        short = self.short_discriminator
        chunk1 = short >> 2  # VID_PID_PRESENT bit (bit 2) stays 0
        chunk2 = ((short & 0x3) << 14) | (self.passcode & 0x3FFF)
        chunk3 = self.passcode >> 14
        digits = f"{chunk1:01d}{chunk2:05d}{chunk3:04d}"
        return digits + verhoeff_check_digit(digits)

    @staticmethod
    def format_manual(code: str) -> str:
        return f"{code[:4]}-{code[4:7]}-{code[7:]}"

    def qr_payload(self) -> str:
        """``MT:`` + base-38 of the 88-bit packed payload (fields LSB-first)."""
        fields = (
            (0, 3),  # version
            (self.vendor_id, 16),
            (self.product_id, 16),
            (self.flow, 2),
            (self.discovery, 8),
            (self.discriminator, 12),
            (self.passcode, 27),
            (0, 4),  # padding
        )
        value, shift = 0, 0
        for field_value, bits in fields:
            value |= (field_value & ((1 << bits) - 1)) << shift
            shift += bits
        return "MT:" + base38_encode(value.to_bytes(11, "little"))

    def terminal_qr(self) -> str:
        """The QR code as text for a terminal (segno compact rendering)."""
        import segno  # imported lazily: only the CLI prints it

        buffer = io.StringIO()
        segno.make(self.qr_payload(), error="m").terminal(out=buffer, compact=True)
        return buffer.getvalue()
