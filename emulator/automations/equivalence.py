"""Are two rules the same rule? Exact checks of trigger, conditions and actions (SMH-Bench's dual validation).

- Time triggers: the firing instants over a horizon (default one year from the home's time) coincide. A
  schedule fires at the same times of day on every day it fires, so the comparison walks days, not
  instants: for each day, both fire or neither, and at the same times (the first and last day clipped).
- State triggers on one quantity: the comparisons hold on the same values of its declared domain
  (integers, reals, a finite set; interval arithmetic), with the same hold time. Triggers on different
  quantities are replayed on copies of the home over a window and their firing ticks compared.
- Conditions: for every quantity, the conjunction of the comparisons on it has the same truth set.
- Actions: after running each action list on its own copy of the home, device states are equal (room
  variables and sensor readings excluded, as in the benchmark's irrelevant-state rules).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, datetime, timedelta
from typing import Any

from pydantic import BaseModel, Field

from emulator.automations.cron import CronSchedule, parse_cron
from emulator.automations.domains import Domain, domain_of, intersect, truth_set, whole, witness
from emulator.automations.model import ActionStep, AutomationRule, AutomationSpec, StateCondition, StateTrigger
from emulator.clock import TICKS_PER_SECOND
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.physics import SENSOR_ATTRIBUTES

DEFAULT_HORIZON = timedelta(days=365)
DEFAULT_REPLAY_S = 86400.0


class AutomationVerdict(BaseModel):
    equivalent: bool
    trigger_equivalent: bool
    conditions_equivalent: bool
    actions_equivalent: bool
    methods: dict[str, str] = Field(
        description="How each part was decided: cron-days, interval, finite-set, replay, final-state, kind."
    )
    reasons: list[str] = Field(description="Why a part differs (empty when equivalent).")


def home_copy(home: EmulatedHome) -> EmulatedHome:
    """An independent copy of ``home`` as it is now, without its rules, with its pending workflows (the
    scripted evolution still to come; a home config carries them), its clock starting at the home's time."""
    return EmulatedHome(home.to_config().model_copy(update={"automations": []}))


# ---------------------------------------------------------------------------------- cron
def _times_of_day(schedule: CronSchedule) -> list[tuple[int, int, int]]:
    return [(h, m, s) for h in schedule.hours for m in schedule.minutes for s in schedule.seconds]


def cron_difference(gold: str, predicted: str, start: datetime, horizon: timedelta = DEFAULT_HORIZON) -> str | None:
    """None when both schedules fire at exactly the same instants in (start, start + horizon], else the
    first instant only one of them fires at."""
    a, b = parse_cron(gold), parse_cron(predicted)
    end = start + horizon
    times_a, times_b = _times_of_day(a), _times_of_day(b)
    same_times = times_a == times_b
    day = start.date()
    while day <= end.date():
        fires_a = a.matches_day(day.year, day.month, day.day)
        fires_b = b.matches_day(day.year, day.month, day.day)
        if fires_a or fires_b:
            edge = day in (start.date(), end.date())
            if fires_a != fires_b or not same_times or edge:
                only = _first_only(day, times_a if fires_a else [], times_b if fires_b else [], start, end)
                if only is not None:
                    return only
        day += timedelta(days=1)
    return None


def _first_only(
    day: date, times_a: list[tuple[int, int, int]], times_b: list[tuple[int, int, int]], start: datetime, end: datetime
) -> str | None:
    def window(times: list[tuple[int, int, int]]) -> set[datetime]:
        return {t for t in (datetime(day.year, day.month, day.day, *hms) for hms in times) if start < t <= end}

    in_a, in_b = window(times_a), window(times_b)
    difference = sorted(in_a ^ in_b)
    if not difference:
        return None
    first = difference[0]
    who = "gold" if first in in_a else "predicted"
    return f"{first:%Y-%m-%d %H:%M:%S} ({first:%a}): only the {who} schedule fires"


# ---------------------------------------------------------------------------------- state
def _same_quantity(a: StateCondition, b: StateCondition) -> bool:
    return (a.device_id, a.path, a.room_id, a.variable) == (b.device_id, b.path, b.room_id, b.variable)


def _domain(home: EmulatedHome, condition: StateCondition) -> Domain | None:
    try:
        return domain_of(home, condition)
    except (HomeError, KeyError, ValueError, AttributeError):
        return None


def state_difference(gold: StateCondition, predicted: StateCondition, home: EmulatedHome) -> tuple[str, str | None]:
    """(method, None | reason): symbolic over the quantity's domain when both compare the same quantity."""
    if not _same_quantity(gold, predicted):
        return "replay", "different quantities"  # decided by replay_difference
    domain = _domain(home, gold)
    if domain is None:
        return "replay", "no scalar domain"
    a, b = truth_set(domain, gold.op, gold.value), truth_set(domain, predicted.op, predicted.value)
    method = "finite-set" if domain.kind == "finite" else "interval"
    if a != b:
        x = witness(domain, a, b)
        holds = "gold" if x is not None and gold.holds(x) else "predicted"
        return method, (
            f"{gold.source}: '{gold.op} {gold.value!r}' and '{predicted.op} {predicted.value!r}' differ "
            f"at {x!r} (only the {holds} comparison holds; domain {domain.describe()})"
        )
    if gold.for_s != predicted.for_s:
        return method, f"hold times differ: {gold.for_s:g} s vs {predicted.for_s:g} s"
    return method, None


def replay_firings(home: EmulatedHome, condition: StateCondition, seconds: float) -> list[int]:
    """Ticks at which a state trigger fires on a copy of the home left to evolve for ``seconds``."""
    copy = home_copy(home)
    ticks: list[int] = []
    copy.subscribe_automations(lambda event: ticks.append(event.tick) if event.kind == "fired" else None)
    # Never run (a replay rule records its firing and runs nothing), so its one step is a placeholder.
    placeholder = ActionStep(kind="write", device_id="-", endpoint=0, cluster="-", attribute="-")
    copy.add_replay_rule(
        AutomationRule(
            name="replay",
            trigger=StateTrigger(condition=condition),
            actions=[placeholder],
            id="replay",
            created_at=copy.now_text(),
        )
    )
    copy.advance(seconds)
    return ticks


def replay_difference(
    gold: StateCondition, predicted: StateCondition, home: EmulatedHome, seconds: float
) -> str | None:
    a, b = replay_firings(home, gold, seconds), replay_firings(home, predicted, seconds)
    if a == b:
        return None
    only = sorted(set(a) ^ set(b))
    first = only[0] if only else min(len(a), len(b))
    return (
        f"replayed {seconds:g} s: gold fires {len(a)}×, predicted {len(b)}×; first difference at "
        f"{home.now() + timedelta(seconds=first / TICKS_PER_SECOND):%Y-%m-%d %H:%M:%S}"
    )


# ---------------------------------------------------------------------------------- conditions
def conditions_difference(
    gold: Iterable[StateCondition], predicted: Iterable[StateCondition], home: EmulatedHome
) -> str | None:
    gold, predicted = list(gold), list(predicted)
    keys = {(c.device_id, c.path, c.room_id, c.variable) for c in (*gold, *predicted)}
    for key in sorted(keys, key=repr):
        mine = [c for c in gold if (c.device_id, c.path, c.room_id, c.variable) == key]
        theirs = [c for c in predicted if (c.device_id, c.path, c.room_id, c.variable) == key]
        sample = (mine or theirs)[0]
        domain = _domain(home, sample)
        if domain is None:
            if sorted(map(repr, mine)) != sorted(map(repr, theirs)):
                return f"{sample.source}: conditions differ and its domain is not scalar"
            continue
        a, b = whole(domain), whole(domain)
        for c in mine:
            a = intersect(domain, a, truth_set(domain, c.op, c.value))
        for c in theirs:
            b = intersect(domain, b, truth_set(domain, c.op, c.value))
        if a != b:
            return f"{sample.source}: the conditions hold on different values (e.g. {witness(domain, a, b)!r})"
        if sorted(c.for_s for c in mine) != sorted(c.for_s for c in theirs):
            return f"{sample.source}: hold times differ"
    return None


# ---------------------------------------------------------------------------------- actions
def _device_state(snapshot: Mapping[str, Any]) -> dict[tuple[str, str], Any]:
    return {
        (device_id, path): value
        for device_id, device in snapshot["devices"].items()
        for path, value in device["attributes"].items()
        if path.split(".")[-1] not in SENSOR_ATTRIBUTES
    }


def run_actions(home: EmulatedHome, spec: AutomationSpec) -> tuple[dict[tuple[str, str], Any], list[str]]:
    copy = home_copy(home)
    errors = []
    for index, step in enumerate(action.to_workflow_step() for action in spec.actions):
        try:
            copy.apply(step)
        except HomeError as error:
            errors.append(f"step {index}: {error.code}")
    return _device_state(copy.snapshot()), errors


def actions_difference(gold: AutomationSpec, predicted: AutomationSpec, home: EmulatedHome) -> str | None:
    state_a, errors_a = run_actions(home, gold)
    state_b, errors_b = run_actions(home, predicted)
    differing = sorted(k for k in set(state_a) | set(state_b) if state_a.get(k) != state_b.get(k))
    if differing:
        shown = ", ".join(f"{d} {p}: {state_a.get((d, p))!r} vs {state_b.get((d, p))!r}" for d, p in differing[:5])
        more = f" (+{len(differing) - 5} more)" if len(differing) > 5 else ""
        return f"final states differ: {shown}{more}"
    if errors_b and not errors_a:
        return f"the predicted actions fail: {'; '.join(errors_b)}"
    return None


# ---------------------------------------------------------------------------------- the verdict
def _spec(rule: AutomationSpec | Mapping[str, Any]) -> AutomationSpec:
    if isinstance(rule, AutomationSpec):
        return rule
    data = {k: v for k, v in dict(rule).items() if k in AutomationSpec.model_fields}
    return AutomationSpec.model_validate(data)


def compare_automations(
    gold: AutomationSpec | Mapping[str, Any],
    predicted: AutomationSpec | Mapping[str, Any],
    home: EmulatedHome,
    *,
    horizon: timedelta = DEFAULT_HORIZON,
    replay_s: float = DEFAULT_REPLAY_S,
) -> AutomationVerdict:
    """Decide whether ``predicted`` is the same rule as ``gold`` in ``home`` (which is left untouched)."""
    gold, predicted = _spec(gold), _spec(predicted)
    reasons: list[str] = []
    methods: dict[str, str] = {}
    if gold.trigger.kind != predicted.trigger.kind:
        methods["trigger"] = "kind"
        reasons.append(f"trigger: gold is a {gold.trigger.kind} trigger, predicted a {predicted.trigger.kind} one")
    elif gold.trigger.kind == "time":
        methods["trigger"] = "cron-days"
        difference = cron_difference(gold.trigger.cron, predicted.trigger.cron, home.now(), horizon)  # type: ignore[union-attr]  # both time triggers here
        if difference is not None:
            reasons.append(f"trigger: {difference}")
    else:
        g, p = gold.trigger.condition, predicted.trigger.condition  # type: ignore[union-attr]  # both state triggers here
        method, difference = state_difference(g, p, home)
        methods["trigger"] = method
        if method == "replay":
            difference = replay_difference(g, p, home, replay_s)
        if difference is not None:
            reasons.append(f"trigger: {difference}")
    trigger_ok = not reasons
    methods["conditions"] = "interval"
    condition_reason = conditions_difference(gold.conditions, predicted.conditions, home)
    if condition_reason is not None:
        reasons.append(f"conditions: {condition_reason}")
    methods["actions"] = "final-state"
    action_reason = actions_difference(gold, predicted, home)
    if action_reason is not None:
        reasons.append(f"actions: {action_reason}")
    return AutomationVerdict(
        equivalent=not reasons,
        trigger_equivalent=trigger_ok,
        conditions_equivalent=condition_reason is None,
        actions_equivalent=action_reason is None,
        methods=methods,
        reasons=reasons,
    )
