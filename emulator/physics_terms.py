"""Which device terms act on which room variable, at which rates (SimuHome's, facts §4): the physics
constants and the stateless rules the physics engine builds its segments from."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from emulator.clock import TICK_S
from emulator.daylight import DEFAULT_LATITUDE_DEG
from emulator.physics_model import (
    NEG_INF,
    Process,
    Term,
    constant_term,
    push_down_above,
    push_up_below,
    same_float,
)

if TYPE_CHECKING:
    from emulator.device import Device


class PhysicsParams(BaseModel):
    """Tunable constants (SimuHome's values by default), serialisable in a home's extensions."""

    model_config = ConfigDict(extra="forbid", frozen=True)  # frozen: homes with the same constants share one
    temperature_drift_per_s: float = 0.0002
    humidity_drift_per_s: float = 0.01
    pm10_drift_per_s: float = 0.1
    hvac_rate_c_per_s: float = 0.0005  # AC / heat pump at full fan, °C per second
    fan_rate_c_per_s: float = 0.0002
    fan_floor_below_baseline: float = 200  # centi-°C
    humidity_rate_per_s: float = 5.0  # centi-% per second at full fan and efficiency 1
    purifier_rate_per_s: float = 5.0  # µg/m³ per second at full fan and pollution ratio 1
    light_lux: float = 500.0
    covering_blocks_daylight: float = 0.8  # share of daylight a fully closed covering blocks; 0 = SimuHome
    compartment_rate_per_s: float = 0.004  # fridge/freezer/oven/tank approach to setpoint
    compartment_ambient: float = 2200.0
    # Metered power follows the device's mode (a heat pump at rest draws watts, not kW); SimuHome's is constant.
    power_follows_mode: bool = True
    # "constant": a room's daylight never changes (SimuHome); "sun": it follows the sun over the day and the year
    # at latitude_deg (emulator/daylight.py), a room's illuminance being its daylight at solar noon.
    daylight: Literal["constant", "sun"] = "constant"
    latitude_deg: float = Field(default=DEFAULT_LATITUDE_DEG, ge=-90, le=90)
    # "none": rooms drift toward their own baseline only (SimuHome); "daily": they also exchange heat with an
    # outdoor temperature that swings daily around outdoor_mean (coolest ~03:00, warmest ~15:00), held constant
    # over each 15-minute knot so every stretch stays closed-form.
    outdoor: Literal["none", "daily"] = "none"
    outdoor_mean: float = 2200.0  # centi-°C
    outdoor_amplitude: float = 600.0  # centi-°C, half the day's swing
    outdoor_exchange_per_s: float = Field(default=0.00005, ge=0, le=0.01)  # share of the gap closed per second


_SHARED_PARAMS: dict[tuple[object, ...], PhysicsParams] = {}
_SHARED_PARAMS_MAX = 64  # distinct constant sets remembered (a sweep over many starts over)


def shared_params(params: PhysicsParams) -> PhysicsParams:
    """One object per distinct set of constants, shared by every home built with them (≈1.5 KB each: memory per
    home). The key holds every value with its type (and a float's sign: 0.0 and -0.0 stay apart) and which were
    given (a default and the same value given stay apart)."""
    key = (
        frozenset(params.model_fields_set),
        *(
            (type(v), v, math.copysign(1.0, v)) if isinstance(v, float) else (type(v), v)
            for v in params.__dict__.values()
        ),
    )
    shared = _SHARED_PARAMS.get(key)
    if shared is None:
        if len(_SHARED_PARAMS) >= _SHARED_PARAMS_MAX:
            _SHARED_PARAMS.clear()
        shared = _SHARED_PARAMS[key] = params
    return shared


def fan_fraction(device: Device, endpoint: int) -> float:
    percent: float | None = device.value(endpoint, "FanControl", "PercentCurrent")
    if percent is None:
        return 0.5 if device.find(endpoint, "FanControl") is not None else 1.0
    return min(max(percent, 0), 100) / 100.0


def is_on(device: Device, endpoint: int) -> bool:
    return bool(device.value(endpoint, "OnOff", "OnOff", default=True))


def room_process(
    p: PhysicsParams, devices: Iterable[Device], baseline: float, variable: str, outdoor: float | None
) -> Process:
    """A room variable's dynamics: the drift toward its baseline plus the terms of the devices acting on it."""
    terms: list[Term] = []
    for device in devices:
        for role, endpoint in device.spec.roles:
            term = device_term(p, device, role, endpoint, variable, baseline)
            if term is not None:
                terms.append(term)
    if variable == "temperature":
        acting = tuple(terms)
        if outdoor is not None and p.outdoor_exchange_per_s > 0:
            exchange = _EXCHANGE(p.outdoor_exchange_per_s, outdoor)
            acting = (*acting, *exchange) if acting else exchange  # a room with no device term shares (term,)
        return Process(acting, _TEMPERATURE_DRIFT(p.temperature_drift_per_s), baseline)
    if variable == "humidity":
        return Process(tuple(terms), _HUMIDITY_DRIFT(p.humidity_drift_per_s), baseline, 0.0, 10000.0)
    return Process(tuple(terms), _PM10_DRIFT(p.pm10_drift_per_s), baseline, 0.0)


class _PerTick:
    """rate·TICK_S, one float object while the rate stays the same: every process of every home under SimuHome's
    rates holds the same drift (a float per process otherwise: memory per home)."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last = (math.nan, math.nan)  # (rate, rate·TICK_S); NaN equals nothing

    def __call__(self, rate: float) -> float:
        last = self._last
        if same_float(last[0], rate):
            return last[1]
        per_tick = rate * TICK_S
        self._last = (rate, per_tick)  # one assignment: threads building homes see a whole pair
        return per_tick


class _OutdoorExchange:
    """The walls-and-windows term δ = k·(T_out − T), k = rate·TICK_S, one object while the outdoor temperature stays
    the same: every room of every home under the same sky shares it (terms are immutable)."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: tuple[float, float, tuple[Term]] | None = None  # (rate, outdoor, (term,))

    def __call__(self, rate: float, outdoor: float) -> tuple[Term]:
        """(the term,): the terms of a room no device acts on, as they are."""
        last = self._last
        if last is not None and same_float(last[0], rate) and same_float(last[1], outdoor):
            return last[2]
        k = rate * TICK_S
        alone = (Term([(NEG_INF, -k, k * outdoor)]),)
        self._last = (rate, outdoor, alone)
        return alone


_TEMPERATURE_DRIFT, _HUMIDITY_DRIFT, _PM10_DRIFT = _PerTick(), _PerTick(), _PerTick()
_EXCHANGE = _OutdoorExchange()


def device_term(p: PhysicsParams, device: Device, role: str, ep: int, variable: str, baseline: float) -> Term | None:
    """What one device endpoint in ``role`` does to ``variable`` now (None: nothing)."""
    if variable == "temperature" and role in ("ac", "heat_pump", "thermostat"):
        if role == "ac" and not is_on(device, ep):
            return None
        mode = device.value(ep, "Thermostat", "SystemMode", 0)
        fraction = fan_fraction(device, ep) if role == "ac" else 1.0
        # SimuHome: δ = ∓min(rate·100, |T − setpoint|)·f·dt in centi-°C per tick
        cap = p.hvac_rate_c_per_s * 100 * fraction * TICK_S
        gain = fraction * TICK_S
        cool = device.value(ep, "Thermostat", "OccupiedCoolingSetpoint")
        heat = device.value(ep, "Thermostat", "OccupiedHeatingSetpoint")
        if mode in (3, 1) and cool is not None and (mode == 3 or role != "heat_pump"):
            down = push_down_above(cool, cap, gain)
            if mode == 3:
                return down
            up = push_up_below(heat, cap, gain) if heat is not None else constant_term(0.0)
            return _sum_terms(down, up)
        if mode == 4 and heat is not None:
            return push_up_below(heat, cap, gain)
        return None
    if variable == "temperature" and role == "fan" and is_on(device, ep):
        fraction = fan_fraction(device, ep)
        floor = baseline - p.fan_floor_below_baseline
        # SimuHome: δ = −min(rate·100, 0.5·(T − floor))·f·dt above the floor
        return push_down_above(floor, p.fan_rate_c_per_s * 100 * fraction * TICK_S, 0.5 * fraction * TICK_S)
    if variable == "humidity" and role in ("humidifier", "dehumidifier") and is_on(device, ep):
        fraction = fan_fraction(device, ep)
        if device.value(ep, "FanControl", "PercentCurrent") in (0, None) and device.find(ep, "FanControl"):
            return None
        k = p.humidity_rate_per_s * fraction * TICK_S  # δ = ±k·max(0.1, efficiency)
        if role == "humidifier":  # efficiency (9000 − H)/9000, acting below 9000
            return Term([(NEG_INF, -k / 9000, k), (8100.0, 0.0, 0.1 * k), (9000.0, 0.0, 0.0)])
        return Term([(NEG_INF, 0.0, 0.0), (1000.0, 0.0, -0.1 * k), (1900.0, -k / 9000, k / 9)])
    if variable == "pm10" and role == "purifier" and is_on(device, ep):
        percent = device.value(ep, "FanControl", "PercentCurrent")
        if not percent:
            return None
        q = p.purifier_rate_per_s * (percent / 100.0) ** 0.8 * TICK_S
        if baseline <= 0:
            return constant_term(-q)  # SimuHome: ratio taken as 1 without a baseline
        # pollution factor: r = P/B, r if r ≤ 2 else 0.8·r  →  δ = −q·r or −0.8·q·r
        return Term([(NEG_INF, -q / baseline, 0.0), (2 * baseline, -0.8 * q / baseline, 0.0)])
    return None


def lights_lux(p: PhysicsParams, devices: Iterable[Device]) -> float:
    """The lux the room's lights add (on, at their level)."""
    total = 0.0
    for device in devices:
        for role, ep in device.spec.roles:
            if role == "light" and is_on(device, ep):
                if device.find(ep, "LevelControl") is not None:
                    level = device.value(ep, "LevelControl", "CurrentLevel")
                    total += p.light_lux * (level or 0) / 254
                else:
                    total += p.light_lux
    return total


def covering_factor(p: PhysicsParams, devices: Iterable[Device]) -> float:
    """The share of daylight the room's coverings let in."""
    closed = [
        (device.value(ep, "WindowCovering", "CurrentPositionLiftPercent100ths") or 0) / 10000
        for device in devices
        for role, ep in device.spec.roles
        if role == "covering"
    ]
    if not closed or p.covering_blocks_daylight <= 0:
        return 1.0
    return 1.0 - p.covering_blocks_daylight * (sum(closed) / len(closed))


def _sum_terms(a: Term, b: Term) -> Term:
    bounds = sorted(set(a.bounds) | set(b.bounds))
    pieces = []
    for low in bounds:
        probe = low if low != -math.inf else min(x for x in bounds if x != -math.inf) - 1 if len(bounds) > 1 else 0.0
        _, _, sa, ia = a.locate(probe)
        _, _, sb, ib = b.locate(probe)
        pieces.append((low, sa + sb, ia + ib))
    return Term(pieces)
