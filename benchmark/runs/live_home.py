"""Episodes on a live Matter home (``bench run --matter-server ws://…/ws``, or ``backend:`` in a run spec).

The agent gets the same tools over ``MatterHome`` (python-matter-server) as over the emulated home. Before each
episode the live home is brought to the episode's initial state where Matter allows it
(``agent_tools.matter_backend.initial_state``) and checked by reading back; an episode that cannot start there —
its evaluation fast-forwards virtual time (qt2, qt4), a device or attribute it needs is missing, a value nothing
can set differs — is recorded as ``not_runnable_on_this_home`` with the reason, never failed or faked. Grading
reads the real devices; the no-agent world is the home as it was when the agent started (real time moves on,
but nothing in it acts without the agent). Live devices the episode's home lacks (an infeasible episode removes
one) are hidden from the tools, not unplugged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from agent_tools.matter_backend import MatterHome, load_mapping
from agent_tools.matter_backend.initial_state import Preparation, prepare
from benchmark.scoring.evaluators.state_comparison import fresh_fabric
from benchmark.suites.simuhome.episode import Episode, RequiredAction
from emulator.errors import HomeError

# Evaluated by fast-forwarding the home in virtual time (room physics, schedules): not possible on a live home.
VIRTUAL_TIME_QUERY_TYPES = frozenset({"qt2", "qt4-1", "qt4-2", "qt4-3"})
PATH_TOOLS = ("get_attribute", "write_attribute")


@dataclass
class StaticBaseline:
    """The no-agent world of a live home: as it was when the agent started, at any later tick."""

    before: dict[str, Any]

    def snapshot_at(self, tick: int) -> dict[str, Any]:
        return self.before


def _path_of(action: RequiredAction) -> tuple[str, str] | None:
    params = action.params
    attribute = params.get("attribute_id") if action.tool in PATH_TOOLS else None
    if not all(
        isinstance(params.get(k), str | int) for k in ("device_id", "endpoint_id", "cluster_id")
    ) or not isinstance(attribute, str):
        return None
    return str(params["device_id"]), f"{params['endpoint_id']}.{params['cluster_id']}.{attribute}"


def needed_paths(episode: Episode) -> set[tuple[str, str]]:
    """(device, ``ep.Cluster.Attribute``) the episode reads or checks: its goals' and required actions' paths."""
    out: set[tuple[str, str]] = set()
    for goal in episode.goals:
        device_id = getattr(goal, "device_id", None)
        if not device_id:
            continue
        for item in getattr(goal, "asserts", None) or []:
            out.add((device_id, ".".join(item.attribute.split(".")[:3])))
        attribute = getattr(goal, "attribute", None)
        if isinstance(attribute, str):
            out.add((device_id, ".".join(attribute.split(".")[:3])))
    for action in episode.required_actions:
        if (path := _path_of(action)) is not None:
            out.add(path)
    return out


def needed_room_states(episode: Episode) -> set[tuple[str, str]]:
    """(room, variable) the episode asks about (qt1 room-state questions)."""
    return {(goal.room_id, goal.room_state) for goal in episode.goals if getattr(goal, "variant", None) == "room_state"}


def episode_target(episode: Episode) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The episode's home as it starts (built as the emulated run builds it): device → ``ep.Cluster.Attribute``
    → value, and its room ids."""
    snapshot = fresh_fabric(episode.initial_home_config).snapshot()
    return (
        {device_id: dict(device["attributes"]) for device_id, device in snapshot["devices"].items()},
        sorted(snapshot["rooms"]),
    )


class LiveHome:
    """The run's one connection to a live Matter home; episodes run on it one at a time."""

    def __init__(
        self,
        matter_server: str,
        mapping: str | None = None,
        *,
        connect_context: Callable[[], AbstractContextManager[Any]] | None = None,
    ) -> None:
        self.matter_server, self.mapping = matter_server, mapping
        self._connect_context = connect_context
        self._home: MatterHome | None = None

    @property
    def home(self) -> MatterHome:
        if self._home is None:
            options: dict[str, Any] = {"connect_context": self._connect_context} if self._connect_context else {}
            self._home = MatterHome.connect(
                self.matter_server, mapping=load_mapping(self.mapping) if self.mapping else None, **options
            )
        return self._home

    def close(self) -> None:
        if self._home is not None:
            self._home.close()
            self._home = None

    def prepare(self, episode: Episode, *, apply: bool = True) -> Preparation:
        """Bring the home to the episode's initial state (``apply=False``: only say what that takes); the
        returned preparation's problems say why the episode is not runnable here."""
        reason = static_reason(episode)
        if reason is not None:
            return Preparation(problems=[reason])
        target, rooms = episode_target(episode)
        self.home.expose(None)  # the whole live home while it is prepared
        out = prepare(self.home, target, needed_paths(episode), apply=apply)
        missing_rooms = sorted(set(rooms) - {r.room_id for r in self.home.rooms()})
        out.problems += [f"room {room_id!r} is not in this home" for room_id in missing_rooms]
        out.problems += self._room_problems(needed_room_states(episode))
        if apply:  # the agent sees the episode's home: the live devices it lacks are hidden, not unplugged
            self.home.expose(target, rooms)
        return out

    def _room_problems(self, wanted: Iterable[tuple[str, str]]) -> list[str]:
        problems = []
        for room_id, variable in sorted(wanted):
            try:
                value = self.home.room_state(room_id).get(variable)
            except HomeError as error:
                problems.append(f"room {room_id!r}: {error.message}")
                continue
            if value is None:
                problems.append(f"room {room_id!r} has no device measuring {variable}")
        return problems


def static_reason(episode: Episode) -> str | None:
    """Why the episode cannot run on any live home, or None."""
    if episode.query_type in VIRTUAL_TIME_QUERY_TYPES:
        return (
            f"{episode.query_type} is evaluated by fast-forwarding the home in virtual time (room physics, "
            "schedules); a live home runs in real time"
        )
    if episode.homefabric is not None and episode.homefabric.automations:
        return "its gold automations are judged by replaying the emulated home"
    return None


def dry_run(live: LiveHome, episodes: Iterable[Episode]) -> list[dict[str, Any]]:
    """Per episode: runnable or not (and why), and the writes/commands its initial state would take."""
    out = []
    for episode in episodes:
        planned = live.prepare(episode, apply=False)
        out.append(
            {
                "episode_id": episode.episode_id,
                "runnable": planned.runnable,
                "reason": planned.reason(),
                "actions": planned.actions,
            }
        )
    return out


def summary_counts(rows: Iterable[Mapping[str, Any]]) -> tuple[int, int]:
    rows = list(rows)
    runnable = sum(1 for r in rows if r["runnable"])
    return runnable, len(rows) - runnable
