"""Turn SimuHome's attribute-shape inventory (Markdown) into ``emulator/simuhome/shapes.json``.

The inventory (``../shared/reference/simuhome-attribute-shapes.md``) lists, for the 600 published episode
homes, every attribute path per device type and the JSON value shapes seen there. The generated table is
committed; rerun this script when the inventory changes::

    python scripts/simuhome_shapes.py [INVENTORY.md] [--out emulator/simuhome/shapes.json]
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_INVENTORY = ROOT.parent / "shared" / "reference" / "simuhome-attribute-shapes.md"
DEFAULT_OUT = ROOT / "emulator" / "simuhome" / "shapes.json"
ROOM_STATE = "(room state)"

_SECTION = re.compile(r"^## (?P<name>\S+(?: state\))?) \((?P<devices>\d+) devices\)$")
_ROW = re.compile(r"^\| (?P<path>[^|]+?) \| (?P<shapes>.+) \| (?P<n>\d+) \| (?P<range>[^|]*) \|$")
_SHAPE = re.compile(r"`(?P<shape>[^`]+)`(?: \((?P<count>\d+)\))?")
_COUNTS = re.compile(r"^(?P<what>Top-level keys of a home|Room keys|Device keys): (?P<counts>\{.*\})")


def _number(text: str) -> int | float:
    return float(text) if any(c in text for c in ".eE") else int(text)


def parse_inventory(text: str) -> dict[str, Any]:
    table: dict[str, Any] = {
        "source": "simuhome-attribute-shapes.md",
        "key_counts": {},
        "room_state": {},
        "device_types": {},
    }
    section: dict[str, Any] | None = None
    for line in text.splitlines():
        counts = _COUNTS.match(line.strip())
        if counts:
            key = {"Top-level keys of a home": "home", "Room keys": "room", "Device keys": "device"}[counts["what"]]
            table["key_counts"][key] = ast.literal_eval(counts["counts"])
            continue
        header = _SECTION.match(line.strip())
        if header:
            if header["name"] == ROOM_STATE:
                section = table["room_state"]
            else:
                entry: dict[str, Any] = {"devices": int(header["devices"]), "attributes": {}}
                table["device_types"][header["name"]] = entry
                section = entry["attributes"]
            continue
        row = _ROW.match(line.strip())
        if row is None or section is None or row["path"] == "attribute" or row["path"].startswith("---"):
            continue
        n = int(row["n"])
        shapes = {m["shape"]: int(m["count"]) if m["count"] else n for m in _SHAPE.finditer(row["shapes"])}
        if not shapes or sum(shapes.values()) != n:
            raise ValueError(f"cannot read the shapes of {row['path']!r}: {row['shapes']!r} (n={n})")
        item: dict[str, Any] = {"shapes": shapes, "n": n}
        if row["range"].strip():
            low, high = row["range"].strip().split("..")
            item["min"], item["max"] = _number(low), _number(high)
        section[row["path"]] = item
    if not table["device_types"]:
        raise ValueError("no device type sections found (is this the shape inventory?)")
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inventory", nargs="?", type=Path, default=DEFAULT_INVENTORY)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    try:
        table = parse_inventory(args.inventory.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        print(f"error: {args.inventory}: {error}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(table, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
    tmp = args.out.with_suffix(".json.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(args.out)
    paths = sum(len(t["attributes"]) for t in table["device_types"].values())
    print(f"wrote {args.out}: {len(table['device_types'])} device types, {paths} attribute paths")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
