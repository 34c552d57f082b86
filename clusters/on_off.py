"""On/Off cluster (0x0006): On, Off, Toggle, and the Lighting feature's timed and effect commands."""

from __future__ import annotations

from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer, command
from clusters.runtime import TimerHandle
from clusters.values import Constraint

Feature = Objects.OnOff.Bitmaps.Feature
LIGHTING_ATTRIBUTES = ("GlobalSceneControl", "OnTime", "OffWaitTime", "StartUpOnOff")
LIGHTING_COMMANDS = ("OffWithEffect", "OnWithRecallGlobalScene", "OnWithTimedOff")


class OnOffServer(ClusterServer):
    __slots__ = ("_timed_off",)
    cluster_name = "OnOff"
    revision = 6
    defaults = {"OnOff": False, "GlobalSceneControl": True, "OnTime": 0, "OffWaitTime": 0, "StartUpOnOff": None}
    constraints = {"StartUpOnOff": Constraint(allowed=(0, 1, 2))}
    scene_attributes = {"OnOff": "valueUnsigned8"}

    def initial_values(self) -> dict[str, Any]:
        if self.has_feature(Feature.kLighting):
            return self.defaults
        return {"OnOff": False}

    def accepts(self, command_name: str) -> bool:
        if command_name in LIGHTING_COMMANDS:
            return self.has_feature(Feature.kLighting)
        if command_name in ("On", "Toggle"):
            return not self.has_feature(Feature.kOffOnly)
        return True

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._timed_off: TimerHandle | None = None

    @property
    def is_on(self) -> bool:
        return bool(self.read("OnOff"))

    def _lighting(self) -> bool:
        return self.has_feature(Feature.kLighting)

    def _cancel_timer(self) -> None:
        if self._timed_off is not None:
            self._timed_off.cancel()
            self._timed_off = None

    def apply_scene(self, values: Any, transition_s: float) -> None:
        if "OnOff" in values:
            (self.turn_on if values["OnOff"] else self.turn_off)()

    def turn_on(self) -> None:
        if self._lighting():
            if self.read("OnTime") == 0:
                self.set("OffWaitTime", 0)
            self.set("GlobalSceneControl", True)
        self.set("OnOff", True)

    def turn_off(self) -> None:
        self._cancel_timer()
        if self._lighting():
            self.set("OnTime", 0)
        self.set("OnOff", False)

    @command("Off")
    def off(self) -> None:
        self.turn_off()

    @command("On")
    def on(self) -> None:
        self.turn_on()

    @command("Toggle")
    def toggle(self) -> None:
        if self.is_on:
            self.turn_off()
        else:
            self.turn_on()

    @command("OffWithEffect", constraints={"effectIdentifier": Constraint(allowed=(0, 1))})
    def off_with_effect(self, effectIdentifier: int, effectVariant: int) -> None:
        # The effect is visual only; GlobalSceneControl records that a scene could be recalled.
        if self.read("GlobalSceneControl"):
            self.set("GlobalSceneControl", False)
        self.turn_off()

    @command("OnWithRecallGlobalScene")
    def on_with_recall_global_scene(self) -> None:
        if not self.read("GlobalSceneControl"):
            self.set("GlobalSceneControl", True)
        self.set("OnOff", True)

    @command("OnWithTimedOff", constraints={"onTime": Constraint(0, 0xFFFE), "offWaitTime": Constraint(0, 0xFFFE)})
    def on_with_timed_off(self, onOffControl: int, onTime: int, offWaitTime: int) -> None:
        accept_only_when_on = bool(onOffControl & 1)
        if accept_only_when_on and not self.is_on:
            return  # spec: discard the command
        if self.read("OffWaitTime") > 0 and not self.is_on:
            self.set("OffWaitTime", min(self.read("OffWaitTime"), offWaitTime))
            return
        self.set("OnTime", max(self.read("OnTime"), onTime))
        self.set("OffWaitTime", offWaitTime)
        self.set("OnOff", True)
        self._cancel_timer()
        if self.runtime is not None and onTime not in (0, 0xFFFF):
            self._timed_off = self.runtime.call_later(onTime / 10, self._timed_off_expired)

    def _timed_off_expired(self) -> None:
        self._timed_off = None
        self.set("OnTime", 0)
        self.set("OnOff", False)
