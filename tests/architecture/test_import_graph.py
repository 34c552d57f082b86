"""The import graph, read with ``ast`` from the source: data flows down the layers, and no package cycle.

Repo-wide: clusters → emulator → {bridge.matter, bridge.mqtt, bridge.http, agent_tools} → benchmark →
homefabric_cli (which composes them). A package may import only packages of a lower rank; siblings of one
rank never import each other. Inside ``bridge.matter``: codec ← crypto ← session ← im ← node. No two files
import one another (KNOWN_FILE_CYCLES lists today's, each with the item removing it). The benchmark reaches homes
only through BENCHMARK_HOME_SURFACE, and its own rooms import downwards (BENCHMARK_RANK). Every import counts —
inside functions and under ``TYPE_CHECKING`` too — because a type dependency is a dependency.
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
    for module, statements in import_statements().items():
        for target, names in statements:
            found[module].add(target)
            found[module].update(f"{target}.{name}" for name in names or ())
    return found


@cache
def import_statements() -> dict[str, list[tuple[str, tuple[str, ...] | None]]]:
    """Module → each import as (target, names): ``import a.b`` is ("a.b", None), ``from .x import y`` is
    (the resolved "pkg.x", ("y",))."""
    found: dict[str, list[tuple[str, tuple[str, ...] | None]]] = defaultdict(list)
    for module, path, is_package in _modules():
        package = module.split(".") if is_package else module.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found[module].extend((alias.name, None) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                found[module].append((target, tuple(alias.name for alias in node.names)))
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
                cycles.append([*path[path.index(successor) :], successor])
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


# --- files ------------------------------------------------------------------------------------------------

# Two-file cycles that exist today, each with the issue item whose helper removes it. Listing one here permits
# exactly that cycle; the coordinator empties the set as the items land.
KNOWN_FILE_CYCLES: dict[frozenset[str], str] = {
    frozenset({"emulator.emulated_home", "emulator.automations.engine"}): "issue 20 item 1",
}


def _resolve(target: str, known: set[str]) -> str | None:
    """The module a dotted import target names: itself, or the longest known prefix (a name inside it)."""
    parts = target.split(".")
    while parts:
        if (candidate := ".".join(parts)) in known:
            return candidate
        parts.pop()
    return None


@cache
def file_graph() -> dict[str, frozenset[str]]:
    """Module → the modules (files) it imports. ``from package import submodule`` is an edge to the submodule
    alone; ``from package import name`` and ``import package`` are edges to the package's ``__init__``."""
    known = {m for m, _, _ in _modules()}
    graph: dict[str, frozenset[str]] = {}
    statements = import_statements()
    for module in sorted(known):
        found: set[str | None] = set()
        for target, names in statements.get(module, ()):
            if names is None:
                found.add(_resolve(target, known))
            for name in names or ():
                submodule = f"{target}.{name}"
                found.add(submodule if submodule in known else _resolve(target, known))
        graph[module] = frozenset(m for m in found if m and m != module)
    return graph


def with_package_inits(graph: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    """The graph plus what Python runs first: importing a.b.c runs a/__init__ and a/b/__init__ (a module's own
    packages excepted, they are already running when it is imported)."""
    return {
        module: targets
        | {
            package
            for target in targets
            for package in _packages_above(target)
            if package in graph and not module.startswith(package + ".")
        }
        for module, targets in graph.items()
    }


def _packages_above(module: str) -> Iterator[str]:
    parts = module.split(".")
    return (".".join(parts[:i]) for i in range(1, len(parts)))


def file_cycles(graph: dict[str, frozenset[str]]) -> list[frozenset[str]]:
    """Every set of files that import one another, directly or around a loop (Tarjan's strongly connected
    components of more than one file)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def unknown_file_cycles(graph: dict[str, frozenset[str]]) -> list[str]:
    return sorted(" <-> ".join(sorted(c)) for c in file_cycles(graph) if c not in KNOWN_FILE_CYCLES)


def test_no_file_cycle() -> None:
    bad = unknown_file_cycles(with_package_inits(file_graph()))
    assert not bad, (
        "files that import one another (every import counts, in functions and TYPE_CHECKING):\n" + "\n".join(bad)
    )


def test_the_file_cycle_checker_fails_on_a_planted_cycle() -> None:
    graph = with_package_inits(file_graph())
    assert not unknown_file_cycles(graph)
    # Plant a three-file loop: runner → spec (real) → store (real) → runner (planted).
    assert "benchmark.runs.spec" in graph["benchmark.runs.runner"]
    graph["benchmark.runs.spec"] = graph["benchmark.runs.spec"] | {"benchmark.runs.store"}
    graph["benchmark.runs.store"] = graph["benchmark.runs.store"] | {"benchmark.runs.runner"}
    # runner → unit_runs → spec is a real path too, so unit_runs joins the loop
    assert unknown_file_cycles(graph) == [
        "benchmark.runs.runner <-> benchmark.runs.spec <-> benchmark.runs.store <-> benchmark.runs.unit_runs"
    ]


def test_the_file_graph_sees_imports_inside_functions_and_type_checking() -> None:
    graph = file_graph()
    assert "benchmark.suites.smh.cli" in graph["benchmark.cli"]  # imported inside a command function
    assert "emulator.device" in graph["emulator.power_draw"]  # imported only under TYPE_CHECKING


# --- the benchmark --------------------------------------------------------------------------------------------

# The benchmark reaches homes only through HomeAPI, the agent tools and the home-file format (issue 20 item 4):
# these are the emulator (and clusters) modules it may import, each with the reason it needs it. Every other
# module of emulator/ and clusters/ is the home's inside.
BENCHMARK_HOME_SURFACE: dict[str, str] = {
    "emulator.home_api": "HomeAPI, the protocol agents' tools drive a home through",
    "emulator.emulated_home": "EmulatedHome, the HomeAPI an episode's home is built as and replayed on",
    "emulator.device_readings": "BuiltReadings, what homes built again from one prepared config share (prepared_home)",
    "emulator.errors": "HomeError, the one error a home raises across HomeAPI",
    "emulator.clock": "HomeAPI's time: ticks per second and the time format of episodes",
    "emulator.workflows": "WorkflowStep, the argument of HomeAPI.apply",
    "emulator.home_config": "the home-file format: HomeConfig, its validation, load and dump",
    "emulator.home_check": "a home file's refused attributes, all at once, for `episodes import`'s messages",
    "emulator.home_generation": "seeded home files (the generator) and the sub-seeds of a seed",
    "emulator.simuhome": "SimuHome's home-file, path and value format, translated both ways",
    "emulator.placement": "device and user positions: the home file's placement block",
    "emulator.catalogue": "the device types a home file may name, with their endpoints and clusters",
    "emulator.automations.model": "automation rules: the home file's automations block",
    "emulator.automations.cron": "the cron syntax of a rule's schedule (scoring compares schedules)",
    "emulator.automations.equivalence": "whether two rule sets act alike on a home (scoring's question, by replay)",
    "emulator.physics": "SENSOR_ATTRIBUTES: the readings room physics writes, which no agent sets",
    "emulator.files": "durable writes of records, reports and episodes",
    "emulator.scenarios": "world acts an episode replays on both homes (a button pressed, water at a detector)",
    "emulator.output_paths": "an --out path checked before work starts",
    "clusters.cycle_programs": "appliance cycle programs, so generated goals name real durations",
    "clusters.absent_attributes": "the Matter spec's values for attributes a device does not serve, so plans and "
    "goals keep a device's rules as the emulator's own checks do",
}

# The benchmark's rooms, low to high: a room imports only rooms of a lower rank (never a sibling).
BENCHMARK_RANK: dict[str, int] = {
    "execution": 0,  # where units of work run: here or as Ray tasks (Ray imported only for --executor ray)
    "llm": 0,  # an OpenAI-compatible client and its endpoint checks
    "suites.simuhome": 0,  # the episode file (12 kinds) and the home it starts from
    "scoring": 1,  # evaluators, judges, verdicts
    "agents": 2,
    "generation": 2,  # SimuHome-style episodes
    "runs": 3,  # spec, runner, records, store, progress
    "reports": 4,
    "suites.smh": 5,
    "suites.voice": 5,
    "http": 5,
    "training": 6,  # datasets and the RL environment (every suite's oracle), their units run by execution
    "cli": 7,
}
# Imports against the rank order, each with the reason it stays for now. A run spec carries the SMH and voice
# options, and the runner hears episodes through the voice suite's input: inverting that (each suite registers
# its options and input with runs) is a follow-up.
KNOWN_BENCHMARK_EDGES: dict[tuple[str, str], str] = {
    ("benchmark.runs.spec", "benchmark.suites.smh.spec"): "RunSpec holds an SmhSpec",
    ("benchmark.runs.spec", "benchmark.suites.voice.spec"): "RunSpec holds a SpeechSpec",
    ("benchmark.runs.runner", "benchmark.suites.voice.episode_input"): "bench run --input asr|audio",
}


def benchmark_room(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "benchmark" or len(parts) < 2:
        return None
    return ".".join(parts[1:3]) if parts[1] == "suites" and len(parts) > 2 else parts[1]


def surface_violations(graph: dict[str, frozenset[str]]) -> list[str]:
    return sorted(
        f"{module} imports {target}"
        for module, targets in graph.items()
        if module.split(".")[0] == "benchmark"
        for target in targets
        if target.split(".")[0] in ("emulator", "clusters")
        and not any(target == allowed or target.startswith(allowed + ".") for allowed in BENCHMARK_HOME_SURFACE)
    )


def rank_violations(graph: dict[str, frozenset[str]]) -> list[str]:
    bad = []
    for module, targets in graph.items():
        source = benchmark_room(module)
        for target in targets:
            destination = benchmark_room(target)
            if (
                source
                and destination
                and source != destination
                and (module, target) not in KNOWN_BENCHMARK_EDGES
                and BENCHMARK_RANK[destination] >= BENCHMARK_RANK[source]
            ):
                bad.append(
                    f"{module} ({source}, rank {BENCHMARK_RANK[source]}) imports {target} "
                    f"({destination}, rank {BENCHMARK_RANK[destination]})"
                )
    return sorted(bad)


def test_the_benchmark_reaches_homes_only_through_the_surface() -> None:
    bad = surface_violations(file_graph())
    assert not bad, "benchmark → home internals (allowed: BENCHMARK_HOME_SURFACE):\n" + "\n".join(bad)


def test_the_surface_checker_fails_on_a_planted_internal_import() -> None:
    graph = dict(file_graph())
    assert not surface_violations(graph)
    graph["benchmark.runs.runner"] = graph["benchmark.runs.runner"] | {"emulator.automations.engine"}
    assert surface_violations(graph) == ["benchmark.runs.runner imports emulator.automations.engine"]


def test_every_benchmark_module_sits_in_a_ranked_room() -> None:
    loose = [
        m
        for m, _, _ in _modules()
        if m not in ("benchmark", "benchmark.suites")
        and benchmark_room(m) not in BENCHMARK_RANK
        and m.startswith("benchmark.")
    ]
    assert not loose, f"benchmark modules outside the rooms of BENCHMARK_RANK: {loose}"


def test_benchmark_rooms_import_only_lower_ranks() -> None:
    bad = rank_violations(file_graph())
    assert not bad, "benchmark imports against its rooms' order (BENCHMARK_RANK):\n" + "\n".join(bad)
    for edge in KNOWN_BENCHMARK_EDGES:  # a listed exception that no longer exists must leave the list
        assert edge[1] in file_graph()[edge[0]], f"{edge} is gone: remove it from KNOWN_BENCHMARK_EDGES"


def test_the_rank_checker_fails_on_a_planted_upward_import() -> None:
    graph = dict(file_graph())
    graph["benchmark.scoring.verdicts"] = graph["benchmark.scoring.verdicts"] | {"benchmark.runs.records"}
    assert rank_violations(graph) == [
        "benchmark.scoring.verdicts (scoring, rank 1) imports benchmark.runs.records (runs, rank 3)"
    ]


def _reaches(graph: dict[str, frozenset[str]], start: str, goal_prefix: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        if node.startswith(goal_prefix):
            return True
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, ()))
    return False


def test_evaluators_never_reach_the_judges() -> None:
    # The evaluator declares the judge seam (benchmark.scoring.evaluators.judging); the judges implement it and may
    # use the evaluator's helpers, so the edge runs judges → evaluators and never back, however indirectly.
    graph = file_graph()
    assert "benchmark.scoring.evaluators.judging" in graph["benchmark.scoring.judges.rules"]  # the allowed edge
    evaluators = [m for m in graph if m.startswith("benchmark.scoring.evaluators")]
    assert not [m for m in evaluators if _reaches(graph, m, "benchmark.scoring.judges")], (
        "benchmark.scoring.evaluators imports benchmark.scoring.judges (directly or through another file)"
    )


def test_the_file_cycle_checker_sees_a_cycle_through_a_package_init() -> None:
    # evaluators/__init__ once held evaluate_episode and imported checks → step_planning → evaluators.state_comparison,
    # whose import runs evaluators/__init__ first: a cycle no single import statement shows.
    graph = dict(file_graph())
    graph["benchmark.scoring.evaluators"] = graph["benchmark.scoring.evaluators"] | {
        "benchmark.scoring.evaluators.checks"
    }
    assert not unknown_file_cycles(graph)
    assert unknown_file_cycles(with_package_inits(graph)) == [
        " <-> ".join(
            sorted(
                {
                    "benchmark.scoring.evaluators",
                    "benchmark.scoring.evaluators.checks",
                    "benchmark.scoring.step_planning",
                }
            )
        )
    ]
