"""Mode Base derived clusters: dishwasher, laundry washer, RVC run / clean, refrigerator (RTCC),
water heater, oven and microwave oven modes.

SupportedModes holds ModeOptionStruct dicts; CurrentMode is read-only (Matter) and changes only
through ChangeToMode, whose ChangeToModeResponse carries the outcome. Refusals raise HomeError
with that response attached: UnsupportedMode (1) as CONSTRAINT_ERROR, InvalidInMode (3) and the
derived clusters' own codes (e.g. RVC clean CleaningInProgress 0x40) as INVALID_IN_STATE.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, NoReturn

import clusters.official as Objects
from clusters.base import ClusterServer, command
from clusters.cycle_programs import ERROR, PAUSED, RUNNING, SEEKING_CHARGER, STATE_NAMES
from clusters.status import HomeError, Status

SUCCESS, UNSUPPORTED_MODE, GENERIC_FAILURE, INVALID_IN_MODE = 0, 1, 2, 3  # ModeBase StatusCode
CLEANING_IN_PROGRESS = int(Objects.RvcCleanMode.Enums.StatusCode.kCleaningInProgress)
_RvcRunTag = Objects.RvcRunMode.Enums.ModeTag


def mode_option(label: str, mode: int, *tags: int) -> dict[str, Any]:
    return {"label": label, "mode": mode, "modeTags": [{"value": int(t)} for t in tags]}


_Dish = Objects.DishwasherMode.Enums.ModeTag
DISHWASHER_MODES = [
    mode_option("Normal", 0, _Dish.kNormal),
    mode_option("Heavy Duty", 1, _Dish.kHeavy),
    mode_option("Light Wash", 2, _Dish.kLight),
    mode_option("Quick Wash", 3, _Dish.kQuick),
    mode_option("Low Energy", 4, _Dish.kLowEnergy),
    mode_option("Silent", 5, _Dish.kQuiet),
]
_Wash = Objects.LaundryWasherMode.Enums.ModeTag
LAUNDRY_WASHER_MODES = [
    mode_option("Normal", 0, _Wash.kNormal),
    mode_option("Delicate", 1, _Wash.kDelicate),
    mode_option("Heavy", 2, _Wash.kHeavy),
    mode_option("Whites", 3, _Wash.kWhites),
    mode_option("Quick Normal", 4, _Wash.kQuick, _Wash.kNormal),
    mode_option("Heavy Whites", 5, _Wash.kHeavy, _Wash.kWhites),
]
RVC_RUN_MODES = [
    mode_option("Idle", 1, _RvcRunTag.kIdle),
    mode_option("Vacuum", 2, _RvcRunTag.kCleaning),
    mode_option("Mapping", 3, _RvcRunTag.kMapping),
]
_Clean = Objects.RvcCleanMode.Enums.ModeTag
RVC_CLEAN_MODES = [
    mode_option("Vacuum", 1, _Clean.kVacuum),
    mode_option("Deep Clean", 2, _Clean.kDeepClean, _Clean.kVacuum),
    mode_option("Mop", 3, _Clean.kMop),
]
_Rtcc = Objects.RefrigeratorAndTemperatureControlledCabinetMode.Enums.ModeTag
# SimuHome's mode numbers (0x4000 / 0x4001 exceed Matter's uint8 Mode; kept for compatibility).
RTCC_MODES = [
    # SimuHome numbers these 0, 4, 0x4000, 0x4001, but ModeOptionStruct.mode is a uint8 on the wire.
    mode_option("Normal", 0, _Rtcc.kAuto),
    mode_option("Energy Save", 1, _Rtcc.kLowEnergy),
    mode_option("Rapid Cool", 2, _Rtcc.kRapidCool),
    mode_option("Rapid Freeze", 3, _Rtcc.kRapidFreeze),
]
_Heater = Objects.WaterHeaterMode.Enums.ModeTag
WATER_HEATER_MODES = [
    mode_option("Off", 0, _Heater.kOff),
    mode_option("Manual", 1, _Heater.kManual),
    mode_option("Timed", 2, _Heater.kTimed),
]
_Oven = Objects.OvenMode.Enums.ModeTag
OVEN_MODES = [
    mode_option("Bake", 0, _Oven.kBake),
    mode_option("Convection", 1, _Oven.kConvection),
    mode_option("Grill", 2, _Oven.kGrill),
    mode_option("Roast", 3, _Oven.kRoast),
    mode_option("Clean", 4, _Oven.kClean),
    mode_option("Convection Bake", 5, _Oven.kConvectionBake),
    mode_option("Convection Roast", 6, _Oven.kConvectionRoast),
    mode_option("Warming", 7, _Oven.kWarming),
    mode_option("Proofing", 8, _Oven.kProofing),
]
_Micro = Objects.MicrowaveOvenMode.Enums.ModeTag
MICROWAVE_OVEN_MODES = [mode_option("Normal", 0, _Micro.kNormal), mode_option("Defrost", 1, _Micro.kDefrost)]


def _mode_defaults(modes: list[dict[str, Any]]) -> dict[str, Any]:
    return {"SupportedModes": modes, "CurrentMode": modes[0]["mode"]}


class ModeServer(ClusterServer):
    """Shared behaviour of the Mode Base clusters (no cluster of its own)."""

    __slots__ = ()

    def __init__(
        self,
        *,
        supported_modes: Sequence[Mapping[str, Any]] | None = None,
        current_mode: int | None = None,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(features=features, values=values)
        if supported_modes is not None:
            self.restore("SupportedModes", [dict(m) for m in supported_modes])
            if current_mode is None and self.read("CurrentMode") not in self.mode_numbers():
                current_mode = self.mode_numbers()[0]
        if current_mode is not None:
            self.restore("CurrentMode", current_mode)
        numbers = self.mode_numbers()
        if len(set(numbers)) != len(numbers) or len(numbers) < 2:
            raise ValueError(f"{self.cluster_name}: SupportedModes needs >= 2 modes with distinct numbers")
        if self.read("CurrentMode") not in numbers:
            raise ValueError(f"{self.cluster_name}: CurrentMode {self.read('CurrentMode')} is not supported")

    def initial_values(self) -> dict[str, Any]:
        return copy.deepcopy(self.defaults)

    # ----------------------------------------------------------------------- queries
    def mode_numbers(self) -> list[int]:
        return [m["mode"] for m in self.read("SupportedModes")]

    def option(self, mode: int) -> dict[str, Any] | None:
        return next((m for m in self.read("SupportedModes") if m["mode"] == mode), None)

    def label(self, mode: int | None = None) -> str | None:
        option = self.option(self.read("CurrentMode") if mode is None else mode)
        return None if option is None else option["label"]

    def has_tag(self, mode: int, tag: int) -> bool:
        option = self.option(mode)
        return option is not None and any(t["value"] == tag for t in option["modeTags"])

    def first_with_tag(self, tag: int) -> int | None:
        return next((m["mode"] for m in self.read("SupportedModes") if self.has_tag(m["mode"], tag)), None)

    def modes_summary(self) -> list[dict[str, Any]]:
        return [{"mode": m["mode"], "label": m["label"]} for m in self.read("SupportedModes")]


class ChangeableModeServer(ModeServer):
    """A mode cluster with ChangeToMode. ``blocking_cluster``: the sibling whose Running state refuses changes."""

    __slots__ = ()

    blocking_cluster: ClassVar[str | None] = None

    @command("ChangeToMode")
    def change_to_mode(self, newMode: int) -> dict[str, Any]:
        option = self.option(newMode)
        if option is None:
            self.refuse(
                UNSUPPORTED_MODE,
                Status.CONSTRAINT_ERROR,
                f"{self.cluster_name} has no mode {newMode}",
                code="UNSUPPORTED_MODE",
            )
        current = self.read("CurrentMode")
        if newMode != current:
            self.check_change(current, newMode)
            self.set("CurrentMode", newMode)
            self.after_change(current, newMode)
        return {"status": SUCCESS, "statusText": f"Mode {newMode} ({option['label']})"[:64]}

    def check_change(self, current: int, new: int) -> None:
        """Hook: refuse a change the device cannot make now (raise via :meth:`refuse`)."""
        if self.blocking_cluster is None or self.endpoint is None:
            return
        sibling = self.endpoint.find(self.blocking_cluster)
        if sibling is not None and sibling.read("OperationalState") == RUNNING:
            self.refuse(
                INVALID_IN_MODE,
                Status.INVALID_IN_STATE,
                f"{self.cluster_name} cannot change mode while the cycle is running (stop or pause it first)",
                code="INVALID_IN_MODE",
            )

    def after_change(self, old: int, new: int) -> None:
        """Hook: side effects of a mode change."""

    def refuse(self, status_code: int, status: Status, message: str, *, code: str) -> NoReturn:
        raise HomeError.refused(
            status,
            message,
            allowed={"modes": self.modes_summary()},
            reason=code,
            response={"status": status_code, "statusText": message[:64]},
        )


# --------------------------------------------------------------------------------- the clusters
class DishwasherModeServer(ChangeableModeServer):
    __slots__ = ()
    cluster_name = "DishwasherMode"
    revision = 2
    defaults = _mode_defaults(DISHWASHER_MODES)
    blocking_cluster = "OperationalState"


class LaundryWasherModeServer(ChangeableModeServer):
    """Changing the mode also updates the sibling LaundryWasherControls (it watches CurrentMode)."""

    __slots__ = ()

    cluster_name = "LaundryWasherMode"
    revision = 2
    defaults = _mode_defaults(LAUNDRY_WASHER_MODES)
    blocking_cluster = "OperationalState"


class RefrigeratorAndTemperatureControlledCabinetModeServer(ChangeableModeServer):
    __slots__ = ()
    cluster_name = "RefrigeratorAndTemperatureControlledCabinetMode"
    revision = 2
    defaults = _mode_defaults(RTCC_MODES)

    @command("ChangeToMode", aliases={"mode": "newMode"})  # SimuHome's spelling
    def change_to_mode(self, newMode: int) -> dict[str, Any]:
        return super().change_to_mode(newMode=newMode)


class WaterHeaterModeServer(ChangeableModeServer):
    __slots__ = ()
    cluster_name = "WaterHeaterMode"
    revision = 1
    defaults = _mode_defaults(WATER_HEATER_MODES)


class OvenModeServer(ChangeableModeServer):
    __slots__ = ()
    cluster_name = "OvenMode"
    revision = 1
    defaults = _mode_defaults(OVEN_MODES)
    blocking_cluster = "OvenCavityOperationalState"


class MicrowaveOvenModeServer(ModeServer):
    """No commands: the mode is chosen with MicrowaveOvenControl.SetCookingParameters(cookMode)."""

    __slots__ = ()

    cluster_name = "MicrowaveOvenMode"
    revision = 1
    defaults = _mode_defaults(MICROWAVE_OVEN_MODES)


class RvcRunModeServer(ChangeableModeServer):
    """Idle ↔ cleaning/mapping; a non-idle mode starts the sibling RvcOperationalState's run."""

    __slots__ = ()

    cluster_name = "RvcRunMode"
    revision = 3
    defaults = _mode_defaults(RVC_RUN_MODES)
    _DIRECT_MODE_CHANGE = int(Objects.RvcRunMode.Bitmaps.Feature.kDirectModeChange)

    def is_idle(self, mode: int | None = None) -> bool:
        return self.has_tag(self.read("CurrentMode") if mode is None else mode, _RvcRunTag.kIdle)

    def _operational(self) -> Any:
        return self.endpoint.find("RvcOperationalState") if self.endpoint is not None else None

    def check_change(self, current: int, new: int) -> None:
        if self.is_idle(new):
            return
        if not self.is_idle(current) and not self.has_feature(self._DIRECT_MODE_CHANGE):
            self.refuse(
                INVALID_IN_MODE,
                Status.INVALID_IN_STATE,
                "RvcRunMode: switch to an Idle mode before another non-idle mode",
                code="INVALID_IN_MODE",
            )
        operational = self._operational()
        if operational is not None and operational.state in (PAUSED, SEEKING_CHARGER, ERROR):
            state = STATE_NAMES.get(operational.state, str(operational.state))
            self.refuse(
                INVALID_IN_MODE,
                Status.INVALID_IN_STATE,
                f"RvcRunMode cannot start a run while the robot is {state}",
                code="INVALID_IN_MODE",
            )

    def after_change(self, old: int, new: int) -> None:
        operational = self._operational()
        if operational is None:
            return
        if self.is_idle(new):
            if operational.state in (RUNNING, PAUSED) and operational.in_cycle:
                operational.go_home()
            return
        activity = "Mapping" if self.has_tag(new, _RvcRunTag.kMapping) else None
        operational.start_activity(activity)

    def return_to_idle(self) -> None:
        """The run ended: back to the first Idle mode (no command, so no checks)."""
        idle = self.first_with_tag(_RvcRunTag.kIdle)
        if idle is not None:
            self.set("CurrentMode", idle)


class RvcCleanModeServer(ChangeableModeServer):
    """Selectable only while the sibling RvcRunMode is idle (else CleaningInProgress)."""

    __slots__ = ()

    cluster_name = "RvcCleanMode"
    revision = 3
    defaults = _mode_defaults(RVC_CLEAN_MODES)

    @command("ChangeToMode", aliases={"mode": "newMode"})  # SimuHome's spelling
    def change_to_mode(self, newMode: int) -> dict[str, Any]:
        return super().change_to_mode(newMode=newMode)

    def check_change(self, current: int, new: int) -> None:
        run_mode = self.endpoint.find("RvcRunMode") if self.endpoint is not None else None
        if isinstance(run_mode, RvcRunModeServer) and not run_mode.is_idle():
            self.refuse(
                CLEANING_IN_PROGRESS,
                Status.INVALID_IN_STATE,
                "RvcCleanMode can change only while RvcRunMode is Idle",
                code="CLEANING_IN_PROGRESS",
            )
