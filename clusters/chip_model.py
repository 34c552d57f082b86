"""Read-only view of the official Matter data model shipped in home-assistant-chip-clusters.

The facts (ids, labels, types, writability, enums, bitmaps, structs, events) come from ``chip.clusters.Objects``
and ``chip/clusters/CHIPClusters.py``, through ``clusters/official_model.jsonl``, which
``scripts/official_model.py`` generates from the installed chip (``tests/clusters/test_official_model.py``
regenerates it and fails on any difference). Reading that file instead of importing ``chip.clusters.Objects``
spares every process that runs homes about 55 MiB of memory and a second of CPU. Enums and bitmaps are
``IntEnum`` / ``IntFlag`` classes built from the file on first use (one per process, shared with
``clusters.official``), with chip's members, names and order.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from enum import IntEnum, IntFlag
from pathlib import Path
from typing import Any

from chip.tlv import float32, uint  # chip's tiny TLV module (no cluster objects): the primitive type markers

MODEL_FILE = Path(__file__).with_name("official_model.jsonl")
GLOBALS = "Globals"  # chip's owner of the enums, bitmaps and structs shared by clusters

GLOBAL_ATTRIBUTE_IDS = {
    "GeneratedCommandList": 0xFFF8,
    "AcceptedCommandList": 0xFFF9,
    "EventList": 0xFFFA,
    "AttributeList": 0xFFFB,
    "FeatureMap": 0xFFFC,
    "ClusterRevision": 0xFFFD,
}  # the global attributes: every other copy derives from this one
GLOBAL_LIST_ATTRIBUTES = frozenset(name for name in GLOBAL_ATTRIBUTE_IDS if name.endswith("List"))

_PRIMITIVES: dict[str, type[Any]] = {
    "uint": uint,
    "int": int,
    "float32": float32,
    "float": float,
    "bool": bool,
    "str": str,
    "bytes": bytes,
}
_PRIMITIVE_NAMES = {
    uint: "uint",
    int: "int",
    bool: "bool",
    str: "string",
    bytes: "bytes",
    float32: "float",
    float: "float",
}


class OfficialEnum(IntEnum):
    """An official enum, as chip's MatterIntEnum: a value it does not list reads as ``kUnknownEnumValue``."""

    @classmethod
    def _missing_(cls, value: object) -> Any:
        return cls.__members__.get("kUnknownEnumValue")


@dataclass(frozen=True)
class StructShape:
    """An official struct: the cluster declaring it (or Globals) and its name; fields read on first use."""

    owner: str
    name: str

    @functools.cached_property
    def fields(self) -> tuple[FieldModel, ...]:
        return _fields(_declarations(self.owner)["structs"][self.name])


@dataclass(frozen=True)
class ListShape:
    """A list of ``element``."""

    element: TypeInfo


@dataclass(frozen=True)
class TypeInfo:
    # is_list … is_bitmap are computed once per instance (coercion asks them for every value it checks); a
    # frozen dataclass keeps them in its __dict__, outside the fields that make equality and hash.
    """A field type, unwrapped: the base plus the optional / nullable qualities. ``base`` is a primitive (``uint``,
    ``int``, ``float32``, ``float``, ``bool``, ``str``, ``bytes``), an official enum or bitmap class, a
    :class:`StructShape` or a :class:`ListShape`."""

    base: Any
    optional: bool
    nullable: bool

    @functools.cached_property
    def is_list(self) -> bool:
        return isinstance(self.base, ListShape)

    @property
    def element(self) -> TypeInfo:
        element: TypeInfo = self.base.element
        return element

    @functools.cached_property
    def is_struct(self) -> bool:
        return isinstance(self.base, StructShape)

    @property
    def struct_fields(self) -> tuple[FieldModel, ...]:
        """A struct's fields in declaration order."""
        fields: tuple[FieldModel, ...] = self.base.fields
        return fields

    @functools.cached_property
    def struct_labels(self) -> frozenset[str]:
        """The names of a struct's fields (what a struct value may carry)."""
        return frozenset(f.label for f in self.struct_fields)

    @functools.cached_property
    def is_enum(self) -> bool:
        return isinstance(self.base, type) and issubclass(self.base, IntEnum)

    @functools.cached_property
    def is_bitmap(self) -> bool:
        return isinstance(self.base, type) and issubclass(self.base, IntFlag)

    @property
    def name(self) -> str:
        """The name of an enum, bitmap or struct type (e.g. ``StartUpOnOffEnum``)."""
        name: str = self.base.name if self.is_struct else self.base.__name__
        return name

    def describe(self) -> str:
        """A short human name of the type, for docs and error messages."""
        if self.is_list:
            name = f"list[{self.element.describe()}]"
        elif self.is_enum:
            name = f"enum {self.name}"
        elif self.is_bitmap:
            name = f"bitmap {self.name}"
        elif self.is_struct:
            name = f"struct {self.name}"
        else:
            name = _PRIMITIVE_NAMES[self.base]
        return f"{name} (nullable)" if self.nullable else name


@functools.lru_cache(maxsize=4096)
def type_info(spelling: str) -> TypeInfo:
    """The TypeInfo of a type as the model file spells it (see scripts/official_model.py); one shared (immutable)
    instance per spelling, so its cached properties are computed once per process, not once per value."""
    optional = spelling.startswith("?")
    rest = spelling[1:] if optional else spelling
    nullable = rest.startswith("~")
    rest = rest[1:] if nullable else rest
    base: Any
    if rest.startswith("["):
        base = ListShape(type_info(rest[1:]))
    elif ":" in rest:
        kind, _, qualified = rest.partition(":")
        owner, _, name = qualified.partition(".")
        base = StructShape(owner, name) if kind == "struct" else _named_class(kind, owner, name)
    else:
        base = _PRIMITIVES[rest]
    return TypeInfo(base=base, optional=optional, nullable=nullable)


@dataclass(frozen=True)
class FieldModel:
    label: str  # lowerCamel, as in chip.clusters.Objects
    tag: int
    type: TypeInfo


@dataclass(frozen=True)
class AttributeModel:
    name: str  # PascalCase, as the attribute class in chip.clusters.Objects
    attribute_id: int
    type: TypeInfo
    writable: bool
    timed_write: bool = False  # the specification requires a timed write


@dataclass(frozen=True)
class CommandModel:
    name: str
    command_id: int
    fields: tuple[FieldModel, ...]
    response: str | None  # name of the response command, if any
    timed_invoke: bool = False  # the specification requires a timed invoke


@dataclass(frozen=True)
class EventModel:
    name: str
    event_id: int
    fields: tuple[FieldModel, ...]


@dataclass(frozen=True)
class ClusterModel:
    name: str
    cluster_id: int
    attributes: dict[str, AttributeModel]
    commands: dict[str, CommandModel]  # client → server commands only
    events: dict[str, EventModel]

    def attribute(self, name: str) -> AttributeModel | None:
        return self.attributes.get(name)


@functools.cache
def _model_lines() -> dict[str, tuple[int, int]]:
    """owner (cluster name or Globals) → where its line of the model file lies (byte offset, length; each line is
    ``["Name",{...}]``): a process reads and parses only the clusters it uses (all of them parsed hold ≈ 1.5 MiB,
    the file's text ≈ 0.2 MiB)."""
    places: dict[str, tuple[int, int]] = {}
    offset = 0
    with MODEL_FILE.open("rb") as lines:
        for line in lines:
            places[line[2 : line.index(b'"', 2)].decode("ascii")] = (offset, len(line))
            offset += len(line)
    return places


@functools.lru_cache(maxsize=4)
def _declarations(owner: str) -> dict[str, Any]:
    """The declarations of ``owner`` as the model file holds them, parsed on first use.

    Only the last few parses are kept: what is built from them (cluster models, enum classes, struct fields) is
    cached on its own, and keeping every parse held ≈ 0.7 MiB for a bench run; a cluster's uses come together
    (its module builds its enums and model in a row), so re-parsing is rare."""
    place = _model_lines().get(owner)
    if place is None:
        raise KeyError(f"chip.clusters.Objects has no cluster named {owner!r}")
    offset, length = place
    with MODEL_FILE.open("rb") as model:
        model.seek(offset)
        _name, body = json.loads(model.read(length))
    declarations: dict[str, Any] = body
    return declarations


def is_cluster(name: str) -> bool:
    """Whether the official model has a cluster called ``name`` (Globals is not one)."""
    return name != GLOBALS and name in _model_lines()


@functools.cache
def _named_class(kind: str, owner: str, name: str) -> type[Any]:
    """The official enum (kind "enum") or bitmap ("bitmap") ``owner.name`` as a class, built once per process."""
    members = _declarations(owner).get(f"{kind}s", {}).get(name)
    if members is None:
        raise AttributeError(f"{owner} has no {kind} named {name!r}")
    base: type[Any] = OfficialEnum if kind == "enum" else IntFlag
    made: type[Any] = base(name, [(member, value) for member, value in members], module=__name__, qualname=name)
    return made


def enum_class(owner: str, name: str) -> type[IntEnum]:
    """The official enum ``owner.name`` (e.g. ``enum_class("OnOff", "StartUpOnOffEnum")``)."""
    made: type[IntEnum] = _named_class("enum", owner, name)
    return made


def bitmap_class(owner: str, name: str) -> type[IntFlag]:
    made: type[IntFlag] = _named_class("bitmap", owner, name)
    return made


def declared_names(owner: str, kind: str) -> list[str]:
    """The names of the enums / bitmaps / structs (``kind``) that ``owner`` declares, in chip's order."""
    return list(_declarations(owner).get(kind, {}))


def _fields(rows: list[list[Any]]) -> tuple[FieldModel, ...]:
    return tuple(FieldModel(label=label, tag=tag, type=type_info(spelling)) for label, tag, spelling in rows)


@functools.cache
def cluster_model(name: str) -> ClusterModel:
    """The official model of the cluster called ``name`` in chip.clusters.Objects (e.g. "OnOff")."""
    if not is_cluster(name):
        raise KeyError(f"chip.clusters.Objects has no cluster named {name!r}")
    body = _declarations(name)
    attributes = {
        attr: AttributeModel(attr, attribute_id, type_info(spelling), "w" in flags, "t" in flags)
        for attr, attribute_id, spelling, flags in body["attributes"]
    }
    commands = {
        cmd: CommandModel(cmd, command_id, _fields(fields), response, "t" in flags)
        for cmd, command_id, flags, response, fields in body["commands"]
        if "c" in flags
    }
    events = {event: EventModel(event, event_id, _fields(fields)) for event, event_id, fields in body.get("events", ())}
    return ClusterModel(name, body["id"], attributes, commands, events)


@functools.cache
def response_model(cluster: str, response: str) -> CommandModel:
    """The model of a server → client command (built once per process; every read of GeneratedCommandList asks)."""
    for cmd, command_id, flags, _response, fields in _declarations(cluster)["commands"]:
        if cmd == response:
            return CommandModel(response, command_id, _fields(fields), None, "t" in flags)
    raise KeyError(f"{cluster} has no response command {response!r}")


def cluster_ids() -> dict[str, int]:
    """Every cluster's id by name, in chip's order (parses the whole file: for the names ↔ ids of a controller)."""
    return {name: _declarations(name)["id"] for name in _model_lines() if name != GLOBALS}


def all_cluster_names() -> list[str]:
    return sorted(name for name in _model_lines() if name != GLOBALS)
