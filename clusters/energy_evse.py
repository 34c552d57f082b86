"""Energy EVSE (0x0099) and Energy EVSE Mode (0x009D): an electric-vehicle charger and its charging session.

A session begins when a vehicle plugs in (:meth:`EnergyEvseServer.plug_in`, a scenario's act: EVConnected) and ends
when it leaves (:meth:`EnergyEvseServer.unplug`: EVNotDetected with the session's duration and energy). Energy flows
while the vehicle wants it, SupplyState is ChargingEnabled (EnableCharging; Disable stops it) and the permitted
current is at least ``MIN_CHARGE_CURRENT_MA``: State is then PluggedInCharging, EnergyTransferStarted/Stopped mark the
transfer's edges, and the charging power is the supply voltage × MaximumChargeCurrent (capped by CircuitCapacity and
UserMaximumChargeCurrent). SessionEnergyCharged and SessionDuration are closed-form in virtual time; a timer stops
the transfer the moment the vehicle's demand is met. The sibling Electrical Power Measurement reports the charging
power, so its Electrical Energy Measurement integrates the energy.

An energy manager's PowerAdjustRequest on the charger's Device Energy Management caps the charging power
(:meth:`EnergyEvseServer.limit_power`, wired by emulator/role_behaviour.py) until the adjustment ends; its
StartTimeAdjustRequest holds a session that has not begun charging until a later start (:meth:`hold_until`).

Not implemented: ChargingEnabledUntil is stored but not enforced (the server has no wall-clock epoch), discharging
(V2X), charging preferences / targets, SoC reporting, Plug & Charge, RFID and diagnostics. EnergyEvseMode's modes
are stored; they do not change how the charger behaves.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer, command
from clusters.modes import ChangeableModeServer, mode_option
from clusters.runtime import TimerHandle
from clusters.status import HomeError, Status
from clusters.values import Constraint

State = Objects.EnergyEvse.Enums.StateEnum
SupplyState = Objects.EnergyEvse.Enums.SupplyStateEnum
StopReason = Objects.EnergyEvse.Enums.EnergyTransferStoppedReasonEnum
_EvseTag = Objects.EnergyEvseMode.Enums.ModeTag
MIN_CHARGE_CURRENT_MA = 6_000  # IEC 61851: a charger may not offer less than 6 A
DEFAULT_VOLTAGE_MV = 230_000
DEFAULT_DEMAND_MWH = 20_000_000  # what a plugged-in vehicle wants unless told: 20 kWh

EVSE_MODES = [
    mode_option("Manual", 0, _EvseTag.kManual),
    mode_option("Time of Use", 1, _EvseTag.kTimeOfUse),
    mode_option("Solar Charging", 2, _EvseTag.kSolarCharging),
]


class EnergyEvseServer(ClusterServer):
    """Constructor options: ``circuit_capacity_mA`` (default 32000), ``features`` and ``values``."""

    __slots__ = (
        "_banked_mWh",
        "_demand_mWh",
        "_ended_duration",
        "_full_timer",
        "_held_until",
        "_hold_timer",
        "_plugged_at",
        "_power_limit_mW",
        "_reported",
        "_transfer",
        "_transfer_began",
    )

    cluster_name = "EnergyEvse"
    revision = 2
    defaults = {
        "State": int(State.kNotPluggedIn),
        "SupplyState": int(SupplyState.kDisabled),
        "FaultState": 0,
        "ChargingEnabledUntil": 0,
        "CircuitCapacity": 32_000,
        "MinimumChargeCurrent": MIN_CHARGE_CURRENT_MA,
        "MaximumChargeCurrent": 0,
        "UserMaximumChargeCurrent": 32_000,
        "SessionID": None,
    }
    constraints = {"UserMaximumChargeCurrent": Constraint(minimum=0)}
    events = ("EVConnected", "EVNotDetected", "EnergyTransferStarted", "EnergyTransferStopped", "Fault")

    def __init__(
        self, *, circuit_capacity_mA: int = 32_000, features: int | None = None, values: Mapping[str, Any] | None = None
    ) -> None:
        self._plugged_at: float | None = None  # session start (runtime seconds) while a vehicle is plugged in
        self._ended_duration: int | None = None  # the last session's duration, readable after it ended
        self._banked_mWh = 0.0  # session energy up to the start of the current transfer
        self._transfer: tuple[float, int] | None = None  # (start, power mW) of the energy flowing now
        self._transfer_began = 0.0  # when the current transfer started (its rate may have changed since)
        self._demand_mWh = 0.0  # what the vehicle still wants at the start of the current transfer
        self._full_timer: TimerHandle | None = None
        self._power_limit_mW: int | None = None  # an energy manager's cap (Device Energy Management), if any
        self._held_until: float | None = None  # no transfer before this (runtime s): a start an energy manager shifted
        self._hold_timer: TimerHandle | None = None
        self._reported: dict[str, Any] = {}
        super().__init__(features=features, values=values)
        self.restore("CircuitCapacity", circuit_capacity_mA)
        self.bind_source("SessionDuration", self._session_duration)
        self.bind_source("SessionEnergyCharged", self._session_energy)

    def on_attach(self) -> None:
        """A charger loaded with a vehicle plugged in (a saved home) resumes the session from now: what it had
        charged and how long it had lasted are not stored; the vehicle wants the default demand."""
        if self.read("State") != int(State.kNotPluggedIn) and self._plugged_at is None and self.runtime is not None:
            self._plugged_at, self._demand_mWh = self.now(), float(DEFAULT_DEMAND_MWH)
            if self.read("SessionID") is None:
                self.set("SessionID", 0)
            self.set("State", int(State.kPluggedInDemand))
            self._follow()
            self._report_session()

    # ----------------------------------------------------------------------------- the vehicle (scenarios)
    @property
    def plugged_in(self) -> bool:
        return self._plugged_at is not None

    @property
    def session_started_at(self) -> float | None:
        """When the plugged-in vehicle's session began (runtime seconds), None with no vehicle."""
        return self._plugged_at

    @property
    def charging_power_mW(self) -> int:
        return 0 if self._transfer is None else self._transfer[1]

    def plug_in(self, demand_mWh: float = DEFAULT_DEMAND_MWH) -> int:
        """A vehicle plugs in wanting ``demand_mWh``; a new session begins. Returns its SessionID."""
        if self.plugged_in:
            raise HomeError.refused(
                Status.INVALID_IN_STATE, "EnergyEvse: a vehicle is already plugged in", reason="ALREADY_PLUGGED_IN"
            )
        if demand_mWh < 0:
            raise HomeError.refused(Status.CONSTRAINT_ERROR, f"EnergyEvse: demand_mWh={demand_mWh} must be >= 0")
        session = 0 if self.read("SessionID") is None else (self.read("SessionID") + 1) % 2**32
        self.set("SessionID", session)
        self._plugged_at, self._ended_duration = self.now(), None
        self._banked_mWh, self._demand_mWh = 0.0, float(demand_mWh)
        self.emit_event("EVConnected", {"sessionID": session})
        self.set("State", int(State.kPluggedInDemand if demand_mWh > 0 else State.kPluggedInNoDemand))
        self._report_session()
        self._follow()
        return session

    def unplug(self) -> None:
        """The vehicle leaves: any transfer stops (EVStopped) and the session ends."""
        if not self.plugged_in:
            raise HomeError.refused(
                Status.INVALID_IN_STATE, "EnergyEvse: no vehicle is plugged in", reason="NOT_PLUGGED_IN"
            )
        self._stop_transfer(StopReason.kEVStopped)
        self.hold_until(None)  # a shifted start leaves with the vehicle
        state = self.read("State")
        duration, energy = self._session_duration(), self._session_energy()
        self._plugged_at, self._ended_duration = None, duration
        self.set("State", int(State.kNotPluggedIn))
        self.emit_event(
            "EVNotDetected",
            {
                "sessionID": self.read("SessionID"),
                "state": state,
                "sessionDuration": duration,
                "sessionEnergyCharged": energy,
            },
        )
        self._report_session()

    # ----------------------------------------------------------------------------- commands
    @command("Disable")
    def disable(self) -> None:
        self.set("SupplyState", int(SupplyState.kDisabled))
        self.set("ChargingEnabledUntil", 0)
        self.set("MinimumChargeCurrent", 0)
        self.set("MaximumChargeCurrent", 0)
        self._follow(StopReason.kEVSEStopped)

    @command(
        "EnableCharging",
        constraints={
            "minimumChargeCurrent": Constraint(minimum=MIN_CHARGE_CURRENT_MA),
            "maximumChargeCurrent": Constraint(minimum=MIN_CHARGE_CURRENT_MA),
        },
    )
    def enable_charging(
        self, chargingEnabledUntil: int | None, minimumChargeCurrent: int, maximumChargeCurrent: int
    ) -> None:
        if maximumChargeCurrent < minimumChargeCurrent:
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"EnergyEvse.EnableCharging: MaximumChargeCurrent={maximumChargeCurrent} is below "
                f"MinimumChargeCurrent={minimumChargeCurrent}",
                allowed={"min": minimumChargeCurrent},
            )
        cap = min(self.read("CircuitCapacity"), self.read("UserMaximumChargeCurrent"))
        self.set("SupplyState", int(SupplyState.kChargingEnabled))
        self.set("ChargingEnabledUntil", chargingEnabledUntil)
        self.set("MinimumChargeCurrent", minimumChargeCurrent)
        self.set("MaximumChargeCurrent", min(maximumChargeCurrent, cap))
        self._follow(StopReason.kEVSEStopped)

    def apply_write(self, name: str, value: Any) -> None:
        self.set(name, value)
        if name == "UserMaximumChargeCurrent" and self.read("MaximumChargeCurrent") > value:
            self.set("MaximumChargeCurrent", value)
            self._follow(StopReason.kEVSEStopped)

    # ----------------------------------------------------------------------------- the transfer
    def limit_power(self, power_mW: int | None) -> None:
        """Cap the charging power (an energy manager's PowerAdjustRequest), or lift the cap (None): the current
        offered becomes the largest whole mA within the cap, no transfer below MIN_CHARGE_CURRENT_MA."""
        self._power_limit_mW = power_mW
        self._follow(StopReason.kEVSEStopped)

    def hold_until(self, start_s: float | None) -> None:
        """Begin no transfer before ``start_s`` (runtime seconds; None: no hold) — a start an energy manager shifted
        (Device Energy Management refuses to shift a charge that has begun; a transfer running now stops)."""
        if self._hold_timer is not None:
            self._hold_timer.cancel()
            self._hold_timer = None
        self._held_until = start_s if start_s is not None and start_s > self.now() else None
        if self._held_until is not None and self.runtime is not None:
            self._hold_timer = self.runtime.call_later(self._held_until - self.now(), self._release_hold)
        self._follow(StopReason.kEVSEStopped)

    @property
    def held_until(self) -> float | None:
        return self._held_until

    @property
    def transfer_started_at(self) -> float | None:
        """When the energy now flowing began (runtime seconds), None while none flows."""
        return None if self._transfer is None else self._transfer_began

    def _release_hold(self) -> None:
        self._hold_timer, self._held_until = None, None
        self._follow(StopReason.kEVSEStopped)

    def planned_power_mW(self) -> int:
        """The power a transfer of this session would draw (the current offered, or that the charger could offer
        once enabled), whatever holds it now; 0 when no vehicle wants energy or the current is below the minimum."""
        enabled = self.read("SupplyState") == int(SupplyState.kChargingEnabled)
        current: int = (
            self.read("MaximumChargeCurrent")
            if enabled
            else min(self.read("CircuitCapacity"), self.read("UserMaximumChargeCurrent"))
        )
        if self._power_limit_mW is not None:
            current = min(current, self._power_limit_mW * 1000 // self._voltage_mV())
        if not self.plugged_in or self._demand_left() <= 0 or current < MIN_CHARGE_CURRENT_MA:
            return 0
        return round(self._voltage_mV() * current / 1000)

    def demand_left_mWh(self) -> float:
        return self._demand_left()

    def _voltage_mV(self) -> int:
        meter = self.endpoint.find("ElectricalPowerMeasurement") if self.endpoint is not None else None
        voltage = meter.read("Voltage") if meter is not None and meter.has_attribute("Voltage") else None
        return voltage or DEFAULT_VOLTAGE_MV

    def _offered_power_mW(self) -> int:
        current: int = self.read("MaximumChargeCurrent")
        if self._power_limit_mW is not None:
            current = min(current, self._power_limit_mW * 1000 // self._voltage_mV())
        if (
            not self.plugged_in
            or self._held_until is not None
            or self.read("SupplyState") != int(SupplyState.kChargingEnabled)
            or self._demand_left() <= 0
            or current < MIN_CHARGE_CURRENT_MA
        ):
            return 0
        return round(self._voltage_mV() * current / 1000)

    def _follow(self, reason: int = StopReason.kOther) -> None:
        """Start, re-rate or stop the transfer to match what is offered now."""
        power = self._offered_power_mW()
        if power == self.charging_power_mW:
            return
        if power == 0:
            self._stop_transfer(reason)
            return
        starting = self._transfer is None
        self._bank()
        self._transfer = (self.now(), power)
        if starting:
            self._transfer_began = self.now()
        self._schedule_full()
        if starting:
            self.set("State", int(State.kPluggedInCharging))
            self.emit_event(
                "EnergyTransferStarted",
                {
                    "sessionID": self.read("SessionID"),
                    "state": self.read("State"),
                    "maximumCurrent": self.read("MaximumChargeCurrent"),
                },
            )
        self._meter(power)
        self._report_session()

    def _stop_transfer(self, reason: int, *, full: bool = False) -> None:
        if self._transfer is None:
            return
        before = self._banked_mWh
        self._bank()
        if full:  # the timer fell on the tick after the exact moment: what is left is rounding
            self._demand_mWh = 0.0
        self._transfer = None
        if self._full_timer is not None:
            self._full_timer.cancel()
            self._full_timer = None
        self.set("State", int(State.kPluggedInDemand if self._demand_left() > 0 else State.kPluggedInNoDemand))
        self.emit_event(
            "EnergyTransferStopped",
            {
                "sessionID": self.read("SessionID"),
                "state": self.read("State"),
                "reason": int(reason),
                "energyTransferred": round(self._banked_mWh - before),
            },
        )
        self._meter(0)
        self._report_session()

    def _bank(self) -> None:
        if self._transfer is not None:
            start, power = self._transfer
            energy = min(power * (self.now() - start) / 3600, self._demand_mWh)
            self._banked_mWh += energy
            self._demand_mWh -= energy
            self._transfer = (self.now(), power)

    def _demand_left(self) -> float:
        if self._transfer is None:
            return self._demand_mWh
        start, power = self._transfer
        return max(0.0, self._demand_mWh - power * (self.now() - start) / 3600)

    def _schedule_full(self) -> None:
        if self._full_timer is not None:
            self._full_timer.cancel()
        assert self._transfer is not None and self.runtime is not None
        seconds = math.ceil(self._demand_mWh * 3600 / self._transfer[1] * 10) / 10  # the clock's 0.1 s ticks
        self._full_timer = self.runtime.call_later(seconds, self._vehicle_full)

    def _vehicle_full(self) -> None:
        self._full_timer = None
        self._stop_transfer(StopReason.kEVStopped, full=True)

    def _meter(self, power_mW: int) -> None:
        meter = self.endpoint.find("ElectricalPowerMeasurement") if self.endpoint is not None else None
        if meter is not None:
            meter.set_power(power_mW)  # type: ignore[attr-defined]

    # ----------------------------------------------------------------------------- live values
    def _session_duration(self) -> int | None:
        if self._plugged_at is None:
            return self._ended_duration
        return max(0, int(self.now() - self._plugged_at))

    def _session_energy(self) -> int | None:
        if self.read("SessionID") is None:
            return None
        if self._transfer is None:
            return round(self._banked_mWh)
        start, power = self._transfer
        return round(self._banked_mWh + min(power * (self.now() - start) / 3600, self._demand_mWh))

    def _report_session(self) -> None:
        for name, compute in (
            ("SessionDuration", self._session_duration),
            ("SessionEnergyCharged", self._session_energy),
        ):
            new = compute()
            old = self._reported.get(name)
            self._reported[name] = new
            self.notify(name, old, new)


class EnergyEvseModeServer(ChangeableModeServer):
    __slots__ = ()
    cluster_name = "EnergyEvseMode"
    revision = 2
    defaults = {"SupportedModes": EVSE_MODES, "CurrentMode": 0}
