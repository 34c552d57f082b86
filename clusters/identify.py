"""Identify cluster (0x0003): an IdentifyTime countdown and short TriggerEffect effects in virtual time."""

from __future__ import annotations

import math
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer, command
from clusters.runtime import TimerHandle
from clusters.values import Constraint

Effect = Objects.Identify.Enums.EffectIdentifierEnum
IdentifyType = Objects.Identify.Enums.IdentifyTypeEnum
# Effect → (name, duration in seconds)
EFFECTS = {
    int(Effect.kBlink): ("blink", 1.0),
    int(Effect.kBreathe): ("breathe", 15.0),
    int(Effect.kOkay): ("okay", 1.0),
    int(Effect.kChannelChange): ("channel change", 8.0),
}
FINISH, STOP = int(Effect.kFinishEffect), int(Effect.kStopEffect)
EFFECT_CYCLE_S = 1.0  # FinishEffect lets the current one-second cycle complete


class IdentifyServer(ClusterServer):
    __slots__ = ("_countdown", "_effect_started", "_effect_timer", "active_effect", "effect_ends_at", "identify_type")
    cluster_name = "Identify"
    revision = 5
    defaults = {"IdentifyTime": 0, "IdentifyType": int(IdentifyType.kVisibleIndicator)}
    constraints = {"IdentifyTime": Constraint(0, 0xFFFF)}

    def __init__(self, *, identify_type: int = int(IdentifyType.kVisibleIndicator), **kwargs: Any) -> None:
        self.identify_type = int(identify_type)
        super().__init__(**kwargs)
        self._countdown: TimerHandle | None = None
        self._effect_timer: TimerHandle | None = None
        self.active_effect: int | None = None  # EffectIdentifierEnum of the running effect
        self._effect_started = 0.0
        self.effect_ends_at: float | None = None  # virtual seconds

    def initial_values(self) -> dict[str, Any]:
        return {"IdentifyTime": 0, "IdentifyType": self.identify_type}

    @property
    def identifying(self) -> bool:
        return bool(self.read("IdentifyTime") > 0)

    # ----------------------------------------------------------------------------- identify
    def start_identify(self, seconds: int) -> None:
        """Identify for ``seconds`` (0 stops); IdentifyTime counts down once per second."""
        if self._countdown is not None:
            self._countdown.cancel()
            self._countdown = None
        self.set("IdentifyTime", seconds)
        if seconds > 0 and self.runtime is not None:
            self._countdown = self.runtime.call_later(1.0, self._count_down)

    def _count_down(self) -> None:
        self._countdown = None
        self.start_identify(max(0, self.read("IdentifyTime") - 1))

    def apply_write(self, name: str, value: Any) -> None:
        if name == "IdentifyTime":
            self.start_identify(value)
        else:
            self.set(name, value)

    @command("Identify", constraints={"identifyTime": Constraint(0, 0xFFFF)})
    def identify(self, identifyTime: int) -> None:
        self.start_identify(identifyTime)

    # ----------------------------------------------------------------------------- effects
    @command("TriggerEffect")
    def trigger_effect(self, effectIdentifier: int, effectVariant: int = 0) -> None:
        if effectIdentifier == STOP:
            self._end_effect()
        elif effectIdentifier == FINISH:
            if self.active_effect is not None and self.runtime is not None:
                elapsed = self.runtime.now() - self._effect_started
                cycle_end = self._effect_started + math.ceil(round(elapsed / EFFECT_CYCLE_S, 6)) * EFFECT_CYCLE_S
                self._schedule_effect_end(max(cycle_end, self.runtime.now()))
        else:
            self._end_effect()
            self.active_effect = effectIdentifier
            now = self.runtime.now() if self.runtime is not None else 0.0
            self._effect_started = now
            self._schedule_effect_end(now + EFFECTS[effectIdentifier][1])

    def _schedule_effect_end(self, at: float) -> None:
        if self._effect_timer is not None:
            self._effect_timer.cancel()
            self._effect_timer = None
        self.effect_ends_at = at
        if self.runtime is not None:
            self._effect_timer = self.runtime.call_later(at - self.runtime.now(), self._end_effect)

    def _end_effect(self) -> None:
        if self._effect_timer is not None:
            self._effect_timer.cancel()
        self._effect_timer = None
        self.active_effect = None
        self.effect_ends_at = None

    @property
    def effect_name(self) -> str | None:
        return None if self.active_effect is None else EFFECTS[self.active_effect][0]
