"""How the engine keeps a rule once it is validated: a slotted record, not the pydantic model.

A validated ``AutomationRule`` with its nested models costs about 3 KB; a home may hold ``MAX_RULES`` of them,
often the same rule many times. So a stored rule keeps only what is its own (id, name, history, run state) in
a ``StoredRule`` with ``__slots__``, and points at a ``RuleBody`` — trigger, conditions, actions and what is
derived from them (parsed cron, workflow steps, the event text) — shared by every rule with the same
trigger, conditions and actions (``RuleBodies``). The pydantic model is rebuilt, without re-validation, where a
caller asks for a rule (``StoredRule.to_model``): the API, the tools and the rules file see the same values.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from emulator.automations.cron import CronSchedule, parse_cron
from emulator.automations.crossings import Watch
from emulator.automations.model import ActionStep, AutomationRule, StateCondition, StateTrigger, TimeTrigger
from emulator.clock import Timer
from emulator.workflows import WorkflowStep

_BODY_FIELDS = {"trigger", "conditions", "actions"}


@dataclass(frozen=True, slots=True, weakref_slot=True, eq=False)
class RuleBody:
    """What rules with equal trigger, conditions and actions share (immutable; one object for all of them)."""

    trigger: TimeTrigger | StateTrigger
    conditions: tuple[StateCondition, ...]
    actions: tuple[ActionStep, ...]
    steps: tuple[WorkflowStep, ...]  # the actions as the home runs them
    action_data: list[dict[str, Any]]  # the steps as event data (each event copies the list)
    trigger_text: str
    schedule: CronSchedule | None  # a time trigger's parsed cron (parse_cron shares it per expression)

    @property
    def state_trigger(self) -> StateTrigger | None:
        return self.trigger if isinstance(self.trigger, StateTrigger) else None


class RuleBodies:
    """Hands out one ``RuleBody`` per distinct trigger + conditions + actions (kept while a rule uses it)."""

    __slots__ = ("_by_text",)

    def __init__(self) -> None:
        self._by_text: weakref.WeakValueDictionary[str, RuleBody] = weakref.WeakValueDictionary()

    def body_of(self, rule: AutomationRule) -> RuleBody:
        key = rule.model_dump_json(include=_BODY_FIELDS)  # equal JSON: equal values (1 ≠ 1.0 ≠ true here)
        body = self._by_text.get(key)
        if body is None:
            steps = rule.steps()
            trigger = rule.trigger
            body = RuleBody(
                trigger=trigger,
                conditions=tuple(rule.conditions),
                actions=tuple(rule.actions),
                steps=steps,
                action_data=[step.to_dict() for step in steps],
                trigger_text=trigger.describe(),
                schedule=parse_cron(trigger.cron) if isinstance(trigger, TimeTrigger) else None,
            )
            self._by_text[key] = body
        return body


@dataclass(slots=True, eq=False)
class StoredRule:
    """One rule as the engine keeps it: what is saved (identity, flag, history) and its run state."""

    id: str
    name: str
    created_at: str
    body: RuleBody
    order: int  # creation order: simultaneous firings run in it
    enabled: bool = True
    last_fired: str | None = None
    fire_count: int = 0
    # run state (not saved)
    cron_tick: int | None = None
    watch: Watch | None = None
    last: bool = False
    flip_timer: Timer | None = None
    hold_timer: Timer | None = None
    hold_due: int | None = None
    flip_due: int | None = None
    window_second: int = -1
    window_count: int = 0
    loop_cuts: int = 0
    dynamics: tuple[float, ...] | None = None  # the followed segment's map when the flip was planned

    @classmethod
    def of(cls, rule: AutomationRule, body: RuleBody, order: int) -> StoredRule:
        """The compact form of a validated rule whose trigger, conditions and actions are ``body``."""
        return cls(rule.id, rule.name, rule.created_at, body, order, rule.enabled, rule.last_fired, rule.fire_count)

    def to_model(self) -> AutomationRule:
        """The rule as the API shows and saves it (built from validated parts: no validation again)."""
        body = self.body
        return AutomationRule.model_construct(
            name=self.name,
            trigger=body.trigger,
            conditions=list(body.conditions),
            actions=list(body.actions),
            enabled=self.enabled,
            id=self.id,
            created_at=self.created_at,
            last_fired=self.last_fired,
            fire_count=self.fire_count,
        )
