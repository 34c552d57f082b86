"""Interaction Model status codes and the one error type of the cluster layer."""

from __future__ import annotations

import re
from enum import IntEnum
from typing import Any


class Status(IntEnum):
    """Matter Interaction Model status codes (Matter Core spec §8.10.1)."""

    SUCCESS = 0x00
    FAILURE = 0x01
    INVALID_SUBSCRIPTION = 0x7D
    UNSUPPORTED_ACCESS = 0x7E
    UNSUPPORTED_ENDPOINT = 0x7F
    INVALID_ACTION = 0x80
    UNSUPPORTED_COMMAND = 0x81
    INVALID_COMMAND = 0x85
    UNSUPPORTED_ATTRIBUTE = 0x86
    CONSTRAINT_ERROR = 0x87
    UNSUPPORTED_WRITE = 0x88
    RESOURCE_EXHAUSTED = 0x89
    NOT_FOUND = 0x8B
    UNREPORTABLE_ATTRIBUTE = 0x8C
    INVALID_DATA_TYPE = 0x8D
    UNSUPPORTED_READ = 0x8F
    DATA_VERSION_MISMATCH = 0x92
    TIMEOUT = 0x94
    BUSY = 0x9C
    UNSUPPORTED_CLUSTER = 0xC3
    NO_UPSTREAM_SUBSCRIPTION = 0xC5
    NEEDS_TIMED_INTERACTION = 0xC6
    UNSUPPORTED_EVENT = 0xC7
    PATHS_EXHAUSTED = 0xC8
    TIMED_REQUEST_MISMATCH = 0xC9
    FAILSAFE_REQUIRED = 0xCA
    INVALID_IN_STATE = 0xCB
    NO_COMMAND_RESPONSE = 0xCC


class ClusterError(Exception):
    """A refused read, write or invoke.

    ``status`` is the Matter status a real device answers with; ``message`` is a sentence naming the
    offending value; ``allowed`` (optional) says what would have been accepted, so a caller (agent,
    controller, user) can correct itself; ``code`` is a finer machine-readable reason where the
    Matter status alone is too coarse (e.g. ``POWER_OFF`` for INVALID_IN_STATE).

    ``response``: some refusals are, on the wire, a *successful* invoke whose response payload
    carries the failure (ModeBase ChangeToModeResponse status 3 InvalidInMode, OperationalState
    OperationalCommandResponse errorStateID 3). Such handlers raise with ``response`` set to that
    payload: the Matter bridge sends it as the command response, every other caller sees an error.

    ``cluster_status``: the cluster-specific status code (the cluster's StatusCode enum, e.g.
    AdministratorCommissioning WindowNotOpen = 4) that goes on the wire beside ``status`` (spec §8.10.2
    StatusIB ClusterStatus); build such errors with :meth:`cluster_specific`.
    """

    def __init__(self, status: Status, message: str, *, allowed: Any = None, code: str | None = None,
                 response: dict[str, Any] | None = None, cluster_status: int | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.allowed = allowed
        self.code = code or status.name
        self.response = response
        self.cluster_status = cluster_status

    @classmethod
    def cluster_specific(cls, status_code: IntEnum, message: str, *, allowed: Any = None) -> ClusterError:
        """A FAILURE carrying a cluster's own status (``status_code`` is a member of its StatusCode enum)."""
        name = status_code.name[1:] if status_code.name.startswith("k") else status_code.name
        code = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).upper()
        return cls(Status.FAILURE, message, allowed=allowed, code=code, cluster_status=int(status_code))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status.name, "code": self.code, "message": self.message}
        if self.allowed is not None:
            out["allowed"] = self.allowed
        if self.cluster_status is not None:
            out["cluster_status"] = self.cluster_status
        return out

    def __repr__(self) -> str:
        return f"ClusterError({self.status.name}, {self.message!r})"
