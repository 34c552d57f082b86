"""Our on-disk home format (``"format": "homefabric-home/1"``): rooms, devices and their initial state.

The file is the single source a home is built from. It is validated at the edge (pydantic), every
problem is reported with its JSON path (``devices[12].room: unknown room 'atic'``), it is written
atomically, and ``dump_home`` is byte-deterministic so generated homes can be compared and hashed.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, TypeAlias

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    ValidationError,
    model_validator,
)

from emulator.automations.model import AutomationRule
from emulator.clock import TIME_FORMAT
from emulator.files import write_atomically
from emulator.placement import placement_problems
from emulator.workflows import WorkflowStep

HOME_FORMAT: Final = "homefabric-home/1"
ID_PATTERN = re.compile(r"[A-Za-z0-9_\-]+")
ATTRIBUTE_PATH_PATTERN = re.compile(r"(0|[1-9][0-9]{0,4})\.([A-Z][A-Za-z0-9]*)\.([A-Z][A-Za-z0-9]*)")
MAX_ENDPOINT = 65534


class HomeConfigError(ValueError):
    """A home file (or in-memory home data) that is not a valid home; names the source and each JSON path."""

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.source = source
        self.problems = problems
        lines = [f"  {path}: {message}" if path else f"  {message}" for path, message in problems]
        count = f"{len(problems)} problem" + ("s" if len(problems) != 1 else "")
        super().__init__(f"{source}: invalid home config ({count}):\n" + "\n".join(lines))


# --- field types ---------------------------------------------------------------------------------


# Ids and attribute paths recur in every home of a process (the same devices, the same paths): each distinct
# string is matched once.
@functools.lru_cache(maxsize=16384)
def _is_id(value: str) -> bool:
    return ID_PATTERN.fullmatch(value) is not None


@functools.lru_cache(maxsize=16384)
def _is_attribute_path(value: str) -> bool:
    match = ATTRIBUTE_PATH_PATTERN.fullmatch(value)
    return match is not None and int(match.group(1)) <= MAX_ENDPOINT


def _check_id(value: str) -> str:
    if not _is_id(value):
        raise ValueError(f"{value!r} is not a valid id (allowed characters: letters, digits, '_' and '-')")
    return value


def _check_attribute_path(value: str) -> str:
    if not _is_attribute_path(value):
        raise ValueError(
            f"{value!r} is not an attribute path '<endpoint>.<Cluster>.<Attribute>' "
            "(integer endpoint 0..65534, PascalCase names, e.g. '1.OnOff.OnOff')"
        )
    return value


def _check_time(value: str) -> str:
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}", value):
            raise ValueError(value)
        datetime.strptime(value, TIME_FORMAT)
    except ValueError:
        raise ValueError(f"{value!r} is not a time 'YYYY-MM-DD HH:MM:SS'") from None
    return value


Identifier = Annotated[str, AfterValidator(_check_id)]
AttributePath = Annotated[str, AfterValidator(_check_attribute_path)]
Timestamp = Annotated[str, AfterValidator(_check_time)]


def _measurement(minimum: float, maximum: float | None = None) -> Any:
    """A finite JSON number in [minimum, maximum]; strict ("2500" and true are refused), ints stay ints."""

    def check(value: Any) -> int | float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ValueError(f"must be a finite number, got {value!r}")
        if value < minimum or (maximum is not None and value > maximum):
            allowed = f"{minimum}..{maximum}" if maximum is not None else f">= {minimum}"
            raise ValueError(f"{value!r} is outside the allowed {allowed}")
        return value

    return Annotated[int | float, PlainValidator(check, json_schema_input_type=float)]


if TYPE_CHECKING:  # the checker's view of the validated numbers below (it cannot call _measurement)
    CentiCelsius: TypeAlias = int | float
    CentiPercent: TypeAlias = int | float
    Lux: TypeAlias = int | float
    MicrogramsPerCubicMetre: TypeAlias = int | float
else:
    CentiCelsius = _measurement(-5000, 8000)
    CentiPercent = _measurement(0, 10000)
    Lux = _measurement(0)
    MicrogramsPerCubicMetre = _measurement(0)


def room_display_name(room_id: str) -> str:
    """``"living_room"`` → ``"Living Room"`` (SimuHome rooms have only an id)."""
    return room_id.replace("_", " ").title()


def parse_attribute_path(path: str) -> tuple[int, str, str]:
    """``"1.OnOff.OnOff"`` → ``(1, "OnOff", "OnOff")``; ValueError for anything else."""
    _check_attribute_path(path)
    endpoint, cluster, attribute = path.split(".")
    return int(endpoint), cluster, attribute


# --- models --------------------------------------------------------------------------------------


class EnvironmentState(BaseModel):
    """A room's physical state in SimuHome's units: centi-°C, centi-%, lux, µg/m³."""

    model_config = ConfigDict(extra="forbid")

    temperature: CentiCelsius
    humidity: CentiPercent
    illuminance: Lux
    pm10: MicrogramsPerCubicMetre


class RoomConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: Identifier
    name: str
    type: str
    floor: int = 0
    parent: str | None = None
    environment: EnvironmentState
    # What the room drifts back to when nothing acts on it; defaults to the initial environment.
    baseline: EnvironmentState | None = None

    @model_validator(mode="after")
    def _default_baseline(self) -> RoomConfig:
        if self.baseline is None:
            self.baseline = self.environment.model_copy()
        return self


class DeviceConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: Identifier
    type: str
    room: str
    name: str | None = None
    # Initial attribute values by path "<endpoint>.<Cluster>.<Attribute>"; others come from device defaults.
    attributes: dict[AttributePath, Any] = Field(default_factory=dict)


class WorkflowConfig(BaseModel):
    """A scheduled workflow as a saved home keeps it: pending ones run again after a load; finished ones
    keep their outcome so a resumed home still answers about them."""

    model_config = ConfigDict(extra="forbid")

    id: str
    description: str = ""
    start_time: Timestamp
    steps: list[WorkflowStep] = Field(min_length=1)
    status: Literal["pending", "running", "completed", "failed", "cancelled"] = "pending"
    current_step: int = 0
    error: dict[str, Any] | None = None
    results: list[Any] = Field(default_factory=list)


class _ReferenceProblems(ValueError):
    """Cross-reference problems found after field validation; each already carries its JSON path."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{p}: {m}" for p, m in problems))


class HomeConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: Literal["homefabric-home/1"] = HOME_FORMAT
    name: str
    seed: int | None = None
    tier: str | None = None
    base_time: Timestamp
    rooms: list[RoomConfig]
    devices: list[DeviceConfig] = Field(default_factory=list)
    extensions: dict[str, Any] = Field(default_factory=dict)  # free space for later features
    automations: list[AutomationRule] = Field(default_factory=list)  # rules (emulator.automations)
    workflows: list[WorkflowConfig] = Field(default_factory=list)  # scheduled by a saved, running home

    @model_validator(mode="after")
    def _check_references(self) -> HomeConfig:
        problems = _reference_problems(self.rooms, self.devices) + _automation_problems(self)
        problems += placement_problems(self.extensions, (r.id for r in self.rooms), (d.id for d in self.devices))
        if problems:
            raise _ReferenceProblems(problems)
        return self

    # Lookups the home needs; linear scans are fine at the sizes homes have.
    def room(self, room_id: str) -> RoomConfig:
        for room in self.rooms:
            if room.id == room_id:
                return room
        raise KeyError(f"no room {room_id!r}")

    def device(self, device_id: str) -> DeviceConfig:
        for device in self.devices:
            if device.id == device_id:
                return device
        raise KeyError(f"no device {device_id!r}")

    def devices_in_room(self, room_id: str) -> list[DeviceConfig]:
        return [device for device in self.devices if device.room == room_id]

    def child_rooms(self, room_id: str) -> list[RoomConfig]:
        return [room for room in self.rooms if room.parent == room_id]


def _reference_problems(rooms: list[RoomConfig], devices: list[DeviceConfig]) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    room_index: dict[str, int] = {}
    for i, room in enumerate(rooms):
        if room.id in room_index:
            first = room_index[room.id]
            problems.append((f"rooms[{i}].id", f"duplicate room id {room.id!r} (first at rooms[{first}])"))
        else:
            room_index[room.id] = i
    for i, room in enumerate(rooms):
        if room.parent is not None and room.parent not in room_index:
            problems.append((f"rooms[{i}].parent", f"unknown room {room.parent!r}"))
    problems.extend(_cycle_problems(rooms, room_index))
    device_index: dict[str, int] = {}
    for i, device in enumerate(devices):
        if device.id in device_index:
            problems.append(
                (f"devices[{i}].id", f"duplicate device id {device.id!r} (first at devices[{device_index[device.id]}])")
            )
        else:
            device_index[device.id] = i
        if device.room not in room_index:
            problems.append((f"devices[{i}].room", f"unknown room {device.room!r}"))
    return problems


def _automation_problems(config: HomeConfig) -> list[tuple[str, str]]:
    """Rule ids are unique; every device and room a rule names exists."""
    problems: list[tuple[str, str]] = []
    rooms = {room.id for room in config.rooms}
    devices = {device.id for device in config.devices}
    seen: dict[str, int] = {}
    for i, rule in enumerate(config.automations):
        if rule.id in seen:
            problems.append(
                (f"automations[{i}].id", f"duplicate automation id {rule.id!r} (first at automations[{seen[rule.id]}])")
            )
        seen.setdefault(rule.id, i)
        conditions = [("trigger.condition", rule.trigger.condition)] if rule.trigger.kind == "state" else []
        conditions += [(f"conditions[{j}]", c) for j, c in enumerate(rule.conditions)]
        for where, condition in conditions:
            if condition.device_id is not None and condition.device_id not in devices:
                problems.append((f"automations[{i}].{where}.device_id", f"unknown device {condition.device_id!r}"))
            if condition.room_id is not None and condition.room_id not in rooms:
                problems.append((f"automations[{i}].{where}.room_id", f"unknown room {condition.room_id!r}"))
        for j, action in enumerate(rule.actions):
            if action.device_id not in devices:
                problems.append((f"automations[{i}].actions[{j}].device_id", f"unknown device {action.device_id!r}"))
    return problems


def _cycle_problems(rooms: list[RoomConfig], room_index: dict[str, int]) -> list[tuple[str, str]]:
    parent_of = {room.id: room.parent for room in rooms}
    reported: set[str] = set()
    problems: list[tuple[str, str]] = []
    for room in rooms:
        chain = [room.id]
        current = room.parent
        while current is not None and current in parent_of and current not in chain:
            chain.append(current)
            current = parent_of[current]
        if current is not None and current in chain and current not in reported:
            cycle = [*chain[chain.index(current) :], current]
            reported.update(cycle)
            problems.append((f"rooms[{room_index[current]}].parent", "parent cycle " + " -> ".join(cycle)))
    return problems


# --- errors with JSON paths ----------------------------------------------------------------------


def json_path(loc: Iterable[int | str]) -> str:
    """Pydantic ``loc`` → ``rooms[3].environment.humidity`` (dict keys that are not names in ["..."])."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part == "[key]":
            out += " (key)"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part)}]"
    return out


def validation_problems(error: ValidationError) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    for item in error.errors():
        cause = (item.get("ctx") or {}).get("error")
        if isinstance(cause, _ReferenceProblems):
            problems.extend(cause.problems)
            continue
        if isinstance(cause, ValueError):
            message = str(cause)  # our validators already name the value
        else:
            message = item["msg"]
            if item["type"] not in ("missing", "extra_forbidden") and not isinstance(item.get("input"), dict | list):
                message += f" (got {item.get('input')!r})"
        problems.append((json_path(item["loc"]), message))
    return problems


def validate_home(data: Any, source: str = "<home>") -> HomeConfig:
    """Validate already-parsed home data; HomeConfigError (naming ``source`` and each path) if invalid."""
    try:
        return HomeConfig.model_validate(data)
    except ValidationError as error:
        raise HomeConfigError(source, validation_problems(error)) from None


# --- text and files ------------------------------------------------------------------------------


def loads_home(text: str, source: str = "<string>") -> HomeConfig:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise HomeConfigError(
            source, [("", f"invalid JSON at line {error.lineno} column {error.colno}: {error.msg}")]
        ) from None
    return validate_home(data, source)


def load_home(path: str | os.PathLike[str]) -> HomeConfig:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise HomeConfigError(str(path), [("", f"cannot read the file: {error}")]) from error
    if Path(path).suffix.lower() in YAML_SUFFIXES:
        return _loads_yaml_home(text, str(path))
    return loads_home(text, str(path))


YAML_SUFFIXES = (".yaml", ".yml")


def _loads_yaml_home(text: str, source: str) -> HomeConfig:
    """The same home written as YAML (hand-written homes are nicer to edit that way)."""
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise HomeConfigError(
            source, [("", f"invalid YAML{where}: {getattr(error, 'problem', None) or error}")]
        ) from None
    return validate_home(data, source)


def _sorted_deep(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _sorted_deep(value[key]) for key in sorted(value)}
    if isinstance(value, list | tuple):
        return [_sorted_deep(item) for item in value]
    return value


def dump_home(config: HomeConfig) -> str:
    """Deterministic JSON: field order, sorted keys in attributes/extensions, 2-space indent, final newline."""
    data = config.model_dump(mode="json")
    for device in data["devices"]:
        device["attributes"] = _sorted_deep(device["attributes"])
    data["extensions"] = _sorted_deep(data["extensions"])
    if not data["automations"]:
        del data["automations"]  # homes without rules keep their exact earlier bytes
    if not data["workflows"]:
        del data["workflows"]  # homes without workflows keep their exact file form
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def save_home(config: HomeConfig, path: str | os.PathLike[str]) -> None:
    write_atomically(path, dump_home(config))
