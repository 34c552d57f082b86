"""Running rules on the home's clock: cron timers, state crossings planned in closed form, firing batches.

Time rules put their next firing instant on the event queue. State rules keep the truth value of their
comparison; a discrete attribute is re-checked when the device reports a change, a continuous one (a room
variable, a sensor fed by room physics, a compartment) is planned: a physics segment is monotone until
its room's next segment boundary, so the first tick at which the comparison flips is found by bisection
on the closed-form trajectory (reading the home "as of" a future tick), and a timer is set there. When a
segment restarts, the plan is redone. Cost grows with events, not ticks.

Firings due at one tick run as one batch in rule-creation order (deterministic whatever scheduled them).
A rule fires on the rising edge of its trigger (after ``for_s`` seconds of hold), only when its gating
conditions hold at that instant, and at most ``loop_limit`` times per virtual second (the excess is cut
and reported as a ``loop_cut`` event). Changes made while the clock is paused fire their rules at the
next advance (``advance(0)`` suffices), at the tick they happened. The change listeners (serve's rules
file) hear of a batch once, after its last firing.

Rules are kept in their compact form (``emulator/automations/stored.py``): a few hundred bytes per rule, the
trigger, conditions, actions and parsed cron shared by all rules that have equal ones.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from emulator.automations.crossings import CrossingPlanner, Watch
from emulator.automations.host import RuleHost
from emulator.automations.model import AutomationRule, StateCondition
from emulator.automations.stored import RuleBodies, StoredRule
from emulator.clock import TICKS_PER_SECOND, VirtualClock, seconds_to_ticks
from emulator.errors import HomeError
from emulator.events import AutomationEvent

LOOP_LIMIT_PER_SECOND = 10
HISTORY = 200


class _TimeTexts:
    """The time of a tick as text, formatted once for every rule firing (or created) then: one shared string."""

    __slots__ = ("_clock", "_last")

    def __init__(self, clock: VirtualClock) -> None:
        self._clock = clock
        self._last: tuple[int, str, str] = (-1, "", "")

    def _at(self, tick: int) -> tuple[int, str, str]:
        if self._last[0] != tick:
            tenths = self._clock.time_text(tick, tenths=True)
            self._last = (tick, tenths, tenths[:-2])
        return self._last

    def text_at(self, tick: int) -> str:
        """With tenths of a second ("YYYY-MM-DD HH:MM:SS.d"), as events show it."""
        return self._at(tick)[1]

    def seconds_text_at(self, tick: int) -> str:
        """Whole seconds, as every stored time."""
        return self._at(tick)[2]


class _Watchers:
    """Which state rules to re-check when a device attribute changes or a room's physics segment restarts."""

    __slots__ = ("by_attribute", "by_device", "by_room")

    def __init__(self) -> None:
        self.by_attribute: dict[tuple[str, int, str, str], set[str]] = {}
        self.by_device: dict[str, set[str]] = {}  # compartment-fed conditions: any change of the device
        self.by_room: dict[str, set[str]] = {}

    def index(self, rule_id: str, watch: Watch, condition: StateCondition, *, add: bool) -> None:
        keys: list[tuple[dict[Any, set[str]], Any]] = []
        if watch.room_id is not None:
            keys.append((self.by_room, watch.room_id))
        if condition.device_id is not None:
            endpoint, cluster, attribute = condition.path.split(".")  # type: ignore[union-attr]  # a device condition has its path
            keys.append((self.by_attribute, (condition.device_id, int(endpoint), cluster, attribute)))
            if watch.variable == "compartment":
                keys.append((self.by_device, condition.device_id))
        for index, key in keys:
            if add:
                index.setdefault(key, set()).add(rule_id)
            else:
                index.get(key, set()).discard(rule_id)

    def of_attribute(self, device_id: str, endpoint: int, cluster: str, attribute: str) -> Iterator[str]:
        """The rules comparing this attribute, then those fed by the device's compartments (each in id order)."""
        yield from _in_order(self.by_attribute.get((device_id, endpoint, cluster, attribute)))
        yield from _in_order(self.by_device.get(device_id))


class AutomationEngine:
    """The rules of one home, run through the narrow ``RuleHost`` view of it. The home calls ``on_attribute``
    and ``on_segment``; it owns the lock. Its history, rule bodies and watchers come with the first firing or rule
    (most homes have none)."""

    def __init__(self, host: RuleHost, *, loop_limit: int = LOOP_LIMIT_PER_SECOND) -> None:
        self.host = host
        self.clock = host.clock
        self.crossings = CrossingPlanner(host)
        self.loop_limit = loop_limit
        self.rules: dict[str, StoredRule] = {}  # in creation order
        self.firings = 0
        self._history: deque[AutomationEvent] | None = None  # the last HISTORY events, from the first
        self._bodies: RuleBodies | None = None  # from the first rule
        self._batches: dict[int, set[str]] = {}
        self._watching: _Watchers | None = None  # from the first rule
        self._order = 0
        self._counter = 0
        self.change_listeners: list[Callable[[], None]] = []
        self.dry_run = False  # record firings without running actions (trigger replays)
        self._next_cron: dict[str, int | None] = {}  # rules sharing a schedule plan once per tick: expression → tick
        self._next_cron_tick = -1  # the tick those plans were made at
        self._times = _TimeTexts(host.clock)  # a rule's firing time, formatted once a tick

    @property
    def history(self) -> Sequence[AutomationEvent]:
        """The last HISTORY events (firings, loop cuts), oldest first."""
        return () if self._history is None else self._history

    # ------------------------------------------------------------------------------ the rule set
    def new_id(self) -> str:
        self._counter += 1
        while f"auto-{self._counter:04d}" in self.rules:
            self._counter += 1
        return f"auto-{self._counter:04d}"

    def created_text(self) -> str:
        """Now as a rule's ``created_at`` (one string shared by the rules created in the same tick)."""
        return self._times.seconds_text_at(self.clock.tick)

    def add(self, rule: AutomationRule) -> None:
        """Keep a validated rule in its compact form (the model itself is not kept) and start it."""
        self._order += 1
        if self._bodies is None:
            self._bodies = RuleBodies()
        if self._watching is None:
            self._watching = _Watchers()
        stored = self.rules[rule.id] = StoredRule.of(rule, self._bodies.body_of(rule), self._order)
        trigger = stored.body.state_trigger
        if trigger is not None:
            stored.watch = self.crossings.watch_of(trigger.condition)
            self._watching.index(rule.id, stored.watch, trigger.condition, add=True)
        if stored.enabled:
            self._start(stored)

    def remove(self, rule_id: str) -> AutomationRule:
        rule = self.rules.pop(rule_id)
        self._stop(rule)
        trigger = rule.body.state_trigger
        if rule.watch is not None and trigger is not None and self._watching is not None:
            self._watching.index(rule_id, rule.watch, trigger.condition, add=False)
        self.notify_changed()
        return rule.to_model()

    def set_enabled(self, rule_id: str, enabled: bool) -> AutomationRule:
        rule = self.rules[rule_id]
        if rule.enabled != enabled:
            rule.enabled = enabled
            if enabled:
                self._start(rule)
            else:
                self._stop(rule)
            self.notify_changed()
        return rule.to_model()

    def next_firing_tick(self, rule_id: str) -> int | None:
        """When the rule is next due, as far as is known now (a state rule: its planned crossing)."""
        rule = self.rules[rule_id]
        if not rule.enabled:
            return None
        trigger = rule.body.state_trigger
        if trigger is None:
            return rule.cron_tick
        if rule.hold_due is not None:
            return rule.hold_due
        if rule.flip_due is not None and not rule.last:
            return rule.flip_due + seconds_to_ticks(trigger.condition.for_s)
        return None

    def loop_cuts(self, rule_id: str) -> int:
        return self.rules[rule_id].loop_cuts

    def notify_changed(self) -> None:
        """Tell the change listeners (e.g. the rules file writer) that the rules or their history changed."""
        for listener in list(self.change_listeners):
            listener()

    # ------------------------------------------------------------------------------ starting, stopping
    def _start(self, rule: StoredRule) -> None:
        trigger = rule.body.state_trigger
        if trigger is None:
            self._plan_cron(rule)
        else:
            # Fire on crossings only: a comparison already true when the rule starts is not an edge.
            rule.last = self.crossings.holds(trigger.condition)
            self._plan_flip(rule.id)

    def _stop(self, rule: StoredRule) -> None:
        rule.cron_tick = None
        for timer in (rule.flip_timer, rule.hold_timer):
            if timer is not None:
                timer.cancel()
        rule.flip_timer = rule.hold_timer = None
        rule.flip_due = rule.hold_due = None

    def _plan_cron(self, rule: StoredRule) -> None:
        schedule = rule.body.schedule
        assert schedule is not None  # a rule without a state trigger has a time trigger
        tick = self.clock.tick
        if self._next_cron_tick != tick:
            self._next_cron_tick, self._next_cron = tick, {}
        key = schedule.expression
        if key not in self._next_cron:
            following = schedule.next_after(self.clock.now_datetime)
            self._next_cron[key] = None if following is None else self.clock.tick_of(following)
        rule.cron_tick = self._next_cron[key]
        if rule.cron_tick is not None:
            self._enqueue(rule.id, rule.cron_tick)

    def _plan_flip(self, rule_id: str) -> None:
        rule = self.rules[rule_id]
        hint = rule.flip_due
        if rule.flip_timer is not None:
            rule.flip_timer.cancel()
        rule.flip_timer, rule.flip_due = None, None
        watch, trigger = rule.watch, rule.body.state_trigger
        if watch is None or watch.room_id is None or trigger is None or not rule.enabled:
            return
        rule.dynamics = self.crossings.dynamics(watch)
        found = self.crossings.next_flip(trigger.condition, watch, rule.last, hint)
        if found is not None:
            tick, real = found
            rule.flip_due = tick if real else None
            rule.flip_timer = self.clock.call_at_tick(tick, lambda: self._recheck(rule_id), f"rule {rule_id}")

    def _recheck(self, rule_id: str) -> None:
        """Re-read a state trigger now: handle an edge, then plan the next flip."""
        rule = self.rules.get(rule_id)
        trigger = None if rule is None else rule.body.state_trigger
        if rule is None or trigger is None or not rule.enabled:
            return
        condition = trigger.condition
        now = self.crossings.holds(condition)
        if now != rule.last:
            rule.last = now
            if now:
                self._rising(rule, condition)
            elif rule.hold_timer is not None:
                rule.hold_timer.cancel()
                rule.hold_timer, rule.hold_due = None, None
        self._plan_flip(rule_id)

    def _rising(self, rule: StoredRule, condition: StateCondition) -> None:
        rule_id = rule.id
        if not condition.for_s:
            self._enqueue(rule_id, self.clock.tick)
            return
        due = self.clock.tick + seconds_to_ticks(condition.for_s)
        rule.hold_due = due

        def held() -> None:
            rule.hold_timer, rule.hold_due = None, None
            if self.crossings.holds(condition):
                self._enqueue(rule_id, self.clock.tick)

        rule.hold_timer = self.clock.call_at_tick(due, held, f"rule {rule_id} hold")

    # ------------------------------------------------------------------------------ home hooks
    def on_attribute(self, device_id: str, endpoint: int, cluster: str, attribute: str) -> None:
        if self._watching is None:
            return  # no rule yet
        for rule_id in self._watching.of_attribute(device_id, endpoint, cluster, attribute):
            self._recheck(rule_id)

    def on_segment(self, room_id: str, variable: str) -> None:
        """A physics segment of ``variable`` in ``room_id`` restarted: re-plan the rules that follow it
        (unless the variable follows the same map as before, e.g. a light changed and the humidity did not
        care: its trajectory, and so the planned crossing, is unchanged)."""
        if self._watching is None:
            return  # no rule yet
        for rule_id in _in_order(self._watching.by_room.get(room_id)):
            rule = self.rules[rule_id]
            watch = rule.watch
            if watch is None or watch.variable not in (variable, "illuminance"):
                continue
            if (
                watch.variable == variable
                and rule.dynamics is not None
                and rule.dynamics == self.crossings.dynamics(watch)
            ):
                continue
            self._recheck(rule_id)

    # ------------------------------------------------------------------------------ firing
    def _enqueue(self, rule_id: str, tick: int) -> None:
        batch = self._batches.get(tick)
        if batch is None:
            batch = self._batches[tick] = set()
            self.clock.call_at_tick(tick, lambda: self._run_batch(tick), "automations")
        batch.add(rule_id)

    def _run_batch(self, tick: int) -> None:
        """Fire the rules due at ``tick`` in creation order; the change listeners (the rules file) hear of
        the batch once, after its last firing, before anything else runs."""
        due = self._batches.pop(tick, set())
        rules = self.rules
        second = tick // TICKS_PER_SECOND  # one int for every rule's loop window
        fired = 0
        for rule in sorted((rules[r] for r in due if r in rules), key=lambda r: r.order):
            if not rule.enabled or rules.get(rule.id) is not rule:
                continue  # disabled or removed since
            if rule.body.schedule is not None:
                if rule.cron_tick != tick:
                    continue  # a stale plan (the rule was disabled and re-enabled)
                fired += self._fire(rule, second)
                self._plan_cron(rule)
            else:
                fired += self._fire(rule, second)
        if fired:
            self.notify_changed()

    def _fire(self, rule: StoredRule, second: int) -> bool:
        """Run one due rule (or cut it, or skip it when its conditions fail); True when it fired."""
        body = rule.body
        tick = self.clock.tick
        if rule.window_second != second:
            rule.window_second, rule.window_count = second, 0
        actions = body.action_data
        if rule.window_count >= self.loop_limit:
            rule.loop_cuts += 1
            if rule.loop_cuts == 1 or rule.window_count == self.loop_limit:
                rule.window_count += 1  # report a cut once per second
                self._publish(
                    rule,
                    "loop_cut",
                    actions,
                    [],
                    {
                        "code": "LOOP_GUARD",
                        "message": f"rule {rule.id} fired {self.loop_limit} times in one virtual "
                        f"second; further firings in this second are cut",
                    },
                )
            return False
        failed = [c.describe() for c in body.conditions if not self.crossings.holds(c)]
        if failed:
            self._publish(rule, "skipped", actions, [], {"code": "CONDITIONS_NOT_MET", "message": "; ".join(failed)})
            return False
        rule.window_count += 1
        results: list[Any] = []
        error: dict[str, Any] | None = None
        for index, step in enumerate(() if self.dry_run else body.steps):
            try:
                results.append(self.host.apply(step).to_dict())
            except HomeError as failure:
                error = {"step": index, **failure.to_dict()}
                break
        time_text = self._times.text_at(tick)
        rule.last_fired = self._times.seconds_text_at(tick)  # whole seconds, as every stored time
        rule.fire_count += 1
        self.firings += 1
        self._publish(rule, "fired", actions, results, error, time_text)
        return True

    def _publish(
        self,
        rule: StoredRule,
        kind: str,
        actions: list[dict[str, Any]],
        results: list[Any],
        error: dict[str, Any] | None,
        time_text: str | None = None,
    ) -> None:
        tick = self.clock.tick
        event = AutomationEvent(
            rule.id,
            rule.name,
            kind,
            rule.body.trigger_text,
            list(actions),
            results,
            error,
            tick,
            time_text or self._times.text_at(tick),
        )
        if self._history is None:
            self._history = deque(maxlen=HISTORY)
        self._history.append(event)
        self.host.publish_automation(event)


def _in_order(rule_ids: set[str] | None) -> list[str] | set[str]:
    """Rule ids in a deterministic order (sorting only when there is more than one)."""
    if not rule_ids:
        return ()  # type: ignore[return-value]  # callers only iterate: the shared empty tuple, no allocation
    return sorted(rule_ids) if len(rule_ids) > 1 else rule_ids
