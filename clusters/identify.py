"""Identify cluster (0x0003): an IdentifyTime countdown and short TriggerEffect effects in virtual time."""

from __future__ import annotations

import math
from collections.abc import Mapping
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


class _Identifying:
    """What an Identify server is doing: its IdentifyTime countdown and its TriggerEffect effect. Made on its first
    Identify or effect and kept: a home holds an Identify server per device endpoint, and most never identify."""

    __slots__ = ("countdown", "effect", "effect_ends_at", "effect_started", "effect_timer")

    def __init__(self) -> None:
        self.countdown: TimerHandle | None = None
        self.effect: int | None = None  # EffectIdentifierEnum of the running effect
        self.effect_started = 0.0
        self.effect_ends_at: float | None = None  # virtual seconds
        self.effect_timer: TimerHandle | None = None


class IdentifyServer(ClusterServer):
    # One slot, None until it first identifies (None is immutable: a catalogue entry's servers are copied)
    __slots__ = ("_doing",)
    cluster_name = "Identify"
    revision = 5
    defaults = {"IdentifyTime": 0, "IdentifyType": int(IdentifyType.kVisibleIndicator)}
    constraints = {"IdentifyTime": Constraint(0, 0xFFFF)}

    def __init__(
        self,
        *,
        identify_type: int = int(IdentifyType.kVisibleIndicator),
        values: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self._doing: _Identifying | None = None
        # Its IdentifyType a stored value as any other (given values still win): no slot kept for it
        super().__init__(values={"IdentifyType": int(identify_type), **(values or {})}, **kwargs)

    def _own(self) -> _Identifying:
        doing = self._doing
        if doing is None:
            doing = self._doing = _Identifying()
        return doing

    @property
    def identifying(self) -> bool:
        return bool(self.read("IdentifyTime") > 0)

    @property
    def active_effect(self) -> int | None:
        """EffectIdentifierEnum of the running effect (None: none)."""
        return None if self._doing is None else self._doing.effect

    @property
    def effect_ends_at(self) -> float | None:
        """When the running effect ends, in virtual seconds (None: no effect)."""
        return None if self._doing is None else self._doing.effect_ends_at

    # ----------------------------------------------------------------------------- identify
    def start_identify(self, seconds: int) -> None:
        """Identify for ``seconds`` (0 stops); IdentifyTime counts down once per second."""
        doing = self._doing
        if doing is not None and doing.countdown is not None:
            doing.countdown.cancel()
            doing.countdown = None
        self.set("IdentifyTime", seconds)
        if seconds > 0 and self.runtime is not None:
            self._own().countdown = self.runtime.call_later(1.0, self._count_down)

    def _count_down(self) -> None:
        self._own().countdown = None
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
            doing = self._doing
            if doing is not None and doing.effect is not None and self.runtime is not None:
                elapsed = self.runtime.now() - doing.effect_started
                cycle_end = doing.effect_started + math.ceil(round(elapsed / EFFECT_CYCLE_S, 6)) * EFFECT_CYCLE_S
                self._schedule_effect_end(max(cycle_end, self.runtime.now()))
        else:
            self._end_effect()
            doing = self._own()
            doing.effect = effectIdentifier
            now = self.runtime.now() if self.runtime is not None else 0.0
            doing.effect_started = now
            self._schedule_effect_end(now + EFFECTS[effectIdentifier][1])

    def _schedule_effect_end(self, at: float) -> None:
        doing = self._own()
        if doing.effect_timer is not None:
            doing.effect_timer.cancel()
            doing.effect_timer = None
        doing.effect_ends_at = at
        if self.runtime is not None:
            doing.effect_timer = self.runtime.call_later(at - self.runtime.now(), self._end_effect)

    def _end_effect(self) -> None:
        doing = self._doing
        if doing is None:
            return  # never had an effect
        if doing.effect_timer is not None:
            doing.effect_timer.cancel()
        doing.effect_timer = None
        doing.effect = None
        doing.effect_ends_at = None

    @property
    def effect_name(self) -> str | None:
        return None if self.active_effect is None else EFFECTS[self.active_effect][0]
