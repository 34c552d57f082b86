"""A generated home's figures (rooms, devices, floors) for the command line."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel

from emulator.home_config import HomeConfig


class FloorSummary(BaseModel):
    rooms: int
    devices: int


class HomeSummary(BaseModel):
    name: str
    tier: str | None
    seed: int | None
    rooms: int
    devices: int
    device_types: int
    nested_rooms: int
    devices_by_type: dict[str, int]  # most common first
    rooms_by_type: dict[str, int]
    floors: dict[int, FloorSummary]  # lowest floor first

    def lines(self) -> list[str]:
        """Plain-text summary, one fact per line, for the command line."""
        out = [
            f"home {self.name} (tier {self.tier or '-'}, seed {self.seed if self.seed is not None else '-'})",
            f"rooms: {self.rooms} ({self.nested_rooms} nested)",
            f"devices: {self.devices} of {self.device_types} types",
        ]
        out += [f"  floor {floor}: {f.rooms} rooms, {f.devices} devices" for floor, f in self.floors.items()]
        out += [f"  {device_type}: {count}" for device_type, count in self.devices_by_type.items()]
        return out


def summarize_home(config: HomeConfig) -> HomeSummary:
    floor_of = {room.id: room.floor for room in config.rooms}
    by_type = Counter(device.type for device in config.devices)
    room_types = Counter(room.type for room in config.rooms)
    floors: dict[int, FloorSummary] = {}
    for floor in sorted(set(floor_of.values())):
        floors[floor] = FloorSummary(
            rooms=sum(1 for f in floor_of.values() if f == floor),
            devices=sum(1 for d in config.devices if floor_of[d.room] == floor),
        )
    return HomeSummary(
        name=config.name,
        tier=config.tier,
        seed=config.seed,
        rooms=len(config.rooms),
        devices=len(config.devices),
        device_types=len(by_type),
        nested_rooms=sum(1 for room in config.rooms if room.parent is not None),
        devices_by_type=dict(sorted(by_type.items(), key=lambda item: (-item[1], item[0]))),
        rooms_by_type=dict(sorted(room_types.items(), key=lambda item: (-item[1], item[0]))),
        floors=floors,
    )
