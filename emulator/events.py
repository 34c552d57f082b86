"""The event bus: every attribute change, with the virtual time it happened at."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class AttributeEvent:
    device_id: str
    endpoint: int
    cluster: str
    attribute: str
    old: Any
    new: Any
    tick: int  # virtual time in 0.1 s ticks since the base time
    time: str  # the same as "YYYY-MM-DD HH:MM:SS.d"

    @property
    def path(self) -> str:
        return f"{self.endpoint}.{self.cluster}.{self.attribute}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


Listener = Callable[[AttributeEvent], None]


class EventBus:
    __slots__ = ("_automation_listeners", "_listeners")

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._automation_listeners: list[Callable[[Any], None]] = []  # AutomationEvent, on their own channel

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    @property
    def has_listeners(self) -> bool:
        return bool(self._listeners)

    def publish(self, event: AttributeEvent) -> None:
        for listener in list(self._listeners):
            listener(event)

    # Rule firings travel on their own channel: attribute listeners (bridges) never see a foreign type.
    def subscribe_automations(self, listener: Callable[[Any], None]) -> Callable[[], None]:
        self._automation_listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._automation_listeners:
                self._automation_listeners.remove(listener)

        return unsubscribe

    def publish_automation(self, event: Any) -> None:
        for listener in list(self._automation_listeners):
            listener(event)


@dataclass(frozen=True)
class AutomationEvent:
    """A rule's firing (``kind="fired"``), a firing its conditions vetoed (``"skipped"``), or a loop cut."""

    rule_id: str
    name: str
    kind: str  # "fired" | "skipped" | "loop_cut"
    trigger: str  # the trigger, described
    actions: list[dict[str, Any]]
    results: list[Any]
    error: dict[str, Any] | None
    tick: int
    time: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


AutomationListener = Callable[[AutomationEvent], None]
