"""The optional mapping file: which Matter endpoints are which devices, in which rooms.

```json
{"rooms": [{"room_id": "kitchen", "display_name": "Kitchen"}],
 "devices": [{"identity": "zoo-plug-6", "device_id": "kitchen_plug", "room_id": "kitchen"},
             {"node_id": 1, "endpoint": 5, "device_id": "kitchen_fan_1", "room_id": "kitchen",
              "device_type": "fan", "endpoints": {"1": 5, "2": 6}}]}
```

A device is named by ``identity`` — the id discovery gives it (UniqueID, else vendor+product+serial), the same
whatever node id the controller gave it, so the file survives commissioning again — or by ``node_id`` +
``endpoint`` (its top Matter endpoint; then ``room_id`` and ``device_type`` are required). ``endpoints`` maps the
device's own (SimuHome-style) endpoint numbers to Matter endpoints (default: as discovery numbers them; a plain
node keeps 0 → 0). ``homefabric matter map`` writes one from the live home. When a mapping is given it is
authoritative: only mapped devices are exposed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

Identifier = Annotated[str, Field(min_length=1, max_length=120, pattern=r"^[A-Za-z0-9_.:-]+$")]


class MappingError(ValueError):
    """A mapping file that cannot be used; the message names the file and the field."""


class RoomEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    room_id: Identifier
    display_name: str | None = None


class DeviceEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    identity: Identifier | None = Field(default=None, description="the device's id as discovery gives it")
    node_id: int | None = Field(default=None, ge=1)
    endpoint: int | None = Field(default=None, ge=1, le=0xFFFE, description="the device's top Matter endpoint")
    device_id: Identifier
    name: str | None = None
    room_id: Identifier | None = None
    device_type: Identifier | None = None
    endpoints: dict[int, Annotated[int, Field(ge=0, le=0xFFFE)]] | None = Field(
        default=None, description="device endpoint → Matter endpoint"
    )

    @model_validator(mode="after")
    def _named(self) -> DeviceEntry:
        if self.identity is None:
            if self.node_id is None or self.endpoint is None:
                raise ValueError("give identity, or node_id and endpoint")
            if self.room_id is None or self.device_type is None:
                raise ValueError("an entry by node_id and endpoint needs room_id and device_type")
        return self


class HomeMapping(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rooms: list[RoomEntry] = Field(default_factory=list)
    devices: list[DeviceEntry]

    @model_validator(mode="after")
    def _unique(self) -> HomeMapping:
        seen: set[str] = set()
        for index, device in enumerate(self.devices):
            if device.device_id in seen:
                raise ValueError(f"devices[{index}].device_id {device.device_id!r} is used twice")
            seen.add(device.device_id)
        return self


def load_mapping(path: str | Path) -> HomeMapping:
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise MappingError(f"{path}: cannot read the mapping: {error}") from None
    try:
        return HomeMapping.model_validate(raw)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in error.errors())
        raise MappingError(f"{path}: {problems}") from None
