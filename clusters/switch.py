"""Switch cluster (0x003B): a momentary push button whose presses are Matter events.

A press is a closed-form timeline in virtual time, scheduled in full when it begins (:meth:`SwitchServer.press`):
each press holds the button ``PRESS_HOLD_S`` and leaves ``PRESS_GAP_S`` before the next; a multi-press sequence
completes ``MULTI_PRESS_WINDOW_S`` after its last release; a long press reports LongPress once held
``LONG_PRESS_S`` and LongRelease when let go. CurrentPosition is 1 while the button is down, 0 otherwise.

Events (Switch rev 1, features MomentarySwitch + Release + LongPress + MultiPress): every press emits
InitialPress; the 2nd and later presses of a sequence MultiPressOngoing; a short release ShortRelease; the end of a
short sequence MultiPressComplete with the count; a long press InitialPress, LongPress, LongRelease.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer
from clusters.status import HomeError, Status

Feature = Objects.Switch.Bitmaps.Feature
MOMENTARY_FEATURES = int(
    Feature.kMomentarySwitch
    | Feature.kMomentarySwitchRelease
    | Feature.kMomentarySwitchLongPress
    | Feature.kMomentarySwitchMultiPress
)
PRESS_HOLD_S = 0.2
PRESS_GAP_S = 0.3
MULTI_PRESS_WINDOW_S = 0.5
LONG_PRESS_S = 1.0
PRESSED, RELEASED = 1, 0

_EVENT_FEATURES: dict[str, int] = {
    "SwitchLatched": int(Feature.kLatchingSwitch),
    "InitialPress": int(Feature.kMomentarySwitch),
    "LongPress": int(Feature.kMomentarySwitchLongPress),
    "ShortRelease": int(Feature.kMomentarySwitchRelease),
    "LongRelease": int(Feature.kMomentarySwitchLongPress),
    "MultiPressOngoing": int(Feature.kMomentarySwitchMultiPress),
    "MultiPressComplete": int(Feature.kMomentarySwitchMultiPress),
}


class SwitchServer(ClusterServer):
    """A two-position momentary button (NumberOfPositions 2). Constructor: ``features`` (default all the
    momentary features) and ``values`` (e.g. MultiPressMax)."""

    __slots__ = ("_busy_until",)

    cluster_name = "Switch"
    revision = 1
    default_features = MOMENTARY_FEATURES
    defaults = {"NumberOfPositions": 2, "CurrentPosition": RELEASED, "MultiPressMax": 3}
    events = tuple(_EVENT_FEATURES)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._busy_until: float | None = None

    def initial_values(self) -> dict[str, Any]:
        values = dict(self.defaults)
        if not self.has_feature(Feature.kMomentarySwitchMultiPress):
            del values["MultiPressMax"]
        return values

    def supported_events(self) -> tuple[str, ...]:
        return tuple(e for e, bit in _EVENT_FEATURES.items() if self.has_feature(bit))

    def press(self, presses: int = 1, *, long: bool = False, hold_s: float = 2.0) -> float:
        """Press the button ``presses`` times (short), or once held ``hold_s`` seconds (``long``); the events
        follow in virtual time. Returns the seconds until the sequence is over. HomeError when the button is
        still in a sequence, or the count/hold is outside what this switch supports."""
        if self.runtime is None:
            raise HomeError.refused(Status.FAILURE, "Switch is not attached to a runtime")
        if not self.has_feature(Feature.kMomentarySwitch):
            raise HomeError.refused(Status.INVALID_IN_STATE, "Switch: only a momentary switch can be pressed")
        now = self.runtime.now()
        if self._busy_until is not None and now < self._busy_until:
            raise HomeError.refused(
                Status.BUSY,
                f"Switch: a press sequence is still going on (for {self._busy_until - now:.1f} s)",
                reason="SWITCH_BUSY",
            )
        most = self.read("MultiPressMax") if self.has_attribute("MultiPressMax") else 1
        if long:
            if presses != 1 or not self.has_feature(Feature.kMomentarySwitchLongPress):
                raise HomeError.refused(
                    Status.CONSTRAINT_ERROR,
                    "Switch: a long press is one press, on a switch with the MomentarySwitchLongPress feature",
                    allowed={"presses": 1},
                )
            if not LONG_PRESS_S <= hold_s <= 60:
                raise HomeError.refused(
                    Status.CONSTRAINT_ERROR,
                    f"Switch: hold_s={hold_s} is out of range",
                    allowed={"min": LONG_PRESS_S, "max": 60},
                )
            plan = self._long_plan(hold_s)
        else:
            if not 1 <= presses <= most:
                raise HomeError.refused(
                    Status.CONSTRAINT_ERROR,
                    f"Switch: presses={presses} is out of range 1..{most}",
                    allowed={"min": 1, "max": most},
                )
            plan = self._short_plan(presses)
        for delay, step in plan:
            self.runtime.call_later(delay, step)
        duration = plan[-1][0]
        self._busy_until = now + duration
        return duration

    # ----------------------------------------------------------------------------- the timelines
    def _short_plan(self, presses: int) -> list[tuple[float, Callable[[], None]]]:
        plan: list[tuple[float, Callable[[], None]]] = []
        for count in range(1, presses + 1):
            down = (count - 1) * (PRESS_HOLD_S + PRESS_GAP_S)
            plan.append((down, functools.partial(self._down, count)))
            plan.append((down + PRESS_HOLD_S, self._short_up))
        end = plan[-1][0] + MULTI_PRESS_WINDOW_S
        if self.has_feature(Feature.kMomentarySwitchMultiPress):
            plan.append(
                (
                    end,
                    lambda: self._emit(
                        "MultiPressComplete", {"previousPosition": PRESSED, "totalNumberOfPressesCounted": presses}
                    ),
                )
            )
        else:
            plan.append((end, lambda: None))
        return plan

    def _long_plan(self, hold_s: float) -> list[tuple[float, Callable[[], None]]]:
        return [
            (0.0, lambda: self._down(1)),
            (LONG_PRESS_S, lambda: self._emit("LongPress", {"newPosition": PRESSED})),
            (hold_s, self._long_up),
        ]

    def _down(self, count: int) -> None:
        self.set("CurrentPosition", PRESSED)
        self._emit("InitialPress", {"newPosition": PRESSED})
        if count > 1:
            self._emit("MultiPressOngoing", {"newPosition": PRESSED, "currentNumberOfPressesCounted": count})

    def _short_up(self) -> None:
        self.set("CurrentPosition", RELEASED)
        self._emit("ShortRelease", {"previousPosition": PRESSED})

    def _long_up(self) -> None:
        self.set("CurrentPosition", RELEASED)
        self._emit("LongRelease", {"previousPosition": PRESSED})

    def _emit(self, event: str, fields: dict[str, Any]) -> None:
        if event in self.supported_events():
            self.emit_event(event, fields)
