"""What every evaluator shares: settings, required-action matching, reading assert paths, comparing
values, device physics roles, and the irrelevant-state-change metric."""

from __future__ import annotations

import math
import pickle
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark.suites.simuhome.episode import DirectionGoal, ScheduleGoal, TargetGoal
from benchmark.suites.simuhome.home_build import EPISODE_SOURCE, build_home, home_from_config
from emulator.catalogue import CATALOGUE
from emulator.device_readings import BuiltReadings
from emulator.emulated_home import EmulatedHome, prepared_home
from emulator.errors import HomeError
from emulator.home_config import HomeConfig, HomeConfigError
from emulator.physics import SENSOR_ATTRIBUTES
from emulator.simuhome.import_home import from_simuhome
from emulator.simuhome.paths import our_path
from emulator.simuhome.values import our_key

MISSING: Any = object()  # an assert path that does not resolve (device, endpoint, cluster or field absent)


class EvalSettings(BaseModel):
    """Evaluation knobs, recorded in the run manifest."""

    model_config = ConfigDict(extra="forbid")

    # qt2: how long after the agent's last action the room is compared with the no-agent replay.
    # Virtual time is paused while the agent works, so without a horizon nothing would have moved yet.
    qt2_horizon_s: float = Field(default=1800.0, ge=0)
    # qt2: the smallest change that counts as "moved in the asked direction" (internal units:
    # centi-°C, centi-%, lux, µg/m³). SimuHome uses 1e-8, which any fan passes (facts §9, 21).
    qt2_thresholds: dict[str, float] = Field(
        default_factory=lambda: {"temperature": 50.0, "humidity": 100.0, "illuminance": 10.0, "pm10": 1.0}
    )
    simuhome_threshold: float = 1e-8
    # qt2: where the room's own devices cannot move a variable by a whole threshold (SimuHome's humidity
    # physics: switching off a dehumidifier at 33 % fan leaves a room only ~0.5 % RH more humid than leaving
    # it on), this share of what they can achieve (every helpful device at its strongest, opposing ones off)
    # is enough.
    qt2_reach_share: float = Field(default=0.5, gt=0, le=1)


# Physics roles (emulator.catalogue spec.roles) that move each room variable.
ROLES_BY_VARIABLE: dict[str, frozenset[str]] = {
    "temperature": frozenset({"ac", "heat_pump", "thermostat", "fan"}),
    "humidity": frozenset({"humidifier", "dehumidifier"}),
    "pm10": frozenset({"purifier"}),
    "illuminance": frozenset({"light", "covering"}),
}


def device_roles(device_type: str) -> frozenset[str]:
    spec = CATALOGUE.get(device_type)
    return frozenset(role for role, _ in spec.roles) if spec is not None else frozenset()


def moves_variable(device_type: str, variable: str) -> bool:
    return bool(device_roles(device_type) & ROLES_BY_VARIABLE.get(variable, frozenset()))


# --- required actions ---------------------------------------------------------------------------------


def is_subset(required: Any, given: Any) -> bool:
    """SimuHome's recursive subset: dict keys present and matching, list elements contained, scalars ==."""
    if isinstance(required, Mapping):
        return isinstance(given, Mapping) and all(k in given and is_subset(v, given[k]) for k, v in required.items())
    if isinstance(required, list):
        return isinstance(given, list) and all(any(is_subset(r, g) for g in given) for r in required)
    try:
        return bool(required == given)
    except Exception:
        return False


def match_required_actions(required: Iterable[Any], invocations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each required ``{tool, params}``: invoked (a call with that tool and a params superset) and
    succeeded (one such call was ok) — SimuHome scores ``invoked`` only; we report both."""
    out = []
    for action in required:
        tool, params = action.tool, action.params
        matches = [i for i in invocations if i.get("tool") == tool and is_subset(params, i.get("params") or {})]
        out.append(
            {"tool": tool, "params": params, "invoked": bool(matches), "succeeded": any(m.get("ok") for m in matches)}
        )
    return out


# --- reading and comparing ------------------------------------------------------------------------------


def read_assert_path(fabric: EmulatedHome, device_id: str, path: str) -> Any:
    """The value at a SimuHome attribute path, or MISSING. Four-segment paths such as
    ``1.Channel.CurrentChannel.MajorNumber`` read a struct field (SimuHome always read them as null)."""
    parts = path.split(".")
    if len(parts) < 3:
        return MISSING
    base = our_path(".".join(parts[:3]))
    if base is None:
        return MISSING
    try:
        value = fabric.read_path(device_id, base)
    except HomeError:
        return MISSING
    for key in parts[3:]:
        if isinstance(value, Mapping):
            if key in value:
                value = value[key]
            elif our_key(key) in value:
                value = value[our_key(key)]
            else:
                return MISSING
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return MISSING
    return value


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def values_equal(expected: Any, actual: Any) -> bool:
    """Exact state equality with JSON-level leniency: 1 == 1.0, enum labels case-insensitive, struct keys in
    either spelling. A bool equals only a bool (SimuHome's ``True == 1`` is a Python accident)."""
    if actual is MISSING:
        return False
    if expected is None or actual is None:
        return expected is None and actual is None
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if _number(expected) and _number(actual):
        return math.isclose(float(expected), float(actual), rel_tol=0, abs_tol=1e-9)
    if isinstance(expected, str) and isinstance(actual, str):
        return expected == actual or expected.casefold() == actual.casefold()
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        keyed = {our_key(k): v for k, v in expected.items()}
        return all(k in actual and values_equal(v, actual[k]) for k, v in keyed.items())
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(values_equal(e, a) for e, a in zip(expected, actual, strict=True))
    return False


def check_asserts(fabric: EmulatedHome, device_id: str, asserts: Iterable[Any]) -> list[dict[str, Any]]:
    out = []
    for item in asserts:
        actual = read_assert_path(fabric, device_id, item.attribute)
        out.append(
            {
                "attribute": item.attribute,
                "expected": item.value,
                "actual": None if actual is MISSING else actual,
                "found": actual is not MISSING,
                "ok": values_equal(item.value, actual),
            }
        )
    return out


# --- the no-agent replay and irrelevant changes ------------------------------------------------------------


PREPARED_HOMES = 16  # imported configs kept (a run's episodes in flight, each with its no-agent replay)
# initial_home_config's pickle → its import, and what its homes' devices hold as built (read once for them all)
_prepared: OrderedDict[bytes, tuple[HomeConfig, BuiltReadings]] = OrderedDict()


def fresh_fabric(initial_home_config: Mapping[str, Any]) -> EmulatedHome:
    """The episode's home at tick 0, built as ``episodes import`` checks it (benchmark.suites.simuhome.home_build).

    A home built again from the same initial state (the no-agent replay, another trial, a training reset)
    skips SimuHome's import: the imported config is kept per distinct initial state and only the fabric is built
    anew (a home never changes the config it was built from). The state's key is its pickle: the same bytes are
    the same values of the same types in the same order (as its JSON text would say, for JSON data, at under half
    the cost of writing it; an equal state whose objects are shared differently is merely imported again)."""
    key = _state_key(initial_home_config)
    if key is None:  # not data: built as it is, not kept
        return build_home(initial_home_config)[0]
    prepared = _prepared.get(key)
    if prepared is not None:
        _prepared.move_to_end(key)
        return prepared_home(*prepared)
    config, _ = from_simuhome(initial_home_config, source=EPISODE_SOURCE)
    built = BuiltReadings()
    home = home_from_config(config, initial_home_config, EPISODE_SOURCE, built_readings=built)
    _keep(key, config, built)
    return home


def fresh_room(initial_home_config: Mapping[str, Any], room_id: str) -> EmulatedHome:
    """The episode's home at tick 0 with only room ``room_id`` and the devices in it: what that room's state does
    there is what it does in the whole home, at a fraction of the build on a big home (the reachable-move world of
    every qt2 direction check). Rooms share no physics (emulator/physics.py: a room's trajectory follows its own
    devices and the sky) and the emulator draws no random numbers; only rules and workflows, which may act on any
    room, tie rooms together, so a home with either is built whole (tests/benchmark/test_room_worlds.py compares
    both worlds)."""
    key = _state_key(initial_home_config)
    prepared = _prepared.get(key) if key is not None else None
    config = prepared[0] if prepared is not None else None
    if key is not None and config is None:
        try:
            config, _ = from_simuhome(initial_home_config, source=EPISODE_SOURCE)
        except HomeConfigError:
            config = None  # the whole build names what is wrong
        else:
            _keep(key, config, BuiltReadings())  # filled by the first snapshots of homes built whole from it
    if config is None or config.automations or config.workflows:
        return fresh_fabric(initial_home_config)
    return EmulatedHome(
        config.model_copy(
            update={
                "rooms": [room for room in config.rooms if room.id == room_id],
                "devices": [device for device in config.devices if device.room == room_id],
            }
        )
    )


def _state_key(initial_home_config: Mapping[str, Any]) -> bytes | None:
    """The key of an initial state among the prepared homes: its pickle; None for what is not data."""
    try:
        return pickle.dumps(initial_home_config, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError):
        return None


def _keep(key: bytes, config: HomeConfig, built: BuiltReadings) -> None:
    _prepared[key] = (config, built)
    if len(_prepared) > PREPARED_HOMES:
        _prepared.popitem(last=False)


@dataclass
class Baseline:
    """A fresh fabric from the episode's initial config, advanced only forward (the no-agent world)."""

    initial_home_config: Mapping[str, Any]
    before: dict[str, Any]
    _fabric: EmulatedHome | None = field(default=None, repr=False)

    def fabric_at(self, tick: int) -> EmulatedHome:
        if self._fabric is None:
            self._fabric = fresh_fabric(self.initial_home_config)
        if tick > self._fabric.tick:
            self._fabric.run_until(tick)
        return self._fabric

    def snapshot_at(self, tick: int) -> dict[str, Any]:
        if tick == self.before.get("tick") and self._fabric is None:
            return self.before  # nothing moves without an agent and without time
        return self.fabric_at(tick).snapshot()


def agent_changes(
    natural: Mapping[str, Any], after: Mapping[str, Any], diff: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Device attributes that differ from the no-agent world at the same tick (sensor readings excluded:
    they follow the room, not the agent). ``diff``: ``EmulatedHome.diff(natural, after)`` when the caller has it."""
    changes = []
    for change in EmulatedHome.diff(natural, after) if diff is None else diff:
        if change["kind"] == "room":
            continue
        if change["kind"] == "attribute" and change["path"].split(".")[-1] in SENSOR_ATTRIBUTES:
            continue
        changes.append(change)
    return changes


def irrelevant_changes(changes: Iterable[dict[str, Any]], targeted: set[str]) -> list[dict[str, Any]]:
    return [c for c in changes if c.get("device_id") not in targeted]


def targeted_devices(episode: Any, before: Mapping[str, Any]) -> set[str]:
    """Devices a goal is about: qt3/qt4 targets (and qt4 anchors), qt2 the actuators of the goal variable in
    the goal room, qt1 none (a question changes nothing), and the devices of a world check (the switch the agent
    binds, the light it drives)."""
    out: set[str] = set()
    devices = before.get("devices", {})
    for goal in episode.goals:
        if isinstance(goal, TargetGoal):
            out.add(goal.device_id)
        elif isinstance(goal, ScheduleGoal):
            out.update(t.device_id for t in goal.targets)
            if goal.anchor.device_id:
                out.add(goal.anchor.device_id)
        elif isinstance(goal, DirectionGoal):
            out.update(
                d
                for d, info in devices.items()
                if info["room_id"] == goal.room_id and moves_variable(info["device_type"], goal.room_state)
            )
    block = getattr(episode, "homefabric", None)
    for check in getattr(block, "world_checks", None) or []:  # the device set up (a switch) and the one it drives
        out.update(act.device_id for act in check.acts)
        out.update(goal.device_id for goal in check.goals)
    return out
