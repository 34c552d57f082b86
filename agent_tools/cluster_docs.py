"""``get_cluster_doc``: offline documentation search over our own cluster registry and device catalogue.

SimuHome embeds ~70 Markdown cluster pages with OpenAI embeddings (network, key, non-deterministic;
facts §1.2, bug 16). We generate the documentation from what the emulator really implements — every
cluster server (id, attributes with type / writability / range / enum values, commands with argument
names, types, defaults, aliases and ranges, the servers' own docstrings) and every catalogue device
type (endpoints, clusters, power dependencies, physics roles) — and rank Markdown chunks with BM25.
Same query, same answer, always.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import re
import sys
from collections import Counter
from dataclasses import dataclass

from clusters import SERVER_CLASSES, ClusterServer
from clusters.chip_model import GLOBAL_ATTRIBUTE_IDS, GLOBAL_LIST_ATTRIBUTES, TypeInfo
from clusters.values import enum_members
from emulator.catalogue import CATALOGUE, DeviceTypeSpec
from emulator.simuhome.values import CHIP_CLUSTER_TO_SIMUHOME

MAX_CHUNK_CHARS = 1800
_ROLE_EFFECTS = {
    "ac": "cools (SystemMode 3) or heats (SystemMode 4) the room toward its setpoints; needs power on and fan speed",
    "heat_pump": "heats (SystemMode 4) or cools (SystemMode 3) the room through its thermostat; no On/Off",
    "thermostat": "drives central heating / cooling toward its setpoints (SystemMode 1 auto, 3 cool, 4 heat)",
    "fan": "cools the room slightly (down to about 2 °C below its baseline) while on",
    "purifier": "lowers the room's PM10 (air_quality) while on with a non-zero fan speed",
    "humidifier": "raises the room's humidity while on with a non-zero fan speed",
    "dehumidifier": "lowers the room's humidity while on with a non-zero fan speed",
    "light": "adds light (lux) to the room while on, scaled by its level if dimmable",
    "covering": "closing it blocks part of the daylight (illuminance)",
    "compartment": "its own compartment temperature approaches the setpoint (does not change the room)",
    "solar": "produces power following the sun (negative ActivePower, exported energy); no command changes it",
    "battery": "charges or discharges only during a DeviceEnergyManagement PowerAdjustRequest (Power > 0 charges), "
    "stopping at 100 % or its 10 % reserve; PowerSource.BatPercentRemaining follows",
    "evse": "charges a plugged-in vehicle while EnergyEvse.EnableCharging is in force; its energy manager "
    "caps the power, forecasts the charge and shifts a pending start (StartTimeAdjustRequest)",
    "valve": "opening it (ValveConfigurationAndControl.Open, optional OpenDuration) lets water flow; Close stops it",
    "flow_meter": "FlowMeasurement.MeasuredValue follows the valve: flow while it is open, 0 while closed",
}


@dataclass(frozen=True)
class Chunk:
    title: str
    text: str


# ---------------------------------------------------------------------------------- generation
def _first_server(name: str) -> tuple[ClusterServer, list[tuple[str, int]]]:
    """A server configured as the catalogue builds it (first user), and every (device type, endpoint) using it."""
    users: list[tuple[str, int]] = []
    server: ClusterServer | None = None
    for type_name in sorted(CATALOGUE):
        for endpoint in CATALOGUE[type_name].endpoints:
            for spec in endpoint.clusters:
                if spec.cluster == name:
                    users.append((type_name, endpoint.endpoint_id))
                    if server is None:
                        server = spec.build()
    return (server if server is not None else SERVER_CLASSES[name]()), users


def _type_text(info: TypeInfo) -> str:
    text = info.describe()
    if info.is_enum:
        members = ", ".join(f"{k}={v}" for k, v in enum_members(info.base).items())
        text += f" ({members})"
    elif info.is_bitmap:
        members = ", ".join(f"{k.removeprefix('k')}={int(v)}" for k, v in info.base.__members__.items())
        text += f" (bits {members})"
    return text


def _value_text(name: str, value: object) -> str:
    if name == "SupportedModes" and isinstance(value, list):
        return "modes " + ", ".join(f"{m.get('label')}={m.get('mode')}" for m in value if isinstance(m, dict))
    text = json.dumps(value, ensure_ascii=False, default=str)
    return f"default {text}" if len(text) <= 120 else "default (long list)"


def _doc(obj: object) -> str:
    return " ".join((inspect.getdoc(obj) or "").split())


def _power_notes(cluster: str) -> list[str]:
    """One sentence per distinct power rule touching ``cluster``, naming every device type it applies to."""
    by_rule: dict[str, list[str]] = {}
    for type_name in sorted(CATALOGUE):
        for rule in CATALOGUE[type_name].power_rules:
            writes = sorted(w.split(".", 1)[1] for w in rule.writes if w.startswith(f"{cluster}."))
            commands = cluster in rule.clusters
            if not writes and not commands:
                continue
            where = f" on endpoint {', '.join(map(str, sorted(rule.endpoints)))}" if rule.endpoints else ""
            parts = []
            if commands:
                but = f" except {', '.join(sorted(rule.except_commands))}" if rule.except_commands else ""
                parts.append(f"every command{but}")
            if writes:
                parts.append(f"writes to {', '.join(writes)}")
            text = (
                f"{' and '.join(parts)}{where} need the device on ({rule.power_endpoint}.OnOff.OnOff true, "
                "switch it on with OnOff.On); while it is off they are refused with DEPENDENCY_VIOLATION "
                "(power dependency)."
            )
            by_rule.setdefault(text, []).append(type_name)
    return [f"Power dependency on {', '.join(types)}: {text}" for text, types in by_rule.items()]


def _dead_front_types() -> list[str]:
    from clusters.on_off import Feature  # the OnOff feature bitmap

    out = []
    for type_name in sorted(CATALOGUE):
        for endpoint in CATALOGUE[type_name].endpoints:
            for spec in endpoint.clusters:
                if spec.cluster == "OnOff" and spec.features and spec.features & int(Feature.kDeadFrontBehavior):
                    out.append(type_name)
    return out


def _split(header: str, lines: list[str]) -> list[str]:
    """Group lines under a header into chunks of at most MAX_CHUNK_CHARS (a line is never cut)."""
    chunks: list[str] = []
    current = header
    for line in lines:
        if len(current) + len(line) + 1 > MAX_CHUNK_CHARS and current != header:
            chunks.append(current)
            current = header + " (continued)"
        current += "\n" + line
    if current != header:
        chunks.append(current)
    return chunks


def cluster_chunks(name: str) -> list[Chunk]:
    cls = SERVER_CLASSES[name]
    server, users = _first_server(name)
    model = server.model
    title = f"Cluster {name} (0x{model.cluster_id:04X})"
    overview = [f"# {title}"]
    module_doc = _doc(sys.modules[cls.__module__])
    if module_doc:
        overview.append(module_doc)
    class_doc = _doc(cls) if cls.__doc__ else ""
    if class_doc and class_doc not in module_doc:
        overview.append(class_doc)
    simuhome = CHIP_CLUSTER_TO_SIMUHOME.get(name)
    if simuhome:
        overview.append(f"SimuHome calls this cluster {simuhome}; both names are accepted as cluster_id.")
    if users:
        overview.append("Used by device types: " + ", ".join(f"{t} (endpoint {ep})" for t, ep in users) + ".")
    overview += _power_notes(name)
    if name == "OnOff":
        dead = _dead_front_types()
        if dead:
            overview.append(
                f"Dead front (appliances: {', '.join(dead)}): while OnOff is off the appliance is "
                "inert; OperationalState Start/Resume are refused with DEPENDENCY_VIOLATION, so "
                "switch it on with OnOff.On first. Switching off stops a running cycle."
            )
    if name in ("OperationalState", "RvcOperationalState", "OvenCavityOperationalState"):
        overview.append(
            "get_attribute on CurrentPhase returns the phase name (PhaseList[CurrentPhase]), as "
            "SimuHome does; get_all_attributes shows the index. CountdownTime is in seconds."
        )
    chunks = [Chunk(title, "\n".join(overview))]

    attributes = []
    for attr in server.attribute_names():
        if attr in GLOBAL_LIST_ATTRIBUTES:
            continue
        info = model.attributes[attr].type
        access = "writable" if server.is_writable(attr) else "read-only"
        # every line names its cluster: the chunk stays findable by cluster name, and the path is spelled out
        parts = [f"- {name}.{attr}: {_type_text(info)}, {access}"]
        constraint = cls.constraints.get(attr)
        limits = getattr(sys.modules[cls.__module__], "LIMITS", {}).get(attr)  # limits held in sibling attributes
        if constraint is not None:
            parts.append(f"range {constraint.describe()}")
        elif limits and all(server.has_attribute(x) for x in limits):
            low, high = (server.read(x) for x in limits)
            parts.append(f"range {low}..{high} here (limits {limits[0]}..{limits[1]})")
        if attr not in GLOBAL_ATTRIBUTE_IDS:
            parts.append(_value_text(attr, server.read(attr)))
        attributes.append(", ".join(parts))
    chunks += [Chunk(title, c) for c in _split(f"## {title} attributes (attribute_id, type, access)", attributes)]

    commands = []
    for command in sorted(cls._command_specs, key=lambda c: cls._command_specs[c].model.command_id):
        spec = cls._command_specs[command]
        args = []
        for field, arg in zip(spec.model.fields, spec.describe_args(), strict=True):
            text = f"{arg['name']}: {_type_text(field.type)}"
            text += ", required" if arg["required"] else f", optional (default {json.dumps(arg.get('default'))})"
            if "constraint" in arg:
                text += f", range {arg['constraint']}"
            if arg.get("aliases"):
                text += f", also accepted as {', '.join(arg['aliases'])}"
            args.append(text)
        usage = "; ".join(args) if args else "no arguments (args {})"
        commands.append(f'- {name}.{command} (command_id "{command}"): {usage}')
    if commands:
        chunks += [Chunk(title, c) for c in _split(f"## {title} commands (execute_command)", commands)]
    events = []
    for event in cls.events:
        descriptor = model.events[event]
        fields = ", ".join(f.label for f in descriptor.fields) or "no fields"
        events.append(f"- {name}.{event} (event id {descriptor.event_id}): {fields}")
    if events:
        chunks += [Chunk(title, c) for c in _split(f"## {title} events (Matter events it emits)", events)]
    return chunks


def device_chunk(spec: DeviceTypeSpec) -> Chunk:
    title = f"Device type {spec.name}"
    lines = [f"# {title} ({spec.label})", spec.description]
    for endpoint in spec.endpoints:
        parts = []
        for cluster in endpoint.clusters:
            commands = sorted(cluster.build().command_names())  # what this configuration accepts
            parts.append(f"{cluster.cluster} (commands {', '.join(commands)})" if commands else cluster.cluster)
        lines.append(f"- endpoint {endpoint.endpoint_id}: {'; '.join(parts)}")
    for rule in spec.power_rules:
        scope = ", ".join(sorted(rule.clusters))
        but = f" (except {', '.join(sorted(rule.except_commands))})" if rule.except_commands else ""
        writes = f" and writes to {', '.join(sorted(rule.writes))}" if rule.writes else ""
        lines.append(
            f"Power dependency: commands of {scope}{but}{writes} need {rule.power_endpoint}.OnOff.OnOff "
            "on (OnOff.On first), else DEPENDENCY_VIOLATION."
        )
    if spec.name in _dead_front_types():
        lines.append(
            "Dead front: switch it on (execute_command OnOff.On) before OperationalState Start; a Start "
            "while off is refused (DEPENDENCY_VIOLATION). Mode and option changes are refused while the "
            "cycle is running (INVALID_STATE)."
        )
    for role, endpoint_id in spec.roles:
        lines.append(f"Physics role {role} (endpoint {endpoint_id}): {_ROLE_EFFECTS.get(role, role)}.")
    return Chunk(title, "\n".join(lines))


@functools.cache
def all_chunks() -> tuple[Chunk, ...]:
    """Every documentation chunk, in a fixed order (clusters by name, then device types by name)."""
    chunks: list[Chunk] = []
    for name in sorted(SERVER_CLASSES):
        chunks += cluster_chunks(name)
    for name in sorted(CATALOGUE):
        chunks.append(device_chunk(CATALOGUE[name]))
    return tuple(chunks)


# ---------------------------------------------------------------------------------- search
_STOP_WORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "or",
        "the",
        "this",
        "to",
        "what",
        "when",
        "which",
        "with",
        "you",
        "your",
    }
)
_WORD = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def _stem(token: str) -> str:
    if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
        return token[:-1]
    return token


def tokenize(text: str) -> list[str]:
    """Lower-case words, with CamelCase names also split into their parts ("PercentSetting" → percent, setting)."""
    tokens: list[str] = []
    for word in _WORD.findall(text):
        parts = _CAMEL.findall(word)
        for token in [word] if len(parts) <= 1 else [word, *parts]:
            token = token.lower()
            if token not in _STOP_WORDS:
                tokens.append(_stem(token))
    return tokens


class BM25:
    """Okapi BM25 (k1 1.5, b 0.75, non-negative idf); ties broken by document order."""

    def __init__(self, documents: list[list[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.counts = [Counter(d) for d in documents]
        self.lengths = [len(d) for d in documents]
        self.average = sum(self.lengths) / len(documents) if documents else 0.0
        frequency: Counter[str] = Counter()
        for counts in self.counts:
            frequency.update(counts.keys())
        n = len(documents)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in frequency.items()}

    def scores(self, query: list[str]) -> list[float]:
        out = []
        for counts, length in zip(self.counts, self.lengths, strict=True):
            score = 0.0
            norm = self.k1 * (1 - self.b + self.b * length / self.average) if self.average else self.k1
            for term in query:
                tf = counts.get(term, 0)
                if tf:
                    score += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
            out.append(score)
        return out

    def top(self, query: list[str], k: int) -> list[int]:
        scores = self.scores(query)
        ranked = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        return [i for i in ranked[:k] if scores[i] > 0]


@functools.cache
def _index() -> BM25:
    return BM25([tokenize(c.text) for c in all_chunks()])


def search(query: str, top_k: int) -> list[Chunk]:
    chunks = all_chunks()
    return [chunks[i] for i in _index().top(tokenize(query), top_k)]


def search_text(query: str, top_k: int) -> str:
    """SimuHome's ``data.text``: the top_k chunks joined by blank lines ("" when nothing matches)."""
    return "\n\n".join(c.text for c in search(query, top_k))
