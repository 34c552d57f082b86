"""Check and normalise JSON-style values against the official chip field types.

Values inside the emulator are plain JSON data: ints (enums and bitmaps too), floats, bools,
strings, None, lists, and dicts keyed by the chip field labels (lowerCamel). Callers may use the
spec's PascalCase keys and enum member names; they are normalised here.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from chip.tlv import float32, uint

from clusters.chip_model import TypeInfo
from clusters.status import HomeError, Status


@dataclass(frozen=True)
class Constraint:
    """Spec constraints the chip types do not carry: a range and/or a closed set of values."""

    minimum: float | None = None
    maximum: float | None = None
    allowed: tuple[Any, ...] | None = None

    def describe(self) -> str:
        if self.allowed is not None:
            return "one of " + ", ".join(map(str, self.allowed))
        if self.minimum is not None and self.maximum is not None:
            return f"{self.minimum}..{self.maximum}"
        if self.minimum is not None:
            return f">= {self.minimum}"
        if self.maximum is not None:
            return f"<= {self.maximum}"
        return "any"

    def check(self, value: Any, what: str) -> None:
        if value is None:
            return
        if self.allowed is not None and value not in self.allowed:
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR, f"{what}={value!r} is not allowed", allowed=list(self.allowed)
            )
        bad_low = self.minimum is not None and value < self.minimum
        bad_high = self.maximum is not None and value > self.maximum
        if bad_low or bad_high:
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"{what}={value!r} is out of range {self.describe()}",
                allowed={"min": self.minimum, "max": self.maximum},
            )


def enum_members(enum_type: type[Any]) -> dict[str, int]:
    """Valid members of a chip enum, without the kUnknownEnumValue sentinel, names without 'k'."""
    return {
        (name[1:] if name.startswith("k") and name[1:2].isupper() else name): int(member)
        for name, member in enum_type.__members__.items()
        if name != "kUnknownEnumValue"
    }


@functools.lru_cache(maxsize=1024)
def _enum_table(enum_type: type[Any]) -> tuple[MappingProxyType[str, int], dict[str, int], frozenset[int]]:
    """(members, lower-cased name → value, values) of a chip enum, built once per enum (coercion asks per value);
    read-only here — callers needing a dict they own use ``enum_members``."""
    members = enum_members(enum_type)
    return MappingProxyType(members), {k.lower(): v for k, v in members.items()}, frozenset(members.values())


def _integral(value: object, what: str, status: Status) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise HomeError.refused(status, f"{what} must be an integer, got {type(value).__name__} {value!r}")
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise HomeError.refused(status, f"{what} must be an integer, got {value!r}")
        value = int(value)
    return value


def coerce(value: object, info: TypeInfo, what: str, *, status: Status = Status.INVALID_DATA_TYPE) -> Any:
    """Return ``value`` normalised to ``info``'s type, or raise ``HomeError.refused(status)``.

    ``status`` is the Matter status for a wrong *type* (INVALID_DATA_TYPE for writes, INVALID_COMMAND
    for command fields); out-of-range enum values are CONSTRAINT_ERROR as the spec says.
    """
    if value is None:
        if info.nullable:
            return None
        raise HomeError.refused(status, f"{what} may not be null (type {info.describe()})")
    base = info.base
    if info.is_list:
        if not isinstance(value, list | tuple):
            raise HomeError.refused(status, f"{what} must be a list, got {type(value).__name__}")
        element = info.element
        return [coerce(v, element, f"{what}[{i}]", status=status) for i, v in enumerate(value)]
    if info.is_enum:
        members, lookup, numbers = _enum_table(base)
        if isinstance(value, str):
            key = value[1:] if value.startswith("k") and value[1:2].isupper() else value
            if key.lower() not in lookup:
                raise HomeError.refused(
                    Status.CONSTRAINT_ERROR, f"{what}={value!r} is not a {base.__name__} value", allowed=dict(members)
                )
            return lookup[key.lower()]
        number = _integral(value, what, status)
        if number not in numbers:
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR, f"{what}={number} is not a {base.__name__} value", allowed=dict(members)
            )
        return number
    if info.is_bitmap:
        number = _integral(value, what, status)
        mask = 0
        for member in base.__members__.values():
            mask |= int(member)
        if number < 0 or number & ~mask:
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"{what}={number:#x} sets bits outside {base.__name__}",
                allowed={name: int(m) for name, m in base.__members__.items()},
            )
        return number
    if info.is_struct:
        if not isinstance(value, dict):
            raise HomeError.refused(status, f"{what} must be an object ({info.name}), got {type(value).__name__}")
        given = {_lower_first(k): v for k, v in value.items()}
        out: dict[str, Any] = {}
        labels = info.struct_labels
        unknown = sorted(set(given) - labels)
        if unknown:
            raise HomeError.refused(status, f"{what} has unknown field(s) {unknown}", allowed=sorted(labels))
        for field in info.struct_fields:
            finfo = field.type
            if field.label in given:
                out[field.label] = coerce(given[field.label], finfo, f"{what}.{field.label}", status=status)
            elif not finfo.optional and not finfo.nullable:
                raise HomeError.refused(status, f"{what} is missing field {field.label!r}")
        return out
    if base is bool:
        if not isinstance(value, bool):
            raise HomeError.refused(status, f"{what} must be true or false, got {value!r}")
        return value
    if base is uint:
        number = _integral(value, what, status)
        if number < 0:
            raise HomeError.refused(Status.CONSTRAINT_ERROR, f"{what}={number} must not be negative")
        return number
    if base is int:
        return _integral(value, what, status)
    if base in (float32, float):
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise HomeError.refused(status, f"{what} must be a number, got {value!r}")
        return float(value)
    if base is str:
        if not isinstance(value, str):
            raise HomeError.refused(status, f"{what} must be a string, got {type(value).__name__}")
        return value
    if base is bytes:
        if isinstance(value, str):
            try:
                return bytes.fromhex(value).hex()
            except ValueError:
                raise HomeError.refused(status, f"{what} must be a hex string") from None
        raise HomeError.refused(status, f"{what} must be a hex string")
    return value


def _lower_first(key: str) -> str:
    return key[:1].lower() + key[1:] if key else key
