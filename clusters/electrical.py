"""Energy clusters: Electrical Power Measurement (0x0090), Electrical Energy Measurement (0x0091),
Power Topology (0x009C) and Device Energy Management (0x0098).

Units are Matter's: mV, mA, mW, mVA, mHz, mWh; PowerFactor is ×10000 (9500 = 0.95). Time stamps
in energy structs are "systime" microseconds, here counted from the home's base time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import clusters.official as Objects
from clusters.base import ClusterServer, command
from clusters.runtime import TimerHandle
from clusters.status import HomeError, Status

PowerFeature = Objects.ElectricalPowerMeasurement.Bitmaps.Feature
MeasurementType = Objects.ElectricalPowerMeasurement.Enums.MeasurementTypeEnum
EnergyFeature = Objects.ElectricalEnergyMeasurement.Bitmaps.Feature
TopologyFeature = Objects.PowerTopology.Bitmaps.Feature
DemFeature = Objects.DeviceEnergyManagement.Bitmaps.Feature
ESAState = Objects.DeviceEnergyManagement.Enums.ESAStateEnum
AdjustReason = Objects.DeviceEnergyManagement.Enums.PowerAdjustReasonEnum
Cause = Objects.DeviceEnergyManagement.Enums.CauseEnum

INT62 = 2**62  # Matter's power/energy ranges are int64 with ±2^62 limits

# Heat pump values from the SimuHome catalogue (constructor keyword arguments).
HEAT_PUMP_POWER: dict[str, Any] = {
    "voltage_mV": 230_000,
    "frequency_mHz": 50_000,
    "power_factor": 9500,
    "active_power_mW": 3_450_000,
}
HEAT_PUMP_STANDBY_MW = 8_000  # controller and crankcase heater at rest (SystemMode Off): a few watts, not kW
HEAT_PUMP_ENERGY_FEATURES = int(
    EnergyFeature.kImportedEnergy | EnergyFeature.kCumulativeEnergy | EnergyFeature.kPeriodicEnergy
)
HEAT_PUMP_ESA: dict[str, Any] = {
    "esa_type": 1,
    "can_generate": False,
    "esa_state": 0,
    "abs_min_power_mW": 1_000_000,
    "abs_max_power_mW": 8_000_000,
    "power_adjustments": [],
}


def _accuracy(measurement_type: int, low: int, high: int) -> dict[str, Any]:
    return {
        "measurementType": measurement_type,
        "measured": True,
        "minMeasuredValue": low,
        "maxMeasuredValue": high,
        "accuracyRanges": [
            {
                "rangeMin": low,
                "rangeMax": high,  # ±0.5 % over the whole range
                "percentMax": 50,
                "percentMin": 50,
                "percentTypical": 50,
            }
        ],
    }


# ================================================================================= power
# Measured attribute → (MeasurementTypeEnum, range) for the Accuracy list.
_MEASURED = {
    "Voltage": (MeasurementType.kVoltage, -INT62, INT62),
    "ActiveCurrent": (MeasurementType.kActiveCurrent, -INT62, INT62),
    "ActivePower": (MeasurementType.kActivePower, -INT62, INT62),
    "ApparentPower": (MeasurementType.kApparentPower, -INT62, INT62),
    "RMSVoltage": (MeasurementType.kRMSVoltage, -INT62, INT62),
    "RMSCurrent": (MeasurementType.kRMSCurrent, -INT62, INT62),
    "RMSPower": (MeasurementType.kRMSPower, -INT62, INT62),
    "Frequency": (MeasurementType.kFrequency, 0, 1_000_000),
    "PowerFactor": (MeasurementType.kPowerFactor, -10_000, 10_000),
}
DC_ATTRIBUTES = ("Voltage", "ActiveCurrent", "ActivePower")


class ElectricalPowerMeasurementServer(ClusterServer):
    """Instantaneous electrical measurements of a device or circuit.

    Constructor options: ``voltage_mV``, ``frequency_mHz``, ``power_factor`` (×10000),
    ``active_power_mW`` (all None = unknown), plus ``features`` (default AlternatingCurrent) and
    ``values``. :meth:`set_power` updates power and the currents derived from it.
    """

    __slots__ = ()

    cluster_name = "ElectricalPowerMeasurement"
    revision = 1
    default_features = int(PowerFeature.kAlternatingCurrent)
    defaults = {"PowerMode": 2, "NumberOfMeasurementTypes": 0, "Accuracy": [], **dict.fromkeys(_MEASURED)}

    def __init__(
        self,
        *,
        voltage_mV: int | None = None,
        frequency_mHz: int | None = None,
        power_factor: int | None = None,
        active_power_mW: int | None = None,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(features=features)
        for name, value in (
            ("Voltage", voltage_mV),
            ("RMSVoltage", voltage_mV),
            ("Frequency", frequency_mHz),
            ("PowerFactor", power_factor),
        ):
            if name in self._held:
                self._values[name] = value
        if active_power_mW is not None:
            self.set_power(active_power_mW)
        for name, value in (values or {}).items():
            self.restore(name, value)

    def initial_values(self) -> dict[str, Any]:
        ac = self.has_feature(PowerFeature.kAlternatingCurrent)
        measured = [a for a in _MEASURED if ac or a in DC_ATTRIBUTES]
        mode = 2 if ac else 1 if self.has_feature(PowerFeature.kDirectCurrent) else 0
        accuracy = [_accuracy(int(_MEASURED[a][0]), _MEASURED[a][1], _MEASURED[a][2]) for a in measured]
        return {
            "PowerMode": mode,
            "NumberOfMeasurementTypes": len(accuracy),
            "Accuracy": accuracy,
            **dict.fromkeys(measured),
        }

    @property
    def active_power_mW(self) -> int | None:
        power: int | None = self.read("ActivePower")
        return power

    def set_power(self, active_power_mW: int | None) -> None:
        """New active power; currents and apparent power follow from Voltage and PowerFactor."""
        voltage = self._values.get("Voltage")
        factor = self._values.get("PowerFactor") or 10_000
        power = None if active_power_mW is None else int(active_power_mW)
        apparent = None if power is None else round(power * 10_000 / factor)
        derived: dict[str, Any] = {"ActivePower": power, "RMSPower": power, "ApparentPower": apparent}
        if voltage:
            derived["ActiveCurrent"] = None if power is None else round(power * 1000 / voltage)
            derived["RMSCurrent"] = None if apparent is None else round(apparent * 1000 / voltage)
        for name, value in derived.items():
            if name in self._held:
                self.set(name, value)


# ================================================================================= energy
class ElectricalEnergyMeasurementServer(ClusterServer):
    """Imported / exported energy, cumulative and periodic (mWh).

    With a sibling ElectricalPowerMeasurement on the endpoint, energy is integrated from its
    ActivePower (positive = imported, negative = exported) at each power change and on
    :meth:`flush`. :meth:`add_energy` adds energy directly. Constructor: ``features`` (default
    ImportedEnergy | CumulativeEnergy) and ``values``; energy values start null (unknown).
    """

    __slots__ = ("_last_sample", "_period_start")

    cluster_name = "ElectricalEnergyMeasurement"
    revision = 1
    events = ("CumulativeEnergyMeasured", "PeriodicEnergyMeasured")

    def supported_events(self) -> tuple[str, ...]:
        return tuple(
            e
            for e in self.events
            if self.has_feature(
                EnergyFeature.kCumulativeEnergy if e.startswith("Cumulative") else EnergyFeature.kPeriodicEnergy
            )
        )

    default_features = int(EnergyFeature.kImportedEnergy | EnergyFeature.kCumulativeEnergy)
    defaults = {
        "Accuracy": _accuracy(int(MeasurementType.kElectricalEnergy), 0, INT62),
        "CumulativeEnergyImported": None,
        "CumulativeEnergyExported": None,
        "PeriodicEnergyImported": None,
        "PeriodicEnergyExported": None,
    }

    def __init__(self, *, features: int | None = None, values: Mapping[str, Any] | None = None) -> None:
        super().__init__(features=features, values=values)
        self._last_sample: tuple[float, int] | None = None  # (time, active power mW) being integrated
        self._period_start = 0.0

    def initial_values(self) -> dict[str, Any]:
        out: dict[str, Any] = {"Accuracy": self.defaults["Accuracy"]}
        directions = (("Imported", EnergyFeature.kImportedEnergy), ("Exported", EnergyFeature.kExportedEnergy))
        for direction, flag in directions:
            if not self.has_feature(flag):
                continue
            if self.has_feature(EnergyFeature.kCumulativeEnergy):
                out[f"CumulativeEnergy{direction}"] = None
            if self.has_feature(EnergyFeature.kPeriodicEnergy):
                out[f"PeriodicEnergy{direction}"] = None
        return out

    def on_attach(self) -> None:
        endpoint = self.endpoint
        power = endpoint.find("ElectricalPowerMeasurement") if endpoint is not None else None
        if endpoint is None or power is None:
            return
        self._period_start = self._now()
        self._last_sample = (self._now(), power.read("ActivePower") or 0)
        endpoint.watch("ElectricalPowerMeasurement", "ActivePower", self._power_changed)

    def flush(self) -> None:
        """Integrate the sibling's power up to now (e.g. before a snapshot or a report)."""
        if self._last_sample is not None:
            self._integrate(self._last_sample[1])

    def imported_mWh_now(self) -> int | None:
        """CumulativeEnergyImported (mWh) with the sibling meter's power integrated up to now, without recording
        anything: a steady draw is recorded only at the next power change or :meth:`flush`, so the attribute
        alone lags (a heat pump on standby stays null). None: no cumulative import and no meter to integrate."""
        recorded = (self._values.get("CumulativeEnergyImported") or {}).get("energy")
        if self._last_sample is None:
            return recorded if isinstance(recorded, int) else None
        since, power_mW = self._last_sample
        pending = max(power_mW, 0) * (self._now() - since) / 3600
        return round((recorded or 0) + pending)

    def add_energy(self, imported_mWh: float = 0, exported_mWh: float = 0) -> None:
        """Add a chunk of energy; periodic attributes report exactly this chunk."""
        now = self._now()
        start, self._period_start = self._period_start, now
        measured: dict[str, dict[str, dict[str, Any]]] = {"CumulativeEnergy": {}, "PeriodicEnergy": {}}
        for direction, amount in (("Imported", imported_mWh), ("Exported", exported_mWh)):
            cumulative = f"CumulativeEnergy{direction}"
            if cumulative in self._held:
                previous = (self._values[cumulative] or {}).get("energy", 0)
                self.set(
                    cumulative, {"energy": round(previous + amount), "startSystime": 0, "endSystime": _systime(now)}
                )
                measured["CumulativeEnergy"][f"energy{direction}"] = self._values[cumulative]
            periodic = f"PeriodicEnergy{direction}"
            if periodic in self._held:
                self.set(
                    periodic, {"energy": round(amount), "startSystime": _systime(start), "endSystime": _systime(now)}
                )
                measured["PeriodicEnergy"][f"energy{direction}"] = self._values[periodic]
        for kind, fields in measured.items():  # one event per measurement (§2.12.7), as the attributes change
            if fields:
                self.emit_event(f"{kind}Measured", fields)

    def _now(self) -> float:
        return self.runtime.now() if self.runtime is not None else 0.0

    def _power_changed(self, old: Any, new: Any) -> None:
        self._integrate(old or 0)
        self._last_sample = (self._now(), new or 0)

    def _integrate(self, power_mW: int) -> None:
        assert self._last_sample is not None
        now = self._now()
        energy = power_mW * (now - self._last_sample[0]) / 3600  # mW × s → mWh
        self._last_sample = (now, self._last_sample[1])
        if energy:
            self.add_energy(imported_mWh=max(energy, 0), exported_mWh=max(-energy, 0))


def _systime(seconds: float) -> int:
    return round(seconds * 1_000_000)


# ================================================================================= topology
class PowerTopologyServer(ClusterServer):
    """Which endpoints an energy measurement covers. Node topology (default): the whole node.
    Constructor: ``features`` (default NodeTopology), ``values`` (AvailableEndpoints /
    ActiveEndpoints for SetTopology / DynamicPowerFlow)."""

    __slots__ = ()

    cluster_name = "PowerTopology"
    revision = 1
    default_features = int(TopologyFeature.kNodeTopology)
    defaults = {"AvailableEndpoints": [], "ActiveEndpoints": []}

    def initial_values(self) -> dict[str, Any]:
        if not self.has_feature(TopologyFeature.kSetTopology):
            return {}
        if self.has_feature(TopologyFeature.kDynamicPowerFlow):
            return dict(self.defaults)
        return {"AvailableEndpoints": []}


# ================================================================================= energy management
class StartTimePlanner(Protocol):
    """What the appliance behind a Device Energy Management server does with a start-time adjustment."""

    def epoch_now(self) -> int:
        """Now in Matter epoch seconds (since 2000-01-01 00:00 UTC)."""
        ...

    def shift_start(self, start_epoch_s: int, cause: int) -> None:
        """Start the pending run at ``start_epoch_s`` (already checked against the forecast's window)."""
        ...

    def cancel_shift(self) -> bool:
        """Undo a shifted start (the run starts as it would have); False when nothing was shifted."""
        ...


# Each command and the features that bring it (Device Energy Management's conformance).
_COMMAND_FEATURES = {
    "PowerAdjustRequest": int(DemFeature.kPowerAdjustment),
    "CancelPowerAdjustRequest": int(DemFeature.kPowerAdjustment),
    "StartTimeAdjustRequest": int(DemFeature.kStartTimeAdjustment),
    "CancelRequest": int(
        DemFeature.kStartTimeAdjustment | DemFeature.kForecastAdjustment | DemFeature.kConstraintBasedAdjustment
    ),
}


class DeviceEnergyManagementServer(ClusterServer):
    """An energy smart appliance (ESA) that a grid / home energy manager may ask to adjust power.

    PowerAdjustment (PowerAdjustRequest, CancelPowerAdjustRequest); PowerForecastReporting (the ``Forecast``
    attribute, a live value the appliance's :class:`StartTimePlanner` binds); StartTimeAdjustment
    (StartTimeAdjustRequest shifts a forecast that has not started within [EarliestStartTime, LatestEndTime −
    duration], else CONSTRAINT_ERROR; FAILURE when there is no pending forecast; CancelRequest undoes it).
    Pausable, ForecastAdjustment and ConstraintBasedAdjustment are not implemented. Constructor options:
    ``esa_type`` (ESATypeEnum, default Other),
    ``can_generate``, ``esa_state`` (default Online), ``abs_min_power_mW``, ``abs_max_power_mW``,
    ``power_adjustments`` (list of PowerAdjustStruct dicts {minPower, maxPower, minDuration,
    maxDuration}; None = null capability), plus ``features`` (default PowerAdjustment) and ``values``.
    """

    __slots__ = ("_adjust_started", "_adjustment", "_state_before", "planner")

    cluster_name = "DeviceEnergyManagement"
    revision = 4
    events = ("PowerAdjustStart", "PowerAdjustEnd")

    def supported_events(self) -> tuple[str, ...]:
        return self.events if self.has_feature(DemFeature.kPowerAdjustment) else ()

    default_features = int(DemFeature.kPowerAdjustment)
    defaults = {
        "ESAType": 255,
        "ESACanGenerate": False,
        "ESAState": int(ESAState.kOnline),
        "AbsMinPower": 0,
        "AbsMaxPower": 0,
        "PowerAdjustmentCapability": None,
        "OptOutState": 0,
    }

    def __init__(
        self,
        *,
        esa_type: int | str = 255,
        can_generate: bool = False,
        esa_state: int = int(ESAState.kOnline),
        abs_min_power_mW: int = 0,
        abs_max_power_mW: int = 0,
        power_adjustments: Sequence[Mapping[str, Any]] | None = None,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(features=features)
        if abs_max_power_mW < abs_min_power_mW:
            raise ValueError("abs_max_power_mW must not be below abs_min_power_mW")
        self.restore("ESAType", esa_type)
        self.restore("ESACanGenerate", can_generate)
        self.restore("ESAState", esa_state)
        self.restore("AbsMinPower", abs_min_power_mW)
        self.restore("AbsMaxPower", abs_max_power_mW)
        if "PowerAdjustmentCapability" in self._held:
            capability = (
                None
                if power_adjustments is None
                else {
                    "powerAdjustCapability": [dict(p) for p in power_adjustments],
                    "cause": int(AdjustReason.kNoAdjustment),
                }
            )
            self.restore("PowerAdjustmentCapability", capability)
        self._adjustment: tuple[int, TimerHandle | None] | None = None  # (requested power, end timer)
        self.planner: StartTimePlanner | None = None  # the appliance's plan, for forecasts and start-time shifts
        self._state_before = int(ESAState.kOnline)
        self._adjust_started = 0.0
        for name, value in (values or {}).items():
            self.restore(name, value)

    def initial_values(self) -> dict[str, Any]:
        out = {k: self.defaults[k] for k in ("ESAType", "ESACanGenerate", "ESAState", "AbsMinPower", "AbsMaxPower")}
        if self.has_feature(DemFeature.kPowerAdjustment):
            out["PowerAdjustmentCapability"] = None
        if self.has_feature(DemFeature.kPowerForecastReporting | DemFeature.kStateForecastReporting):
            out["Forecast"] = None
        if self.has_feature(DemFeature.kPowerAdjustment | DemFeature.kStartTimeAdjustment):
            out["OptOutState"] = 0
        return out

    def accepts(self, command_name: str) -> bool:
        return self.has_feature(_COMMAND_FEATURES.get(command_name, 0))

    @property
    def adjusted_power_mW(self) -> int | None:
        """The power the ESA was asked to use, while an adjustment is active."""
        return None if self._adjustment is None else self._adjustment[0]

    def _check_request(self, cause: int) -> int:
        """The ESA takes adjustment requests: it is online and the user has not opted out of ``cause``'s kind."""
        state: int = self.read("ESAState")
        if state in (int(ESAState.kOffline), int(ESAState.kFault)):
            raise HomeError.refused(
                Status.INVALID_IN_STATE,
                f"DeviceEnergyManagement: ESA not online (ESAState={state})",
                reason="ESA_NOT_ONLINE",
            )
        opt_out = self.read("OptOutState")
        if opt_out == 3 or opt_out == cause + 1:  # LocalOptOut blocks local causes, GridOptOut grid ones
            raise HomeError.refused(
                Status.FAILURE,
                f"DeviceEnergyManagement: the user opted out (OptOutState={opt_out})",
                reason="OPTED_OUT",
            )
        return state

    @command("PowerAdjustRequest")
    def power_adjust_request(self, power: int, duration: int, cause: int) -> None:
        state = self._check_request(cause)
        capability = self.read("PowerAdjustmentCapability") or {}
        ranges = capability.get("powerAdjustCapability") or []
        if not any(
            r["minPower"] <= power <= r["maxPower"] and r["minDuration"] <= duration <= r["maxDuration"] for r in ranges
        ):
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"DeviceEnergyManagement: {power} mW for {duration} s is outside the adjustable ranges",
                allowed={"ranges": ranges},
            )
        if self._adjustment is None:
            self._state_before = state
            self._adjust_started = self._now_s()
            self.emit_event("PowerAdjustStart", {})
        self._stop_timer()
        timer = self.runtime.call_later(duration, self._end_adjustment) if self.runtime is not None else None
        self._adjustment = (power, timer)
        reason = AdjustReason.kGridOptimizationAdjustment if cause == 1 else AdjustReason.kLocalOptimizationAdjustment
        self.set("PowerAdjustmentCapability", {**capability, "cause": int(reason)})
        self.set("ESAState", int(ESAState.kPowerAdjustActive))

    @command("CancelPowerAdjustRequest")
    def cancel_power_adjust_request(self) -> None:
        if self._adjustment is None:
            raise HomeError.refused(
                Status.INVALID_IN_STATE, "DeviceEnergyManagement: no power adjustment is active", reason="NO_ADJUSTMENT"
            )
        self._end_adjustment(Cause.kCancelled)

    @command("StartTimeAdjustRequest")
    def start_time_adjust_request(self, requestedStartTime: int, cause: int) -> None:
        self._check_request(cause)
        forecast = self.read("Forecast")
        if forecast is None or self.planner is None:
            raise HomeError.refused(
                Status.FAILURE, "DeviceEnergyManagement: no forecast to adjust (nothing pending)", reason="NO_FORECAST"
            )
        if forecast["activeSlotNumber"] is not None:
            raise HomeError.refused(
                Status.FAILURE,
                "DeviceEnergyManagement: the forecast has already started; only a pending start can be shifted",
                reason="ALREADY_STARTED",
            )
        earliest = forecast.get("earliestStartTime")
        earliest = self.planner.epoch_now() if earliest is None else earliest  # null: from now on
        latest_start = forecast["latestEndTime"] - (forecast["endTime"] - forecast["startTime"])
        if not earliest <= requestedStartTime <= latest_start:
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"DeviceEnergyManagement: RequestedStartTime={requestedStartTime} is outside the window "
                f"[{earliest}, {latest_start}] (EarliestStartTime … LatestEndTime − the forecast's duration)",
                allowed={"min": earliest, "max": latest_start},
            )
        self.planner.shift_start(requestedStartTime, cause)

    @command("CancelRequest")
    def cancel_request(self) -> None:
        if self.planner is None or not self.planner.cancel_shift():
            raise HomeError.refused(
                Status.INVALID_IN_STATE,
                "DeviceEnergyManagement: no start-time adjustment to cancel",
                reason="NO_ADJUSTMENT",
            )

    def _now_s(self) -> float:
        return self.runtime.now() if self.runtime is not None else 0.0

    def _stop_timer(self) -> None:
        if self._adjustment is not None and self._adjustment[1] is not None:
            self._adjustment[1].cancel()

    def _end_adjustment(self, cause: int = 0) -> None:  # 0: CauseEnum.kNormalCompletion
        self._stop_timer()
        if self._adjustment is not None:
            seconds = max(0.0, self._now_s() - self._adjust_started)
            self.emit_event(
                "PowerAdjustEnd",
                {
                    "cause": int(cause),
                    "duration": round(seconds),
                    "energyUse": round(self._adjustment[0] * seconds / 3600),
                },
            )  # mWh
        self._adjustment = None
        capability = self.read("PowerAdjustmentCapability")
        if capability is not None:
            self.set("PowerAdjustmentCapability", {**capability, "cause": int(AdjustReason.kNoAdjustment)})
        self.set("ESAState", self._state_before)
