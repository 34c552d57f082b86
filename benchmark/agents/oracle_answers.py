"""How the oracle words its answers: room variables with their units, attribute values, rooms, and a device
that is not where the request says."""

from __future__ import annotations

from typing import Any

DISPLAY = {"temperature": ("°C", 0.01), "humidity": ("%", 0.01), "illuminance": ("lux", 1.0), "pm10": ("µg/m³", 1.0)}


def spoken(room_id: str) -> str:
    return room_id.replace("_", " ")


def display(variable: str, value: float) -> str:
    unit, factor = DISPLAY[variable]
    return f"{value * factor:.2f} {unit}"


def missing_device(device_id: str, device_type: str | None, room_id: str) -> str:
    kind = (device_type or "device").replace("_", " ")
    return (
        f"There is no {kind} {device_id} in the {spoken(room_id)}: that device does not exist there, "
        f"so I cannot answer about it or operate it."
    )


def say(value: Any) -> str:
    if isinstance(value, bool):
        return "on (true)" if value else "off (false)"
    if isinstance(value, dict):
        name = value.get("name") or value.get("label")
        return f"{name} ({value})" if name else str(value)
    return str(value)
