"""Appliance cycles as data: the states a cycle shows, its phases, programs and SimuHome's programs.

A :class:`CycleProgram` is named phases, each a share of a total duration (found from a sibling
attribute, a table, or fixed) or a fixed number of seconds, plus what the cluster shows on completion.
The operational-state servers (``clusters.operational_state``) run them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import clusters.official as Objects

if TYPE_CHECKING:
    from clusters.base import HostingEndpoint

_State = Objects.OperationalState.Enums.OperationalStateEnum
_RvcState = Objects.RvcOperationalState.Enums.OperationalStateEnum

STOPPED = int(_State.kStopped)
RUNNING = int(_State.kRunning)
PAUSED = int(_State.kPaused)
ERROR = int(_State.kError)
SEEKING_CHARGER = int(_RvcState.kSeekingCharger)
CHARGING = int(_RvcState.kCharging)
DOCKED = int(_RvcState.kDocked)

STATE_NAMES = {
    STOPPED: "Stopped",
    RUNNING: "Running",
    PAUSED: "Paused",
    ERROR: "Error",
    SEEKING_CHARGER: "SeekingCharger",
    CHARGING: "Charging",
    DOCKED: "Docked",
}
EPSILON_S = 1e-6  # float slack when comparing cycle offsets (s)


@dataclass(frozen=True)
class Phase:
    """One phase: a ``share`` of the program's total duration, or a fixed length in ``seconds``."""

    name: str
    share: float | None = None
    seconds: float | None = None
    state: int = RUNNING  # OperationalState while in this phase (RVC: SeekingCharger, Docked)

    def __post_init__(self) -> None:
        if (self.share is None) == (self.seconds is None):
            raise ValueError(f"phase {self.name!r} needs exactly one of share / seconds")


@dataclass(frozen=True)
class DurationFrom:
    """The total duration read from a sibling attribute when the cycle starts.

    With ``table`` the attribute value — or, for a mode cluster, the label of that mode — is looked
    up (e.g. ``{"Normal": 5400}`` or ``{0: 1800}``); without it the value itself is seconds (e.g.
    MicrowaveOvenControl.CookTime). ``default`` serves a missing sibling, a null value or a miss.
    """

    cluster: str
    attribute: str
    table: Mapping[int | str, float] | None = None
    default: float | None = None

    def resolve(self, endpoint: HostingEndpoint | None) -> float | None:
        sibling = endpoint.find(self.cluster) if endpoint is not None else None
        if sibling is None:
            return self.default
        value = sibling.read(self.attribute)
        if value is None:
            return self.default
        if self.table is None:
            return float(value)
        keys: list[Any] = [value]
        if sibling.has_attribute("SupportedModes"):
            keys += [m["label"] for m in sibling.read("SupportedModes") if m["mode"] == value]
        for key in keys:
            if key in self.table:
                return float(self.table[key])
        return self.default

    def for_key(self, key: int | str | None) -> float | None:
        """The total for an attribute value or mode label known in advance (``default`` for a miss, None or no
        table): what :meth:`resolve` finds once the sibling holds ``key``."""
        if key is None or self.table is None or key not in self.table:
            return self.default
        return float(self.table[key])


@dataclass(frozen=True)
class CycleProgram:
    """A reusable description of an appliance cycle (data, not code).

    ``phases`` run in order. Share phases split the total (``duration_s``, or ``duration_from``
    resolved at Start) with boundaries on whole seconds; seconds phases add their fixed length.
    On completion CurrentPhase points at ``completion_phase`` (appended to PhaseList) or is null.
    """

    phases: tuple[Phase, ...]
    duration_s: float | None = None
    duration_from: DurationFrom | None = None
    completion_phase: str | None = "Complete"

    def __post_init__(self) -> None:
        if not self.phases:
            raise ValueError("a cycle program needs at least one phase")
        shares = [p.share for p in self.phases if p.share is not None]
        if shares and abs(sum(shares) - 1.0) > 1e-6:
            raise ValueError(f"phase shares must add up to 1, got {sum(shares)}")
        if shares and self.duration_s is None and self.duration_from is None:
            raise ValueError("share phases need duration_s or duration_from")

    def phase_list(self) -> list[str]:
        names = [p.name for p in self.phases]
        return [*names, self.completion_phase] if self.completion_phase else names

    def share_total(self, endpoint: HostingEndpoint | None) -> float | None:
        """The duration the share phases divide, or None when it cannot be found."""
        if not any(p.share is not None for p in self.phases):
            return 0.0
        if self.duration_from is not None:
            found = self.duration_from.resolve(endpoint)
            if found is not None:
                return found
        return self.duration_s

    def phase_ends(self, share_total: float) -> list[float]:
        """Offset (s) at which each phase ends; inner share boundaries fall on whole seconds."""
        ends: list[float] = []
        cum_share = fixed = 0.0
        for phase in self.phases:
            if phase.share is not None:
                cum_share = round(cum_share + phase.share, 9)
            else:
                fixed += phase.seconds or 0.0
            ends.append(math.floor(cum_share * share_total + EPSILON_S) + fixed)
        ends[-1] = cum_share * share_total + fixed  # the cycle ends exactly after its total
        return ends

    def total_s(self, endpoint: HostingEndpoint | None = None) -> float | None:
        share_total = self.share_total(endpoint)
        return None if share_total is None else self.phase_ends(share_total)[-1]

    def renamed(self, names: Mapping[str, str]) -> CycleProgram:
        """A copy with some phases renamed (e.g. the RVC's "Cleaning" phase shown as "Mapping")."""
        return replace(self, phases=tuple(replace(p, name=names.get(p.name, p.name)) for p in self.phases))


# SimuHome's cycles (facts §2.2).
DISHWASHER_PROGRAM = CycleProgram(
    phases=(
        Phase("Pre-wash", share=1 / 9),
        Phase("Main wash", share=5 / 9),
        Phase("Rinse", share=2 / 9),
        Phase("Dry", share=1 / 9),
    ),
    duration_from=DurationFrom(
        "DishwasherMode",
        "CurrentMode",
        table={
            "Normal": 5400,
            "Heavy Duty": 7200,
            "Light Wash": 3600,
            "Quick Wash": 1800,
            "Low Energy": 5400,
            "Silent": 5400,
        },
        default=5400,
    ),
)
LAUNDRY_WASHER_PROGRAM = CycleProgram(
    phases=(
        Phase("Pre-wash", share=1 / 8),
        Phase("Main wash", share=4 / 8),
        Phase("Rinse", share=2 / 8),
        Phase("Spin", share=1 / 8),
    ),
    duration_from=DurationFrom(
        "LaundryWasherMode",
        "CurrentMode",
        table={
            "Normal": 3600,
            "Delicate": 2700,
            "Heavy": 5400,
            "Whites": 3600,
            "Quick Normal": 900,
            "Heavy Whites": 5400,
        },
        default=3600,
    ),
)
LAUNDRY_DRYER_PROGRAM = CycleProgram(
    phases=(Phase("Heating", share=0.2), Phase("Drying", share=0.6), Phase("CoolDown", share=0.2)),
    duration_from=DurationFrom(
        "LaundryDryerControls",
        "SelectedDrynessLevel",
        table={0: 30 * 60, 1: 45 * 60, 2: 60 * 60, 3: 75 * 60},
        default=45 * 60,
    ),
)
RVC_PROGRAM = CycleProgram(
    phases=(
        Phase("Cleaning", seconds=1800),
        Phase("SeekingCharger", seconds=10, state=SEEKING_CHARGER),
        Phase("Docked", seconds=5, state=DOCKED),
    ),
    completion_phase=None,
)
MICROWAVE_PROGRAM = CycleProgram(
    phases=(Phase("Cooking", share=1.0),),
    duration_from=DurationFrom("MicrowaveOvenControl", "CookTime", default=30),
    completion_phase=None,
)
GENERIC_PROGRAM = CycleProgram(phases=(Phase("Running", share=1.0),), duration_s=3600)
