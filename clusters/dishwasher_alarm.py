"""Dishwasher Alarm (0x005D), an Alarm Base cluster: Mask (enabled alarms), Latch (alarms that stay
active until Reset), State (active alarms), Supported.

Bits: inflow 1, drain 2, door 4, temperature low 8, temperature high 16, water level 32. Nothing in
the emulator raises an alarm by itself; :meth:`DishwasherAlarmServer.set_alarm` lets a scenario do it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer, command
from clusters.status import HomeError, Status

ALARM_BITS = {name[1:]: int(bit) for name, bit in Objects.DishwasherAlarm.Bitmaps.AlarmBitmap.__members__.items()}
ALL_ALARMS = sum(ALARM_BITS.values())
RESET = int(Objects.DishwasherAlarm.Bitmaps.Feature.kReset)


class DishwasherAlarmServer(ClusterServer):
    __slots__ = ()
    cluster_name = "DishwasherAlarm"
    revision = 1
    default_features = RESET
    defaults = {"Mask": 0, "Latch": 0, "State": 0, "Supported": ALL_ALARMS}
    events = ("Notify",)  # every change of State (Alarm Base §1.15.7.1)

    def __init__(
        self,
        *,
        supported: int | None = None,
        mask: int | None = None,
        latch: int | None = None,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(features=features, values=values)
        if supported is not None:
            self._check_bits(supported, ALL_ALARMS, "Supported", ValueError)
            self.restore("Supported", supported)
        if mask is not None:
            self.restore("Mask", mask)
        if latch is not None and self.has_attribute("Latch"):
            self.restore("Latch", latch)

    def initial_values(self) -> dict[str, Any]:
        if self.has_feature(RESET):
            return self.defaults
        return {n: v for n, v in self.defaults.items() if n != "Latch"}

    def accepts(self, command_name: str) -> bool:
        return command_name != "Reset" or self.has_feature(RESET)

    def _supported_names(self) -> dict[str, int]:
        supported = self.read("Supported")
        return {name: bit for name, bit in ALARM_BITS.items() if bit & supported}

    def _check_bits(self, bits: int, within: int, what: str, error: type[Exception] = HomeError) -> None:
        if bits & ~within:
            message = f"DishwasherAlarm {what}={bits:#x} names alarms outside the supported set {within:#x}"
            if error is HomeError:
                raise HomeError.refused(Status.INVALID_COMMAND, message, allowed=self._supported_names())
            raise error(message)

    @command("Reset", aliases={"alarms_to_reset": "alarms"})
    def reset(self, alarms: int | None = None) -> None:
        # Omitted (SimuHome's null): reset every alarm. No physical condition persists in the emulator.
        bits = self.read("Supported") if alarms is None else alarms
        self._check_bits(bits, self.read("Supported"), "Alarms")
        self.set("State", self.read("State") & ~bits)

    @command("ModifyEnabledAlarms")
    def modify_enabled_alarms(self, mask: int) -> None:
        self._check_bits(mask, self.read("Supported"), "Mask")
        self.set("Mask", mask)
        self.set("State", self.read("State") & mask)

    def set(self, name: str, value: Any) -> None:
        old = self._values.get(name)
        super().set(name, value)
        if name == "State" and old is not None and old != value:
            self.emit_event(
                "Notify", {"active": value & ~old, "inactive": old & ~value, "state": value, "mask": self.read("Mask")}
            )

    def set_alarm(self, bits: int, active: bool = True) -> None:
        """A scenario raises or clears alarm conditions; suppressed alarms stay inactive, latched ones
        (bits in Latch) stay active until Reset."""
        self._check_bits(bits, self.read("Supported"), "alarm")
        if active:
            self.set("State", self.read("State") | (bits & self.read("Mask")))
        else:
            latched = self.read("Latch") if self.has_attribute("Latch") else 0
            self.set("State", self.read("State") & ~(bits & ~latched))
