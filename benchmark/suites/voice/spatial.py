"""Spatial references resolved from where the user stands: "next to me", "in here", "behind me", "by the window".

The generator resolves every reference it writes with :func:`resolve` and only keeps references with exactly
one answer, so the gold device of an utterance is a function of the user's position (the same words from
another place may mean another device). Candidates are the devices of the asked kinds (e.g. lights).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from emulator.placement import DevicePlacement, UserPosition

Reference = Literal["next_to_me", "in_here", "behind_me", "anchor"]
REFERENCES: tuple[Reference, ...] = ("next_to_me", "in_here", "behind_me", "anchor")
NEAREST_MARGIN_M = 0.75  # "next to me" only when the nearest is clearly nearer than the second


class Unresolved(ValueError):
    """No device, or more than one, fits the reference from this position."""


@dataclass(frozen=True)
class Placed:
    device_id: str
    room: str
    where: DevicePlacement


def resolve(reference: Reference, user: UserPosition, candidates: Iterable[Placed], anchor: str | None = None) -> str:
    """The one device the reference picks out from the user's position; Unresolved otherwise."""
    here = sorted(
        (c for c in candidates if c.room == user.room), key=lambda c: (user.distance_to(c.where), c.device_id)
    )
    if reference == "in_here":
        chosen = here
    elif reference == "next_to_me":
        if len(here) > 1 and user.distance_to(here[1].where) - user.distance_to(here[0].where) < NEAREST_MARGIN_M:
            raise Unresolved("two devices are about as near: 'next to me' is ambiguous here")
        chosen = here[:1]
    elif reference == "behind_me":
        chosen = [c for c in here if user.is_behind(c.where)]
    elif reference == "anchor":
        chosen = [c for c in here if anchor is not None and c.where.anchor == anchor]
    else:
        raise Unresolved(f"unknown reference {reference!r}; allowed: {', '.join(REFERENCES)}")
    if len(chosen) != 1:
        raise Unresolved(f"{reference} from {user.room} ({user.x:g}, {user.y:g}) fits {len(chosen)} devices")
    return chosen[0].device_id
