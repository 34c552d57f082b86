"""General Diagnostics (0x0033): the node's network interfaces, reboot count, uptime, boot reason, and the
test-event trigger gate.

The node hands in what only it knows — the persisted reboot count, a clock for UpTime, the interfaces —
so the server stays free of networking and storage. It emits BootReason once it sits on its endpoint.
TestEventTrigger is refused unless a non-zero test enable key is configured and given (spec §11.12.7.1).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Mapping
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer, EventPriority, command
from clusters.status import HomeError, Status

BootReason = Objects.GeneralDiagnostics.Enums.BootReasonEnum
InterfaceType = Objects.GeneralDiagnostics.Enums.InterfaceTypeEnum
ENABLE_KEY_BYTES = 16


class GeneralDiagnosticsServer(ClusterServer):
    __slots__ = ("_boot_reported", "_enable_key", "_posix_time_ms", "_triggers", "_uptime_s")
    cluster_name = "GeneralDiagnostics"
    revision = 2
    defaults = {
        "NetworkInterfaces": [],
        "RebootCount": 0,
        "UpTime": 0,
        "BootReason": int(BootReason.kUnspecified),
        "TestEventTriggersEnabled": False,
    }
    events = ("BootReason",)

    def __init__(
        self,
        *,
        reboot_count: int = 0,
        boot_reason: int = int(BootReason.kUnspecified),
        uptime_s: Callable[[], float] | None = None,
        network_interfaces: Callable[[], list[dict[str, Any]]] | None = None,
        posix_time_ms: Callable[[], int | None] | None = None,
        test_enable_key: bytes | None = None,
        test_event_triggers: Mapping[int, Callable[[], None]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.restore("RebootCount", reboot_count)
        self.restore("BootReason", boot_reason)
        self._uptime_s = uptime_s or (lambda: 0.0)
        self._posix_time_ms = posix_time_ms or (lambda: None)
        self._enable_key = test_enable_key if test_enable_key and any(test_enable_key) else None
        self._triggers = dict(test_event_triggers or {})
        self.restore("TestEventTriggersEnabled", self._enable_key is not None)
        self.bind_source("UpTime", lambda: int(self._uptime_s()))
        if network_interfaces is not None:
            self.bind_source("NetworkInterfaces", network_interfaces)
        self._boot_reported = False

    def on_attach(self) -> None:
        if not self._boot_reported:  # once per boot (Core §11.12.8.4)
            self._boot_reported = True
            self.emit_event("BootReason", {"bootReason": self.read("BootReason")}, EventPriority.CRITICAL)

    @command("TestEventTrigger")
    def test_event_trigger(self, enableKey: str, eventTrigger: int) -> None:
        key = bytes.fromhex(enableKey)
        if self._enable_key is None or len(key) != ENABLE_KEY_BYTES or not hmac.compare_digest(key, self._enable_key):
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                "GeneralDiagnostics.TestEventTrigger: wrong EnableKey"
                if self._enable_key
                else "GeneralDiagnostics.TestEventTrigger: test events are disabled",
            )
        trigger = self._triggers.get(int(eventTrigger))
        if trigger is None:
            raise HomeError.refused(
                Status.INVALID_COMMAND,
                f"unknown EventTrigger 0x{int(eventTrigger):016x}",
                allowed=[f"0x{t:016x}" for t in sorted(self._triggers)],
            )
        trigger()

    @command("TimeSnapshot")
    def time_snapshot(self) -> dict[str, Any]:
        return {"systemTimeMs": int(self._uptime_s() * 1000), "posixTimeMs": self._posix_time_ms()}
