"""Small builders for fabric tests."""

from __future__ import annotations

from typing import Any

from emulator.catalogue import CATALOGUE
from emulator.emulated_home import EmulatedHome
from emulator.home_config import HomeConfig


def home(
    devices: list[tuple[str, str, str]],
    *,
    rooms: dict[str, dict[str, float]] | None = None,
    attributes: dict[str, dict[str, Any]] | None = None,
    extensions: dict[str, Any] | None = None,
) -> HomeConfig:
    """devices: (device_id, type, room); rooms: room_id → environment (defaults: a warm, dusty room)."""
    rooms = rooms or {room: {} for _, _, room in devices}
    return HomeConfig.model_validate(
        {
            "name": "test home",
            "base_time": "2025-08-23 09:00:00",
            "extensions": extensions or {},
            "rooms": [
                {
                    "id": room_id,
                    "name": room_id,
                    "type": room_id,
                    "environment": {"temperature": 2800, "humidity": 5000, "illuminance": 300, "pm10": 60, **env},
                }
                for room_id, env in rooms.items()
            ],
            "devices": [
                {"id": d, "type": t, "room": r, "attributes": (attributes or {}).get(d, {})} for d, t, r in devices
            ],
        }
    )


def fabric(devices: list[tuple[str, str, str]], **kwargs: Any) -> EmulatedHome:
    return EmulatedHome(home(devices, **kwargs))


# Commands that leave moves under way (a colour, a blind), a cycle counting down and a room being cooled.
MOVING_COMMANDS: tuple[tuple[str, int, str, str, dict[str, Any]], ...] = (
    ("extended_color_light", 1, "OnOff", "On", {}),
    ("extended_color_light", 1, "ColorControl", "MoveToHue", {"hue": 200, "direction": 0, "transitionTime": 300}),
    ("air_conditioner", 1, "OnOff", "On", {}),
    ("blind", 1, "WindowCovering", "GoToLiftPercentage", {"liftPercent100thsValue": 9000}),
    ("laundry_washer", 1, "OnOff", "On", {}),
    ("laundry_washer", 1, "OperationalState", "Start", {}),
)


def every_type_home() -> EmulatedHome:
    """One device of every catalogue type, each its type's name, all in one room ``living``."""
    return fabric([(name, name, "living") for name in sorted(CATALOGUE)])
