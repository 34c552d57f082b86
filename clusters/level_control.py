"""Level Control cluster (0x0008): level moves over virtual time, Options/ExecuteIfOff, On/Off coupling.

A transition is a linear ramp from a start time; CurrentLevel is stored at most once per second
(only when the integer level changes) and exactly at the end, so even a slow move schedules at
most one timer per level step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import clusters.official as Objects
from clusters.absent_attributes import served_or_absent
from clusters.base import ClusterServer, command
from clusters.runtime import TimerHandle
from clusters.status import HomeError, Status
from clusters.values import Constraint

Feature = Objects.LevelControl.Bitmaps.Feature
EXECUTE_IF_OFF = int(Objects.LevelControl.Bitmaps.OptionsBitmap.kExecuteIfOff)
MOVE_UP = 0  # MoveModeEnum / StepModeEnum kUp
FALLBACK_MOVE_RATE = 1  # levels per second when neither Rate nor DefaultMoveRate is given (SimuHome)
SUPPRESSED: dict[str, Any] = {"suppressed": True}

LEVEL = Constraint(0, 254)
TRANSITION_TIME = Constraint(0, 0xFFFE)
OPTIONS_ARG = Constraint(0, 0xFF)
OPTION_ARGS = {"optionsMask": OPTIONS_ARG, "optionsOverride": OPTIONS_ARG}


def options_allow(options_attribute: int, mask: int, override: int, bit: int) -> bool:
    """Matter "effective Options": the override bit where the mask selects it, else the attribute's."""
    return bool(override & bit) if mask & bit else bool(options_attribute & bit)


def sibling_is_off(server: ClusterServer) -> bool:
    """True when an On/Off cluster sits on the same endpoint and is off."""
    on_off = server.endpoint.find("OnOff") if server.endpoint is not None else None
    return on_off is not None and not on_off.read("OnOff")


@dataclass
class Ramp:
    """A linear move from ``start`` (at time ``t0``) to ``target`` over ``duration`` seconds."""

    start: float
    target: float
    t0: float
    duration: float

    @property
    def end(self) -> float:
        return self.t0 + self.duration

    def fraction(self, now: float) -> float:
        if self.duration <= 0:
            return 1.0
        return min(1.0, max(0.0, (now - self.t0) / self.duration))

    def at(self, now: float) -> float:
        return self.start + (self.target - self.start) * self.fraction(now)

    def remaining_tenths(self, now: float) -> int:
        return max(0, math.ceil(round((self.end - now) * 10, 6)))


class LevelControlServer(ClusterServer):
    __slots__ = ("_driving_on_off", "_off_at_min", "_ramp", "_stored_level", "_timer", "couple_on_off")
    cluster_name = "LevelControl"
    revision = 6
    default_features = int(Feature.kOnOff | Feature.kLighting)
    defaults = {
        "CurrentLevel": None,
        "RemainingTime": 0,
        "MinLevel": 0,
        "MaxLevel": 254,
        "CurrentFrequency": 0,
        "MinFrequency": 0,
        "MaxFrequency": 0,
        "Options": 0,
        "OnOffTransitionTime": 0,
        "OnLevel": None,
        "OnTransitionTime": None,
        "OffTransitionTime": None,
        "DefaultMoveRate": None,
        "StartUpCurrentLevel": None,
    }
    scene_attributes = {"CurrentLevel": "valueUnsigned8"}
    constraints = {
        "Options": Constraint(0, 3),
        "OnOffTransitionTime": Constraint(0, 0xFFFF),
        "OnLevel": LEVEL,
        "OnTransitionTime": TRANSITION_TIME,
        "OffTransitionTime": TRANSITION_TIME,
        "DefaultMoveRate": Constraint(1, 254),
        "StartUpCurrentLevel": LEVEL,
    }

    def __init__(self, *, couple_on_off: bool = True, **kwargs: Any) -> None:
        self.couple_on_off = couple_on_off
        super().__init__(**kwargs)
        self._ramp: Ramp | None = None
        self._timer: TimerHandle | None = None
        self._off_at_min = False  # the running move is a *WithOnOff one that ends in "off" at MinLevel
        self._stored_level: int | None = None  # level kept at switch-off, restored at switch-on
        self._driving_on_off = False  # we are switching the sibling ourselves: skip the coupling

    def initial_values(self) -> dict[str, Any]:
        values = dict(self.defaults)
        if self.has_feature(Feature.kLighting):
            values["MinLevel"] = 1
        else:
            for name in ("RemainingTime", "StartUpCurrentLevel"):
                values.pop(name)
        if not self.has_feature(Feature.kFrequency):
            for name in ("CurrentFrequency", "MinFrequency", "MaxFrequency"):
                values.pop(name)
        return values

    def accepts(self, command_name: str) -> bool:
        if command_name == "MoveToClosestFrequency":
            return self.has_feature(Feature.kFrequency)
        return True

    def on_attach(self) -> None:
        if self.couple_on_off and self.endpoint is not None and self.endpoint.find("OnOff") is not None:
            self.endpoint.watch("OnOff", "OnOff", self._on_switched)

    # ----------------------------------------------------------------------------- state helpers
    @property
    def min_level(self) -> int:
        return served_or_absent(self, "MinLevel")

    @property
    def max_level(self) -> int:
        return served_or_absent(self, "MaxLevel")

    def clamp(self, level: float) -> int:
        return int(min(self.max_level, max(self.min_level, level)))

    def live_level(self) -> int | None:
        """The level right now, between stored updates too (rounded towards the start of a move)."""
        if self._ramp is None or self.runtime is None:
            level: int | None = self.read("CurrentLevel")
            return level
        ramp = self._ramp
        value = ramp.at(self.runtime.now())
        return int(math.floor(value + 1e-9) if ramp.target >= ramp.start else math.ceil(value - 1e-9))

    def _set_remaining(self, tenths: int) -> None:
        if self.has_attribute("RemainingTime"):
            self.set("RemainingTime", tenths)

    def _transition_seconds(self, transition_time: int | None) -> float:
        if transition_time is None:
            transition_time = self.read("OnOffTransitionTime") if self.has_attribute("OnOffTransitionTime") else 0
        return (transition_time or 0) / 10

    def _coupled(self) -> bool:
        return self.couple_on_off and self.endpoint is not None and self.endpoint.find("OnOff") is not None

    def _suppressed(self, mask: int, override: int) -> bool:
        if not self._coupled() or not sibling_is_off(self):
            return False
        return not options_allow(self.read("Options"), mask, override, EXECUTE_IF_OFF)

    def _drive_on_off(self, on: bool) -> None:
        if not self._coupled():
            return
        # _coupled(): the endpoint exists and has an OnOff sibling.
        assert self.endpoint is not None
        sibling = self.endpoint.find("OnOff")
        assert sibling is not None
        if bool(sibling.read("OnOff")) == on:
            return
        self._driving_on_off = True
        try:
            turn = getattr(sibling, "turn_on" if on else "turn_off", None)
            if turn is not None:
                turn()
            else:
                sibling.set("OnOff", on)
        finally:
            self._driving_on_off = False

    # ----------------------------------------------------------------------------- transitions
    def stop_transition(self) -> None:
        """Freeze a running move at its current level."""
        if self._ramp is None:
            return
        level = self.live_level()
        self._cancel()
        self.set("CurrentLevel", level)
        self._set_remaining(0)

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        self._ramp = None
        self._off_at_min = False

    def _start_level(self) -> int:
        level = self.live_level()
        return self.min_level if level is None else self.clamp(level)

    def _run(self, start: int, target: int, seconds: float, *, off_at_min: bool) -> None:
        self._cancel()
        if seconds <= 0 or start == target or self.runtime is None:
            self.set("CurrentLevel", target)
            self._set_remaining(0)
            self._finish_on_off(target, off_at_min)
            return
        self.set("CurrentLevel", start)
        self._ramp = Ramp(start, target, self.runtime.now(), seconds)
        self._off_at_min = off_at_min
        self._set_remaining(self._ramp.remaining_tenths(self.runtime.now()))
        self._schedule()

    def _schedule(self) -> None:
        assert self._ramp is not None and self.runtime is not None
        ramp, now = self._ramp, self.runtime.now()
        steps = abs(ramp.target - ramp.start)
        next_step = math.floor(steps * ramp.fraction(now) + 1e-9) + 1
        next_change = ramp.t0 + ramp.duration * next_step / steps
        due = min(ramp.end, max(next_change, now + 1.0))
        self._timer = self.runtime.call_later(due - now, self._tick)

    def _tick(self) -> None:
        assert self._ramp is not None and self.runtime is not None
        self._timer = None
        now = self.runtime.now()
        if now >= self._ramp.end - 1e-9:
            target, off_at_min = int(self._ramp.target), self._off_at_min
            self._cancel()
            self.set("CurrentLevel", target)
            self._set_remaining(0)
            self._finish_on_off(target, off_at_min)
            return
        self.set("CurrentLevel", self.live_level())
        self._set_remaining(self._ramp.remaining_tenths(now))
        self._schedule()

    def _finish_on_off(self, level: int, off_at_min: bool) -> None:
        if off_at_min and level <= self.min_level:
            self._drive_on_off(False)

    def apply_scene(self, values: Any, transition_s: float) -> None:
        level = values.get("CurrentLevel")
        if level is not None:  # a null level (never set) leaves the level alone
            self._run(self._start_level(), self.clamp(level), transition_s, off_at_min=False)

    # ----------------------------------------------------------------------------- the moves
    def _move_to(self, level: int, transition_time: int | None, with_on_off: bool) -> None:
        target = self.clamp(level)
        start = self._start_level()
        if with_on_off:
            self._prepare_on_off(start, target)
        self._run(start, target, self._transition_seconds(transition_time), off_at_min=with_on_off)

    def _prepare_on_off(self, start: int, target: int) -> None:
        if start > self.min_level:
            self._stored_level = start  # "on" later returns to where the move began
        if target > self.min_level:
            self._drive_on_off(True)

    def _move_rate(self, rate: int | None) -> int:
        if rate is None:
            rate = self.read("DefaultMoveRate") if self.has_attribute("DefaultMoveRate") else None
        if rate is None:
            rate = FALLBACK_MOVE_RATE
        if rate == 0:
            raise HomeError.refused(
                Status.INVALID_COMMAND, "LevelControl.Move.Rate=0 would never move", allowed={"min": 1, "max": 254}
            )
        return rate

    def _move(self, move_mode: int, rate: int, with_on_off: bool) -> None:
        start = self._start_level()
        target = self.max_level if move_mode == MOVE_UP else self.min_level
        if with_on_off:
            self._prepare_on_off(start, target)
        self._run(start, target, abs(target - start) / rate, off_at_min=with_on_off)

    @staticmethod
    def _check_step(step_size: int) -> None:
        if step_size == 0:
            raise HomeError.refused(
                Status.INVALID_COMMAND, "LevelControl.Step.StepSize=0 would not move", allowed={"min": 1, "max": 254}
            )

    def _step(self, step_mode: int, step_size: int, transition_time: int | None, with_on_off: bool) -> None:
        start = self._start_level()
        target = self.clamp(start + step_size if step_mode == MOVE_UP else start - step_size)
        if with_on_off:
            self._prepare_on_off(start, target)
        self._run(start, target, self._transition_seconds(transition_time), off_at_min=with_on_off)

    # ----------------------------------------------------------------------------- commands
    @command("MoveToLevel", constraints={"level": LEVEL, "transitionTime": TRANSITION_TIME, **OPTION_ARGS})
    def move_to_level(
        self, level: int, transitionTime: int | None = None, optionsMask: int = 0, optionsOverride: int = 0
    ) -> dict[str, Any] | None:
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        self._move_to(level, transitionTime, with_on_off=False)
        return None

    @command("Move", constraints={"rate": Constraint(0, 254), **OPTION_ARGS})
    def move(
        self, moveMode: int, rate: int | None = None, optionsMask: int = 0, optionsOverride: int = 0
    ) -> dict[str, Any] | None:
        rate = self._move_rate(rate)  # argument errors come before the Options check
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        self._move(moveMode, rate, with_on_off=False)
        return None

    @command("Step", constraints={"stepSize": Constraint(0, 254), "transitionTime": TRANSITION_TIME, **OPTION_ARGS})
    def step(
        self,
        stepMode: int,
        stepSize: int,
        transitionTime: int | None = None,
        optionsMask: int = 0,
        optionsOverride: int = 0,
    ) -> dict[str, Any] | None:
        self._check_step(stepSize)
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        self._step(stepMode, stepSize, transitionTime, with_on_off=False)
        return None

    @command("Stop", constraints=OPTION_ARGS)
    def stop(self, optionsMask: int = 0, optionsOverride: int = 0) -> dict[str, Any] | None:
        if self._suppressed(optionsMask, optionsOverride):
            return SUPPRESSED
        self.stop_transition()
        return None

    @command("MoveToLevelWithOnOff", constraints={"level": LEVEL, "transitionTime": TRANSITION_TIME, **OPTION_ARGS})
    def move_to_level_with_on_off(
        self, level: int, transitionTime: int | None = None, optionsMask: int = 0, optionsOverride: int = 0
    ) -> None:
        self._move_to(level, transitionTime, with_on_off=True)

    @command("MoveWithOnOff", constraints={"rate": Constraint(0, 254), **OPTION_ARGS})
    def move_with_on_off(
        self, moveMode: int, rate: int | None = None, optionsMask: int = 0, optionsOverride: int = 0
    ) -> None:
        self._move(moveMode, self._move_rate(rate), with_on_off=True)

    @command(
        "StepWithOnOff", constraints={"stepSize": Constraint(0, 254), "transitionTime": TRANSITION_TIME, **OPTION_ARGS}
    )
    def step_with_on_off(
        self,
        stepMode: int,
        stepSize: int,
        transitionTime: int | None = None,
        optionsMask: int = 0,
        optionsOverride: int = 0,
    ) -> None:
        self._check_step(stepSize)
        self._step(stepMode, stepSize, transitionTime, with_on_off=True)

    @command("StopWithOnOff", constraints=OPTION_ARGS)
    def stop_with_on_off(self, optionsMask: int = 0, optionsOverride: int = 0) -> None:
        self.stop_transition()

    @command("MoveToClosestFrequency", constraints={"frequency": Constraint(0, 0xFFFF)})
    def move_to_closest_frequency(self, frequency: int) -> None:
        low, high = self.read("MinFrequency"), self.read("MaxFrequency")
        self.set("CurrentFrequency", min(high, max(low, frequency)))

    # ----------------------------------------------------------------------------- writes
    def check_write(self, name: str, value: Any) -> None:
        if name == "OnLevel" and value is not None and not self.min_level <= value <= self.max_level:
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"LevelControl.OnLevel={value} is outside MinLevel..MaxLevel {self.min_level}..{self.max_level}",
                allowed={"min": self.min_level, "max": self.max_level, "null": True},
            )

    # ----------------------------------------------------------------------------- On/Off coupling
    def _on_switched(self, old: object, new: object) -> None:
        if self._driving_on_off or bool(old) == bool(new):
            return
        if new:
            self._switched_on()
        else:
            self._switched_off()

    def _switched_on(self) -> None:
        current = self.live_level()
        self._cancel()
        on_level = self.read("OnLevel") if self.has_attribute("OnLevel") else None
        if on_level is not None:
            target = self.clamp(on_level)
        elif self._stored_level is not None and self._stored_level > self.min_level:
            target = self.clamp(self._stored_level)
        elif current is not None and current > self.min_level:
            target = self.clamp(current)
        else:
            target = self.max_level
        on_time = self.read("OnTransitionTime") if self.has_attribute("OnTransitionTime") else None
        seconds = self._transition_seconds(on_time)
        self._run(self.min_level if seconds > 0 else target, target, seconds, off_at_min=False)

    def _switched_off(self) -> None:
        level = self.live_level()
        self._cancel()
        if level is not None:
            self._stored_level = level
        self.set("CurrentLevel", self.min_level)
        self._set_remaining(0)
