#!/usr/bin/env python3
"""Regenerate tests/conformance/matter_model.json from the official Matter data model.

The table says, for every device type the served bridge uses (the catalogue's types plus Root Node,
Aggregator and Bridged Node), which server clusters it must have (and the features, attributes and
commands the device type itself requires of them), and for every (cluster, feature map) it serves,
the mandatory attributes, commands and events. The knowledge comes from matter.js's ``@matter/model``
(the specification as data, from npm); ``scripts/conformance_model.mjs`` evaluates its conformance
expressions. Run it after changing a device type's clusters or features:

    .venv/bin/python scripts/generate_conformance.py [--model-dir DIR]

Needs node + npm (``npm install @matter/model@VERSION`` into DIR, a temporary one by default).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODEL_PACKAGE = "@matter/model"
MODEL_VERSION = "0.17.9"  # matter.js's model of Matter 1.4.x/1.5; bump deliberately and regenerate
TABLE = ROOT / "tests" / "conformance" / "matter_model.json"
EVALUATOR = ROOT / "scripts" / "conformance_model.mjs"


def served_shapes() -> tuple[list[int], list[tuple[int, int]]]:
    """Device types and (cluster id, feature map) pairs of a served bridge holding one of every type."""
    from bridge.matter.node.bridge_node import BridgeNode
    from bridge.matter.node.node import MatterNode
    from emulator.catalogue import CATALOGUE
    from emulator.emulated_home import EmulatedHome
    from emulator.home_config import HomeConfig

    config = HomeConfig.model_validate(
        {
            "name": "conformance",
            "base_time": "2025-08-23 09:00:00",
            "rooms": [
                {
                    "id": "room",
                    "name": "room",
                    "type": "room",
                    "environment": {"temperature": 2200, "humidity": 5000, "illuminance": 300, "pm10": 20},
                }
            ],
            "devices": [{"id": name, "type": name, "room": "room"} for name in sorted(CATALOGUE)],
        }
    )
    fabric = EmulatedHome(config)
    with tempfile.TemporaryDirectory() as state:
        node = MatterNode(lambda roots: BridgeNode(fabric, roots), state, mdns=False)
        model = node.data_model
        device_types: set[int] = set()
        clusters: set[tuple[int, int]] = set()
        for endpoint in model.endpoints():
            device_types |= {t for t, _ in model.device_types(endpoint)}
            clusters |= {(cid, int(server.feature_map)) for cid, server in model.clusters(endpoint).items()}
    return sorted(device_types), sorted(clusters)


def install_model(directory: Path) -> Path:
    package = directory / "node_modules" / "@matter" / "model" / "package.json"
    if not package.exists() or json.loads(package.read_text())["version"] != MODEL_VERSION:
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("generate_conformance: npm not found (apt install npm); it installs @matter/model")
        subprocess.run(
            [npm, "install", "--silent", "--no-save", "--prefix", str(directory), f"{MODEL_PACKAGE}@{MODEL_VERSION}"],
            check=True,
        )
    return directory


def evaluate(model_dir: Path, request: dict[str, Any]) -> dict[str, Any]:
    script = model_dir / EVALUATOR.name  # ESM resolves packages next to the script, not via NODE_PATH
    shutil.copyfile(EVALUATOR, script)
    done = subprocess.run(["node", str(script)], input=json.dumps(request), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"generate_conformance: the model evaluator failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, help="where @matter/model is (or gets) installed")
    args = parser.parse_args()
    device_types, clusters = served_shapes()
    with tempfile.TemporaryDirectory() as scratch:
        model_dir = install_model(args.model_dir or Path(scratch))
        table = evaluate(model_dir, {"device_types": device_types, "clusters": clusters})
    table["source"] = f"{MODEL_PACKAGE} {MODEL_VERSION} (npm), evaluated by scripts/conformance_model.mjs"
    table["generated_by"] = "scripts/generate_conformance.py"
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    tmp = TABLE.with_suffix(".tmp")
    tmp.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    tmp.replace(TABLE)
    print(
        f"wrote {TABLE.relative_to(ROOT)}: {len(table['device_types'])} device types, "
        f"{len(table['clusters'])} (cluster, feature map) pairs"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
