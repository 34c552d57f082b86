"""Power Source cluster (0x002F): a wired supply or a battery and its state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer

Feature = Objects.PowerSource.Bitmaps.Feature
SourceStatus = Objects.PowerSource.Enums.PowerSourceStatusEnum
ChargeLevel = Objects.PowerSource.Enums.BatChargeLevelEnum

WIRED = (
    "WiredAssessedInputVoltage",
    "WiredAssessedInputFrequency",
    "WiredCurrentType",
    "WiredNominalVoltage",
    "WiredMaximumCurrent",
    "WiredPresent",
    "ActiveWiredFaults",
)
BATTERY = (
    "BatVoltage",
    "BatPercentRemaining",
    "BatTimeRemaining",
    "BatChargeLevel",
    "BatReplacementNeeded",
    "BatReplaceability",
    "BatPresent",
    "ActiveBatFaults",
)
REPLACEABLE = ("BatReplacementDescription", "BatCommonDesignation", "BatQuantity")
RECHARGEABLE = (
    "BatChargeState",
    "BatFunctionalWhileCharging",
    "BatTimeToFullCharge",
    "BatChargingCurrent",
    "ActiveBatChargeFaults",
)
WARNING_PERCENT, CRITICAL_PERCENT = 20, 5


class PowerSourceServer(ClusterServer):
    """Constructor options: ``description`` (default "Mains" / "Battery"), ``order`` (0 = highest
    priority), ``status`` (PowerSourceStatusEnum, default Active), ``endpoints`` (EndpointList),
    ``battery_percent`` (0..100, Battery feature), plus ``features`` (default Wired) and ``values``
    (e.g. WiredNominalVoltage=220000 mV). Wired values are in mV / mHz / mA.
    """

    __slots__ = ()

    cluster_name = "PowerSource"
    revision = 3
    default_features = int(Feature.kWired)
    defaults = {
        "Status": int(SourceStatus.kActive),
        "Order": 0,
        "Description": "Mains",
        "EndpointList": [],
        "WiredAssessedInputVoltage": None,
        "WiredAssessedInputFrequency": None,
        "WiredCurrentType": 0,
        "WiredNominalVoltage": 230_000,
        "WiredMaximumCurrent": 16_000,
        "WiredPresent": True,
        "ActiveWiredFaults": [],
        "BatVoltage": None,
        "BatPercentRemaining": 200,
        "BatTimeRemaining": None,
        "BatChargeLevel": 0,
        "BatReplacementNeeded": False,
        "BatReplaceability": 2,
        "BatPresent": True,
        "ActiveBatFaults": [],
        "BatReplacementDescription": "AA battery",
        "BatCommonDesignation": 2,
        "BatQuantity": 2,
        "BatChargeState": 0,
        "BatFunctionalWhileCharging": True,
        "BatTimeToFullCharge": None,
        "BatChargingCurrent": None,
        "ActiveBatChargeFaults": [],
    }

    def __init__(
        self,
        *,
        description: str | None = None,
        order: int = 0,
        status: int | str = "Active",
        endpoints: list[int] | None = None,
        battery_percent: float | None = None,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(features=features)
        battery_only = self.has_feature(Feature.kBattery) and not self.has_feature(Feature.kWired)
        self.restore("Description", description or ("Battery" if battery_only else "Mains"))
        self.restore("Order", order)
        self.restore("Status", status)
        self.restore("EndpointList", endpoints or [])
        if battery_percent is not None:
            self.set_battery_percent(battery_percent)
        for name, value in (values or {}).items():
            self.restore(name, value)

    def initial_values(self) -> dict[str, Any]:
        names = ["Status", "Order", "Description", "EndpointList"]
        if self.has_feature(Feature.kWired):
            names += WIRED
        if self.has_feature(Feature.kBattery):
            names += BATTERY
            if self.has_feature(Feature.kReplaceable):
                names += REPLACEABLE
            if self.has_feature(Feature.kRechargeable):
                names += RECHARGEABLE
        return {n: self.defaults[n] for n in names}

    def set_battery_percent(self, percent: float) -> None:
        """Battery drain / charge (scenario, physics): BatPercentRemaining is in half-percent units."""
        if not self.has_feature(Feature.kBattery):
            raise ValueError("PowerSource has no Battery feature")
        percent = max(0.0, min(100.0, float(percent)))
        level = (
            ChargeLevel.kCritical
            if percent <= CRITICAL_PERCENT
            else (ChargeLevel.kWarning if percent <= WARNING_PERCENT else ChargeLevel.kOk)
        )
        self.set("BatPercentRemaining", round(percent * 2))
        self.set("BatChargeLevel", int(level))
        self.set("BatReplacementNeeded", level == ChargeLevel.kCritical)

    def set_status(self, status: int | str) -> None:
        """Supply appears / fails (scenario): Active, Standby, Unavailable …"""
        self.restore("Status", status)
