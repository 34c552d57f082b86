"""The home's systems: devices a house has once, or beside something else, placed after each room's own draw.

Houses and mansions (the ``medium`` and ``complex`` tiers, extended catalogue) get rooftop solar and a home battery
where the inverter hangs (garage, else utility room or basement), an EV charger in the garage (else by the entrance,
on the driveway), the main water valve where the water comes in (basement, else utility room), a leak detector in
every room with an appliance that uses water, and a button (a Generic Switch) in every room with a door lock, with a
wall switch bound to that room's light where it has one (a colour dimmer switch for a colour light, a dimmer for a
dimmable one, else an on/off light switch; the generator writes the Binding).
Apartments and SimuHome's homes get none of them, so the ``simuhome`` and ``simple`` tiers are unchanged, and so is
``stress`` (a tower of flats).

These devices come on top of the room draw (``total_devices`` counts the rooms' own devices); nothing here is random.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from emulator.home_generation.layouts import Layout, RoomSlot

SYSTEM_LAYOUTS: frozenset[Layout] = frozenset({"house", "mansion"})
# (device type, room types to try in order): one of each per home, in the first room type the home has.
ONE_PER_HOME: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("solar_power", ("garage", "utility_room", "basement")),
    ("battery_storage", ("garage", "utility_room", "basement")),
    ("evse", ("garage", "entrance")),
    ("water_valve", ("basement", "utility_room")),
)
WATER_APPLIANCES = frozenset({"dishwasher", "laundry_washer", "water_heater"})
LEAK_DETECTOR = "water_leak_detector"
DOOR_DEVICES = frozenset({"door_lock"})
DOOR_BUTTON = "generic_switch"
# The wall switch by a locked door for the room's light (the first of these kinds the room has), bound to it.
LIGHT_SWITCHES: tuple[tuple[str, str], ...] = (
    ("extended_color_light", "color_dimmer_switch"),
    ("color_temperature_light", "color_dimmer_switch"),
    ("dimmable_light", "dimmer_switch"),
    ("fan_light", "dimmer_switch"),
    ("on_off_light", "on_off_light_switch"),
)


def home_systems(
    layout: Layout, catalogue: str, rooms: Sequence[RoomSlot], placed: Mapping[str, Sequence[str]]
) -> dict[str, list[str]]:
    """Room id → the system device types to add there (in placing order), given each room's ``placed`` types."""
    extra: dict[str, list[str]] = {room.id: [] for room in rooms}
    if layout not in SYSTEM_LAYOUTS or catalogue != "extended":
        return extra
    for device_type, room_types in ONE_PER_HOME:
        room = _first_room(rooms, room_types)
        if room is not None:
            extra[room.id].append(device_type)
    for room in rooms:
        types = set(placed.get(room.id, ()))
        if types & WATER_APPLIANCES and LEAK_DETECTOR not in types:
            extra[room.id].append(LEAK_DETECTOR)
        if types & DOOR_DEVICES and DOOR_BUTTON not in types:
            extra[room.id].append(DOOR_BUTTON)
        switched = door_light(placed.get(room.id, ())) if types & DOOR_DEVICES else None
        if switched is not None:
            extra[room.id].append(switched[1])
    return extra


def door_light(types: Sequence[str]) -> tuple[str, str] | None:
    """(light type, switch type) of the light a door's wall switch drives, for a room drawing ``types``."""
    return next(((light, switch) for light, switch in LIGHT_SWITCHES if light in types), None)


def _first_room(rooms: Sequence[RoomSlot], room_types: Sequence[str]) -> RoomSlot | None:
    for room_type in room_types:
        for room in rooms:
            if room.type == room_type:
                return room
    return None
