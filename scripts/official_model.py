"""Write ``clusters/official_model.jsonl``: the official Matter data model of the installed
home-assistant-chip-clusters, in the compact form the running emulator reads (``clusters.chip_model``).

Importing ``chip.clusters.Objects`` costs about 55 MiB of memory and a second of CPU; a process that only runs
homes and episodes reads this file instead. chip stays the single source of the facts: the file is generated
from ``chip.clusters.Objects`` (ids, names, types, enums, bitmaps, structs, events) and the literal tables of
``chip/clusters/CHIPClusters.py`` (attribute writability), and ``tests/clusters/test_official_model.py``
regenerates it from the installed chip and fails on any difference. Rerun after upgrading chip::

    python scripts/official_model.py [--out clusters/official_model.jsonl]

One line per cluster (``Globals`` — chip's shared enums, bitmaps and structs — included), each a JSON array
``[name, body]``, so a reader parses only the clusters it uses. Types are short strings: ``uint``, ``int``,
``float32``, ``float``, ``bool``, ``str``, ``bytes``; ``enum:Owner.Name``, ``bitmap:Owner.Name``,
``struct:Owner.Name`` (Owner: the cluster declaring it, or ``Globals``); ``[`` + type for a list; a leading
``?`` marks an optional field, then ``~`` a nullable one.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import typing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "clusters" / "official_model.jsonl"
_PRIMITIVES = {"uint": "uint", "int": "int", "float32": "float32", "float": "float", "bool": "bool"}
_PRIMITIVES.update({"str": "str", "bytes": "bytes"})


def _writable_table(objects: Any) -> dict[int, set[str]]:
    """cluster id → names of attributes the official tables mark writable (CHIPClusters.py is parsed, not
    imported: that module needs the native chip-core library at import time)."""
    tree = ast.parse((Path(objects.__file__).parent / "CHIPClusters.py").read_text())
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


class _Types:
    """chip type hints → the model's type strings."""

    def __init__(self, objects: Any) -> None:
        from chip.clusters.Types import Nullable

        self.objects = objects
        self.nullable = Nullable

    def spell(self, hint: Any) -> str:
        prefix = ""
        if typing.get_origin(hint) is typing.Union:
            args = []
            optional = nullable = False
            for arg in typing.get_args(hint):
                if arg is type(None):
                    optional = True
                elif arg is self.nullable:
                    nullable = True
                else:
                    args.append(arg)
            if len(args) != 1:
                raise TypeError(f"unsupported chip type {hint!r}")
            prefix = ("?" if optional else "") + ("~" if nullable else "")
            hint = args[0]
        return prefix + self._base(hint)

    def _base(self, hint: Any) -> str:
        if typing.get_origin(hint) in (list, typing.List):  # noqa: UP006
            (arg,) = typing.get_args(hint)
            return "[" + self.spell(arg)
        if isinstance(hint, type):
            if issubclass(hint, self.objects.MatterIntEnum):
                return f"enum:{hint.__qualname__.replace('.Enums.', '.')}"
            if issubclass(hint, self.objects.IntFlag):
                return f"bitmap:{hint.__qualname__.replace('.Bitmaps.', '.')}"
            if dataclasses.is_dataclass(hint):
                return f"struct:{hint.__qualname__.replace('.Structs.', '.')}"
            if hint.__name__ in _PRIMITIVES and hint.__module__ in ("builtins", "chip.tlv"):
                return _PRIMITIVES[hint.__name__]
        raise TypeError(f"unsupported chip type {hint!r}")

    def fields(self, chip_class: Any) -> list[list[Any]]:
        return [[f.Label, f.Tag, self.spell(f.Type)] for f in chip_class.descriptor.Fields]


def _members(enum_class: Any) -> list[list[Any]]:
    return [[name, int(member)] for name, member in enum_class.__members__.items()]


def _classes(namespace: Any, kind: type[Any] | None = None) -> dict[str, Any]:
    return {
        name: value
        for name, value in vars(namespace or object).items()
        if isinstance(value, type) and not name.startswith("_") and (kind is None or issubclass(value, kind))
    }


def _shared(objects: Any, types: _Types, chip_class: Any) -> dict[str, Any]:
    """The enums, bitmaps and structs a cluster (or Globals) declares."""
    body: dict[str, Any] = {}
    enums = _classes(getattr(chip_class, "Enums", None))
    if enums:
        body["enums"] = {name: _members(value) for name, value in enums.items()}
    bitmaps = _classes(getattr(chip_class, "Bitmaps", None))
    if bitmaps:
        body["bitmaps"] = {name: _members(value) for name, value in bitmaps.items()}
    structs = _classes(getattr(chip_class, "Structs", None))
    if structs:
        for name, value in structs.items():
            labels = [f.Label for f in value.descriptor.Fields]
            if labels != [f.name for f in dataclasses.fields(value)]:
                raise TypeError(f"{name}: descriptor labels {labels} differ from its dataclass fields")
        body["structs"] = {name: types.fields(value) for name, value in structs.items()}
    return body


def _cluster(objects: Any, types: _Types, writable: set[str], chip_class: Any) -> dict[str, Any]:
    by_tag = {f.Tag: f for f in chip_class.descriptor.Fields}
    attributes = []
    for name, attr in _classes(chip_class.Attributes).items():
        if not hasattr(attr, "attribute_id"):
            continue
        field = by_tag.get(attr.attribute_id)
        hint = field.Type if field is not None else attr.attribute_type.Type
        flags = ("w" if name in writable else "") + ("t" if attr.must_use_timed_write else "")
        attributes.append([name, attr.attribute_id, types.spell(hint), flags])
    commands = []
    for name, cmd in _classes(getattr(chip_class, "Commands", None)).items():
        if not hasattr(cmd, "command_id"):
            continue
        flags = ("c" if cmd.is_client else "") + ("t" if cmd.must_use_timed_invoke else "")
        commands.append([name, cmd.command_id, flags, cmd.response_type, types.fields(cmd)])
    events = [
        [name, event.event_id, types.fields(event)]
        for name, event in _classes(getattr(chip_class, "Events", None)).items()
        if hasattr(event, "event_id")
    ]
    body: dict[str, Any] = {"id": chip_class.id, "attributes": attributes, "commands": commands}
    if events:
        body["events"] = events
    body.update(_shared(objects, types, chip_class))
    return body


def model_lines() -> list[str]:
    """The file's lines (without newlines): ``["Globals", {...}]`` first, then every cluster in chip's order."""
    import chip.clusters.Objects as objects

    types = _Types(objects)
    table = _writable_table(objects)
    lines = [json.dumps(["Globals", _shared(objects, types, objects.Globals)], separators=(",", ":"))]
    for name, value in vars(objects).items():
        if isinstance(value, type) and issubclass(value, objects.Cluster) and hasattr(value, "id"):
            body = _cluster(objects, types, table.get(value.id, set()), value)
            lines.append(json.dumps([name, body], separators=(",", ":")))
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    options = parser.parse_args()
    lines = model_lines()
    options.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {options.out} ({len(lines)} lines)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
