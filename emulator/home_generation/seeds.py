"""Stable sub-seeds, so each part of a generated home has its own reproducible random stream."""

from __future__ import annotations

import hashlib


def sub_seed(*parts: object) -> int:
    """Stable sub-seed: blake2b-64 of "part|part|…" mod (2³¹−1), as SimuHome derives them."""
    digest = hashlib.blake2b("|".join(map(str, parts)).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % (2**31 - 1)
