"""SimuHome's tool response envelope ``{status:{code,message}, data, error:{type,detail}|null}``.

Success is ``200 / "OK"``. A refused call carries the real cause: the HTTP status SimuHome maps the
error code to (facts §1.4), the code as ``status.message`` and ``error.type``, and a detail that
names the offending value and what would have been accepted. ``compat_error`` reproduces SimuHome's
lossy transport instead (every simulator failure reaches the agent as ``400 HTTP_ERROR`` with only
the status number and URL), for runs whose observations must match SimuHome's bit for bit.
"""

from __future__ import annotations

import json
from typing import Any

from emulator.errors import HomeError

SIMUHOME_API_BASE = "http://127.0.0.1:8000/api"

# Facts §1.4, plus the codes only we have (WORKFLOW_NOT_FOUND falls under the *_NOT_FOUND rule).
_STATUS_BY_CODE: dict[str, int] = {
    **dict.fromkeys(
        (
            "COMMAND_EXECUTION_ERROR",
            "COMMAND_INVALID_ARGS",
            "ATTRIBUTE_WRITE_ERROR",
            "ATTRIBUTE_INVALID_VALUE",
            "INVALID_ARGUMENT",
            "CONSTRAINT_ERROR",
            "UNSUPPORTED_MODE",
            "INVALID_IN_MODE",
            "UNSUPPORTED_COMMAND",
            "READ_ONLY",
            "VALIDATION_ERROR",
            "DEPENDENCY_VIOLATION",
            "HTTP_ERROR",
            "UNKNOWN_DEVICE_TYPE",
            "UNKNOWN_TOOL",
            "INVALID_PARAMETERS",
            "MISSING_PARAMETERS",
        ),
        400,
    ),
    **dict.fromkeys(("INVALID_STATE", "DEVICE_ALREADY_EXISTS", "BUSY"), 409),
    "TIMEOUT_ERROR": 408,
    "CONNECTION_ERROR": 503,
    "INTERNAL_ERROR": 500,
}


def http_status(code: str) -> int:
    """The HTTP status of an error code: 404 for every *_NOT_FOUND, the facts' table, else 400.

    Unlike SimuHome (unmapped → 500) an unknown fabric code is still a refusal of the request, not a
    server fault; 500 is kept for INTERNAL_ERROR, i.e. an exception nobody expected.
    """
    if code.endswith("NOT_FOUND"):
        return 404
    return _STATUS_BY_CODE.get(code, 400)


def ok(data: object) -> dict[str, Any]:
    return {"status": {"code": 200, "message": "OK"}, "data": data, "error": None}


def fail(code: str, detail: str, *, message: str | None = None, status: int | None = None) -> dict[str, Any]:
    """An error envelope; ``message`` defaults to the code (SimuHome's tool-layer validation uses
    ``VALIDATION_ERROR`` as message and MISSING_PARAMETERS / INVALID_PARAMETERS as type)."""
    return {
        "status": {"code": status if status is not None else http_status(code), "message": message or code},
        "data": None,
        "error": {"type": code, "detail": detail},
    }


def _plain(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=False, default=str)


def from_fabric_error(error: HomeError) -> dict[str, Any]:
    """The fabric's code and message, plus the allowed values, as an envelope."""
    detail = error.message
    if error.allowed is not None:
        detail += f". Allowed: {_plain(error.allowed)}"
    if error.response is not None:
        detail += f". Device response: {_plain(error.response)}"
    return fail(error.code, detail)


def compat_error(status: int, url: str) -> dict[str, Any]:
    """SimuHome's transport envelope for a failed simulator call (facts §1.3): status and URL only."""
    from http import HTTPStatus  # only the compat transport needs the reason phrases (an episode run may not)

    phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "Error"
    kind = "Client Error" if status < 500 else "Server Error"
    return fail("HTTP_ERROR", f"{status}: {status} {kind}: {phrase} for url: {url}", status=400)


def is_ok(envelope: dict[str, Any]) -> bool:
    return bool(envelope.get("status", {}).get("code") == 200)
