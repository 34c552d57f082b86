"""A tiny persistent key → JSON value store with atomic writes (endpoint map, event numbers).

The node runtime may hand the IM/bridge its own state object instead: anything with ``get(key)`` and
``set(key, value)`` (see :class:`KeyValueStore`) works.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Protocol

from emulator.files import write_atomically


class KeyValueStore(Protocol):
    def get(self, key: str, default: object = None) -> Any: ...

    def set(self, key: str, value: object) -> None: ...


class MemoryStore:
    """Non-persistent store (tests)."""

    def __init__(self, data: dict[str, Any] | None = None) -> None:
        self.data: dict[str, Any] = dict(data or {})

    def get(self, key: str, default: object = None) -> Any:
        return self.data.get(key, default)

    def set(self, key: str, value: object) -> None:
        self.data[key] = json.loads(json.dumps(value))  # store a copy, as a file would


class JsonFileStore:
    """All keys in one JSON file, rewritten atomically (temp file + fsync + rename) on every set."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._data: dict[str, Any] = {}
        if self.path.exists():
            loaded = json.loads(self.path.read_text() or "{}")
            if isinstance(loaded, dict):
                self._data = loaded

    def get(self, key: str, default: object = None) -> Any:
        return self._data.get(key, default)

    def set(self, key: str, value: object) -> None:
        self._data[key] = json.loads(json.dumps(value))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self.path, json.dumps(self._data, sort_keys=True))
