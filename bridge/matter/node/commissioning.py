"""Commissioning state of the node: the commissioning window (spec §5.4.2, §11.19) and the fail-safe
context (spec §11.10.7.2) with rollback.

Both run on real (wall) time through the asyncio loop: they protect the node against controllers
that vanish mid-way, independent of the emulated home's virtual clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bridge.matter.crypto.crypto import PrivateKey
from bridge.matter.crypto.spake2p import compute_verifier
from bridge.matter.session.fabric_table import FabricTable
from bridge.matter.session.handshake import PaseVerifier
from clusters.status import HomeError

__all__ = ["CommissioningWindow", "FailSafe", "WindowKind"]

log = logging.getLogger(__name__)

PASE_FAILURE_LIMIT = 20  # spec §5.4.2.1: exit commissioning mode after 20 failed PASE attempts
MAX_CUMULATIVE_FAILSAFE_S = 900
DEFAULT_ITERATIONS = 1000


class WindowKind:
    CLOSED = 0  # CommissioningWindowStatusEnum.kWindowNotOpen
    ENHANCED = 1
    BASIC = 2


@dataclass
class CommissioningWindow:
    """Which PASE verifier is on offer, until when, and who opened it."""

    passcode: int
    discriminator: int
    on_change: list[Callable[[], None]] = field(default_factory=list)
    status: int = WindowKind.CLOSED
    verifier: PaseVerifier | None = None
    window_discriminator: int = 0
    admin_fabric_index: int | None = None
    admin_vendor_id: int | None = None
    pase_failures: int = 0
    advertising: bool = False  # withdrawn while a PASE session is in use
    _timer: asyncio.TimerHandle | None = None
    _default: PaseVerifier | None = None

    def default_verifier(self) -> PaseVerifier:
        if self._default is None:  # PBKDF2 is slow-ish: computed once per run
            salt = secrets.token_bytes(32)
            w0, L = compute_verifier(self.passcode, salt, DEFAULT_ITERATIONS)
            self._default = PaseVerifier(w0, L, salt, DEFAULT_ITERATIONS)
        return self._default

    @property
    def is_open(self) -> bool:
        return self.status != WindowKind.CLOSED

    def open_basic(
        self, timeout_s: float | None, *, admin_fabric_index: int | None = None, admin_vendor_id: int | None = None
    ) -> None:
        self._open(
            WindowKind.BASIC,
            self.default_verifier(),
            self.discriminator,
            timeout_s,
            admin_fabric_index,
            admin_vendor_id,
        )

    def open_enhanced(
        self,
        verifier: PaseVerifier,
        discriminator: int,
        timeout_s: float,
        *,
        admin_fabric_index: int | None,
        admin_vendor_id: int | None,
    ) -> None:
        self._open(WindowKind.ENHANCED, verifier, discriminator, timeout_s, admin_fabric_index, admin_vendor_id)

    def _open(
        self,
        kind: int,
        verifier: PaseVerifier,
        discriminator: int,
        timeout_s: float | None,
        admin_fabric_index: int | None,
        admin_vendor_id: int | None,
    ) -> None:
        self._cancel_timer()
        self.status, self.verifier, self.window_discriminator = kind, verifier, discriminator
        self.admin_fabric_index, self.admin_vendor_id = admin_fabric_index, admin_vendor_id
        self.pase_failures = 0
        self.advertising = True
        if timeout_s is not None:
            self._timer = asyncio.get_running_loop().call_later(timeout_s, self._timeout)
        log.info(
            "event=window_open kind=%s discriminator=%d timeout_s=%s",
            "basic" if kind == WindowKind.BASIC else "enhanced",
            discriminator,
            timeout_s,
        )
        self._changed()

    def _timeout(self) -> None:
        log.info("event=window_timeout")
        self.close()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def close(self) -> None:
        self._cancel_timer()
        if self.status == WindowKind.CLOSED and not self.advertising:
            return
        self.status, self.verifier = WindowKind.CLOSED, None
        self.admin_fabric_index = self.admin_vendor_id = None
        self.advertising = False
        log.info("event=window_closed")
        self._changed()

    def current_verifier(self) -> PaseVerifier | None:
        return self.verifier if self.is_open else None

    def pase_failed(self) -> None:
        self.pase_failures += 1
        if self.pase_failures >= PASE_FAILURE_LIMIT:
            log.warning("%d failed PASE attempts: closing the commissioning window", self.pase_failures)
            self.close()

    def pase_established(self) -> None:
        self.pase_failures = 0
        if self.advertising:
            self.advertising = False  # one commissioner at a time: stop inviting others
            self._changed()

    def resume_advertising(self) -> None:
        if self.is_open and not self.advertising:
            self.advertising = True
            self._changed()

    def _changed(self) -> None:
        for listener in list(self.on_change):
            listener()


@dataclass
class FailSafe:
    """The fail-safe context: everything changed while armed is undone on expiry.

    Rollback works on a snapshot of the fabric table taken when the fail-safe is armed, plus the
    commissioning scratch state (pending trusted root, CSR key). ``on_rollback`` listeners undo the
    rest (breadcrumb, sessions of a removed fabric, PASE sessions, mDNS).
    """

    table: FabricTable
    on_rollback: list[Callable[[], None]] = field(default_factory=list)
    on_disarm: list[Callable[[], None]] = field(default_factory=list)
    armed: bool = False
    fabric_index: int | None = None  # accessing fabric that armed it (None over PASE)
    pending_root: bytes | None = None  # AddTrustedRootCertificate, consumed by AddNOC
    csr_key: PrivateKey | None = None
    csr_for_update: bool = False
    added_fabric_index: int | None = None
    updated_noc: bool = False
    _snapshot: dict[str, Any] | None = None
    _timer: asyncio.TimerHandle | None = None
    _first_armed: float = 0.0

    def busy_for(self, accessing_fabric: int | None) -> bool:
        return self.armed and self.fabric_index is not None and self.fabric_index != accessing_fabric

    def arm(self, seconds: int, accessing_fabric: int | None) -> None:
        """Arm or re-arm; 0 seconds expires it now (spec: immediate cleanup)."""
        if seconds == 0:
            if self.armed:
                self.expire()
            return
        if not self.armed:
            snapshot = self.table.snapshot()
            self.table.arm_rollback(snapshot)  # on disk first: a restart from here on rolls back (§11.10.7.2)
            self.armed = True
            self.fabric_index = accessing_fabric
            self._snapshot = snapshot
            self._first_armed = time.monotonic()
        remaining_cap = MAX_CUMULATIVE_FAILSAFE_S - (time.monotonic() - self._first_armed)
        delay = max(0.0, min(float(seconds), remaining_cap))
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(delay, self._on_timer)

    def _on_timer(self) -> None:
        log.warning("fail-safe expired: rolling back")
        self.expire()

    def expire(self) -> None:
        """Roll back everything done under the fail-safe."""
        if not self.armed:
            return
        snapshot = self._snapshot
        self._reset()
        if snapshot is not None and snapshot != self.table.snapshot():
            self.table.restore(snapshot)
        elif self.table.pending_rollback is not None:
            with contextlib.suppress(HomeError):  # not stored: the next start rolls back to the same state
                self.table.arm_rollback(None)
        for listener in list(self.on_rollback):
            listener()

    def commit(self) -> None:
        """CommissioningComplete: keep the changes, disarm (the rollback point is cleared on disk first)."""
        self.table.arm_rollback(None)
        self._reset()
        for listener in list(self.on_disarm):
            listener()

    def _reset(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        self.armed = False
        self.fabric_index = None
        self.pending_root = None
        self.csr_key = None
        self.csr_for_update = False
        self.added_fabric_index = None
        self.updated_noc = False
        self._snapshot = None
