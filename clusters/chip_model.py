"""Read-only view of the official Matter data model shipped in home-assistant-chip-clusters.

Ids, labels and types come from ``chip.clusters.Objects``; attribute writability comes from the
literal tables in ``chip/clusters/CHIPClusters.py`` (parsed, not imported: that module needs the
native chip-core library at import time).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import typing
from dataclasses import dataclass
from pathlib import Path

import chip.clusters.Objects as Objects
from chip.clusters.Types import Nullable
from chip.tlv import float32, uint

GLOBAL_ATTRIBUTE_IDS = {
    "GeneratedCommandList": 0xFFF8,
    "AcceptedCommandList": 0xFFF9,
    "EventList": 0xFFFA,
    "AttributeList": 0xFFFB,
    "FeatureMap": 0xFFFC,
    "ClusterRevision": 0xFFFD,
}  # the global attributes: every other copy derives from this one
GLOBAL_LIST_ATTRIBUTES = frozenset(name for name in GLOBAL_ATTRIBUTE_IDS if name.endswith("List"))


@dataclass(frozen=True)
class TypeInfo:
    # is_list … is_bitmap and element are computed once per instance (coercion asks them for every value it
    # checks); a frozen dataclass keeps them in its __dict__, outside the fields that make equality and hash.
    """A chip field type, unwrapped: the base type plus the optional / nullable qualities."""

    base: typing.Any
    optional: bool
    nullable: bool

    @functools.cached_property
    def is_list(self) -> bool:
        return typing.get_origin(self.base) in (list, typing.List)  # noqa: UP006

    @functools.cached_property
    def element(self) -> TypeInfo:
        (arg,) = typing.get_args(self.base)
        return unwrap(arg)

    @functools.cached_property
    def is_struct(self) -> bool:
        return isinstance(self.base, type) and dataclasses.is_dataclass(self.base)

    @functools.cached_property
    def struct_fields(self) -> tuple[FieldModel, ...]:
        """A struct's fields in declaration order (chip builds its descriptor anew on every access)."""
        return tuple(FieldModel(label=f.Label, tag=f.Tag, type=unwrap(f.Type)) for f in self.base.descriptor.Fields)

    @functools.cached_property
    def struct_labels(self) -> frozenset[str]:
        """The names of a struct's dataclass fields (what a struct value may carry)."""
        return frozenset(f.name for f in dataclasses.fields(self.base))

    @functools.cached_property
    def is_enum(self) -> bool:
        return isinstance(self.base, type) and issubclass(self.base, Objects.MatterIntEnum)

    @functools.cached_property
    def is_bitmap(self) -> bool:
        return isinstance(self.base, type) and issubclass(self.base, Objects.IntFlag)

    def describe(self) -> str:
        """A short human name of the type, for docs and error messages."""
        if self.is_list:
            name = f"list[{self.element.describe()}]"
        elif self.is_enum:
            name = f"enum {self.base.__name__}"
        elif self.is_bitmap:
            name = f"bitmap {self.base.__name__}"
        elif self.is_struct:
            name = f"struct {self.base.__name__}"
        else:
            name = {
                uint: "uint",
                int: "int",
                bool: "bool",
                str: "string",
                bytes: "bytes",
                float32: "float",
                float: "float",
            }.get(self.base, getattr(self.base, "__name__", str(self.base)))
        return f"{name} (nullable)" if self.nullable else name


@functools.lru_cache(maxsize=4096)
def unwrap(hint: typing.Any) -> TypeInfo:
    """The TypeInfo of a chip type hint; one shared (immutable) instance per hint, so its cached properties are
    computed once per process, not once per value coerced."""
    optional = nullable = False
    if typing.get_origin(hint) is typing.Union:
        args = []
        for arg in typing.get_args(hint):
            if arg is type(None):
                optional = True
            elif arg is Nullable:
                nullable = True
            else:
                args.append(arg)
        hint = args[0] if len(args) == 1 else typing.Union[tuple(args)]  # noqa: UP007
    return TypeInfo(base=hint, optional=optional, nullable=nullable)


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


@dataclass(frozen=True)
class CommandModel:
    name: str
    command_id: int
    fields: tuple[FieldModel, ...]
    response: str | None  # name of the response command, if any


@dataclass(frozen=True)
class ClusterModel:
    name: str
    cluster_id: int
    chip_class: type[typing.Any]  # a chip.clusters.Objects class (chip ships no type information)
    attributes: dict[str, AttributeModel]
    commands: dict[str, CommandModel]  # client → server commands only

    def attribute(self, name: str) -> AttributeModel | None:
        return self.attributes.get(name)


@functools.cache
def _writable_table() -> dict[int, set[str]]:
    """cluster id → names of attributes the official tables mark writable."""
    source = (Path(Objects.__file__).parent / "CHIPClusters.py").read_text()
    tree = ast.parse(source)
    table: dict[int, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id.endswith("_CLUSTER_INFO"):
                info = ast.literal_eval(node.value)
                table[info["clusterId"]] = {
                    a["attributeName"] for a in info["attributes"].values() if a.get("writable")
                }
    return table


def _fields(chip_class: type[typing.Any]) -> tuple[FieldModel, ...]:
    return tuple(FieldModel(label=f.Label, tag=f.Tag, type=unwrap(f.Type)) for f in chip_class.descriptor.Fields)


@functools.cache
def cluster_model(name: str) -> ClusterModel:
    """The official model of the cluster called ``name`` in chip.clusters.Objects (e.g. "OnOff")."""
    chip_class = getattr(Objects, name, None)
    if chip_class is None or not hasattr(chip_class, "id"):
        raise KeyError(f"chip.clusters.Objects has no cluster named {name!r}")
    writable = _writable_table().get(chip_class.id, set())
    by_label = {f.Tag: f for f in chip_class.descriptor.Fields}
    attributes: dict[str, AttributeModel] = {}
    attr_class: type[typing.Any]  # chip's classes are untyped (chip ships no type information)
    for attr_name, attr_class in vars(chip_class.Attributes).items():
        if not isinstance(attr_class, type) or not hasattr(attr_class, "attribute_id"):
            continue
        field = by_label.get(attr_class.attribute_id)
        hint = field.Type if field is not None else attr_class.attribute_type.Type
        info = unwrap(hint)
        attributes[attr_name] = AttributeModel(attr_name, attr_class.attribute_id, info, attr_name in writable)
    commands: dict[str, CommandModel] = {}
    cmd_class: type[typing.Any]
    for cmd_name, cmd_class in vars(getattr(chip_class, "Commands", object)).items():
        if isinstance(cmd_class, type) and hasattr(cmd_class, "command_id") and cmd_class.is_client:
            commands[cmd_name] = CommandModel(
                cmd_name, cmd_class.command_id, _fields(cmd_class), cmd_class.response_type
            )
    return ClusterModel(name, chip_class.id, chip_class, attributes, commands)


@functools.cache
def response_model(cluster: str, response: str) -> CommandModel:
    """The model of a response command (built once per process; every read of GeneratedCommandList asks)."""
    chip_class = getattr(getattr(Objects, cluster).Commands, response)
    return CommandModel(response, chip_class.command_id, _fields(chip_class), None)


def all_cluster_names() -> list[str]:
    return sorted(
        n
        for n, c in vars(Objects).items()
        if isinstance(c, type) and issubclass(c, Objects.Cluster) and c is not Objects.Cluster and hasattr(c, "id")
    )
