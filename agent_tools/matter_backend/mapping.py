"""The optional mapping file: which Matter endpoints are which devices, in which rooms.

```json
{"rooms": [{"room_id": "kitchen", "display_name": "Kitchen"}],
 "devices": [{"node_id": 1, "endpoint": 5, "device_id": "kitchen_fan_1", "room_id": "kitchen",
              "device_type": "fan", "endpoints": {"1": 5, "2": 6}}]}
```

``endpoint`` is the device's top Matter endpoint; ``endpoints`` maps the device's own (SimuHome-style)
endpoint numbers to Matter endpoints (default: ``{1: endpoint}`` plus the top endpoint's Descriptor
PartsList in order). When a mapping is given it is authoritative: only mapped devices are exposed.
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
    node_id: int = Field(ge=1)
    endpoint: int = Field(ge=1, le=0xFFFE, description="the device's top Matter endpoint")
    device_id: Identifier
    room_id: Identifier
    device_type: Identifier
    endpoints: dict[int, Annotated[int, Field(ge=1, le=0xFFFE)]] | None = Field(
        default=None, description="device endpoint → Matter endpoint")


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
