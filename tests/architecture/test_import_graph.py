"""The import graph, read with ``ast`` from the source: data flows down the layers, and no package cycle.

Repo-wide: clusters → emulator → {bridge.matter, bridge.mqtt, bridge.http, agent_tools} → benchmark →
homefabric_cli (which composes them). A package may import only packages of a lower rank; siblings of one
rank never import each other. Inside ``bridge.matter``: codec ← crypto ← session ← im ← node. Every import
counts — inside functions and under ``TYPE_CHECKING`` too — because a type dependency is a dependency.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

RANK = {
    "clusters": 0,
    "emulator": 1,
    "bridge.matter": 2,
    "bridge.mqtt": 2,
    "bridge.http": 2,
    "agent_tools": 2,
    "benchmark": 3,
    "homefabric_cli": 4,
}
TOP_LEVEL = ("clusters", "emulator", "bridge", "agent_tools", "benchmark", "homefabric_cli")

# Known upward edges, each with the issue item that removes it. Listing one here permits it; it does not
# require it. None is left: keep it empty.
KNOWN_EXCEPTIONS: set[tuple[str, str]] = set()

MATTER_LAYERS = ("codec", "crypto", "session", "im", "node")


def _modules() -> Iterator[tuple[str, Path, bool]]:
    for top in TOP_LEVEL:
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            yield ".".join(parts[:-1] if is_package else parts), path, is_package


@cache
def imports() -> dict[str, set[str]]:
    """Module → every module (or module attribute) it imports, relative imports resolved."""
    found: dict[str, set[str]] = defaultdict(set)
    for module, path, is_package in _modules():
        package = module.split(".") if is_package else module.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found[module].update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                found[module].add(target)
                found[module].update(f"{target}.{alias.name}" for alias in node.names)
    return found


def _group(module: str) -> str | None:
    """The layer-rule unit a module belongs to (``bridge`` splits into its faces), or None if outside."""
    parts = module.split(".")
    if parts[0] not in TOP_LEVEL:
        return None
    if parts[0] == "bridge" and len(parts) > 1:
        return f"bridge.{parts[1]}"
    return parts[0]


def package_edges() -> dict[tuple[str, str], set[str]]:
    edges: dict[tuple[str, str], set[str]] = defaultdict(set)
    for module, targets in imports().items():
        source = _group(module)
        for target in targets:
            destination = _group(target)
            if source and destination and destination != source and destination in RANK and source in RANK:
                edges[(source, destination)].add(module)
    return edges


def test_no_upward_or_sideways_package_edge() -> None:
    bad = {
        f"{source} -> {destination} (in {', '.join(sorted(modules))})"
        for (source, destination), modules in package_edges().items()
        if RANK[destination] >= RANK[source] and (source, destination) not in KNOWN_EXCEPTIONS
    }
    assert not bad, "imports against the layer order:\n" + "\n".join(sorted(bad))


def test_no_package_cycle() -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    for source, destination in package_edges():
        graph[source].add(destination)
    cycles = []
    state: dict[str, int] = {}  # 1: on the current path, 2: finished

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for successor in sorted(graph[node]):
            if state.get(successor) == 1:
                cycles.append([*path[path.index(successor):], successor])
            elif successor not in state:
                visit(successor, [*path, successor])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    assert not cycles, f"package cycles: {cycles}"


def _matter_layer(module: str) -> int | None:
    parts = module.split(".")
    if parts[:2] != ["bridge", "matter"] or len(parts) < 3:
        return None
    return MATTER_LAYERS.index(parts[2]) if parts[2] in MATTER_LAYERS else None


def test_every_matter_module_sits_in_a_layer() -> None:
    loose = [m for m, _, is_package in _modules() if m.startswith("bridge.matter.") and _matter_layer(m) is None]
    assert not loose, f"modules outside codec/crypto/session/im/node: {loose}"


def test_matter_layers_import_only_downwards() -> None:
    bad = []
    for module, targets in imports().items():
        own = _matter_layer(module)
        if own is None:
            continue
        for target in targets:
            other = _matter_layer(target)
            if other is not None and other > own:
                bad.append(f"{module} ({MATTER_LAYERS[own]}) imports {target} ({MATTER_LAYERS[other]})")
    assert not bad, "bridge.matter imports against codec ← crypto ← session ← im ← node:\n" + "\n".join(sorted(bad))


def test_the_checker_sees_edges() -> None:
    # Guard against a vacuous pass: the graph must contain edges we know exist.
    edges = package_edges()
    assert ("emulator", "clusters") in edges and ("homefabric_cli", "bridge.matter") in edges
    assert any(_matter_layer(m) == 4 and any(_matter_layer(t) == 2 for t in ts) for m, ts in imports().items())


def _benchmark_part(module: str) -> str | None:
    parts = module.split(".")
    return f"benchmark.{parts[1]}" if parts[0] == "benchmark" and len(parts) > 1 else None


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, ()))
    return False


def test_evaluators_and_judges_form_no_cycle() -> None:
    # The evaluator declares the judge seam (benchmark.scoring.evaluators.judging); the judges implement it and may
    # use the evaluator's helpers, so the edge runs judges → evaluators and never back, however indirectly.
    known = {m for m, _, _ in _modules()}
    graph: dict[str, set[str]] = defaultdict(set)
    for module, targets in imports().items():
        source = _benchmark_part(module)
        for target in targets:
            destination = _benchmark_part(target)
            if source and destination and source != destination and (
                    destination in known or any(k.startswith(destination + ".") for k in known)):
                graph[source].add(destination)
    assert "benchmark.scoring.evaluators" in graph["benchmark.scoring.judges"]  # the edge that is allowed
    assert not _reaches(graph, "benchmark.scoring.evaluators", "benchmark.scoring.judges"), \
        "benchmark.scoring.evaluators imports benchmark.scoring.judges (directly or through another part): a cycle"
