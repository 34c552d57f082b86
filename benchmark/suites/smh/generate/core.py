"""What every template shares: the Scene it reads (a built home and its SMH state), the Draft it returns, and
the fabric check that turns a draft into an instance (setup and reference replayed, critic derived from
the state delta, answers recomputed, rules built, clarification necessity) or refuses it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_tools.smh import DEFAULT_BUDGET
from agent_tools.smh.home_env import HomeEnv, state_diff
from agent_tools.smh.rules import Action, RuleError, SmhAutomation, to_spec
from benchmark.generation.grammar import PICKED_TEMPLATES
from benchmark.suites.smh.heating import heating, run_heating_to_the_end
from benchmark.suites.smh.instance import Clarification, Constraint, ExpectedAnswer, Goal, Memory, Turn
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.home_config import HomeConfig


class Rejected(Exception):
    """This draw cannot make a valid instance (the generator draws again)."""


def act(did: str, locator: str, **arguments: Any) -> Action:
    return Action(did=did, locator=locator, arguments=arguments)


class Scene:
    """A home as a template sees it: device ids by type and room, names, the SMH state (H0 before setup)."""

    def __init__(self, home: HomeConfig, rng: random.Random, tier: str, fabric: EmulatedHome | None = None) -> None:
        self.home, self.rng, self.tier = home, rng, tier
        self.fabric = fabric or EmulatedHome(home)
        self.env = HomeEnv(self.fabric)
        self.state = self.env.state()
        self._types = {d.id: d.type for d in home.devices}
        self._rooms = {d.id: d.room for d in home.devices}
        self._names = {d.id: d.name or d.id for d in home.devices}
        self.room_names = {r.id: r.name for r in home.rooms}
        self.floors = {r.id: r.floor for r in home.rooms}

    def of(self, *types: str, room: str | None = None, where: Callable[[str], bool] | None = None) -> list[str]:
        return [
            d
            for d, t in self._types.items()
            if t in types and (room is None or self._rooms[d] == room) and (where is None or where(d))
        ]

    def value(self, did: str, path: str) -> Any:
        return self.state[did][path]

    def type_of(self, did: str) -> str:
        return self._types[did]

    def room_of(self, did: str) -> str:
        return self._rooms[did]

    def name(self, did: str) -> str:
        return self._names[did]

    def the(self, did: str) -> str:
        return f"the {self.name(did)}"

    def pick(self, items: Sequence[Any]) -> Any:
        if not items:
            raise Rejected("nothing to pick from")
        item = items[self.rng.randrange(len(items))]
        if isinstance(item, str) and "{" in item and (picked := PICKED_TEMPLATES.get()) is not None:
            picked.append(item)  # a phrase template (benchmark.training's split rule); draws nothing more
        return item

    def sample(self, items: Sequence[Any], k: int) -> list[Any]:
        if len(items) < k:
            raise Rejected(f"needs {k}, has {len(items)}")
        return self.rng.sample(list(items), k)

    def entrance_device(self) -> str:
        speakers = self.of("smart_speaker", "smart_screen")
        return speakers[0] if speakers else "phone_app"


@dataclass
class Draft:
    user_query: str
    mode: str
    reference: list[Action] = field(default_factory=list)
    setup: list[Action] = field(default_factory=list)
    history: list[Turn] = field(default_factory=list)
    memory: Memory = field(default_factory=Memory)
    answer: ExpectedAnswer | None = None
    clarification: Clarification | None = None
    clarify_allowed: bool = False
    automations: list[SmhAutomation] = field(default_factory=list)
    free: list[tuple[str, str]] = field(default_factory=list)  # (did, path) the critic lets change freely
    intended_query: str | None = None


def check(home: HomeConfig, draft: Draft) -> Goal:
    """Replay the draft in a fresh fabric; the goal it proves, or Rejected naming why not."""
    fabric = EmulatedHome(home)
    env = HomeEnv(fabric)
    for action in draft.setup:
        result = env.call(action.did, action.locator, action.arguments)
        if not result.ok:
            raise Rejected(f"setup {action.locator} on {action.did}: {result.message}")
    before = env.state()
    calls = len(draft.reference) + len(draft.automations) + (draft.mode == "clarify")
    if calls > DEFAULT_BUDGET - 1:  # solvable inside the EIA budget with one call to spare
        raise Rejected(f"the reference needs {calls} tool calls; the budget is {DEFAULT_BUDGET}")
    goal = Goal(
        mode=draft.mode,  # type: ignore[arg-type]  # a draft's mode is one of Goal's (the recipes set it)
        reference=draft.reference,
        answer=draft.answer,
        clarification=draft.clarification,
        automations=draft.automations,
        clarify_allowed=draft.clarify_allowed,
    )
    if draft.mode in ("execute", "clarify"):
        for action in draft.reference:
            result = env.call(action.did, action.locator, action.arguments)
            if not result.ok:
                raise Rejected(f"reference {action.locator} on {action.did}: {result.message}")
        after = env.state()
        changed = state_diff(before, after)
        started = {k.split("/")[0] for k in changed} & set(heating(after))  # heating runs the reference touched
        for did, extra in run_heating_to_the_end(env, sorted(started)).items():
            changed.update({f"{did}/{path}": [None, value] for path, value in extra.items()})
        free = {f"{d}/{p}" for d, p in draft.free}
        constraints = [
            Constraint(
                did=k.split("/")[0],
                path=k.split("/", 1)[1],
                op="any" if k in free else "==",
                value=None if k in free else new,
            )
            for k, (_, new) in changed.items()
        ]
        constraints += [Constraint(did=d, path=p, op="any") for d, p in draft.free if f"{d}/{p}" not in changed]
        if not any(c.op == "==" for c in constraints):
            raise Rejected("the reference changes nothing the critic checks (a null agent would pass)")
        goal.constraints = sorted(constraints, key=lambda c: (c.did, c.path))
    if draft.mode == "clarify" and draft.clarification is None:
        raise Rejected("a clarify instance needs the user's scripted reply")
    if draft.mode == "answer" and (draft.answer is None or not draft.answer.facts):
        raise Rejected("a query needs expected facts")
    if draft.mode == "automate":
        if not draft.automations:
            raise Rejected("an automation instance needs gold rules")
        for rule in draft.automations:
            try:
                fabric.add_automation(to_spec(env, rule))
            except (RuleError, HomeError) as error:
                raise Rejected(f"gold rule does not build: {error}") from None
    return goal
