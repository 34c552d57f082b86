"""Turn what a model sent (a dict or a JSON string) into a tool's argument model, or a refusal envelope.

SimuHome's rules (facts §1.2): missing keys → ``VALIDATION_ERROR`` / ``MISSING_PARAMETERS``; extra keys
→ ``INVALID_PARAMETERS`` listing the allowed keys. We add: wrong types → ``INVALID_PARAMETERS`` naming
the field and the expected type; unparsable JSON → ``INVALID_PARAMETERS`` with the parse error.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from agent_tools.envelope import fail
from agent_tools.limits import LimitExceeded, cap_list, cap_text, check_text, check_value


class ArgumentError(Exception):
    def __init__(self, envelope: dict[str, Any]) -> None:
        super().__init__(envelope["error"]["detail"])
        self.envelope = envelope


def invalid(detail: str) -> ArgumentError:
    return ArgumentError(fail("INVALID_PARAMETERS", cap_text(detail), message="VALIDATION_ERROR", status=400))


def decode_arguments(raw: object) -> dict[str, Any]:
    """A dict as is; a JSON string parsed; None or an empty string as no arguments.

    Size and nesting limits (``agent_tools.limits``) are checked first, on the text before it is parsed and
    on a dict before anything walks it recursively."""
    if raw is None:
        return {}
    try:
        if isinstance(raw, str | bytes):
            text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
            check_text(text)
        else:
            text = None
            check_value(raw)
    except LimitExceeded as error:
        raise invalid(f"arguments refused: {error}") from None
    if text is not None:
        if not text.strip():
            return {}
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as error:
            raise invalid(
                f"arguments are not valid JSON: {error.msg} at line {error.lineno} column {error.colno} "
                f'(expected a JSON object such as {{"room_id": "kitchen"}})'
            ) from None
    if not isinstance(raw, dict):
        raise invalid(f"arguments must be a JSON object of named arguments, got {type(raw).__name__}")
    return raw


def _field_name(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _describe_input(value: object) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


_Model = TypeVar("_Model", bound=BaseModel)


def parse_model(model: type[_Model], arguments: dict[str, Any], *, where: str = "") -> _Model:
    """Validate ``arguments`` against ``model``; raise ArgumentError with SimuHome's error kinds."""
    try:
        return model.model_validate(arguments)
    except ValidationError as error:
        raise argument_error(model, error, where=where) from None


def argument_error(model: type[BaseModel], error: ValidationError, *, where: str = "") -> ArgumentError:
    prefix = f"{where}: " if where else ""
    missing: list[str] = []
    extra: list[str] = []
    wrong: list[str] = []
    for item in error.errors():
        name = _field_name(tuple(item["loc"]))
        if item["type"] == "missing":
            missing.append(name)
        elif item["type"] == "extra_forbidden":
            extra.append(name)
        else:
            message = item["msg"].removeprefix("Value error, ")
            wrong.append(f"{name}: {message} (got {_describe_input(item.get('input'))})")
    allowed = list(model.model_fields)
    required = [n for n, f in model.model_fields.items() if f.is_required()]
    if missing:
        return ArgumentError(
            fail(
                "MISSING_PARAMETERS",
                cap_text(
                    f"{prefix}Missing required arguments: {', '.join(cap_list(missing))}. "
                    f"Required: {', '.join(required) or '(none)'}"
                ),
                message="VALIDATION_ERROR",
                status=400,
            )
        )
    if extra:
        return invalid(
            f"{prefix}Unexpected arguments: {', '.join(cap_list(extra))}. Allowed arguments: "
            f"{', '.join(allowed) or '(none)'}"
        )
    return invalid(prefix + "; ".join(cap_list(wrong)))
