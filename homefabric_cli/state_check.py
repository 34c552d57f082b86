"""Read-only checks of a state directory's documents before a command uses them: a document of the wrong
shape (a hand edit, another program's file) is a one-line error naming the file and the fix, as a document
that is not JSON is (``CorruptStateError``), never a KeyError from deep inside the node."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from bridge.matter.codec.persistence import CorruptStateError

FABRICS_FILE = "fabrics.json"


def _fabric_entry_problem(position: int, entry: Any) -> str | None:
    from bridge.matter.session.fabric_table import FabricRecord

    fields = {field.name: field for field in dataclasses.fields(FabricRecord)}
    required = {name for name, field in fields.items() if field.default is dataclasses.MISSING}
    if not isinstance(entry, dict):
        return f"fabrics[{position}] is {type(entry).__name__}, not an object"
    if missing := sorted(required - set(entry)):
        return f"fabrics[{position}] lacks {', '.join(missing)}"
    if unknown := sorted(set(entry) - set(fields)):
        return f"fabrics[{position}] has unknown keys {', '.join(unknown)}"
    for name in ("fabric_index", "fabric_id", "node_id", "vendor_id"):
        if type(entry[name]) is not int:
            return f"fabrics[{position}].{name} is not an integer"
    for name in ("rcac", "noc", "operational_key", "ipk_epoch_key"):
        if not isinstance(entry[name], str):
            return f"fabrics[{position}].{name} is not hex text"
    return None


def fabrics_problem(document: Any) -> str | None:
    """What is wrong with the shape of a fabrics document, else None."""
    if not isinstance(document, dict):
        return f"the document is {type(document).__name__}, not an object"
    fabrics = document.get("fabrics", [])
    if not isinstance(fabrics, list):
        return "fabrics is not a list"
    for position, entry in enumerate(fabrics):
        if problem := _fabric_entry_problem(position, entry):
            return problem
    for name, kind in (("acl", list), ("group_key_map", list), ("group_key_sets", dict)):
        if document.get(name) is not None and not isinstance(document[name], kind):
            return f"{name} is not a{'n object' if kind is dict else ' list'}"
    if "next_index" in document and type(document["next_index"]) is not int:
        return "next_index is not an integer"
    return None


def check_fabrics(state_dir: Path) -> None:
    """CorruptStateError when ``<state_dir>/fabrics.json`` exists and is not a fabrics document."""
    path = state_dir / FABRICS_FILE
    if not path.is_file():
        return
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CorruptStateError(path, str(error)) from None
    if problem := fabrics_problem(document):
        raise CorruptStateError(path, f"not a fabrics document: {problem}")
