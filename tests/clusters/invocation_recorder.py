"""A pytest plugin that records every cluster command actually run during a test session.

Wraps ``ClusterServer.invoke_validated`` — the one place every invocation passes after its arguments
were validated (``ClusterServer.invoke`` and ``EmulatedHome.invoke`` both end there) — and writes the
``[cluster, command]`` pairs seen to the JSON file named by ``HOMEFABRIC_INVOCATIONS_OUT`` at the end.
Used by ``test_registry.py``'s meta-test: ``-p tests.clusters.invocation_recorder``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from clusters.base import ClusterServer

OUT_ENV = "HOMEFABRIC_INVOCATIONS_OUT"
_seen: set[tuple[str, str]] = set()
_original = ClusterServer.invoke_validated


def _recording(self: ClusterServer, name: str, normalised: dict[str, Any]) -> dict[str, Any] | None:
    _seen.add((self.cluster_name, name))
    return _original(self, name, normalised)


def pytest_configure(config: Any) -> None:
    ClusterServer.invoke_validated = _recording  # type: ignore[method-assign]


def pytest_unconfigure(config: Any) -> None:
    ClusterServer.invoke_validated = _original  # type: ignore[method-assign]
    Path(os.environ[OUT_ENV]).write_text(json.dumps(sorted(_seen)))
