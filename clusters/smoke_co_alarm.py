"""Smoke CO Alarm cluster (0x005C): alarm states, the expressed state, and the self-test."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import clusters.official as Objects
from clusters.base import ClusterServer, EventPriority, command
from clusters.runtime import TimerHandle
from clusters.status import HomeError, Status
from clusters.values import coerce

Feature = Objects.SmokeCoAlarm.Bitmaps.Feature
Expressed = Objects.SmokeCoAlarm.Enums.ExpressedStateEnum
NORMAL = 0

# ExpressedState shows the highest-priority active condition (the order the Matter SDK uses).
_PRIORITY: tuple[tuple[str, int], ...] = (
    ("SmokeState", int(Expressed.kSmokeAlarm)),
    ("InterconnectSmokeAlarm", int(Expressed.kInterconnectSmoke)),
    ("COState", int(Expressed.kCOAlarm)),
    ("InterconnectCOAlarm", int(Expressed.kInterconnectCO)),
    ("HardwareFaultAlert", int(Expressed.kHardwareFault)),
    ("TestInProgress", int(Expressed.kTesting)),
    ("EndOfServiceAlert", int(Expressed.kEndOfService)),
    ("BatteryAlert", int(Expressed.kBatteryAlert)),
)
_CONDITIONS = {name for name, _ in _PRIORITY}
_ALARMING = {
    int(Expressed.kSmokeAlarm),
    int(Expressed.kInterconnectSmoke),
    int(Expressed.kCOAlarm),
    int(Expressed.kInterconnectCO),
    int(Expressed.kTesting),
}


class SmokeCoAlarmServer(ClusterServer):
    """A smoke and/or CO alarm.

    Constructor options: ``self_test_s`` (how long SelfTestRequest keeps TestInProgress, default
    5 s), plus ``features`` (default SmokeAlarm | CoAlarm) and ``values``. Scenario injection:
    :meth:`set_smoke`, :meth:`set_co` (levels 0 Normal, 1 Warning, 2 Critical, or those names),
    :meth:`set_battery_alert`, :meth:`set_hardware_fault`, :meth:`set_end_of_service`,
    :meth:`set_interconnect_smoke`, :meth:`set_interconnect_co`.
    """

    __slots__ = ("_test_timer", "self_test_s")

    cluster_name = "SmokeCoAlarm"
    revision = 1
    default_features = int(Feature.kSmokeAlarm) | int(Feature.kCoAlarm)
    defaults = {
        "ExpressedState": NORMAL,
        "SmokeState": 0,
        "COState": 0,
        "BatteryAlert": 0,
        "DeviceMuted": 0,
        "TestInProgress": False,
        "HardwareFaultAlert": False,
        "EndOfServiceAlert": 0,
        "InterconnectSmokeAlarm": 0,
        "InterconnectCOAlarm": 0,
        "ContaminationState": 0,
        "SmokeSensitivityLevel": 1,
    }
    # condition attribute → (event raised when it leaves its normal value, carries the level, priority)
    _RAISES: ClassVar[dict[str, tuple[str, bool, EventPriority]]] = {
        "SmokeState": ("SmokeAlarm", True, EventPriority.CRITICAL),
        "COState": ("COAlarm", True, EventPriority.CRITICAL),
        "InterconnectSmokeAlarm": ("InterconnectSmokeAlarm", True, EventPriority.CRITICAL),
        "InterconnectCOAlarm": ("InterconnectCOAlarm", True, EventPriority.CRITICAL),
        "BatteryAlert": ("LowBattery", True, EventPriority.INFO),
        "HardwareFaultAlert": ("HardwareFault", False, EventPriority.INFO),
        "EndOfServiceAlert": ("EndOfService", False, EventPriority.INFO),
    }
    events = (
        "SmokeAlarm",
        "COAlarm",
        "LowBattery",
        "HardwareFault",
        "EndOfService",
        "SelfTestComplete",
        "InterconnectSmokeAlarm",
        "InterconnectCOAlarm",
        "AllClear",
    )

    def __init__(
        self, *, self_test_s: float = 5.0, features: int | None = None, values: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(features=features, values=values)
        self.self_test_s = self_test_s
        self._test_timer: TimerHandle | None = None

    def initial_values(self) -> dict[str, Any]:
        out = {
            k: self.defaults[k]
            for k in (
                "ExpressedState",
                "BatteryAlert",
                "DeviceMuted",
                "TestInProgress",
                "HardwareFaultAlert",
                "EndOfServiceAlert",
            )
        }
        if self.has_feature(Feature.kSmokeAlarm):
            out.update(
                {
                    k: self.defaults[k]
                    for k in ("SmokeState", "InterconnectSmokeAlarm", "ContaminationState", "SmokeSensitivityLevel")
                }
            )
        if self.has_feature(Feature.kCoAlarm):
            out.update(COState=0, InterconnectCOAlarm=0)
        return out

    def supported_events(self) -> tuple[str, ...]:
        smoke, co = self.has_feature(Feature.kSmokeAlarm), self.has_feature(Feature.kCoAlarm)
        return tuple(e for e in self.events if (smoke or "Smoke" not in e) and (co or "CO" not in e))

    def set(self, name: str, value: Any) -> None:
        old = self._values.get(name)
        super().set(name, value)
        if old is None or old == value:
            return
        raised = self._RAISES.get(name)
        if raised is not None and value:
            event, with_level, priority = raised
            self.emit_event(event, {"alarmSeverityLevel": int(value)} if with_level else {}, priority)
        elif name == "TestInProgress" and not value:
            self.emit_event("SelfTestComplete", {})
        elif name == "ExpressedState" and value == NORMAL:
            self.emit_event("AllClear", {})

    def restore(self, name: str, value: object) -> None:
        super().restore(name, value)
        if name in _CONDITIONS:
            self._express()

    # ----------------------------------------------------------------------------- scenario API
    def set_smoke(self, level: int | str) -> None:
        self._set_condition("SmokeState", level)

    def set_co(self, level: int | str) -> None:
        self._set_condition("COState", level)

    def set_interconnect_smoke(self, level: int | str) -> None:
        self._set_condition("InterconnectSmokeAlarm", level)

    def set_interconnect_co(self, level: int | str) -> None:
        self._set_condition("InterconnectCOAlarm", level)

    def set_battery_alert(self, level: int | str) -> None:
        self._set_condition("BatteryAlert", level)

    def set_hardware_fault(self, fault: bool) -> None:
        self._set_condition("HardwareFaultAlert", bool(fault))

    def set_end_of_service(self, expired: bool) -> None:
        self._set_condition("EndOfServiceAlert", 1 if expired else 0)

    # ----------------------------------------------------------------------------- commands
    @command("SelfTestRequest")
    def self_test_request(self) -> None:
        state = self.read("ExpressedState")
        if state in _ALARMING:
            raise HomeError.refused(
                Status.BUSY, f"SmokeCoAlarm cannot self-test now (ExpressedState={state})", reason="ALARM_ACTIVE"
            )
        self.set("TestInProgress", True)
        self._express()
        if self.runtime is not None:
            self._test_timer = self.runtime.call_later(self.self_test_s, self._end_test)

    def _end_test(self) -> None:
        self._test_timer = None
        self.set("TestInProgress", False)
        self._express()

    # ----------------------------------------------------------------------------- helpers
    def _set_condition(self, name: str, value: object) -> None:
        if not self.has_attribute(name):
            raise HomeError.refused(
                Status.UNSUPPORTED_ATTRIBUTE,
                f"SmokeCoAlarm has no {name} with these features",
                allowed=self.attribute_names(),
            )
        value = coerce(value, self.model.attributes[name].type, f"SmokeCoAlarm.{name}", status=Status.CONSTRAINT_ERROR)
        self.set(name, value)
        self._express()

    def _express(self) -> None:
        for name, expressed in _PRIORITY:
            if self._values.get(name):
                self.set("ExpressedState", expressed)
                return
        self.set("ExpressedState", NORMAL)
