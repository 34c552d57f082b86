"""The JSON value shapes of SimuHome's published homes, per (device type, attribute path).

``shapes.json`` is generated from the inventory ``../shared/reference/simuhome-attribute-shapes.md`` by
``scripts/simuhome_shapes.py``. A shape is written as the inventory writes it: ``int``, ``float``, ``str``,
``bool``, ``null``, ``list[]`` (empty), ``list[T]``, ``{Key: T, …}`` (keys in sorted order).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

SHAPES_FILE = Path(__file__).with_name("shapes.json")


def shape_of(value: Any) -> str:
    """The inventory's notation for the shape of a JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list | tuple):
        items = sorted({shape_of(item) for item in value})
        return f"list[{' | '.join(items)}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {shape_of(value[key])}" for key in sorted(value)) + "}"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


# --- parsed shapes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """A parsed shape: ``kind`` is a scalar name, ``list`` (``item`` None when empty) or ``struct``."""

    kind: str
    item: Shape | None = None
    fields: tuple[tuple[str, Shape], ...] = ()

    def field(self, name: str) -> Shape | None:
        return dict(self.fields).get(name)

    def __str__(self) -> str:
        if self.kind == "list":
            return f"list[{self.item or ''}]"
        if self.kind == "struct":
            return "{" + ", ".join(f"{k}: {v}" for k, v in self.fields) + "}"
        return self.kind


SCALARS = frozenset({"null", "bool", "int", "float", "str"})


def parse_shape(text: str) -> Shape:
    shape, rest = _parse(text.strip())
    if rest.strip():
        raise ValueError(f"trailing text in shape {text!r}: {rest!r}")
    return shape


def _parse(text: str) -> tuple[Shape, str]:
    if text.startswith("list["):
        rest = text[5:]
        if rest.startswith("]"):
            return Shape("list"), rest[1:]
        item, rest = _parse(rest)
        if not rest.startswith("]"):
            raise ValueError(f"expected ']' in shape at {rest!r}")
        return Shape("list", item), rest[1:]
    if text.startswith("{"):
        rest = text[1:]
        fields: list[tuple[str, Shape]] = []
        while not rest.startswith("}"):
            name, sep, rest = rest.partition(": ")
            if not sep:
                raise ValueError(f"expected 'key: shape' in shape at {rest!r}")
            value, rest = _parse(rest)
            fields.append((name.strip(), value))
            rest = rest[2:] if rest.startswith(", ") else rest
        return Shape("struct", fields=tuple(fields)), rest[1:]
    for scalar in SCALARS:
        if text.startswith(scalar):
            return Shape(scalar), text[len(scalar) :]
    raise ValueError(f"unknown shape at {text!r}")


# --- the table ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PathShapes:
    """What the inventory saw at one (device type, path): shapes with counts, devices, value range."""

    device_type: str
    path: str
    shapes: dict[str, int]
    n: int
    minimum: int | float | None = None
    maximum: int | float | None = None

    @property
    def main(self) -> str:
        """The most common shape (SimuHome's own shape for values our export writes)."""
        return max(self.shapes, key=lambda s: self.shapes[s])

    def parsed(self) -> list[Shape]:
        return [parse_shape(s) for s in self.shapes]


@cache
def _load() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SHAPES_FILE.read_text(encoding="utf-8"))
    return loaded


@cache
def shape_table() -> dict[str, dict[str, PathShapes]]:
    """device type → path → PathShapes, for every device type of the inventory."""
    out: dict[str, dict[str, PathShapes]] = {}
    for device_type, entry in _load()["device_types"].items():
        out[device_type] = {
            path: PathShapes(device_type, path, dict(item["shapes"]), item["n"], item.get("min"), item.get("max"))
            for path, item in entry["attributes"].items()
        }
    return out


def room_state_shapes() -> dict[str, PathShapes]:
    return {
        name: PathShapes("(room state)", name, dict(item["shapes"]), item["n"])
        for name, item in _load()["room_state"].items()
    }


def path_shapes(device_type: str, path: str) -> PathShapes | None:
    return shape_table().get(device_type, {}).get(path)


def inventory_device_types() -> list[str]:
    return list(shape_table())


def shape_disagreements(home: dict[str, Any]) -> list[str]:
    """Where a SimuHome home (an ``initial_home_config``) uses a shape the inventory never saw, on the paths
    the inventory lists (room state keys and (device type, attribute path)); empty when all agree."""
    problems = []
    room_shapes = room_state_shapes()
    for room_id, room in (home.get("rooms") or {}).items():
        for name, value in (room.get("state") or {}).items():
            if name in room_shapes and shape_of(value) not in room_shapes[name].shapes:
                problems.append(
                    f"rooms.{room_id}.state.{name}: {shape_of(value)} (inventory: "
                    f"{', '.join(room_shapes[name].shapes)})"
                )
        for index, device in enumerate(room.get("devices") or []):
            for path, value in (device.get("attributes") or {}).items():
                entry = path_shapes(device.get("device_type", ""), path)
                if entry is not None and shape_of(value) not in entry.shapes:
                    problems.append(
                        f"rooms.{room_id}.devices[{index}] ({device.get('device_type')}) {path}: "
                        f"{shape_of(value)} (inventory: {' ; '.join(entry.shapes)})"
                    )
    return problems


def shared_paths(home: dict[str, Any]) -> int:
    """How many (device, path) values of ``home`` the inventory has a shape for."""
    return sum(
        1
        for room in (home.get("rooms") or {}).values()
        for device in room.get("devices") or []
        for path in device.get("attributes") or {}
        if path_shapes(device.get("device_type", ""), path)
    )
