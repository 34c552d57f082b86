"""``RuleHost``: the narrow view of a home the rule engine works against (not the home itself)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from emulator.clock import VirtualClock
    from emulator.events import AutomationEvent
    from emulator.home_results import StepResult
    from emulator.physics import PhysicsEngine
    from emulator.workflows import WorkflowStep


class RuleHost(Protocol):
    """What rules need of a home: its clock and room physics (to plan crossings in closed form), reads of
    the compared values, steps run as actions, and a channel for the firings."""

    @property
    def clock(self) -> VirtualClock: ...

    @property
    def physics(self) -> PhysicsEngine: ...

    def read(self, device_id: str, endpoint: int, cluster: str, attribute: str) -> Any: ...

    def apply(self, step: WorkflowStep) -> StepResult: ...

    def physics_source(self, device_id: str, path: str) -> tuple[str, str] | None: ...

    def publish_automation(self, event: AutomationEvent) -> None: ...
