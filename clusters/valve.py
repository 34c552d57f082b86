"""Valve Configuration and Control cluster (0x0081): a motorised water valve that opens for a while.

Open moves the valve (CurrentState Transitioning for ``travel_s``, TargetState showing where it goes) and, once
there, emits ValveStateChanged. An open lasting OpenDuration seconds (the command's argument, else
DefaultOpenDuration; null = until closed) closes itself when RemainingDuration reaches 0 — RemainingDuration is the
closed-form countdown, reported when it starts and stops. ``open_flow`` is the flow (0.1 m³/h) the valve passes
while open, for a flow meter beside it (emulator/role_behaviour.py).

The Open command's OpenDuration is nullable and optional; this server cannot tell "absent" from null on the wire
(both arrive as None) and treats both as "use DefaultOpenDuration". Not implemented: the Level feature (a valve is
open or closed), the TimeSync feature (AutoCloseTime) and ValveFault detection (always 0).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer, command
from clusters.runtime import TimerHandle
from clusters.status import HomeError, Status
from clusters.values import Constraint

ValveState = Objects.ValveConfigurationAndControl.Enums.ValveStateEnum
CLOSED, OPEN, TRANSITIONING = int(ValveState.kClosed), int(ValveState.kOpen), int(ValveState.kTransitioning)


class ValveConfigurationAndControlServer(ClusterServer):
    """Constructor options: ``travel_s`` (seconds to open or close, default 3), ``open_flow`` (the flow while
    open, 0.1 m³/h, default 12 = 1.2 m³/h), ``features`` and ``values``."""

    __slots__ = ("_close_timer", "_ends_at", "_move_timer", "_reported", "open_flow", "travel_s")

    cluster_name = "ValveConfigurationAndControl"
    revision = 1
    defaults = {
        "OpenDuration": None,
        "DefaultOpenDuration": None,
        "CurrentState": CLOSED,
        "TargetState": None,
        "ValveFault": 0,
    }
    constraints = {"DefaultOpenDuration": Constraint(minimum=1)}
    events = ("ValveStateChanged",)

    def __init__(
        self,
        *,
        travel_s: float = 3.0,
        open_flow: int = 12,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        self.travel_s = travel_s
        self.open_flow = open_flow
        self._ends_at: float | None = None  # runtime time the current open ends by itself
        self._close_timer: TimerHandle | None = None
        self._move_timer: TimerHandle | None = None
        self._reported: int | None = None
        super().__init__(features=features, values=values)
        self.bind_source("RemainingDuration", self._remaining)

    def on_attach(self) -> None:
        """A valve loaded mid-way (a saved home) resumes: its travel restarts, an open with a duration counts
        that duration again from now (the time already spent is not stored)."""
        target, duration = self.read("TargetState"), self.read("OpenDuration")
        if self.runtime is None:
            return
        if duration is not None and OPEN in (target, self.read("CurrentState")) and target != CLOSED:
            self._ends_at = self.now() + duration
            self._close_timer = self.runtime.call_later(duration, self._auto_close)
            self._reported = self._remaining()
        if target is not None:
            self.set("CurrentState", CLOSED if target == OPEN else OPEN)  # where it set out from
            self._move(target)

    @property
    def is_open(self) -> bool:
        """Open or on its way to open (water flows once it starts to open)."""
        target = self.read("TargetState")
        return bool((target if target is not None else self.read("CurrentState")) == OPEN)

    @command("Open", constraints={"openDuration": Constraint(minimum=1)})
    def open(self, openDuration: int | None = None, targetLevel: int | None = None) -> None:
        if targetLevel is not None:
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                "ValveConfigurationAndControl.Open: TargetLevel needs the Level feature, which this valve lacks",
                allowed={"TargetLevel": None},
            )
        duration = openDuration if openDuration is not None else self.read("DefaultOpenDuration")
        self._cancel(close=True)
        self.set("OpenDuration", duration)
        self._ends_at = None if duration is None else self.now() + duration
        if duration is not None and self.runtime is not None:
            self._close_timer = self.runtime.call_later(duration, self._auto_close)
        self._report_remaining()
        self._move(OPEN)

    @command("Close")
    def close(self) -> None:
        self._cancel(close=True)
        self._ends_at = None
        self.set("OpenDuration", None)
        self._report_remaining()
        self._move(CLOSED)

    # ----------------------------------------------------------------------------- internals
    def _auto_close(self) -> None:
        self._close_timer = None
        self.close()

    def _move(self, target: int) -> None:
        if self._move_timer is not None:
            self._move_timer.cancel()
            self._move_timer = None
        if self.read("CurrentState") == target and self.read("TargetState") is None:
            return
        self.set("TargetState", target)
        self.set("CurrentState", TRANSITIONING)
        if self.runtime is None or self.travel_s <= 0:
            self._arrive(target)
        else:
            self._move_timer = self.runtime.call_later(self.travel_s, lambda: self._arrive(target))

    def _arrive(self, target: int) -> None:
        self._move_timer = None
        self.set("CurrentState", target)
        self.set("TargetState", None)
        self.emit_event("ValveStateChanged", {"valveState": target})

    def _cancel(self, *, close: bool) -> None:
        if close and self._close_timer is not None:
            self._close_timer.cancel()
            self._close_timer = None

    def _remaining(self) -> int | None:
        if self._ends_at is None or self.runtime is None:
            return None
        return max(0, math.ceil(self._ends_at - self.runtime.now() - 1e-9))

    def _report_remaining(self) -> None:
        new = self._remaining()
        old, self._reported = self._reported, new
        self.notify("RemainingDuration", old, new)
