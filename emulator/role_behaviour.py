"""Behaviour that no single cluster of a device owns, started by the device's catalogue roles
(:func:`attach_role_behaviour`): rooftop solar output following the sun ("solar", the endpoint with its Power
Source and meter), a home battery's state of charge following its power ("battery", likewise), and a water valve's
flow meter following the valve ("valve" and "flow_meter": the two endpoints), and an EV charger whose energy
manager caps its power, forecasts its charge and shifts a pending start ("evse").

All stay closed-form in virtual time. Solar: ActivePower = −peak × 0.8 × sin(solar elevation), the sine taken at the
middle of each 15-minute daylight knot (emulator/daylight.py) and held over it, so the meter changes once per knot
and the exported energy is the integral of that staircase. Battery: while a Device Energy Management power
adjustment is active the battery charges (Power > 0, 95 % of it stored) or discharges (Power < 0, 1/0.95 of it
drawn from the cells) linearly; a timer stops it the moment it reaches 100 % or its 10 % reserve.

Not modelled: clouds and weather, the home's latitude when it differs from the physics default, panel
temperature, and a battery that follows the home's net load by itself (it moves only when asked).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

import clusters.official as Objects
from clusters.endpoint import Endpoint
from emulator.clock import Timer, VirtualClock
from emulator.daylight import DEFAULT_LATITUDE_DEG, KNOT_S, knot_start, sun_sine

if TYPE_CHECKING:  # the servers' modules load when a role starts (clusters.registry loads servers on first use)
    from clusters.electrical import DeviceEnergyManagementServer, ElectricalPowerMeasurementServer
    from clusters.energy_evse import EnergyEvseServer
    from clusters.fluid_measurement import FlowMeasurementServer
    from clusters.power_source import PowerSourceServer
    from clusters.valve import ValveConfigurationAndControlServer

SOLAR_PEAK_MW = 5_000_000  # a 5 kWp array …
SOLAR_PERFORMANCE_RATIO = 0.8  # … delivers about 80 % of it: inverter, heat, wiring and soiling losses
BATTERY_CAPACITY_MWH = 10_000_000
BATTERY_MAX_POWER_MW = 5_000_000
BATTERY_EFFICIENCY = 0.95  # each way
BATTERY_RESERVE = 0.10  # discharging stops here
SESSION_WINDOW_S = 86_400  # a charge may be shifted within a day of the vehicle plugging in (unless enabled until)
MATTER_EPOCH = datetime(2000, 1, 1)  # Matter's epoch-s count from here (the home's clock is taken as UTC)
ForecastReason = Objects.DeviceEnergyManagement.Enums.ForecastUpdateReasonEnum
EvseState = Objects.EnergyEvse.Enums.StateEnum
ChargeState = Objects.PowerSource.Enums.BatChargeStateEnum
ServerT = TypeVar("ServerT")


class SolarArray:
    """Sets the array's meter once per daylight knot."""

    def __init__(self, meter: ElectricalPowerMeasurementServer, clock: VirtualClock, latitude_deg: float) -> None:
        self.meter, self.clock, self.latitude_deg = meter, clock, latitude_deg
        self.timer: Timer | None = None
        self._knot()

    def power_at_knot(self) -> int:
        middle = knot_start(self.clock.now_datetime) + timedelta(seconds=KNOT_S / 2)
        return -round(SOLAR_PEAK_MW * SOLAR_PERFORMANCE_RATIO * sun_sine(middle, self.latitude_deg))

    def _knot(self) -> None:
        self.meter.set_power(self.power_at_knot())
        now = self.clock.now_datetime
        next_knot = knot_start(now) + timedelta(seconds=KNOT_S)
        self.timer = self.clock.call_later((next_knot - now).total_seconds(), self._knot, "solar knot")


class HomeBattery:
    """State of charge from the power a Device Energy Management adjustment asks for."""

    def __init__(
        self,
        source: PowerSourceServer,
        meter: ElectricalPowerMeasurementServer,
        esa: DeviceEnergyManagementServer,
        clock: VirtualClock,
    ) -> None:
        self.source, self.meter, self.esa, self.clock = source, meter, esa, clock
        self._stored_mWh: float = BATTERY_CAPACITY_MWH * source.read("BatPercentRemaining") / 200
        self._since = clock.now()
        self._power_mW = 0  # at the meter: > 0 charging, < 0 discharging
        self._limit: Timer | None = None
        self._reported: dict[str, Any] = {name: source.read(name) for name in ("BatPercentRemaining", "BatChargeState")}
        source.bind_source("BatPercentRemaining", self.percent_remaining_half)
        source.bind_source("BatChargeState", self.charge_state)
        esa.add_listener(lambda server, name, old, new: self._follow() if name == "ESAState" else None)
        self._follow()

    @property
    def power_mW(self) -> int:
        return self._power_mW

    def stored_mWh(self) -> float:
        """Energy in the cells now."""
        rate = self._cell_rate_mW(self._power_mW)
        return self._stored_mWh + rate * (self.clock.now() - self._since) / 3600

    def percent_remaining_half(self) -> int:
        """BatPercentRemaining: state of charge in half-percent steps."""
        return max(0, min(200, round(200 * self.stored_mWh() / BATTERY_CAPACITY_MWH)))

    def charge_state(self) -> int:
        if self._power_mW > 0:
            return int(ChargeState.kIsCharging)
        full = self.stored_mWh() >= BATTERY_CAPACITY_MWH - 1
        return int(ChargeState.kIsAtFullCharge if full else ChargeState.kIsNotCharging)

    @staticmethod
    def _cell_rate_mW(power_mW: int) -> float:
        return power_mW * BATTERY_EFFICIENCY if power_mW > 0 else power_mW / BATTERY_EFFICIENCY

    def _follow(self) -> None:
        """Re-plan from now: the power asked for, unless the cells are already at the limit it pushes against."""
        self._stored_mWh, self._since = self.stored_mWh(), self.clock.now()
        if self._limit is not None:
            self._limit.cancel()
            self._limit = None
        asked = self.esa.adjusted_power_mW or 0
        room = self._room_mWh(asked)
        power = asked if room > 0 else 0
        self._set_power(power)
        if power:
            seconds = math.ceil(room * 3600 / abs(self._cell_rate_mW(power)) * 10) / 10
            self._limit = self.clock.call_later(seconds, self._at_limit, "battery limit")

    def _room_mWh(self, power_mW: int) -> float:
        if power_mW > 0:
            return BATTERY_CAPACITY_MWH - self._stored_mWh
        if power_mW < 0:
            return self._stored_mWh - BATTERY_CAPACITY_MWH * BATTERY_RESERVE
        return 0.0

    def _at_limit(self) -> None:
        self._limit = None
        full = self._power_mW > 0
        self._stored_mWh = BATTERY_CAPACITY_MWH if full else BATTERY_CAPACITY_MWH * BATTERY_RESERVE
        self._since = self.clock.now()
        self._set_power(0)

    def _set_power(self, power_mW: int) -> None:
        self._power_mW = power_mW
        self.meter.set_power(power_mW)
        for name in ("BatPercentRemaining", "BatChargeState"):  # live values: reported at each change of course
            new = self.source.read(name)
            self.source.notify(name, self._reported.get(name), new)
            self._reported[name] = new


class ValveFlowMeter:
    """A valve's flow meter reads the valve's open flow while it is open (or opening) and 0 otherwise."""

    def __init__(self, valve: ValveConfigurationAndControlServer, meter: FlowMeasurementServer) -> None:
        self.valve, self.meter = valve, meter
        valve.add_listener(
            lambda server, name, old, new: self.follow() if name in ("CurrentState", "TargetState") else None
        )
        self.follow()

    def follow(self) -> None:
        self.meter.set_measured_value(self.valve.open_flow if self.valve.is_open else 0)


class ChargerEnergyManager:
    """An EV charger's energy management: a Device Energy Management power adjustment caps its charging power while
    it is active; its power forecast is the session's charge (one slot: the power it would draw for the time the
    vehicle's remaining demand takes), pending from the moment a vehicle wanting energy plugs in until the transfer
    begins; a StartTimeAdjustRequest holds that start until the requested time (EarliestStartTime null: from now;
    LatestEndTime: ChargingEnabledUntil when set, else a day after the vehicle plugged in)."""

    def __init__(self, esa: DeviceEnergyManagementServer, evse: EnergyEvseServer, clock: VirtualClock) -> None:
        self.esa, self.evse, self.clock = esa, evse, clock
        self._forecast_id = 0
        self._reason = int(ForecastReason.kInternalOptimization)
        self._reported: Any = None
        esa.add_listener(lambda server, name, old, new: self.follow() if name == "ESAState" else None)
        if esa.has_attribute("Forecast"):
            stored = esa.read("Forecast")  # a saved home's forecast, before it becomes a live value
            esa.planner = self
            esa.bind_source("Forecast", self.forecast)
            evse.add_listener(lambda server, name, old, new: self._evse_changed(name))
            self._resume(stored)
            self._reported = self.forecast()

    def follow(self) -> None:
        self.evse.limit_power(self.esa.adjusted_power_mW)
        self._report()

    def _resume(self, stored: dict[str, Any] | None) -> None:
        """A home saved with a shifted start that has not come yet keeps it (the forecast says when)."""
        if not stored or stored["activeSlotNumber"] is not None or not self.evse.plugged_in:
            return
        reason, wait = stored["forecastUpdateReason"], stored["startTime"] - self.epoch_now()
        if reason != int(ForecastReason.kInternalOptimization) and wait > 0:
            self._forecast_id, self._reason = stored["forecastID"], reason
            self.evse.hold_until(self.clock.now() + wait)

    # ------------------------------------------------------------------ the forecast (a live value)
    def epoch_now(self) -> int:
        return self._epoch(self.clock.now())

    def _epoch(self, seconds: float) -> int:
        moment = self.clock.base_time + timedelta(seconds=seconds)
        return math.floor((moment - MATTER_EPOCH).total_seconds())

    def forecast(self) -> dict[str, Any] | None:
        """The session's charge as a ForecastStruct, or null when there is nothing to charge."""
        power, evse = self.evse.planned_power_mW(), self.evse
        if power <= 0 or evse.session_started_at is None:
            return None
        now = self.clock.now()
        began = evse.transfer_started_at
        start = began if began is not None else max(now, evse.held_until or now)
        elapsed = 0 if began is None else math.floor(now - began)
        remaining = math.ceil(evse.demand_left_mWh() * 3600 / power)
        duration = elapsed + remaining
        until = evse.read("ChargingEnabledUntil")
        latest_end = until if until else self._epoch(evse.session_started_at + SESSION_WINDOW_S)
        start_epoch = self._epoch(start)
        return {
            "forecastID": self._forecast_id,
            "activeSlotNumber": None if began is None else 0,
            "startTime": start_epoch,
            "endTime": start_epoch + duration,
            "earliestStartTime": None,
            "latestEndTime": max(latest_end, start_epoch + duration),
            "isPausable": False,
            "slots": [
                {
                    "minDuration": duration,
                    "maxDuration": duration,
                    "defaultDuration": duration,
                    "elapsedSlotTime": elapsed,
                    "remainingSlotTime": remaining,
                    "nominalPower": power,
                    "minPower": power,
                    "maxPower": power,
                    "nominalEnergy": round(power * duration / 3600),
                }
            ],
            "forecastUpdateReason": self._reason,
        }

    def _evse_changed(self, name: str) -> None:
        if name == "State" and self.evse.read("State") == int(EvseState.kNotPluggedIn):
            self._reason = int(ForecastReason.kInternalOptimization)
        if name in ("State", "SupplyState", "MaximumChargeCurrent", "ChargingEnabledUntil"):
            self._report()

    def _report(self) -> None:
        if self.esa.planner is not self:
            return
        new = self.forecast()
        if _plan(new) != _plan(self._reported):  # a new plan: a new ForecastID
            self._forecast_id = (self._forecast_id + 1) % 2**32
            new = self.forecast()
        old, self._reported = self._reported, new
        self.esa.notify("Forecast", old, new)

    # ------------------------------------------------------------------ start-time adjustment
    def shift_start(self, start_epoch_s: int, cause: int) -> None:
        now_epoch = self.epoch_now()
        self._reason = int(ForecastReason.kGridOptimization if cause == 1 else ForecastReason.kLocalOptimization)
        self.evse.hold_until(self.clock.now() + (start_epoch_s - now_epoch))
        self._report()

    def cancel_shift(self) -> bool:
        if self.evse.held_until is None:
            return False
        self._reason = int(ForecastReason.kInternalOptimization)
        self.evse.hold_until(None)
        self._report()
        return True


def _plan(forecast: dict[str, Any] | None) -> Any:
    """What makes a forecast a new plan (its start, power and reason), not the same plan running on."""
    if forecast is None:
        return None
    return (forecast["startTime"], forecast["slots"][0]["nominalPower"], forecast["forecastUpdateReason"])


RoleBehaviour = SolarArray | HomeBattery | ValveFlowMeter | ChargerEnergyManager


def attach_role_behaviour(
    type_name: str,
    roles: Sequence[tuple[str, int]],
    endpoints: Mapping[int, Endpoint],
    clock: VirtualClock,
    latitude_deg: float = DEFAULT_LATITUDE_DEG,
) -> list[RoleBehaviour]:
    """Start what a device's roles ask for (none for most devices), on its attached endpoints."""
    if not roles:
        return []
    from clusters.electrical import DeviceEnergyManagementServer, ElectricalPowerMeasurementServer
    from clusters.energy_evse import EnergyEvseServer
    from clusters.fluid_measurement import FlowMeasurementServer
    from clusters.power_source import PowerSourceServer
    from clusters.valve import ValveConfigurationAndControlServer

    started: list[RoleBehaviour] = []

    def _server(ep: int, cluster: str, kind: type[ServerT]) -> ServerT:
        endpoint = endpoints.get(ep)
        server = endpoint.find(cluster) if endpoint is not None else None
        if not isinstance(server, kind):
            raise TypeError(f"{type_name}: endpoint {ep} needs a {cluster} server for its role")
        return server

    by_role = dict(roles)
    if "valve" in by_role and "flow_meter" in by_role:
        started.append(
            ValveFlowMeter(
                _server(by_role["valve"], "ValveConfigurationAndControl", ValveConfigurationAndControlServer),
                _server(by_role["flow_meter"], "FlowMeasurement", FlowMeasurementServer),
            )
        )
    for role, ep in roles:
        if role == "solar":
            started.append(
                SolarArray(
                    _server(ep, "ElectricalPowerMeasurement", ElectricalPowerMeasurementServer), clock, latitude_deg
                )
            )
        elif role == "evse":
            started.append(
                ChargerEnergyManager(
                    _server(ep, "DeviceEnergyManagement", DeviceEnergyManagementServer),
                    _server(ep, "EnergyEvse", EnergyEvseServer),
                    clock,
                )
            )
        elif role == "battery":
            started.append(
                HomeBattery(
                    _server(ep, "PowerSource", PowerSourceServer),
                    _server(ep, "ElectricalPowerMeasurement", ElectricalPowerMeasurementServer),
                    _server(ep, "DeviceEnergyManagement", DeviceEnergyManagementServer),
                    clock,
                )
            )
    return started
