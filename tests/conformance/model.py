"""The committed conformance table (scripts/generate_conformance.py, from matter.js's @matter/model) and
the check of one endpoint against it."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from clusters import ClusterServer

TABLE = Path(__file__).with_name("matter_model.json")
REGENERATE = "run scripts/generate_conformance.py"


@functools.cache
def table() -> dict[str, Any]:
    return json.loads(TABLE.read_text())


@functools.cache
def device_types() -> dict[int, dict[str, Any]]:
    return {entry["id"]: entry for entry in table()["device_types"]}


@functools.cache
def cluster_entries() -> dict[tuple[int, int], dict[str, Any]]:
    return {(entry["id"], entry["feature_map"]): entry for entry in table()["clusters"]}


def _ids(entries: Iterable[Mapping[str, Any]]) -> dict[int, str]:
    return {e["id"]: e["name"] for e in entries}


def cluster_problems(where: str, server: ClusterServer) -> list[str]:
    """What the model says this server (with its features) must have and it lacks."""
    entry = cluster_entries().get((server.cluster_id, int(server.feature_map)))
    if entry is None:
        return [f"{where} {server.cluster_name} features 0x{int(server.feature_map):x}: not in the table; {REGENERATE}"]
    problems = []
    for kind, served in (
        ("attributes", server.read("AttributeList")),
        ("commands", server.read("AcceptedCommandList")),
        ("events", server.read("EventList")),
    ):
        missing = sorted(name for i, name in _ids(entry[kind]).items() if i not in set(served))
        if missing:
            problems.append(f"{where} {server.cluster_name} lacks mandatory {kind} {missing}")
    return problems


def endpoint_problems(where: str, device_type_ids: Iterable[int], servers: Mapping[int, ClusterServer]) -> list[str]:
    """Device-type requirements (clusters, their required features/attributes/commands) and cluster conformance."""
    problems = []
    for type_id in device_type_ids:
        entry = device_types().get(type_id)
        if entry is None:
            problems.append(f"{where}: device type 0x{type_id:04x} not in the table; {REGENERATE}")
            continue
        for need in entry["mandatory_server_clusters"]:
            server = servers.get(need["id"])
            if server is None:
                problems.append(f"{where} ({entry['name']}) lacks mandatory server cluster {need['name']}")
                continue
            features = sorted(f["name"] for f in need["features"] if not server.feature_map & (1 << f["bit"]))
            if features:
                problems.append(f"{where} ({entry['name']}) {need['name']} lacks required features {features}")
            for kind, served in (
                ("attributes", server.read("AttributeList")),
                ("commands", server.read("AcceptedCommandList")),
            ):
                missing = sorted(name for i, name in _ids(need[kind]).items() if i not in set(served))
                if missing:
                    problems.append(f"{where} ({entry['name']}) {need['name']} lacks required {kind} {missing}")
    for server in servers.values():
        problems.extend(cluster_problems(where, server))
    return problems


# Gaps the model reveals that are not fixed yet (each names the fix still owed). A gap listed here that
# no longer occurs fails the test too, so this list only ever shrinks.
KNOWN_GAPS: dict[str, str] = {
    "OperationalCredentials lacks mandatory commands": "Matter 1.5 VID verification commands",
}


def unexpected(problems: list[str], seen_gaps: set[str]) -> list[str]:
    """Problems that are not known gaps; records which known gaps occurred in ``seen_gaps``."""
    out = []
    for problem in problems:
        gap = next((g for g in KNOWN_GAPS if g in problem), None)
        if gap is None:
            out.append(problem)
        else:
            seen_gaps.add(gap)
    return out
