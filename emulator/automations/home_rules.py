"""The home's persistent automations: rules checked against the home when added, run by the rule engine."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from emulator.automations.cron import parse_cron
from emulator.automations.engine import AutomationEngine
from emulator.automations.host import RuleHost
from emulator.automations.model import MAX_RULES, AutomationRule, AutomationSpec, StateCondition
from emulator.errors import HomeError
from emulator.home_config import validation_problems
from emulator.workflows import WorkflowStep


class HomeRules:
    """Owns the rule set (through its engine): adding with every device, attribute, room and step checked,
    replacing, enabling, and what the tools and the dashboard show of a rule."""

    __slots__ = ("_check_condition", "_host", "_validate_step", "engine")  # one per home: no instance dict

    def __init__(
        self,
        host: RuleHost,
        validate_step: Callable[[WorkflowStep], None],
        check_condition: Callable[[StateCondition], None],
    ) -> None:
        self.engine = AutomationEngine(host)
        self._host = host
        self._validate_step = validate_step
        self._check_condition = check_condition

    def add(self, spec: AutomationSpec | Mapping[str, Any]) -> AutomationRule:
        """Create a rule (time, state or time-and-state); every device, attribute, room and step is checked now."""
        try:
            # A caller's model is copied: the stored rule shares no mutable part (an action's args) with it.
            spec = (
                spec.model_copy(deep=True) if isinstance(spec, AutomationSpec) else AutomationSpec.model_validate(spec)
            )
        except ValidationError as error:
            problems = "; ".join(
                f"{path}: {message}" if path else message for path, message in validation_problems(error)
            )
            raise HomeError("VALIDATION_ERROR", f"invalid automation: {problems}") from None
        trigger_conditions = [("trigger.condition", spec.trigger.condition)] if spec.trigger.kind == "state" else []
        for where, condition in trigger_conditions + [(f"conditions[{i}]", c) for i, c in enumerate(spec.conditions)]:
            try:
                self._check_condition(condition)
            except HomeError as error:
                raise error.at(where) from None
        for index, action in enumerate(spec.actions):
            try:
                self._validate_step(action.to_workflow_step())
            except HomeError as error:
                raise error.at(f"actions[{index}]") from None
        self._check_rule_can_run(spec)
        fields = {name: getattr(spec, name) for name in AutomationSpec.model_fields}  # not a stored rule's history
        # Validated above: the stored rule is assembled from the checked parts, not validated a second time.
        rule = AutomationRule.model_construct(**fields, id=self.engine.new_id(), created_at=self.engine.created_text())
        self.add_rule(rule)
        self.engine.notify_changed()
        return self.rule(rule.id)

    def _check_rule_can_run(self, spec: AutomationSpec) -> None:
        """A new rule is refused when the home already holds MAX_RULES, or when its schedule has no firing left."""
        if len(self.engine.rules) >= MAX_RULES:
            raise HomeError(
                "VALIDATION_ERROR",
                f"this home already has {MAX_RULES} automations, the limit; remove one before adding another",
            )
        clock = self._host.clock
        if spec.trigger.kind == "time" and parse_cron(spec.trigger.cron).next_after(clock.now_datetime) is None:
            raise HomeError(
                "VALIDATION_ERROR",
                f"trigger.cron {spec.trigger.cron!r} never fires after now "
                f"({clock.now_text()}); give a schedule with a firing still to come",
            )

    def add_replay_rule(self, rule: AutomationRule) -> None:
        """Add a stored rule to a throwaway copy of a home to watch its trigger: from now on every rule of this
        home records its firings (events, history) but runs no actions."""
        self.engine.dry_run = True
        self.add_rule(rule)

    def add_rule(self, rule: AutomationRule) -> None:
        if rule.id in self.engine.rules:
            raise HomeError("AUTOMATION_ALREADY_EXISTS", f"automation {rule.id!r} already exists")
        self.engine.add(rule)

    def replace(self, rules: Iterable[AutomationRule]) -> None:
        """Put exactly these stored rules in place (ids, history and enabled flags kept), e.g. after a restart."""
        rules = [rule.model_copy(deep=True) for rule in rules]
        ids = [rule.id for rule in rules]
        if len(set(ids)) != len(ids):
            raise HomeError("VALIDATION_ERROR", f"duplicate automation ids in {ids}")
        for rule_id in list(self.engine.rules):
            self.engine.remove(rule_id)
        for rule in rules:
            self.add_rule(rule)
        self.engine.notify_changed()

    def listed(self) -> list[AutomationRule]:
        """Every rule, in creation order (the order simultaneous firings run in)."""
        return [rule.to_model() for rule in self.engine.rules.values()]

    def rule(self, rule_id: str) -> AutomationRule:
        """The rule as it is now (a copy: changing it changes nothing in the home)."""
        rule = self.engine.rules.get(rule_id) if isinstance(rule_id, str) else None
        if rule is None:
            raise HomeError("AUTOMATION_NOT_FOUND", f"no automation {rule_id!r}", allowed=sorted(self.engine.rules))
        return rule.to_model()

    def remove(self, rule_id: str) -> AutomationRule:
        self.rule(rule_id)
        return self.engine.remove(rule_id)

    def enable(self, rule_id: str) -> AutomationRule:
        self.rule(rule_id)
        return self.engine.set_enabled(rule_id, True)

    def disable(self, rule_id: str) -> AutomationRule:
        self.rule(rule_id)
        return self.engine.set_enabled(rule_id, False)

    def next_firing(self, rule_id: str) -> str | None:
        """When the rule is next due as known now ("YYYY-MM-DD HH:MM:SS.d"), None when nothing is planned."""
        self.rule(rule_id)
        tick = self.engine.next_firing_tick(rule_id)
        return None if tick is None else self._host.clock.time_text(tick, tenths=True)

    def status(self, rule_id: str) -> dict[str, Any]:
        """The rule as JSON plus its kind, next firing and loop cuts (what the tools and the dashboard show)."""
        rule = self.rule(rule_id)
        return {
            **rule.model_dump(mode="json"),
            "kind": rule.kind(),
            "next_firing": self.next_firing(rule_id),
            "loop_cuts": self.engine.loop_cuts(rule_id),
        }

    def history(self) -> list[dict[str, Any]]:
        """The latest firings, skips and loop cuts (oldest first, at most 200)."""
        return [event.to_dict() for event in self.engine.history]

    def on_changed(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` after a rule is added, removed, enabled, disabled or fires (e.g. to save them)."""
        self.engine.change_listeners.append(callback)
        return lambda: self.engine.change_listeners.remove(callback)
