"""What every route shares: the fabric, the optional pacer, the event hub and history."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bridge.http.events_ws import EventHub
from bridge.http.fast_forward import FastForward
from bridge.http.history import EnvironmentHistory
from emulator.emulated_home import EmulatedHome
from emulator.pacing import RealtimePacer


@dataclass
class ApiContext:
    fabric: EmulatedHome
    pacer: RealtimePacer | None
    hub: EventHub
    history: EnvironmentHistory
    fast_forward: FastForward = field(init=False)

    def __post_init__(self) -> None:
        self.fast_forward = FastForward(self.fabric, self.hub, self.history)

    def clock(self) -> dict[str, Any]:
        pacer = self.pacer
        return {
            "time": self.fabric.now_text(),
            "tick": self.fabric.tick,
            "paced": pacer is not None,
            "running": bool(pacer is not None and pacer.running),
            "speed": pacer.speed if pacer is not None else None,
        }

    def clock_changed(self) -> dict[str, Any]:
        state = self.clock()
        self.hub.publish({"type": "clock", **state})
        return state
