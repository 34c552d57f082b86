"""Errors at the HTTP edge: HomeError → 404/400/409 with the fabric's code, message and allowed values;
request validation → 422 naming every field ("body.speed", "path.endpoint")."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from emulator.errors import HomeError

# Refusals that depend on the current state rather than on the request itself.
_CONFLICT_CODES = frozenset(
    {
        "INVALID_STATE",
        "DEPENDENCY_VIOLATION",
        "DEVICE_ALREADY_EXISTS",
        "COMMAND_EXECUTION_ERROR",
        "NO_PACER",
        "RUN_EXISTS",
    }
)


def fabric_status(code: str) -> int:
    """404 for anything not found, 409 for state conflicts, 400 for every other refusal."""
    if code.endswith("NOT_FOUND"):
        return 404
    if code in _CONFLICT_CODES:
        return 409
    return 400


class ApiError(Exception):
    """A refusal of this layer (not of the fabric): same body shape as a HomeError."""

    def __init__(self, code: str, message: str, *, allowed: Any = None, status: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.allowed = allowed
        self.status = status or fabric_status(code)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.allowed is not None:
            out["allowed"] = self.allowed
        return out


def _field(loc: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(p) for p in loc]
    text = ""
    for part in parts:
        text += f"[{part}]" if part.isdigit() and text else (f".{part}" if text else part)
    return text


def validation_body(errors: list[dict[str, Any]]) -> dict[str, Any]:
    problems = []
    for item in errors:
        message = item.get("msg", "invalid")
        if (
            item.get("type") not in ("missing", "extra_forbidden")
            and "input" in item
            and not isinstance(item["input"], dict | list)
        ):
            shown = repr(item["input"])
            message += f" (got {shown[:80] + '…' if len(shown) > 80 else shown})"
        problems.append({"field": _field(item.get("loc", ())), "message": message, "type": item.get("type", "")})
    summary = "; ".join(f"{p['field']}: {p['message']}" for p in problems[:5])
    return {"code": "VALIDATION_ERROR", "message": summary or "invalid request", "errors": problems}


def internal_error_body(error: Exception) -> dict[str, Any]:
    return {
        "code": "INTERNAL_ERROR",
        "message": f"the server failed ({type(error).__name__}); the server log has the details",
    }


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(HomeError)
    async def _fabric(_: Request, error: HomeError) -> JSONResponse:
        return JSONResponse(jsonable_encoder(error.to_dict()), status_code=fabric_status(error.code))

    @app.exception_handler(ApiError)
    async def _api(_: Request, error: ApiError) -> JSONResponse:
        return JSONResponse(jsonable_encoder(error.to_dict()), status_code=error.status)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse(jsonable_encoder(validation_body(list(error.errors()))), status_code=422)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, error: Exception) -> JSONResponse:
        # A bug of ours: still the API's error shape, never a bare "Internal Server Error" or a traceback.
        return JSONResponse(internal_error_body(error), status_code=500)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, error: StarletteHTTPException) -> JSONResponse:
        code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}.get(error.status_code, "HTTP_ERROR")
        return JSONResponse(
            {"code": code, "message": str(error.detail)},
            status_code=error.status_code,
            headers=getattr(error, "headers", None),
        )
