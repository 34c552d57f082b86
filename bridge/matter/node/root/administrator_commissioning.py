"""Administrator Commissioning (0x003C): open a new window so another admin can join (multi-admin).

All three commands need a timed invoke (spec §11.19.8). Cluster-specific failures (Busy,
PAKEParameterError, WindowNotOpen) answer FAILURE with that cluster status (StatusIB ClusterStatus).
"""

from __future__ import annotations

from typing import Any

import clusters.official as Objects
from bridge.matter.node.commissioning import WindowKind
from bridge.matter.node.root.services import RootServices, request_context
from bridge.matter.session.handshake import PaseVerifier
from bridge.matter.session.handshake_messages import MAX_ITERATIONS, MAX_SALT
from bridge.matter.session.pase import MIN_ITERATIONS, MIN_SALT
from clusters.base import ClusterServer, command
from clusters.status import HomeError, Status

__all__ = ["AdministratorCommissioningServer"]

MIN_WINDOW_S, MAX_WINDOW_S = 180, 900
BASIC_FEATURE = 0x01
StatusCode = Objects.AdministratorCommissioning.Enums.StatusCode


class AdministratorCommissioningServer(ClusterServer):
    cluster_name = "AdministratorCommissioning"
    revision = 1
    default_features = BASIC_FEATURE
    defaults = {"WindowStatus": WindowKind.CLOSED, "AdminFabricIndex": None, "AdminVendorId": None}

    def __init__(self, services: RootServices) -> None:
        super().__init__()
        self.services = services
        window = services.window
        self.bind_source("WindowStatus", lambda: window.status)
        self.bind_source("AdminFabricIndex", lambda: window.admin_fabric_index)
        self.bind_source("AdminVendorId", lambda: window.admin_vendor_id)
        window.on_change.append(self._window_changed)

    def _window_changed(self) -> None:
        for name in ("WindowStatus", "AdminFabricIndex", "AdminVendorId"):
            self.notify(name, None, self.read(name))

    def _preconditions(self, timeout: int) -> Any:
        ctx = request_context()
        if not ctx.timed:
            raise HomeError.refused(Status.NEEDS_TIMED_INTERACTION, "this command needs a timed invoke")
        if self.services.window.is_open or self.services.failsafe.armed:
            raise HomeError.cluster_specific(StatusCode.kBusy, "a commissioning window is open or a fail-safe is armed")
        if not MIN_WINDOW_S <= timeout <= MAX_WINDOW_S:
            raise HomeError.refused(
                Status.INVALID_COMMAND, f"CommissioningTimeout must be {MIN_WINDOW_S}..{MAX_WINDOW_S}"
            )
        record = self.services.table.fabrics.get(ctx.fabric_index or -1)
        return ctx, record

    @command("OpenCommissioningWindow")
    def open_commissioning_window(
        self, commissioningTimeout: int, PAKEPasscodeVerifier: str, discriminator: int, iterations: int, salt: str
    ) -> None:
        ctx, record = self._preconditions(commissioningTimeout)
        verifier, salt_bytes = bytes.fromhex(PAKEPasscodeVerifier), bytes.fromhex(salt)
        if (
            len(verifier) != 97
            or not MIN_ITERATIONS <= iterations <= MAX_ITERATIONS
            or not MIN_SALT <= len(salt_bytes) <= MAX_SALT
            or discriminator > 0xFFF
        ):
            raise HomeError.cluster_specific(StatusCode.kPAKEParameterError, "invalid PAKE parameters")
        self.services.window.open_enhanced(
            PaseVerifier(verifier[:32], verifier[32:], salt_bytes, iterations),
            discriminator,
            commissioningTimeout,
            admin_fabric_index=ctx.fabric_index,
            admin_vendor_id=record.vendor_id if record else None,
        )

    @command("OpenBasicCommissioningWindow")
    def open_basic_commissioning_window(self, commissioningTimeout: int) -> None:
        ctx, record = self._preconditions(commissioningTimeout)
        self.services.window.open_basic(
            commissioningTimeout,
            admin_fabric_index=ctx.fabric_index,
            admin_vendor_id=record.vendor_id if record else None,
        )

    @command("RevokeCommissioning")
    def revoke_commissioning(self) -> None:
        ctx = request_context()
        if not ctx.timed:
            raise HomeError.refused(Status.NEEDS_TIMED_INTERACTION, "this command needs a timed invoke")
        if not self.services.window.is_open:
            raise HomeError.cluster_specific(StatusCode.kWindowNotOpen, "no commissioning window is open")
        self.services.failsafe.expire()
        self.services.window.close()
