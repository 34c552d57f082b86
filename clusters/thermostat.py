"""Thermostat cluster (0x0201): setpoints within limits, the Auto-mode deadband, SystemMode vs control sequence.

Temperatures are in 0.01 °C. LocalTemperature is a plain value until the fabric binds it to the
room (``bind_source``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import clusters.official as Objects
from clusters.absent_attributes import served_or_absent
from clusters.base import ClusterServer, command
from clusters.status import HomeError, Status
from clusters.values import Constraint

Feature = Objects.Thermostat.Bitmaps.Feature
SystemMode = Objects.Thermostat.Enums.SystemModeEnum
Sequence = Objects.Thermostat.Enums.ControlSequenceOfOperationEnum
HEAT, COOL, BOTH = 0, 1, 2  # SetpointRaiseLowerModeEnum
COOLING_SEQUENCES = (int(Sequence.kCoolingOnly), int(Sequence.kCoolingWithReheat))
HEATING_SEQUENCES = (int(Sequence.kHeatingOnly), int(Sequence.kHeatingWithReheat))
HEATING_MODES = (int(SystemMode.kHeat), int(SystemMode.kEmergencyHeat))
COOLING_MODES = (int(SystemMode.kCool), int(SystemMode.kPrecooling))
ALL_MODES = tuple(int(m) for m in SystemMode if m != SystemMode.kUnknownEnumValue)

HEATING_ATTRIBUTES = (
    "AbsMinHeatSetpointLimit",
    "AbsMaxHeatSetpointLimit",
    "OccupiedHeatingSetpoint",
    "MinHeatSetpointLimit",
    "MaxHeatSetpointLimit",
)
COOLING_ATTRIBUTES = (
    "AbsMinCoolSetpointLimit",
    "AbsMaxCoolSetpointLimit",
    "OccupiedCoolingSetpoint",
    "MinCoolSetpointLimit",
    "MaxCoolSetpointLimit",
)
# setpoint → (its lower limit attribute, its upper limit attribute)
LIMITS = {
    "OccupiedHeatingSetpoint": ("MinHeatSetpointLimit", "MaxHeatSetpointLimit"),
    "OccupiedCoolingSetpoint": ("MinCoolSetpointLimit", "MaxCoolSetpointLimit"),
    "MinHeatSetpointLimit": ("AbsMinHeatSetpointLimit", "MaxHeatSetpointLimit"),
    "MaxHeatSetpointLimit": ("MinHeatSetpointLimit", "AbsMaxHeatSetpointLimit"),
    "MinCoolSetpointLimit": ("AbsMinCoolSetpointLimit", "MaxCoolSetpointLimit"),
    "MaxCoolSetpointLimit": ("MinCoolSetpointLimit", "AbsMaxCoolSetpointLimit"),
}


# The specification's values for absent setpoint limits (Matter 1.3 §4.3.9: AbsMin/AbsMax*SetpointLimit default
# 700/3000 heat, 1600/3200 cool, 0.01 °C); an absent Min/Max*SetpointLimit is its Abs* limit.
class ThermostatServer(ClusterServer):
    __slots__ = ("cool_limits", "deadband_centi", "enforce_deadband", "heat_limits", "system_modes")
    cluster_name = "Thermostat"
    revision = 7
    default_features = int(Feature.kHeating | Feature.kCooling)
    defaults = {
        "LocalTemperature": 2500,
        "OccupiedCoolingSetpoint": 2600,
        "OccupiedHeatingSetpoint": 2000,
        "AbsMinHeatSetpointLimit": 700,
        "AbsMaxHeatSetpointLimit": 3000,
        "AbsMinCoolSetpointLimit": 1600,
        "AbsMaxCoolSetpointLimit": 3200,
        "MinHeatSetpointLimit": 700,
        "MaxHeatSetpointLimit": 3000,
        "MinCoolSetpointLimit": 1600,
        "MaxCoolSetpointLimit": 3200,
        "MinSetpointDeadBand": 25,
        "ControlSequenceOfOperation": int(Sequence.kCoolingAndHeating),
        "SystemMode": int(SystemMode.kOff),
    }
    constraints = {"MinSetpointDeadBand": Constraint(0, 127)}

    def __init__(
        self,
        *,
        heat_limits: tuple[int, int] = (700, 3000),
        cool_limits: tuple[int, int] = (1600, 3200),
        deadband_centi: int | None = None,
        enforce_deadband: bool | None = None,
        system_modes: Iterable[int] | None = None,
        **kwargs: Any,
    ) -> None:
        self.heat_limits = heat_limits
        self.cool_limits = cool_limits
        self.deadband_centi = deadband_centi
        self.enforce_deadband = enforce_deadband
        self.system_modes = None if system_modes is None else tuple(int(m) for m in system_modes)
        super().__init__(**kwargs)
        if not self.has_feature(Feature.kHeating | Feature.kCooling):
            raise ValueError("a Thermostat needs the Heating or the Cooling feature")

    def initial_values(self) -> dict[str, Any]:
        values = dict(self.defaults)
        values.update(
            AbsMinHeatSetpointLimit=self.heat_limits[0],
            MinHeatSetpointLimit=self.heat_limits[0],
            AbsMaxHeatSetpointLimit=self.heat_limits[1],
            MaxHeatSetpointLimit=self.heat_limits[1],
            AbsMinCoolSetpointLimit=self.cool_limits[0],
            MinCoolSetpointLimit=self.cool_limits[0],
            AbsMaxCoolSetpointLimit=self.cool_limits[1],
            MaxCoolSetpointLimit=self.cool_limits[1],
        )
        heating, cooling = self.has_feature(Feature.kHeating), self.has_feature(Feature.kCooling)
        if not heating:
            for name in HEATING_ATTRIBUTES:
                values.pop(name)
            values["ControlSequenceOfOperation"] = int(Sequence.kCoolingOnly)
        if not cooling:
            for name in COOLING_ATTRIBUTES:
                values.pop(name)
            values["ControlSequenceOfOperation"] = int(Sequence.kHeatingOnly)
        if not self.has_feature(Feature.kAutoMode):
            values.pop("MinSetpointDeadBand")
        return values

    def accepts(self, command_name: str) -> bool:
        return command_name == "SetpointRaiseLower"  # schedules, presets and atomic writes are not modelled

    # ----------------------------------------------------------------------------- rules
    def deadband(self) -> int | None:
        """The enforced minimum cooling − heating distance in 0.01 °C, or None when not enforced."""
        enforced = self.has_feature(Feature.kAutoMode) if self.enforce_deadband is None else self.enforce_deadband
        if not enforced or not self.has_feature(Feature.kHeating) or not self.has_feature(Feature.kCooling):
            return None
        if self.deadband_centi is not None:
            return self.deadband_centi
        return int(self.read("MinSetpointDeadBand")) * 10  # the attribute is in 0.1 °C

    def allowed_system_modes(self) -> list[int]:
        if self.system_modes is not None:
            return list(self.system_modes)
        sequence = self.read("ControlSequenceOfOperation")
        modes = [m for m in ALL_MODES if m != int(SystemMode.kAuto) or self.has_feature(Feature.kAutoMode)]
        if sequence in COOLING_SEQUENCES:
            modes = [m for m in modes if m not in HEATING_MODES]
        if sequence in HEATING_SEQUENCES:
            modes = [m for m in modes if m not in COOLING_MODES]
        return modes

    def allowed_sequences(self) -> list[int]:
        heating, cooling = self.has_feature(Feature.kHeating), self.has_feature(Feature.kCooling)
        out = list(COOLING_SEQUENCES) if cooling else []
        out += list(HEATING_SEQUENCES) if heating else []
        if heating and cooling:
            out += [int(Sequence.kCoolingAndHeating), int(Sequence.kCoolingAndHeatingWithReheat)]
        return sorted(out)

    def _range(self, name: str) -> tuple[int, int]:
        low, high = LIMITS[name]  # a limit the thermostat does not serve is the specification's default
        return served_or_absent(self, low), served_or_absent(self, high)

    def check_write(self, name: str, value: Any) -> None:
        if name in LIMITS:
            low, high = self._range(name)
            if not low <= value <= high:
                raise HomeError.refused(
                    Status.CONSTRAINT_ERROR,
                    f"Thermostat.{name}={value} is outside {low}..{high} (0.01 °C)",
                    allowed={"min": low, "max": high},
                )
            self._check_deadband(name, value)
        elif name == "SystemMode" and value not in self.allowed_system_modes():
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"Thermostat.SystemMode={value} is not allowed with ControlSequenceOfOperation "
                f"{self.read('ControlSequenceOfOperation')} and features {self.feature_map:#x}",
                allowed=self.allowed_system_modes(),
            )
        elif name == "ControlSequenceOfOperation" and value not in self.allowed_sequences():
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"Thermostat.ControlSequenceOfOperation={value} needs a feature this thermostat lacks",
                allowed=self.allowed_sequences(),
            )

    def _check_deadband(self, name: str, value: int) -> None:
        band = self.deadband()
        if band is None:
            return
        if name == "OccupiedHeatingSetpoint" and value > self.read("OccupiedCoolingSetpoint") - band:
            limit = self.read("OccupiedCoolingSetpoint") - band
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"Thermostat.OccupiedHeatingSetpoint={value} must stay {band} below the cooling "
                f"setpoint {self.read('OccupiedCoolingSetpoint')} (at most {limit})",
                allowed={"max": limit},
                reason="DEADBAND",
            )
        if name == "OccupiedCoolingSetpoint" and value < self.read("OccupiedHeatingSetpoint") + band:
            limit = self.read("OccupiedHeatingSetpoint") + band
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"Thermostat.OccupiedCoolingSetpoint={value} must stay {band} above the heating "
                f"setpoint {self.read('OccupiedHeatingSetpoint')} (at least {limit})",
                allowed={"min": limit},
                reason="DEADBAND",
            )

    # ----------------------------------------------------------------------------- commands
    @command("SetpointRaiseLower", constraints={"amount": Constraint(-128, 127)})
    def setpoint_raise_lower(self, mode: int, amount: int) -> None:
        heating, cooling = self.has_feature(Feature.kHeating), self.has_feature(Feature.kCooling)
        needs = {HEAT: heating, COOL: cooling, BOTH: heating and cooling}[mode]
        if not needs:
            raise HomeError.refused(
                Status.INVALID_COMMAND,
                f"Thermostat.SetpointRaiseLower.Mode={mode} needs a setpoint this thermostat lacks",
                allowed=[m for m, ok in ((HEAT, heating), (COOL, cooling), (BOTH, heating and cooling)) if ok],
            )
        delta = amount * 10  # Amount is in 0.1 °C
        heat: int | None = self.read("OccupiedHeatingSetpoint") if heating else None
        cool: int | None = self.read("OccupiedCoolingSetpoint") if cooling else None
        # The asserts state what `needs` above and deadband() guarantee, for the type checker.
        if mode in (HEAT, BOTH):
            assert heat is not None
            heat = self._clamp("OccupiedHeatingSetpoint", heat + delta)
        if mode in (COOL, BOTH):
            assert cool is not None
            cool = self._clamp("OccupiedCoolingSetpoint", cool + delta)
        band = self.deadband()
        if band is not None:
            assert heat is not None and cool is not None  # a deadband needs both the Heating and Cooling features
            if cool - heat < band:
                # Matter: the other setpoint is pushed along, within its own limits
                if mode == HEAT:
                    cool = self._clamp("OccupiedCoolingSetpoint", heat + band)
                    heat = min(heat, cool - band)
                else:
                    heat = self._clamp("OccupiedHeatingSetpoint", cool - band)
                    cool = max(cool, heat + band)
        if heat is not None:
            self.set("OccupiedHeatingSetpoint", heat)
        if cool is not None:
            self.set("OccupiedCoolingSetpoint", cool)

    def _clamp(self, name: str, value: int) -> int:
        low, high = self._range(name)
        return min(high, max(low, value))
