"""Microwave Oven Control (0x005F): cook time and power, set with SetCookingParameters.

It works with two siblings: MicrowaveOvenMode (the cook mode) and OperationalState, whose cycle
length comes from CookTime (see ``operational_state.MICROWAVE_PROGRAM``). AddMoreTime during a
cycle lengthens it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer, command
from clusters.cycle_programs import ERROR, STATE_NAMES, STOPPED
from clusters.status import HomeError, Status
from clusters.values import Constraint

_Feature = Objects.MicrowaveOvenControl.Bitmaps.Feature
POWER_AS_NUMBER = int(_Feature.kPowerAsNumber)
POWER_IN_WATTS = int(_Feature.kPowerInWatts)
POWER_NUMBER_LIMITS = int(_Feature.kPowerNumberLimits)
DEFAULT_COOK_TIME = 30  # s, the spec's default for a missing CookTime field
_NORMAL_TAG = int(Objects.MicrowaveOvenMode.Enums.ModeTag.kNormal)


class MicrowaveOvenControlServer(ClusterServer):
    __slots__ = ()
    cluster_name = "MicrowaveOvenControl"
    revision = 1
    default_features = POWER_AS_NUMBER | POWER_NUMBER_LIMITS
    defaults = {
        "CookTime": DEFAULT_COOK_TIME,
        "MaxCookTime": 3600,
        "PowerSetting": 100,
        "MinPower": 10,
        "MaxPower": 100,
        "PowerStep": 10,
        "SupportedWatts": [600, 800, 1000],
        "SelectedWattIndex": 2,
    }

    def __init__(
        self,
        *,
        max_cook_time: int | None = None,
        min_power: int | None = None,
        max_power: int | None = None,
        power_step: int | None = None,
        supported_watts: Sequence[int] | None = None,
        watt_rating: int | None = None,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        if features is None and supported_watts is not None:
            features = POWER_IN_WATTS
        super().__init__(features=features, values=values)
        watts = None if supported_watts is None else list(supported_watts)
        options = {
            "MaxCookTime": max_cook_time,
            "MinPower": min_power,
            "MaxPower": max_power,
            "PowerStep": power_step,
            "SupportedWatts": watts,
        }
        for name, value in options.items():
            if value is not None and self.has_attribute(name):
                self.restore(name, value)
        if watt_rating is not None:
            self.restore("WattRating", watt_rating)
        if self.has_attribute("SupportedWatts") and "SelectedWattIndex" not in (values or {}):
            self.restore("SelectedWattIndex", self._highest_watt_index())
        if self.has_attribute("PowerSetting") and "PowerSetting" not in (values or {}):
            self.restore("PowerSetting", self._power_limits()[1])

    def initial_values(self) -> dict[str, Any]:
        names = ["CookTime", "MaxCookTime"]
        if self.has_feature(POWER_AS_NUMBER):
            names.append("PowerSetting")
        if self.has_feature(POWER_NUMBER_LIMITS):
            names += ["MinPower", "MaxPower", "PowerStep"]
        if self.has_feature(POWER_IN_WATTS):
            names += ["SupportedWatts", "SelectedWattIndex"]
        return {n: self.defaults[n] for n in names}

    # ----------------------------------------------------------------------- helpers
    def _power_limits(self) -> tuple[int, int, int]:
        if self.has_feature(POWER_NUMBER_LIMITS):
            return self.read("MinPower"), self.read("MaxPower"), self.read("PowerStep")
        return 10, 100, 10  # the spec's fixed limits without PWRLMTS

    def _highest_watt_index(self) -> int:
        watts = self.read("SupportedWatts")
        return max(range(len(watts)), key=lambda i: watts[i])

    def _sibling(self, name: str) -> Any:
        return self.endpoint.find(name) if self.endpoint is not None else None

    def _refuse_unless(
        self, ok: bool, status: Status, message: str, allowed: object = None, code: str | None = None
    ) -> None:
        if not ok:
            raise HomeError.refused(status, f"MicrowaveOvenControl: {message}", allowed=allowed, reason=code)

    # ----------------------------------------------------------------------- commands
    @command("SetCookingParameters")
    def set_cooking_parameters(
        self,
        cookMode: int | None = None,
        cookTime: int | None = None,
        powerSetting: int | None = None,
        wattSettingIndex: int | None = None,
        startAfterSetting: bool | None = None,
    ) -> None:
        operational, mode_server = self._sibling("OperationalState"), self._sibling("MicrowaveOvenMode")
        if operational is not None:
            state = operational.read("OperationalState")
            self._refuse_unless(
                state == STOPPED,
                Status.INVALID_IN_STATE,
                f"cooking parameters can change only while stopped (now {STATE_NAMES.get(state, state)})",
                code="NOT_STOPPED",
            )
        if cookMode is not None and mode_server is not None:
            self._refuse_unless(
                cookMode in mode_server.mode_numbers(),
                Status.CONSTRAINT_ERROR,
                f"CookMode={cookMode} is not a MicrowaveOvenMode mode",
                allowed=mode_server.modes_summary(),
            )
        if cookMode is None and mode_server is not None:
            cookMode = mode_server.first_with_tag(_NORMAL_TAG)
        cook_time = DEFAULT_COOK_TIME if cookTime is None else cookTime
        max_cook = self.read("MaxCookTime")
        self._refuse_unless(
            1 <= cook_time <= max_cook,
            Status.CONSTRAINT_ERROR,
            f"CookTime={cook_time} is out of range 1..{max_cook} s",
            allowed={"min": 1, "max": max_cook},
        )
        power = self._check_power(powerSetting)
        watt_index = self._check_watts(wattSettingIndex, powerSetting)
        if startAfterSetting:
            self._refuse_unless(
                operational is not None and "Start" in operational.command_names(),
                Status.INVALID_COMMAND,
                "StartAfterSetting needs an OperationalState that can Start",
            )
            on_off = self._sibling("OnOff")
            self._refuse_unless(
                on_off is None or on_off.read("OnOff"),
                Status.INVALID_IN_STATE,
                "the oven is off (dead front)",
                allowed={"first": "OnOff.On"},
                code="POWER_OFF",
            )
        if cookMode is not None and mode_server is not None:
            mode_server.set("CurrentMode", cookMode)
        self.set("CookTime", cook_time)
        if power is not None:
            self.set("PowerSetting", power)
        if watt_index is not None:
            self.set("SelectedWattIndex", watt_index)
        if startAfterSetting:
            operational.invoke("Start")

    def _check_power(self, power: int | None) -> int | None:
        if not self.has_feature(POWER_AS_NUMBER):
            self._refuse_unless(
                power is None,
                Status.INVALID_COMMAND,
                "this oven sets power in watts: give WattSettingIndex",
                allowed={"SupportedWatts": self.read("SupportedWatts")},
            )
            return None
        low, high, step = self._power_limits()
        if power is None:
            return high
        allowed = {"min": low, "max": high, "step": step}
        self._refuse_unless(
            low <= power <= high and (power - low) % step == 0,
            Status.CONSTRAINT_ERROR,
            f"PowerSetting={power} must be {low}..{high} in steps of {step}",
            allowed=allowed,
        )
        return power

    def _check_watts(self, index: int | None, power: int | None) -> int | None:
        if not self.has_feature(POWER_IN_WATTS):
            self._refuse_unless(
                index is None, Status.INVALID_COMMAND, "this oven sets power as a number: give PowerSetting"
            )
            return None
        self._refuse_unless(power is None, Status.INVALID_COMMAND, "give WattSettingIndex, not PowerSetting")
        if index is None:
            return self._highest_watt_index()
        watts = self.read("SupportedWatts")
        self._refuse_unless(
            index < len(watts),
            Status.CONSTRAINT_ERROR,
            f"WattSettingIndex={index} is not an index into SupportedWatts",
            allowed=dict(enumerate(watts)),
        )
        return index

    @command("AddMoreTime", constraints={"timeToAdd": Constraint(minimum=1)})
    def add_more_time(self, timeToAdd: int) -> None:
        operational = self._sibling("OperationalState")
        if operational is not None:
            self._refuse_unless(
                operational.read("OperationalState") != ERROR,
                Status.INVALID_IN_STATE,
                "cannot add time while in error",
                code="ERROR_STATE",
            )
        new_time, max_cook = self.read("CookTime") + timeToAdd, self.read("MaxCookTime")
        self._refuse_unless(
            new_time <= max_cook,
            Status.CONSTRAINT_ERROR,
            f"CookTime would become {new_time} s, above MaxCookTime {max_cook} s",
            allowed={"max_time_to_add": max_cook - self.read("CookTime")},
        )
        self.set("CookTime", new_time)
        if operational is not None and getattr(operational, "in_cycle", False):
            operational.extend_cycle(timeToAdd)
