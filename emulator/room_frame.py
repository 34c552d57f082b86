"""Every room's environment at one tick, kept as the trajectories that give it so its values can be computed later.

A frame holds, per room, the segments its variables follow then (immutable closed forms), its noon daylight and its
lights' and coverings' terms, and the sky then: ``states()`` computes exactly what ``room_state`` answered at that
tick, once, when first asked. A history sample that nobody reads (a fast-forward takes a day of them) costs a
picture, not a computation."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Protocol

from emulator.physics_model import Segment
from emulator.physics_terms import PhysicsParams, covering_factor, lights_lux

if TYPE_CHECKING:
    from emulator.device import Device

ENVIRONMENT_KEYS = ("temperature", "humidity", "illuminance", "pm10")

LightTerms = tuple[float, float]  # (the share of daylight the coverings let in, the lights' lux)
# (room, its variables' segments, its noon daylight, its light terms): immutable once taken, shared by frames
RoomPicture = tuple[str, Mapping[str, Segment], float, LightTerms]


def reading(value: float) -> float:
    """A room value as ``room_state`` reports it: to 0.01, never -0.0."""
    return round(value, 2) + 0.0


def illuminance(daylight: float, sky: float, terms: LightTerms) -> float:
    """Lux: the room's noon daylight scaled by the sky and its coverings, plus its lights."""
    return daylight * sky * terms[0] + terms[1]


class RoomsFrame:
    """Rooms' trajectories at one tick; ``states()`` are their rounded states then (computed on first call)."""

    __slots__ = ("_pictures", "_sky", "_states", "tick")

    def __init__(self, tick: int, sky: float, pictures: list[RoomPicture]) -> None:
        self.tick = tick
        self._sky = sky
        self._pictures = pictures
        self._states: dict[str, dict[str, float]] | None = None

    def states(self) -> dict[str, dict[str, float]]:
        if self._states is None:
            tick, sky = self.tick, self._sky
            self._states = {
                room_id: {
                    key: reading(
                        illuminance(daylight, sky, terms) if key == "illuminance" else segments[key].value_at(tick)
                    )
                    for key in ENVIRONMENT_KEYS
                }
                for room_id, segments, daylight, terms in self._pictures
            }
            self._pictures = []  # the states stand for them now
        return self._states


class _Room(Protocol):
    daylight: float

    def current_segments(self) -> dict[str, Segment]: ...


class RoomPictures:
    """What a room's readings reuse while it stays as it is: its light terms, until a device change that can move
    them (``devices_changed``: a light or covering switched, moved, added or removed — the home resegments the room
    then), and its picture for frames, until its trajectories or daylight move too (``moved``)."""

    __slots__ = ("_pictures", "_terms", "devices_in", "params")  # one per home: no instance dict

    def __init__(self, params: PhysicsParams, devices_in: Callable[[str], Iterable[Device]]) -> None:
        self.params = params
        self.devices_in = devices_in
        self._terms: dict[str, LightTerms] = {}
        self._pictures: dict[str, RoomPicture] = {}

    def terms(self, room_id: str) -> LightTerms:
        terms = self._terms.get(room_id)
        if terms is None:
            p = self.params
            terms = self._terms[room_id] = (
                covering_factor(p, self.devices_in(room_id)),
                lights_lux(p, self.devices_in(room_id)),
            )
        return terms

    def moved(self, room_id: str) -> None:
        self._pictures.pop(room_id, None)

    def devices_changed(self, room_id: str) -> None:
        self._terms.pop(room_id, None)
        self._pictures.pop(room_id, None)

    def frame(self, tick: int, sky: float, rooms: Mapping[str, _Room], room_ids: Iterable[str]) -> RoomsFrame:
        """The rooms' trajectories at ``tick`` under ``sky``: their states (``RoomsFrame.states()``) are computed when
        first asked."""
        pictures = self._pictures
        frame = []
        for room_id in room_ids:
            picture = pictures.get(room_id)
            if picture is None:  # the room moved on since its last picture (most frames reuse it)
                room = rooms[room_id]
                picture = pictures[room_id] = (room_id, room.current_segments(), room.daylight, self.terms(room_id))
            frame.append(picture)
        return RoomsFrame(tick, sky, frame)
