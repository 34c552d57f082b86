"""General Commissioning (0x0030): the fail-safe, regulatory config and CommissioningComplete."""

from __future__ import annotations

import logging
from typing import Any

from bridge.matter.node.commissioning import MAX_CUMULATIVE_FAILSAFE_S
from bridge.matter.node.root.services import RootServices, request_context
from clusters.base import ClusterServer, command
from clusters.status import ClusterError, Status

__all__ = ["GeneralCommissioningServer"]

FAILSAFE_EXPIRY_S = 60  # BasicCommissioningInfo.FailSafeExpiryLengthSeconds (facts §4.2: ≥ 60)
OK, VALUE_OUTSIDE_RANGE, INVALID_AUTHENTICATION, NO_FAILSAFE, BUSY_WITH_OTHER_ADMIN = 0, 1, 2, 3, 4
INDOOR_OUTDOOR = 2

log = logging.getLogger(__name__)


def _response(code: int, text: str = "") -> dict[str, Any]:
    return {"errorCode": code, "debugText": text}


class GeneralCommissioningServer(ClusterServer):
    cluster_name = "GeneralCommissioning"
    revision = 1
    defaults = {
        "Breadcrumb": 0,
        "BasicCommissioningInfo": {
            "failSafeExpiryLengthSeconds": FAILSAFE_EXPIRY_S,
            "maxCumulativeFailsafeSeconds": MAX_CUMULATIVE_FAILSAFE_S,
        },
        "RegulatoryConfig": INDOOR_OUTDOOR,
        "LocationCapability": INDOOR_OUTDOOR,
        "SupportsConcurrentConnection": True,
    }

    def __init__(self, services: RootServices) -> None:
        super().__init__()
        self.services = services
        services.failsafe.on_rollback.append(self._on_rollback)
        stored = services.store.load("regulatory") or {}
        if "RegulatoryConfig" in stored:
            self.restore("RegulatoryConfig", stored["RegulatoryConfig"])

    def _on_rollback(self) -> None:
        self.set("Breadcrumb", 0)

    @command("ArmFailSafe")
    def arm_fail_safe(self, expiryLengthSeconds: int, breadcrumb: int) -> dict[str, Any]:
        ctx = request_context()
        failsafe, window = self.services.failsafe, self.services.window
        if failsafe.busy_for(ctx.fabric_index):
            return _response(BUSY_WITH_OTHER_ADMIN, "fail-safe armed by another fabric")
        if window.is_open and ctx.session_kind == "case" and not failsafe.armed:
            return _response(BUSY_WITH_OTHER_ADMIN, "a commissioning window is open")
        failsafe.arm(expiryLengthSeconds, ctx.fabric_index)
        if expiryLengthSeconds:
            self.set("Breadcrumb", breadcrumb)
        return _response(OK)

    @command("SetRegulatoryConfig")
    def set_regulatory_config(self, newRegulatoryConfig: int, countryCode: str, breadcrumb: int) -> dict[str, Any]:
        if len(countryCode) != 2:
            raise ClusterError(Status.CONSTRAINT_ERROR, "CountryCode must have two characters")
        if newRegulatoryConfig > INDOOR_OUTDOOR:
            raise ClusterError(Status.CONSTRAINT_ERROR, f"unknown regulatory location {newRegulatoryConfig}")
        capability = self.read("LocationCapability")
        if capability != INDOOR_OUTDOOR and newRegulatoryConfig != capability:
            return _response(VALUE_OUTSIDE_RANGE, "location not supported")
        self.set("RegulatoryConfig", newRegulatoryConfig)
        self.services.store.save("regulatory", {"RegulatoryConfig": newRegulatoryConfig, "CountryCode": countryCode})
        self.set("Breadcrumb", breadcrumb)
        return _response(OK)

    @command("CommissioningComplete")
    def commissioning_complete(self) -> dict[str, Any]:
        ctx = request_context()
        failsafe = self.services.failsafe
        if not failsafe.armed:
            return _response(NO_FAILSAFE, "fail-safe not armed")
        if ctx.session_kind != "case" or ctx.fabric_index is None:
            return _response(INVALID_AUTHENTICATION, "CommissioningComplete must come over CASE")
        if failsafe.fabric_index not in (None, ctx.fabric_index) or (
            failsafe.added_fabric_index is not None and failsafe.added_fabric_index != ctx.fabric_index
        ):
            return _response(INVALID_AUTHENTICATION, "fail-safe belongs to another fabric")
        failsafe.commit()
        self.set("Breadcrumb", 0)
        self.services.window.close()
        sessions = self.services.sessions
        if sessions is not None:
            # Only the PASE sessions of this commissioning: a window may already be open again (multi-admin)
            # and the next commissioner's fresh PASE session must survive the delayed cleanup.
            finished = sessions.sessions(kind="pase")

            def close_finished() -> None:
                for session in finished:
                    session.close()

            self.services.after_response(close_finished)
        for listener in list(self.services.on_commissioning_complete):
            listener(ctx.fabric_index)
        log.info("event=commissioning_complete fabric=%d node=0x%016X", ctx.fabric_index, ctx.subject_node_id or 0)
        return _response(OK)
