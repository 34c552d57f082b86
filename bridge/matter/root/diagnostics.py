"""The node's General Diagnostics server: a reboot count persisted in the state directory, the uptime of
this process, and the host interfaces the node listens on."""

from __future__ import annotations

import time

from bridge.matter.network_interfaces import network_interfaces
from bridge.matter.persistence import StateStore
from clusters.general_diagnostics import BootReason, GeneralDiagnosticsServer

DOCUMENT = "diagnostics"


def count_boot(store: StateStore) -> int:
    """Add this boot to the persisted reboot count (saved before use) and return the new count."""
    saved = store.load(DOCUMENT, {}) or {}
    count = (int(saved.get("reboot_count", 0)) + 1) & 0xFFFF
    store.save(DOCUMENT, {**saved, "reboot_count": count})
    return count


def general_diagnostics(store: StateStore, interfaces: list[str] | None = None) -> GeneralDiagnosticsServer:
    booted = time.monotonic()
    return GeneralDiagnosticsServer(
        reboot_count=count_boot(store),
        boot_reason=int(BootReason.kPowerOnReboot),  # a (re)started process is the emulated node powering up
        uptime_s=lambda: time.monotonic() - booted,
        network_interfaces=lambda: network_interfaces(interfaces),
        posix_time_ms=lambda: int(time.time() * 1000),
    )
