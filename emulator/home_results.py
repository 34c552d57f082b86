"""The typed results of the home's write, invoke and apply; ``to_dict`` is the JSON every caller has always seen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class WriteResult:
    """An accepted attribute write: the value before and after (normalised by the cluster)."""

    device_id: str
    endpoint: int
    cluster: str
    attribute: str
    old_value: Any
    new_value: Any

    def to_dict(self) -> dict[str, Any]:
        return {
            "device_id": self.device_id,
            "endpoint": self.endpoint,
            "cluster": self.cluster,
            "attribute": self.attribute,
            "old_value": self.old_value,
            "new_value": self.new_value,
        }


@dataclass(frozen=True, slots=True)
class InvokeResult:
    """An accepted command: the cluster's response payload (None for a command without one)."""

    device_id: str
    endpoint: int
    cluster: str
    command: str
    response: Any

    def to_dict(self) -> dict[str, Any]:
        return {
            "device_id": self.device_id,
            "endpoint": self.endpoint,
            "cluster": self.cluster,
            "command": self.command,
            "response": self.response,
        }


StepResult = WriteResult | InvokeResult  # what ``apply`` returns for a write or an invoke step
