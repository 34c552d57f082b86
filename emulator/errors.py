"""The fabric's one error type: a machine-readable code, the Matter status, and a sentence."""

from __future__ import annotations

from typing import Any

from clusters.status import ClusterError, Status

# Cluster-level statuses as the fabric's (SimuHome-compatible) error codes.
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
# Finer cluster/device codes that SimuHome has names for.
_CODE_BY_CLUSTER_CODE = {"POWER_OFF": "DEPENDENCY_VIOLATION"}


class HomeError(Exception):
    """A refused fabric call. State is unchanged whenever this is raised."""

    def __init__(self, code: str, message: str, *, status: Status | None = None, allowed: Any = None,
                 response: dict[str, Any] | None = None, cluster_status: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.allowed = allowed
        self.response = response
        self.cluster_status = cluster_status  # the cluster-specific status, where the cluster gave one

    @classmethod
    def from_cluster(cls, error: ClusterError, where: str) -> HomeError:
        code = _CODE_BY_CLUSTER_CODE.get(error.code) or _CODE_BY_STATUS.get(error.status, error.status.name)
        return cls(code, f"{where}: {error.message}", status=error.status, allowed=error.allowed,
                   response=error.response, cluster_status=error.cluster_status)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.status is not None:
            out["matter_status"] = self.status.name
        if self.allowed is not None:
            out["allowed"] = self.allowed
        if self.cluster_status is not None:
            out["cluster_status"] = self.cluster_status
        return out

    def __repr__(self) -> str:
        return f"HomeError({self.code}, {self.message!r})"
