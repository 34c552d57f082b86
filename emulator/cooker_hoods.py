"""An extractor hood tied to the cooktop in its room: set to FanMode Auto (its tie to the hob), the hood's fan runs at
the speed of the hottest cook surface that is on — Low 33 %, Medium 66 %, High 100 % (PercentCurrent; PercentSetting
stays null, as Matter says for Auto) — and runs on ``RUN_ON_S`` after the last surface goes off, then stops.

Closed form in virtual time: the hood's speed changes only when a surface is switched or its level changes (each
re-evaluates the room's hoods) and when the run-on timer fires; nothing ticks. A hood in any other mode ignores the
hob. Not modelled: a hob in another room, cooking vapour in the room's physics, and a saved home's run-on (a home
loaded while a hood runs on starts a fresh run-on).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from clusters.fan_control import AUTO, HIGH, LOW, MEDIUM, MODE_PERCENT, FanControlServer
from emulator.clock import Timer, VirtualClock
from emulator.device import Device
from emulator.physics_terms import is_on

COOKTOP, HOOD = "cooktop", "extractor_hood"
RUN_ON_S = 300.0  # the hood clears the air for five minutes after the hob goes off
LEVEL_FAN_MODE = (LOW, MEDIUM, HIGH)  # a surface's SelectedTemperatureLevel (Low, Medium, High) → the hood's speed


def hob_percent(hobs: Iterable[Device]) -> int:
    """The fan percentage the hottest surface that is on asks for (0 when none is on)."""
    percent = 0
    for hob in hobs:
        if not is_on(hob, 1):
            continue
        for role, surface in hob.spec.roles:
            level = hob.value(surface, "TemperatureControl", "SelectedTemperatureLevel")
            if role == "compartment" and is_on(hob, surface) and isinstance(level, int):
                mode = LEVEL_FAN_MODE[max(0, min(level, len(LEVEL_FAN_MODE) - 1))]
                percent = max(percent, MODE_PERCENT[mode])
    return percent


class CookerHoods:
    """Keeps each Auto hood's speed on its room's hob (``devices_in``: the room's devices)."""

    __slots__ = ("_devices_in", "_run_on", "clock")  # one per home: no instance dict

    def __init__(self, clock: VirtualClock, devices_in: Callable[[str], list[Device]]) -> None:
        self.clock, self._devices_in = clock, devices_in
        self._run_on: dict[str, Timer] = {}  # hood device id → its pending stop

    def device_changed(self, device: Device, cluster: str, attribute: str) -> None:
        """A cooktop's switch or level, or a hood's mode, changed: its room's hoods follow."""
        kind = device.spec.name
        if kind == COOKTOP and cluster in ("OnOff", "TemperatureControl"):
            self.follow_room(device.room_id)
        elif kind == HOOD and cluster == "FanControl" and attribute == "FanMode":
            self._follow(device, hob_percent(self._hobs(device.room_id)))

    def follow_room(self, room_id: str) -> None:
        """Re-evaluate every hood of a room (a device of it changed, came or went)."""
        percent = hob_percent(self._hobs(room_id))
        for hood in self._devices_in(room_id):
            if hood.spec.name == HOOD:
                self._follow(hood, percent)

    def forget(self, device: Device) -> None:
        """The device left the home: its run-on stops, and its room's hoods follow what is left."""
        timer = self._run_on.pop(device.device_id, None)
        if timer is not None:
            timer.cancel()
        if device.spec.name == COOKTOP:
            self.follow_room(device.room_id)

    def _hobs(self, room_id: str) -> list[Device]:
        return [d for d in self._devices_in(room_id) if d.spec.name == COOKTOP]

    def _follow(self, hood: Device, percent: int) -> None:
        fan = hood.find(1, "FanControl")
        if not isinstance(fan, FanControlServer) or fan.read("FanMode") != AUTO:
            self._cancel(hood)
            return
        if percent > 0:
            self._cancel(hood)
            fan.set("PercentCurrent", percent)
        elif fan.read("PercentCurrent") and hood.device_id not in self._run_on:
            self._run_on[hood.device_id] = self.clock.call_later(RUN_ON_S, lambda: self._stop(hood), "hood run-on")

    def _cancel(self, hood: Device) -> None:
        timer = self._run_on.pop(hood.device_id, None)
        if timer is not None:
            timer.cancel()

    def _stop(self, hood: Device) -> None:
        self._run_on.pop(hood.device_id, None)
        fan = hood.find(1, "FanControl")
        if isinstance(fan, FanControlServer) and fan.read("FanMode") == AUTO:
            fan.set("PercentCurrent", 0)
