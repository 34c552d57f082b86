"""Interaction Model status codes and the one refusal type of the whole home, clusters to tools and wire."""

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


# A refusal's machine-readable code (SimuHome-compatible), from its Matter status ...
_CODE_BY_STATUS = {
    Status.UNSUPPORTED_ATTRIBUTE: "ATTRIBUTE_NOT_FOUND",
    Status.UNSUPPORTED_COMMAND: "COMMAND_NOT_FOUND",
    Status.UNSUPPORTED_CLUSTER: "CLUSTER_NOT_FOUND",
    Status.UNSUPPORTED_ENDPOINT: "ENDPOINT_NOT_FOUND",
    Status.UNSUPPORTED_WRITE: "READ_ONLY",
    Status.CONSTRAINT_ERROR: "CONSTRAINT_ERROR",
    Status.INVALID_COMMAND: "COMMAND_INVALID_ARGS",
    Status.INVALID_DATA_TYPE: "ATTRIBUTE_INVALID_VALUE",
    Status.INVALID_IN_STATE: "INVALID_STATE",
    Status.NOT_FOUND: "NOT_FOUND",
    Status.FAILURE: "COMMAND_EXECUTION_ERROR",
}
# ... or from a cluster's finer reason, where SimuHome has a name for it.
_CODE_BY_REASON = {"POWER_OFF": "DEPENDENCY_VIOLATION"}
# ... and the Matter status a refusal raised above the clusters (no status of its own) answers on the wire.
_STATUS_BY_CODE = {
    "DEPENDENCY_VIOLATION": Status.INVALID_IN_STATE,
    "DEVICE_NOT_FOUND": Status.UNSUPPORTED_ENDPOINT,
    "ENDPOINT_NOT_FOUND": Status.UNSUPPORTED_ENDPOINT,
    "CLUSTER_NOT_FOUND": Status.UNSUPPORTED_CLUSTER,
    "COMMAND_INVALID_ARGS": Status.INVALID_COMMAND,
}


class HomeError(Exception):
    """A refused read, write, invoke or home call: the one error type from the clusters up to the tools and the
    wire. State is unchanged whenever it is raised.

    ``code``: the machine-readable reason the tools and the HTTP/MQTT answers carry (SimuHome's names:
    ``DEVICE_NOT_FOUND``, ``READ_ONLY``, ``DEPENDENCY_VIOLATION`` ...). ``message``: a sentence naming the
    offending value, after ``path``, the context the refusal travelled through (``"step 0: lamp 1.OnOff.On"``,
    added by :meth:`at` on the way up). ``allowed`` (optional) says what would have been accepted, so a caller
    (agent, controller, user) can correct itself.

    ``status``: the Matter status a real device answers with (None for a refusal above the clusters: its wire
    status is :attr:`wire_status`). ``reason``: a cluster's finer reason where the Matter status alone is too
    coarse (e.g. ``POWER_OFF`` for INVALID_IN_STATE); it defaults to the status's name.

    ``response``: some refusals are, on the wire, a *successful* invoke whose response payload carries the
    failure (ModeBase ChangeToModeResponse status 3 InvalidInMode, OperationalState OperationalCommandResponse
    errorStateID 3). Such handlers raise with ``response`` set to that payload: the Matter bridge sends it as
    the command response, every other caller sees an error.

    ``cluster_status``: the cluster-specific status code (the cluster's StatusCode enum, e.g.
    AdministratorCommissioning WindowNotOpen = 4) that goes on the wire beside ``status`` (spec §8.10.2
    StatusIB ClusterStatus); build such errors with :meth:`cluster_specific`.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: Status | None = None,
        allowed: Any = None,
        response: dict[str, Any] | None = None,
        cluster_status: int | None = None,
        reason: str | None = None,
        path: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.detail = message
        self.status = status
        self.allowed = allowed
        self.response = response
        self.cluster_status = cluster_status
        self.reason = reason or (status.name if status is not None else code)
        self.path = path

    @classmethod
    def refused(
        cls,
        status: Status,
        message: str,
        *,
        allowed: Any = None,
        reason: str | None = None,
        response: dict[str, Any] | None = None,
        cluster_status: int | None = None,
    ) -> HomeError:
        """A cluster's refusal: the Matter status (and finer reason) it answers with; the code follows."""
        code = _CODE_BY_REASON.get(reason or "") or _CODE_BY_STATUS.get(status, status.name)
        return cls(
            code,
            message,
            status=status,
            allowed=allowed,
            response=response,
            cluster_status=cluster_status,
            reason=reason,
        )

    @classmethod
    def cluster_specific(cls, status_code: IntEnum, message: str, *, allowed: Any = None) -> HomeError:
        """A FAILURE carrying a cluster's own status (``status_code`` is a member of its StatusCode enum)."""
        name = status_code.name[1:] if status_code.name.startswith("k") else status_code.name
        reason = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).upper()
        return cls.refused(Status.FAILURE, message, allowed=allowed, reason=reason, cluster_status=int(status_code))

    def at(self, context: str) -> HomeError:
        """Put the context the refusal passed through in front of its path (``where: message``); the same error."""
        self.path = f"{context}: {self.path}" if self.path else context
        return self

    @property
    def message(self) -> str:
        return f"{self.path}: {self.detail}" if self.path else self.detail

    @property
    def wire_status(self) -> Status:
        """The Interaction Model status this refusal answers with on the Matter wire."""
        return self.status if self.status is not None else _STATUS_BY_CODE.get(self.code, Status.FAILURE)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.status is not None:
            out["matter_status"] = self.status.name
        if self.allowed is not None:
            out["allowed"] = self.allowed
        if self.cluster_status is not None:
            out["cluster_status"] = self.cluster_status
        return out

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"HomeError({self.code}, {self.message!r})"
