"""The node's state directory: named JSON documents written atomically, and crash-safe counters.

Layout (one file per document, ``<name>.json``): ``fabrics`` (fabric table incl. operational keys,
ACL, group keys), ``attestation`` (PAI/DAC and their keys), ``counters``, ``endpoint_map`` (owned
by the bridge), ``node`` (mDNS instance names, ...). Every write is temp file + fsync + os.replace
+ directory fsync, so a kill -9 at any instant leaves either the old or the new document, never a
torn one.

Counters follow the spec's persisted-counter rule (§4.6.1.2 for group counters, also used by the
SDK for event numbers): the *stored* value is always ahead of every value handed out; when the
live value reaches the stored limit a new limit ``value + window`` is persisted *before* the
value is used. After a restart (or kill -9) the counter resumes from the stored limit, so a value
is never reused (at most ``window`` values are skipped).
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path
from typing import Any

from emulator.files import fsync_directory, write_bytes_atomically

__all__ = ["CorruptStateError", "PersistentCounter", "StateStore"]

_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
DEFAULT_COUNTER_WINDOW = 1000


class CorruptStateError(ValueError):
    """A state document that is not JSON any more (a disk error, a hand edit); names the file and the fix."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        super().__init__(
            f"{path}: corrupt state file ({reason[:120]}); restore it from a backup, or delete it "
            f"to reset what it holds{_RESET_NOTES.get(path.stem, '')}"
        )


_RESET_NOTES = {
    "fabrics": " (the node then forgets its fabrics and must be commissioned again)",
    "attestation": " (new device attestation keys are made)",
    "counters": " (counters restart; controllers may need to re-establish sessions)",
    "endpoint_map": " (bridged devices may get new endpoint numbers)",
}


class StateStore:
    """JSON documents under ``directory``: ``load(name)`` / ``save(name, value)``."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()  # saves may come from the loop and from worker threads
        self._counters: dict[str, PersistentCounter] = {}

    def _path(self, name: str) -> Path:
        if not _NAME.match(name):
            raise ValueError(f"invalid state document name {name!r}")
        return self.directory / f"{name}.json"

    def load(self, name: str, default: object = None) -> Any:
        path = self._path(name)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return default
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise CorruptStateError(path, str(error)) from None

    def save(self, name: str, value: object) -> None:
        self.write_bytes(self._path(name).name, json.dumps(value, indent=1, sort_keys=True).encode())

    def write_bytes(self, filename: str, data: bytes) -> None:
        """Atomically replace ``filename`` (relative to the directory) with ``data``."""
        target = self.directory / filename
        with self._lock:
            write_bytes_atomically(target, data)

    # KeyValueStore protocol (bridge.matter.codec.kv_store): the bridge keeps its endpoint map here.
    def get(self, key: str, default: object = None) -> Any:
        return self.load(key, default)

    def set(self, key: str, value: object) -> None:
        self.save(key, value)

    def delete(self, name: str) -> None:
        with self._lock:
            self._path(name).unlink(missing_ok=True)
            fsync_directory(self.directory)

    def counter(self, name: str, *, window: int = DEFAULT_COUNTER_WINDOW, initial: int = 1) -> PersistentCounter:
        """The persisted monotonic counter ``name`` (one instance per store and name)."""
        if name not in self._counters:
            self._counters[name] = PersistentCounter(self, name, window=window, initial=initial)
        return self._counters[name]


class PersistentCounter:
    """A 32-bit monotonic counter that never repeats a value across restarts.

    Stored in the ``counters`` document as ``{name: limit}``; every value handed out is below the
    persisted limit.
    """

    def __init__(self, store: StateStore, name: str, *, window: int, initial: int) -> None:
        if window < 1:
            raise ValueError("counter window must be positive")
        self._store = store
        self.name = name
        self.window = window
        stored = (store.load("counters", {}) or {}).get(name)
        # Resume at the stored limit: every value below it may have been used before the stop.
        self._value = int(stored) if stored is not None else initial
        self._limit = self._value
        self._persist_limit(self._value + window)

    @property
    def value(self) -> int:
        """The next value :meth:`next` will return."""
        return self._value

    def next(self) -> int:
        if self._value >= self._limit:
            self._persist_limit(self._value + self.window)
        current = self._value
        if current > 0xFFFFFFFF:
            raise OverflowError(f"persisted counter {self.name} exhausted")
        self._value += 1
        return current

    def _persist_limit(self, limit: int) -> None:
        counters = dict(self._store.load("counters", {}) or {})
        counters[self.name] = limit
        self._store.save("counters", counters)  # persisted before any value below it is used
        self._limit = limit
