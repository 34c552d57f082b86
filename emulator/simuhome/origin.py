"""What an import of a SimuHome config remembers, so that an export writes it back unchanged."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class SimuHomeDeviceOrigin(BaseModel):
    device_type: str
    attributes: dict[str, Any]  # every original attribute, SimuHome path → value, verbatim and in order
    not_loaded: list[str] = Field(default_factory=list)  # paths we could not express in our format
    normalised: dict[str, list[str]] = Field(default_factory=dict)  # path → normalisations applied on import
    extra: dict[str, Any] = Field(default_factory=dict)  # unknown device fields
    key_order: list[str] = Field(default_factory=list)


class SimuHomeRoomOrigin(BaseModel):
    state: dict[str, Any] | None  # verbatim original state; None when the room had none
    extra: dict[str, Any] = Field(default_factory=dict)  # unknown room fields
    key_order: list[str] = Field(default_factory=list)


class SimuHomeOrigin(BaseModel):
    """Everything needed to write a loaded SimuHome config back unchanged (JSON-serialisable)."""

    top_level: dict[str, Any]  # every top-level field except rooms, verbatim
    key_order: list[str]  # the original top-level key order, rooms included
    room_order: list[str]
    rooms: dict[str, SimuHomeRoomOrigin]
    devices: dict[str, SimuHomeDeviceOrigin]

    def normalisation_counts(self) -> dict[str, int]:
        """How many attribute values each normalisation was applied to (emulator.simuhome.values)."""
        counts: dict[str, int] = {}
        for device in self.devices.values():
            for names in device.normalised.values():
                for name in names:
                    counts[name] = counts.get(name, 0) + 1
        return dict(sorted(counts.items()))
