"""Where things are inside rooms: device positions and named anchors, and where the user stands.

A home may carry ``extensions["placement"]``: ``{"devices": {device_id: {x, y, anchor?}}, "user": {room, x, y,
facing_deg}}``. Coordinates are metres from the room's south-west corner (x east, y north); ``facing_deg`` is
the compass bearing the user faces (0 north, 90 east). Optional by design: a home without it loads, runs and
exports exactly as before (SimuHome has no positions, so its export drops them like our other extensions);
it lives in ``extensions`` so a running home saves it back with the home unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

PLACEMENT_KEY = "placement"


class DevicePlacement(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    x: float = Field(ge=0, le=100)
    y: float = Field(ge=0, le=100)
    anchor: str | None = Field(default=None, min_length=1, description='e.g. "by the window", "next to the sofa"')


class UserPosition(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    room: str
    x: float = Field(ge=0, le=100)
    y: float = Field(ge=0, le=100)
    facing_deg: float = Field(default=0.0, ge=0, lt=360)

    def distance_to(self, where: DevicePlacement) -> float:
        return math.hypot(where.x - self.x, where.y - self.y)

    def is_behind(self, where: DevicePlacement) -> bool:
        """Behind = more than 90° away from the way the user faces (the dot product with facing is negative)."""
        east, north = math.sin(math.radians(self.facing_deg)), math.cos(math.radians(self.facing_deg))
        return (where.x - self.x) * east + (where.y - self.y) * north < 0


class HomePlacement(BaseModel):
    model_config = ConfigDict(extra="forbid")

    devices: dict[str, DevicePlacement] = Field(default_factory=dict)
    user: UserPosition | None = None


def home_placement(extensions: Mapping[str, Any]) -> HomePlacement:
    """The placement block of a home's extensions (an empty one when the home has none)."""
    return HomePlacement.model_validate(extensions.get(PLACEMENT_KEY) or {})


def with_user(extensions: Mapping[str, Any], user: UserPosition) -> dict[str, Any]:
    """A copy of the extensions with the user moved (the home's devices keep their places)."""
    placement = home_placement(extensions).model_copy(update={"user": user})
    return {**extensions, PLACEMENT_KEY: placement.model_dump(mode="json", exclude_none=True)}


def placement_problems(
    extensions: Mapping[str, Any], room_ids: Iterable[str], device_ids: Iterable[str]
) -> list[tuple[str, str]]:
    """(JSON path, message) for a malformed block, an unknown device or an unknown user room."""
    base = f"extensions.{PLACEMENT_KEY}"
    if PLACEMENT_KEY not in extensions:
        return []
    try:
        placement = home_placement(extensions)
    except ValidationError as error:
        return [(".".join([base, *(str(p) for p in e["loc"])]), e["msg"]) for e in error.errors()]
    known_devices, known_rooms = set(device_ids), set(room_ids)
    problems = [
        (f"{base}.devices.{device_id}", f"unknown device {device_id!r}")
        for device_id in placement.devices
        if device_id not in known_devices
    ]
    if placement.user is not None and placement.user.room not in known_rooms:
        problems.append(
            (f"{base}.user.room", f"unknown room {placement.user.room!r}; allowed: {', '.join(sorted(known_rooms))}")
        )
    return problems
