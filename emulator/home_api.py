"""``HomeAPI``: the home the agent tools, the MCP server and the benchmark's home views work against.

Two implementations: ``emulator.emulated_home.EmulatedHome`` (the emulated home) and
``agent_tools.matter_backend.MatterHome`` (nodes commissioned to python-matter-server). The Protocol holds
exactly the methods those callers use, so a third backend knows what to provide; ``AutomationHost`` adds
the persistent rules only the emulated home keeps. Both are ``runtime_checkable`` (a member check, as
``tests/emulator/test_home_api.py`` does against both classes).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from emulator.home_results import InvokeResult, StepResult, WriteResult
from emulator.workflows import Workflow, WorkflowStep

if TYPE_CHECKING:
    from emulator.automations.model import AutomationRule, AutomationSpec
    from emulator.home_config import DeviceConfig


class RoomInfo(Protocol):
    """What a home says about a room (read-only)."""

    @property
    def room_id(self) -> str: ...

    @property
    def name(self) -> str: ...


class DeviceInfo(Protocol):
    """What a home says about a device (read-only)."""

    @property
    def device_id(self) -> str: ...

    @property
    def device_type(self) -> str: ...

    @property
    def room_id(self) -> str: ...

    @property
    def name(self) -> str | None: ...


@runtime_checkable
class HomeAPI(Protocol):
    """Rooms, devices, reads, steps (invoke / write, typed results whose ``to_dict`` is the JSON), time and
    scheduled workflows."""

    name: str

    # rooms and devices
    def rooms(self) -> Iterable[RoomInfo]: ...

    def room(self, room_id: str) -> RoomInfo: ...

    def room_state(self, room_id: str, *, exact: bool = False) -> Mapping[str, Any]: ...

    def devices(self, room_id: str | None = None) -> Iterable[DeviceInfo]: ...

    def device(self, device_id: str) -> DeviceInfo: ...

    def describe_device(self, device_id: str) -> dict[str, Any]: ...

    def node_id(self, device_id: str) -> int: ...  # its Matter node id: what a Binding entry's ``node`` names

    # data
    def read(self, device_id: str, endpoint: int, cluster: str, attribute: str) -> Any: ...

    def read_path(self, device_id: str, path: str) -> Any: ...

    def read_all(self, device_id: str) -> dict[str, Any]: ...

    def write(self, device_id: str, endpoint: int, cluster: str, attribute: str, value: Any) -> WriteResult: ...

    def invoke(
        self, device_id: str, endpoint: int, cluster: str, command: str, args: Mapping[str, Any] | None = None
    ) -> InvokeResult: ...

    def apply(self, step: WorkflowStep) -> StepResult: ...

    # time and workflows
    def now(self) -> datetime: ...

    def now_text(self) -> str: ...

    def advance(self, seconds: float) -> Any: ...

    def schedule(self, start: Any, steps: Iterable[WorkflowStep], description: str = "") -> Workflow: ...

    def workflow(self, workflow_id: str) -> Workflow: ...

    def workflows(self, status: str | None = None) -> list[Workflow]: ...

    def cancel(self, workflow_id: str) -> Workflow: ...

    # the admin tools (a backend that cannot do them refuses with NOT_SUPPORTED)
    def snapshot(self) -> dict[str, Any]: ...

    def add_device(self, config: DeviceConfig) -> DeviceInfo: ...

    def remove_device(self, device_id: str) -> None: ...


@runtime_checkable
class AutomationHost(Protocol):
    """A home that keeps persistent rules (the emulated one; a Matter controller's view does not)."""

    def add_automation(self, spec: AutomationSpec | Mapping[str, Any]) -> AutomationRule: ...

    def automations(self) -> list[AutomationRule]: ...

    def automation_status(self, rule_id: str) -> dict[str, Any]: ...

    def remove_automation(self, rule_id: str) -> AutomationRule: ...
