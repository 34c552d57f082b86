"""Episodes: SimuHome's episode file format (facts §5) as pydantic models, plus our versioned extension.

A file is ``<qt>_<case>_seed_<n>.json`` with ``meta``, ``query``, ``user_location``, ``eval``
(``required_actions`` and ``goals``), ``initial_home_config`` (SimuHome's reset body) and, for qt4
infeasible kinds, ``temporal_conflict``. We add an optional ``homefabric`` block
(``{"format": "homefabric-episode/1", ...}``). Every level keeps unknown fields and writes them back,
so SimuHome's published files load unchanged and round-trip. Loading a directory never raises for one
bad file: each problem names the file and the JSON path.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, PrivateAttr, Tag, ValidationError

from benchmark.suites.simuhome.episode_json import INDENT, NotPlainJSON, indented_json, plain_indented_json
from benchmark.suites.simuhome.home_build import build_home
from emulator.automations.model import ActionStep, AutomationSpec
from emulator.catalogue import CATALOGUE
from emulator.files import write_atomically
from emulator.home_config import HomeConfigError, json_path, validation_problems

EPISODE_FORMAT: Final = "homefabric-episode/1"
QUERY_TYPES = ("qt1", "qt2", "qt3", "qt4-1", "qt4-2", "qt4-3")
CASES = ("feasible", "infeasible")
KINDS = tuple(f"{qt}_{case}" for qt in QUERY_TYPES for case in CASES)
ROOM_STATES = ("temperature", "humidity", "illuminance", "pm10")

QueryType = Literal["qt1", "qt2", "qt3", "qt4-1", "qt4-2", "qt4-3"]
Case = Literal["feasible", "infeasible"]


class _Open(BaseModel):
    """Unknown fields are kept (and written back) at every level."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)


class Meta(_Open):
    seed: int | None = None
    query_type: QueryType
    case: Case
    num_rooms: int | None = None
    num_devices: int | None = None


class RequiredAction(_Open):
    tool: str
    params: dict[str, Any] = Field(default_factory=dict)


class Assert(_Open):
    attribute: str  # "<ep>.<Cluster>.<Attribute>" or a 4-segment struct field path
    value: Any
    value_type: str | None = None
    description: str | None = None


class DeviceRef(_Open):
    room_id: str | None = None
    device_id: str | None = None
    device_type: str | None = None


class TargetGoal(_Open):
    """qt3 goal, and each target of a qt4 goal: final-state asserts on one device."""

    room_id: str
    device_id: str
    device_type: str
    asserts: list[Assert] = Field(default_factory=list)


class When(_Open):
    reference_tick: int = 0
    reference_minutes: float | None = None
    relation: Literal["before", "after"] = "after"
    offset_ticks: int = 0
    offset_minutes: float | None = None
    at_tick: int
    at_minutes: float | None = None
    tolerance_ticks: int = Field(default=0, ge=0)


class ScheduleGoal(_Open):
    """qt4 goal: the targets' asserts hold at some tick within ``at_tick ± tolerance_ticks``."""

    when: When
    anchor: DeviceRef = Field(default_factory=DeviceRef)
    targets: list[TargetGoal]


class RoomStateGoal(_Open):
    variant: Literal["room_state"]
    room_id: str
    room_state: Literal["temperature", "humidity", "illuminance", "pm10"]
    current_value: float | None = None
    unit: str | None = None


class DeviceAttributeGoal(_Open):
    variant: Literal["device_attribute"]
    room_id: str
    device_id: str
    device_type: str | None = None
    attribute: str


class DirectionGoal(_Open):
    """qt2 goal; the nonexistence family names the (removed) device and has no ``feasibility``."""

    room_id: str
    room_state: Literal["temperature", "humidity", "illuminance", "pm10"]
    direction: Literal["increase", "decrease"]
    feasibility: bool | None = None
    device_id: str | None = None
    device_type: str | None = None


def _goal_shape(value: Any) -> str | None:
    if isinstance(value, BaseModel):
        value = value.model_dump()
    if not isinstance(value, dict):
        return None
    if "when" in value or "targets" in value:
        return "schedule"
    if value.get("variant") == "room_state":
        return "room_state"
    if value.get("variant") == "device_attribute":
        return "device_attribute"
    if "asserts" in value:
        return "target"
    if "direction" in value:
        return "direction"
    return None


Goal = Annotated[
    Annotated[ScheduleGoal, Tag("schedule")]
    | Annotated[RoomStateGoal, Tag("room_state")]
    | Annotated[DeviceAttributeGoal, Tag("device_attribute")]
    | Annotated[TargetGoal, Tag("target")]
    | Annotated[DirectionGoal, Tag("direction")],
    Discriminator(
        _goal_shape,
        custom_error_type="goal_shape",
        custom_error_message="not a goal of a known shape (room_state / device_attribute variant, "
        "direction, asserts, or when+targets)",
    ),
]

# Which goal shapes each query type may hold.
GOAL_SHAPES: dict[str, tuple[type[BaseModel], ...]] = {
    "qt1": (RoomStateGoal, DeviceAttributeGoal),
    "qt2": (DirectionGoal,),
    "qt3": (TargetGoal,),
    "qt4-1": (ScheduleGoal,),
    "qt4-2": (ScheduleGoal,),
    "qt4-3": (ScheduleGoal,),
}


class EvalBlock(_Open):
    required_actions: list[RequiredAction] = Field(default_factory=list)
    goals: list[Goal] = Field(default_factory=list)


class TemporalConflict(_Open):
    type: str | None = None


class ReplayAct(_Open):
    """An act of the world (emulator.scenarios) that fires a gold state-triggered rule when its effect is replayed."""

    act: Literal["press_button", "sense_water", "flip_switch", "turn_on_cook_surface"]
    device_id: str
    on: bool | None = None  # flip_switch: On (True) / Off (False); None toggles
    surface: int | None = None  # turn_on_cook_surface: the cook surface's endpoint
    level: int | None = None  # turn_on_cook_surface: its temperature level (0 Low, 1 Medium, 2 High)


class WorldCheck(_Open):
    """A setting judged by what it does (benchmark.scoring.world_checks): the world's ``acts`` are done on a copy
    of the home where the agent left it and, ``after_s`` seconds later, the ``goals`` must hold — a switch bound to
    a light turns it on, a hood on Auto follows the hob. ``setup`` is the oracle's way there (one of many), never
    compared."""

    acts: list[ReplayAct]
    after_s: float = Field(default=10.0, ge=0)
    goals: list[TargetGoal]
    setup: list[ActionStep] = Field(default_factory=list)


class ChargingGoal(_Open):
    """Charge the plugged-in car to ``target_percent`` by ``deadline`` using solar first
    (benchmark.scoring.charging_scoring). The emulator models no vehicle battery: the car's capacity and its state
    of charge at plug-in are the episode's, and the check works out the state of charge from the energy charged."""

    evse_device_id: str
    solar_device_id: str
    battery_kWh: float = Field(gt=0)
    start_percent: float = Field(ge=0, le=100)
    target_percent: float = Field(ge=0, le=100)
    deadline: str  # the home's time, "YYYY-MM-DD HH:MM:SS"
    voltage_mV: int = Field(gt=0)  # the charger's supply (its meter's Voltage), for current ↔ power
    min_charge_current_mA: int = Field(gt=0)  # the charger's MinimumChargeCurrent: no transfer below it
    plan: list[AutomationSpec] = Field(
        default_factory=list
    )  # the oracle's schedule: one of many that pass, not compared


class HomefabricExtension(_Open):
    format: Literal["homefabric-episode/1"] = EPISODE_FORMAT
    automations: list[AutomationSpec] = Field(default_factory=list)  # gold rules (benchmark.scoring.automation_scoring)
    replay: list[ReplayAct] = Field(default_factory=list)  # done on both copies before the replay's fast-forward
    charging: ChargingGoal | None = None  # a charging goal scored after fast-forward to its deadline
    world_checks: list[WorldCheck] = Field(default_factory=list)  # final-state goals after the world's acts


class Episode(_Open):
    meta: Meta
    query: str
    user_location: str
    evaluation: EvalBlock = Field(alias="eval")
    initial_home_config: dict[str, Any]
    temporal_conflict: TemporalConflict | None = None
    homefabric: HomefabricExtension | None = None

    _episode_id: str | None = PrivateAttr(default=None)
    _source: str | None = PrivateAttr(default=None)
    # SimuHome value shapes normalised when the home was built (emulator.simuhome.values), by name.
    _normalisations: dict[str, int] = PrivateAttr(default_factory=dict)

    @property
    def query_type(self) -> str:
        return self.meta.query_type

    @property
    def case(self) -> str:
        return self.meta.case

    @property
    def kind(self) -> str:
        return f"{self.meta.query_type}_{self.meta.case}"

    @property
    def feasible(self) -> bool:
        return self.meta.case == "feasible"

    @property
    def episode_id(self) -> str:
        if self._episode_id:
            return self._episode_id
        return f"{self.kind}_seed_{self.meta.seed}"

    @episode_id.setter
    def episode_id(self, value: str) -> None:
        self._episode_id = value

    @property
    def source(self) -> str | None:
        return self._source

    @property
    def normalisations(self) -> dict[str, int]:
        return dict(self._normalisations)

    @property
    def goals(self) -> list[Any]:
        return list(self.evaluation.goals)

    @property
    def required_actions(self) -> list[RequiredAction]:
        return list(self.evaluation.required_actions)

    @property
    def base_time(self) -> str:
        return str(self.initial_home_config.get("base_time", ""))

    def to_json_dict(self) -> dict[str, Any]:
        """The episode in SimuHome's format: only the fields the file had (or that were set), extras kept."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)

    def dumps(self) -> str:
        """The file's text: ``json.dumps(self.to_json_dict(), indent=2, ensure_ascii=False) + "\\n"``, faster."""
        return (self._dumps_plain_home() or indented_json(self.to_json_dict())) + "\n"

    def _dumps_plain_home(self) -> str | None:
        """The file's text when ``initial_home_config`` is plain JSON data (as a file or the generator gives it,
        most of an episode's bytes): written as it is, not first copied into equal data by pydantic's JSON mode.
        None otherwise (pydantic turns other types into JSON data its own way: NaN into null, keys into text)."""
        if "initial_home_config" not in self.model_fields_set:
            return None
        try:
            home = plain_indented_json(self.initial_home_config, "\n" + INDENT)
        except (NotPlainJSON, ValueError, RecursionError):
            return None
        rest = self.model_dump(mode="json", by_alias=True, exclude_unset=True, exclude={"initial_home_config"})
        entries, home_written = [], False
        for key, value in rest.items():  # the fields in their order, then the extras: the home after those before it
            if type(key) is not str:
                return None
            if not home_written and key not in _FIELDS_BEFORE_HOME:
                entries.append('"initial_home_config": ' + home)
                home_written = True
            entries.append(indented_json(key) + ": " + indented_json(value, "\n" + INDENT))
        if not home_written:
            entries.append('"initial_home_config": ' + home)
        return "{\n" + INDENT + ("," + "\n" + INDENT).join(entries) + "\n}"


# The file's keys written before ``initial_home_config`` (Episode's fields declared before it, by alias).
_FIELDS_BEFORE_HOME = frozenset(
    field.alias or name
    for name, field in list(Episode.model_fields.items())[: list(Episode.model_fields).index("initial_home_config")]
)


@dataclass(frozen=True)
class EpisodeProblem:
    file: str
    json_path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.json_path}" if self.json_path else self.file
        return f"{where}: {self.message}"

    def to_dict(self) -> dict[str, str]:
        return {"file": self.file, "json_path": self.json_path, "message": self.message}


class EpisodeError(ValueError):
    def __init__(self, problems: list[EpisodeProblem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


# --- parsing ---------------------------------------------------------------------------------------


def _shape_problems(episode: Episode, source: str) -> list[EpisodeProblem]:
    allowed = GOAL_SHAPES[episode.meta.query_type]
    problems = []
    for index, goal in enumerate(episode.evaluation.goals):
        if not isinstance(goal, allowed):
            names = " or ".join(cls.__name__ for cls in allowed)
            problems.append(
                EpisodeProblem(
                    source,
                    f"eval.goals[{index}]",
                    f"a {type(goal).__name__} in a {episode.meta.query_type} episode (expected {names})",
                )
            )
    return problems


def _home_problems(episode: Episode, source: str) -> list[EpisodeProblem]:
    """Build the episode's home exactly as the runner will (``home_build``): loaded means runnable."""
    problems = []
    for room_id, room in (episode.initial_home_config.get("rooms") or {}).items():
        for index, device in enumerate((room.get("devices") or []) if isinstance(room, dict) else []):
            if isinstance(device, dict) and device.get("device_type") not in CATALOGUE:
                problems.append(
                    EpisodeProblem(
                        source,
                        f"initial_home_config.rooms.{room_id}.devices[{index}].device_type",
                        f"unknown device type {device.get('device_type')!r}",
                    )
                )
    if problems:
        return problems
    try:
        _fabric, origin = build_home(episode.initial_home_config, source)
    except HomeConfigError as error:
        return [
            EpisodeProblem(
                source, "initial_home_config" + (f".{path}" if path and not path.startswith("[") else path), message
            )
            for path, message in error.problems
        ]
    episode._normalisations = origin.normalisation_counts()
    return []


def parse_episode(
    data: Any, source: str = "<episode>", *, episode_id: str | None = None, check_home: bool = True
) -> Episode:
    """Validate episode data; EpisodeError (every problem with its JSON path) if it is not an episode."""
    try:
        episode = Episode.model_validate(data)
    except ValidationError as error:
        problems = [
            EpisodeProblem(
                source, path.replace("evaluation", "eval", 1) if path.startswith("evaluation") else path, message
            )
            for path, message in validation_problems(error)
        ]
        raise EpisodeError(problems) from None
    problems = _shape_problems(episode, source)
    if check_home:
        problems += _home_problems(episode, source)
    if problems:
        raise EpisodeError(problems)
    episode._source = source
    episode._episode_id = episode_id
    return episode


MAX_EPISODE_BYTES = 16 * 1024 * 1024  # a SimuHome episode (home included) is tens of KB
MAX_EPISODE_DEPTH = 64  # nesting of objects and arrays in an episode file


def display_name(path: str | os.PathLike[str]) -> str:
    """A file name as valid text: bytes that are not UTF-8 (kept by the OS as surrogates) become U+FFFD."""
    return os.fsdecode(path).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def load_episode(path: str | os.PathLike[str], *, check_home: bool = True) -> Episode:
    """One episode file; EpisodeError names what is wrong. Bounded: a file over MAX_EPISODE_BYTES is refused
    before it is read, one nested past MAX_EPISODE_DEPTH before it is validated; huge integers are a problem."""
    from agent_tools.json_text import value_nesting_exceeds

    file = Path(path)
    name = display_name(file)

    def refuse(message: str) -> EpisodeError:
        return EpisodeError([EpisodeProblem(name, "", message)])

    try:
        size = file.stat().st_size
        if size > MAX_EPISODE_BYTES:
            raise refuse(f"the file is {size} bytes; an episode may be at most {MAX_EPISODE_BYTES}")
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise refuse(f"cannot read the file: {error}") from None
    too_deep = f"JSON nested more than {MAX_EPISODE_DEPTH} levels deep (the limit is {MAX_EPISODE_DEPTH})"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise refuse(f"invalid JSON at line {error.lineno} column {error.colno}: {error.msg}") from None
    except RecursionError:
        raise refuse(too_deep) from None
    except ValueError as error:  # an integer of more than 4,300 digits, …
        raise refuse(f"invalid JSON: {str(error)[:200]}") from None
    if value_nesting_exceeds(data, MAX_EPISODE_DEPTH):
        raise refuse(too_deep)
    return parse_episode(data, name, episode_id=file.stem, check_home=check_home)


def episode_files(path: str | os.PathLike[str]) -> list[Path]:
    root = Path(path)
    if root.is_dir():
        return sorted(p for p in root.rglob("*.json") if p.is_file() and not p.name.startswith("."))
    return [root]


def iter_episodes(
    path: str | os.PathLike[str], *, check_home: bool = True
) -> Iterator[tuple[Episode | None, list[EpisodeProblem]]]:
    """Each file of a file or directory (sorted by path), one at a time: (episode, []) or (None, its problems)."""
    root = Path(path)
    if not root.exists():
        yield None, [EpisodeProblem(display_name(root), "", "no such file or directory")]
        return
    seen: dict[str, str] = {}
    for file in episode_files(root):
        try:
            episode = load_episode(file, check_home=check_home)
        except EpisodeError as error:
            yield None, error.problems
            continue
        if episode.episode_id in seen:
            yield (
                None,
                [
                    EpisodeProblem(
                        display_name(file),
                        "",
                        f"duplicate episode id {episode.episode_id!r} (also {seen[episode.episode_id]}); skipped",
                    )
                ],
            )
            continue
        seen[episode.episode_id] = display_name(file)
        yield episode, []


def iter_episodes_by_id(
    path: str | os.PathLike[str], *, ids: Collection[str] | None = None
) -> Iterator[tuple[Episode | None, list[EpisodeProblem]]]:
    """The episodes of a file or directory in episode-id order (an id is its file's name without ``.json``),
    reading each file only when its turn comes: a caller that stops early (``--limit``) reads no more. Per id the
    files are tried in path order and the first that loads is the episode — as :func:`iter_episodes` decides
    duplicates — and its later copies are never read. ``ids``: only these ids (the other files are not read)."""
    root = Path(path)
    if not root.exists():
        yield None, [EpisodeProblem(display_name(root), "", "no such file or directory")]
        return
    wanted = set(ids) if ids is not None else None
    by_id: dict[str, list[Path]] = {}
    for file in episode_files(root):  # sorted by path: each id's copies in path order
        if wanted is None or file.stem in wanted:
            by_id.setdefault(file.stem, []).append(file)
    for episode_id in sorted(by_id):
        for file in by_id[episode_id]:
            try:
                episode = load_episode(file)
            except EpisodeError as error:
                yield None, error.problems
                continue
            yield episode, []
            break


def load_episodes(
    path: str | os.PathLike[str], *, check_home: bool = True
) -> tuple[list[Episode], list[EpisodeProblem]]:
    """Every episode in a file or directory (sorted by path) and the problems of the files that are not."""
    episodes: list[Episode] = []
    problems: list[EpisodeProblem] = []
    for episode, found in iter_episodes(path, check_home=check_home):
        if episode is not None:
            episodes.append(episode)
        problems.extend(found)
    return episodes, problems


def save_episode(episode: Episode, path: str | os.PathLike[str]) -> None:
    write_atomically(path, episode.dumps())


def kind_counts(episodes: Iterable[Episode]) -> dict[str, int]:
    counts = dict.fromkeys(KINDS, 0)
    for episode in episodes:
        counts[episode.kind] = counts.get(episode.kind, 0) + 1
    return counts


__all__ = [
    "CASES",
    "EPISODE_FORMAT",
    "GOAL_SHAPES",
    "KINDS",
    "QUERY_TYPES",
    "ROOM_STATES",
    "Assert",
    "ChargingGoal",
    "DeviceAttributeGoal",
    "DeviceRef",
    "DirectionGoal",
    "Episode",
    "EpisodeError",
    "EpisodeProblem",
    "EvalBlock",
    "Goal",
    "HomefabricExtension",
    "Meta",
    "RequiredAction",
    "RoomStateGoal",
    "ScheduleGoal",
    "TargetGoal",
    "TemporalConflict",
    "When",
    "episode_files",
    "iter_episodes",
    "json_path",
    "kind_counts",
    "load_episode",
    "load_episodes",
    "parse_episode",
    "save_episode",
]
