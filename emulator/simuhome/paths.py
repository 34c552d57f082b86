"""SimuHome attribute paths ⇄ ours (``endpoint.Cluster.Attribute``, chip cluster names)."""

from __future__ import annotations

import functools

from clusters.chip_model import GLOBAL_ATTRIBUTE_IDS
from emulator.home_config import ATTRIBUTE_PATH_PATTERN
from emulator.simuhome.values import chip_cluster_name, simuhome_cluster_name

# Global attributes describe the server implementation, not device state: our cluster servers own them.
GLOBAL_ATTRIBUTES = frozenset(GLOBAL_ATTRIBUTE_IDS)


@functools.lru_cache(maxsize=16384)  # the same paths recur in every home of a process
def our_path(path: str) -> str | None:
    """SimuHome attribute path → ours (chip cluster names), or None if we do not load it (kept in the origin)."""
    parts = path.split(".")
    if len(parts) != 3 or parts[2] in GLOBAL_ATTRIBUTES:
        return None
    endpoint, cluster, attribute = parts
    candidate = f"{endpoint}.{chip_cluster_name(cluster)}.{attribute}"
    return candidate if ATTRIBUTE_PATH_PATTERN.fullmatch(candidate) else None


def simuhome_path(path: str) -> str:
    endpoint, cluster, attribute = path.split(".")
    return f"{endpoint}.{simuhome_cluster_name(cluster)}.{attribute}"
