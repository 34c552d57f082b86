"""A compact, cached index of the device catalogue, so listing it does not load the whole Matter model.

Building the catalogue imports every cluster server and the Matter model (a few tenths of a second of CPU).
The rows `homefabric devices types` prints depend only on our source (the catalogue and the cluster servers)
and on the chip model's version, so they are computed once and cached under a key hashed from exactly those
inputs: any edit to a catalogue or cluster module, or another chip version, makes a new key and the index is
rebuilt on first need.
The cache is a plain JSON file (``$HOMEFABRIC_CACHE_DIR``, else ``$XDG_CACHE_HOME/homefabric``, else
``~/.cache/homefabric``); when it cannot be written the rows are simply built each time.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parent.parent
# Every module a row can depend on: the catalogue itself and the cluster servers it builds.
_SOURCES = (_ROOT / "emulator" / "catalogue", _ROOT / "clusters")
_INDEX_VERSION = 1  # bump when the row format changes


def build_rows() -> list[dict[str, Any]]:
    """The rows from the live catalogue (the slow path; also what the cache must equal)."""
    from emulator.catalogue import CATALOGUE

    return [
        {
            "name": name,
            "label": spec.label,
            "origin": spec.origin,
            "device_type_id": spec.primary_device_type,
            "endpoints": [
                {
                    "endpoint": e.endpoint_id,
                    "device_types": [t for t, _ in e.device_types],
                    "clusters": [c.cluster for c in e.clusters],
                }
                for e in spec.endpoints
            ],
            "description": spec.description,
        }
        for name, spec in sorted(CATALOGUE.items())
    ]


def source_key() -> str:
    """sha256 over the index format, the chip model's version and every source file the rows come from."""
    from importlib.metadata import PackageNotFoundError, version

    digest = hashlib.sha256(f"index/{_INDEX_VERSION}\n".encode())
    try:
        digest.update(f"chip/{version('home-assistant-chip-clusters')}\n".encode())
    except PackageNotFoundError:
        digest.update(b"chip/unknown\n")
    for directory in _SOURCES:
        for path in sorted(directory.rglob("*.py")):
            digest.update(str(path.relative_to(_ROOT)).encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:24]


def cache_dir() -> Path:
    if os.environ.get("HOMEFABRIC_CACHE_DIR"):
        return Path(os.environ["HOMEFABRIC_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "homefabric"


def catalogue_rows() -> list[dict[str, Any]]:
    """The catalogue's rows: from the cache when its key matches, else built (and cached for next time)."""
    path = cache_dir() / f"catalogue-{source_key()}.json"
    try:
        cached: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
        return cached
    except (OSError, ValueError):
        pass
    rows = build_rows()
    try:
        from emulator.files import write_atomically

        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps(rows, separators=(",", ":")))
    except OSError:
        pass  # a read-only home: correct, just not cached
    return rows
