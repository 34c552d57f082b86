"""Room layouts: the rooms each kind of home may have, their floors and nesting, and how rooms are drawn."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Literal

from emulator.home_generation.errors import GeneratorError

Layout = Literal["simuhome", "apartment", "house", "mansion", "tower"]


@dataclass(frozen=True)
class RoomSlot:
    id: str
    type: str
    floor: int = 0
    parent: str | None = None
    required: bool = False


def _slot(spec: str, floor: int, parent: str | None = None) -> RoomSlot:
    # "id:type" (type defaults to id); a trailing "!" marks a room every home of the layout has.
    required = spec.endswith("!")
    room_id, _, room_type = spec.rstrip("!").partition(":")
    return RoomSlot(room_id, room_type or room_id, floor, parent, required)


SIMUHOME_LAYOUT = (
    *(_slot(f"{r}!", 0) for r in ("living_room", "bathroom", "kitchen", "utility_room")),
    *(_slot(r, 0) for r in ("bedroom", "dining_room", "study_room", "kids_room", "office")),
)
APARTMENT_LAYOUT = (
    _slot("entrance", 0),
    _slot("living_room!", 0),
    _slot("balcony", 0, "living_room"),
    _slot("kitchen!", 0),
    _slot("dining_room", 0),
    _slot("bathroom!", 0),
    _slot("bedroom!", 0),
    _slot("kids_room", 0),
    _slot("study_room", 0),
    _slot("utility_room", 0),
)
HOUSE_LAYOUT = (
    _slot("entrance!", 0),
    _slot("living_room!", 0),
    _slot("terrace", 0, "living_room"),
    _slot("kitchen!", 0),
    _slot("dining_room", 0),
    _slot("guest_toilet:toilet", 0),
    _slot("utility_room!", 0),
    _slot("office", 0),
    _slot("garage", 0),
    _slot("hallway", 1),
    _slot("bedroom!", 1),
    _slot("ensuite_bathroom:bathroom", 1, "bedroom"),
    _slot("walk_in_closet", 1, "bedroom"),
    _slot("balcony", 1, "bedroom"),
    _slot("bathroom!", 1),
    _slot("kids_room", 1),
    _slot("study_room", 1),
)
MANSION_LAYOUT = (
    _slot("basement!", -1),
    _slot("storage_room", -1, "basement"),
    _slot("home_gym", -1),
    _slot("media_room", -1),
    _slot("entrance!", 0),
    _slot("hallway", 0),
    _slot("living_room!", 0),
    _slot("terrace", 0, "living_room"),
    _slot("dining_room", 0),
    _slot("kitchen!", 0),
    _slot("pantry", 0, "kitchen"),
    _slot("utility_room!", 0),
    _slot("laundry_room:utility_room", 0),
    _slot("guest_toilet:toilet", 0),
    _slot("office", 0),
    _slot("garage!", 0),
    _slot("guest_bedroom:bedroom", 0),
    _slot("guest_bathroom:bathroom", 0, "guest_bedroom"),
    _slot("upstairs_hallway:hallway", 1),
    _slot("master_bedroom:bedroom!", 1),
    _slot("master_bathroom:bathroom", 1, "master_bedroom"),
    _slot("master_closet:walk_in_closet", 1, "master_bedroom"),
    _slot("master_balcony:balcony", 1, "master_bedroom"),
    _slot("bedroom", 1),
    _slot("bedroom_closet:walk_in_closet", 1, "bedroom"),
    _slot("kids_room", 1),
    _slot("nursery:kids_room", 1),
    _slot("bathroom!", 1),
    _slot("study_room", 1),
    _slot("attic", 2),
    _slot("attic_storage:storage_room", 2, "attic"),
)
# One flat per floor of the tower; children follow their parents so a truncated floor stays valid.
TOWER_FLOOR = (
    ("living_room", "living_room", None),
    ("kitchen", "kitchen", None),
    ("bathroom", "bathroom", None),
    ("master_bedroom", "bedroom", None),
    ("entrance", "entrance", None),
    ("utility_room", "utility_room", None),
    ("ensuite_bathroom", "bathroom", "master_bedroom"),
    ("kids_room", "kids_room", None),
    ("dining_room", "dining_room", None),
    ("balcony", "balcony", "living_room"),
)
LAYOUTS: dict[str, tuple[RoomSlot, ...]] = {
    "simuhome": SIMUHOME_LAYOUT,
    "apartment": APARTMENT_LAYOUT,
    "house": HOUSE_LAYOUT,
    "mansion": MANSION_LAYOUT,
}


def tower_slots(room_count: int) -> list[RoomSlot]:
    floors = math.ceil(room_count / len(TOWER_FLOOR))
    slots = [
        RoomSlot(f"f{floor:02d}_{suffix}", room_type, floor, f"f{floor:02d}_{parent}" if parent else None, True)
        for floor in range(floors)
        for suffix, room_type, parent in TOWER_FLOOR
    ]
    return slots[:room_count]


def choose_rooms(layout: Layout, room_count: int, rng: random.Random) -> list[RoomSlot]:
    if layout == "tower":
        return tower_slots(room_count)
    slots = LAYOUTS[layout]
    chosen = {slot.id for slot in slots if slot.required}
    if not len(chosen) <= room_count <= len(slots):
        raise GeneratorError(
            f"the {layout!r} layout has {len(chosen)}..{len(slots)} rooms, room_count {room_count} is outside that"
        )
    while len(chosen) < room_count:
        # A nested room can only be added once the room it sits in is there.
        eligible = [s.id for s in slots if s.id not in chosen and (s.parent is None or s.parent in chosen)]
        chosen.add(rng.choice(eligible))
    return [slot for slot in slots if slot.id in chosen]
