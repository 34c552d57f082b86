"""The EmulatedHome: the one public way into an emulated home for tools, bridges and the benchmark.

A thin, typed front over owners with one job each and their own state, composed the way matter.js's
``ServerNode`` composes its behaviours:

* ``HomeDevices`` (emulator/home_devices.py) — the rooms and the devices (Matter nodes) with their endpoints;
* ``Timeline`` (emulator/timeline.py) — the paused virtual clock and its one event queue;
* ``PhysicsEngine`` + ``PhysicsHandoff`` (emulator/physics.py, physics_handoff.py) — room trajectories, and the
  sensor readings and device changes handed between devices and rooms;
* ``WorkflowBook`` (emulator/workflow_book.py) — scheduled workflows;
* ``HomeRules`` (emulator/automations/home_rules.py) — persistent automations, run by the rule engine through
  the narrow ``RuleHost`` view this class offers;
* ``EventReports`` (emulator/event_reports.py) — the event bus and sampled sensor reports;
* ``HomeSnapshots`` (emulator/home_snapshots.py) — snapshots, diffs and the home file.

Every call is serialised by one re-entrant lock, so asyncio tasks (and threads) may share a home.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Concatenate, ParamSpec, TypeVar

from emulator.automations.home_rules import HomeRules
from emulator.automations.model import StateCondition
from emulator.bindings import SwitchBindings, node_id_of
from emulator.clock import TIME_FORMAT
from emulator.cooker_hoods import COOKTOP, HOOD, CookerHoods
from emulator.device import Device, DeviceView
from emulator.device_readings import BuiltReadings
from emulator.errors import HomeError
from emulator.event_reports import LEFT_OUT, MIN_SAMPLE_INTERVAL_S, EventReports, LeftOut
from emulator.events import AutomationEvent, AutomationListener, Listener
from emulator.files import write_atomically
from emulator.home_config import DeviceConfig, HomeConfig, dump_home, load_home
from emulator.home_devices import HomeDevices, Room, parse_path
from emulator.home_results import InvokeResult, StepResult, WriteResult
from emulator.home_snapshots import HomeSnapshots
from emulator.physics import PhysicsEngine
from emulator.physics_handoff import PhysicsHandoff
from emulator.physics_terms import PhysicsParams
from emulator.room_frame import RoomsFrame
from emulator.timeline import Timeline
from emulator.workflow_book import WorkflowBook
from emulator.workflows import WorkflowStep

__all__ = ["MIN_SAMPLE_INTERVAL_S", "EmulatedHome", "Room", "parse_path"]

T = TypeVar("T")
P = ParamSpec("P")


def _locked(method: Callable[Concatenate[EmulatedHome, P], T]) -> Callable[Concatenate[EmulatedHome, P], T]:
    def wrapper(self: EmulatedHome, /, *args: P.args, **kwargs: P.kwargs) -> T:
        with self._lock:
            return method(self, *args, **kwargs)

    functools.update_wrapper(wrapper, method)
    return wrapper


def _forward(owner: str, method: Callable[Concatenate[Any, P], T]) -> Callable[Concatenate[EmulatedHome, P], T]:
    """A home method that is ``method`` of one of its owners (the attribute ``owner``), run under the home's lock."""

    def forwarded(self: EmulatedHome, /, *args: P.args, **kwargs: P.kwargs) -> T:
        with self._lock:
            return method(getattr(self, owner), *args, **kwargs)

    functools.update_wrapper(forwarded, method)
    return forwarded


class EmulatedHome:
    def __init__(
        self, config: HomeConfig, *, physics: PhysicsParams | None = None, sensor_report_interval_s: float = 10.0
    ) -> None:
        self._lock = threading.RLock()
        self.name = config.name
        self.seed = config.seed
        self.tier = config.tier
        self.extensions = dict(config.extensions)
        params = physics or PhysicsParams.model_validate(config.extensions.get("physics", {}))
        self._timeline = Timeline(datetime.strptime(config.base_time, TIME_FORMAT))
        self.clock = self._timeline.clock
        self._devices = HomeDevices()
        self._device_sinks = (self._on_device_change,)  # one bound method, in one tuple, for all its devices
        self._bindings = SwitchBindings(self._devices.devices)
        devices_in, validate_step = self._devices.devices_in, self._validate_step  # one bound method each, shared
        self._hoods = CookerHoods(self.clock, devices_in)
        self.physics = PhysicsEngine(self.clock, params, devices_in)
        self._handoff = PhysicsHandoff(self.physics)
        self._reports = EventReports(
            self.clock, self.physics, self._devices.rooms, self._lock, sensor_report_interval_s
        )
        self.bus = self._reports.bus
        self._rules = HomeRules(self, validate_step, self._check_condition)
        self._automations = self._rules.engine
        self._workflows = WorkflowBook(self._timeline, validate_step, self.apply)
        self._snapshots = HomeSnapshots(
            self.clock, self._devices, self.physics, self._workflows, self._rules, self.room_state
        )
        for room in config.rooms:
            self._devices.add_room(room)
            self.physics.add_room(
                room.id, room.environment.model_dump(), (room.baseline or room.environment).model_dump()
            )
        for device in config.devices:
            self._place(device)
        for room_id in self._devices.rooms:
            self.physics.start(room_id)
        self.physics.segment_listener = self._segment_began
        for rule in config.automations:
            self._rules.add_rule(rule.model_copy(deep=True))
        for workflow in config.workflows:
            self._workflows.restore(workflow)

    @classmethod
    def from_file(cls, path: str, **kwargs: Any) -> EmulatedHome:
        return cls(load_home(path), **kwargs)

    def _place(self, config: DeviceConfig) -> Device:
        device = self._devices.place(config, self.clock)
        self._handoff.bind(device, config.attributes)
        self._bindings.attach(device)
        device.add_sinks(self._device_sinks)
        if device.spec.name in (COOKTOP, HOOD):
            self._hoods.follow_room(device.room_id)
        return device

    def _on_device_change(
        self, device: Device, endpoint: int, cluster: str, attribute: str, old: Any, new: Any
    ) -> None:
        self._handoff.device_changed(device, endpoint, cluster, attribute)
        self._hoods.device_changed(device, cluster, attribute)
        self._automations.on_attribute(device.device_id, endpoint, cluster, attribute)
        if self.bus.has_listeners:
            self._reports.publish_change(device.device_id, endpoint, cluster, attribute, old, new)

    def _segment_began(self, room_id: str, variable: str) -> None:
        """A room's trajectory starts anew: its readings may move (sampling) and rules on it may fire."""
        self._reports.segment_began(room_id)
        self._automations.on_segment(room_id, variable)

    # ------------------------------------------------------------------------------ rooms and devices
    @_locked
    def rooms(self) -> list[Room]:
        return self._devices.sorted_rooms()

    @_locked
    def room(self, room_id: str) -> Room:
        return self._devices.room(room_id)

    @_locked
    def room_state(self, room_id: str, *, exact: bool = False) -> dict[str, float]:
        """Temperature (centi-°C), humidity (centi-%), illuminance (lux), pm10 (µg/m³) now."""
        self._devices.room(room_id)
        return self._handoff.room_state(room_id, exact=exact)

    @_locked
    def room_frame(self) -> RoomsFrame:
        """Every room's trajectories now (in ``rooms()`` order): ``.states()`` is each room's ``room_state`` at this
        tick, computed when first asked — a sample that may never be read costs a picture, not a computation."""
        rooms = (room.room_id for room in self._devices.sorted_rooms())
        return self.physics.pictures.frame(self.clock.tick, self.physics.sky(), self.physics.rooms, rooms)

    @_locked
    def set_room_state(self, room_id: str, variable: str, value: float, *, baseline: bool = False) -> None:
        """Scenario injection: put a room variable (or its baseline) at a value now."""
        self._devices.room(room_id)
        self._handoff.set_room_state(room_id, variable, value, baseline=baseline)

    @_locked
    def devices(self, room_id: str | None = None) -> list[DeviceView]:
        """The devices (of one room), sorted by id, as read-only views."""
        return [d.view for d in self._devices.sorted_devices(room_id)]

    @_locked
    def device(self, device_id: str) -> DeviceView:
        """One device as a read-only view (the home's own methods change it)."""
        return self._devices.device(device_id).view

    @_locked
    def describe_device(self, device_id: str) -> dict[str, Any]:
        """Endpoints → clusters → attributes (value, type, writable) and commands (with arguments)."""
        return self._devices.describe(device_id)

    @_locked
    def node_id(self, device_id: str) -> int:
        """The device's Matter node id in this home: what a Binding entry's ``node`` names (emulator/bindings.py)."""
        return node_id_of(self._devices.device(device_id).device_id)

    @_locked
    def bound_targets(self, device_id: str, cluster: str) -> list[tuple[str, int]]:
        """(device id, endpoint) of each device a switch's Binding list names for ``cluster``, in list order."""
        return self._bindings.targets(self._devices.device(device_id), cluster)

    @_locked
    def rename_device(self, device_id: str, name: str) -> None:
        """Give a device a new display name (a bridge's NodeLabel is the device's name); saved with the home."""
        self._devices.rename(device_id, name)

    @_locked
    def add_device(self, config: DeviceConfig) -> DeviceView:
        self._devices.check_new(config)
        device = self._place(config)
        self.physics.resegment(device.room_id)
        return device.view

    @_locked
    def remove_device(self, device_id: str) -> None:
        device = self._devices.remove(device_id)
        self._handoff.unbind(device)
        self._hoods.forget(device)

    # ------------------------------------------------------------------------------ data
    def read(self, device_id: str, endpoint: int, cluster: str, attribute: str) -> Any:
        with self._lock:
            _, server = self._devices.server(device_id, endpoint, cluster)
            try:
                return server.read(attribute)
            except HomeError as error:
                raise error.at(f"{device_id} {endpoint}.{cluster}") from None

    @_locked
    def read_path(self, device_id: str, path: str) -> Any:
        return self.read(device_id, *parse_path(path))

    @_locked
    def read_all(self, device_id: str) -> dict[str, Any]:
        """Flat map "<endpoint>.<Cluster>.<Attribute>" → value (SimuHome's get_all_attributes)."""
        return self._devices.read_all(device_id)

    def write(self, device_id: str, endpoint: int, cluster: str, attribute: str, value: Any) -> WriteResult:
        with self._lock:
            device, server = self._devices.server(device_id, endpoint, cluster)
            try:
                normalised = server.validate_write(attribute, value)
            except HomeError as error:
                raise error.at(f"{device_id} {endpoint}.{cluster}.{attribute}") from None
            device.check_power(endpoint, cluster, attribute=attribute)
            try:
                old, new = server.write_validated(attribute, normalised)
            except HomeError as error:
                raise error.at(f"{device_id} {endpoint}.{cluster}.{attribute}") from None
            return WriteResult(device_id, endpoint, cluster, attribute, old, new)

    def invoke(
        self, device_id: str, endpoint: int, cluster: str, command: str, args: Mapping[str, Any] | None = None
    ) -> InvokeResult:
        with self._lock:
            device, server = self._devices.server(device_id, endpoint, cluster)
            if args is not None and not isinstance(args, Mapping):
                raise HomeError(
                    "COMMAND_INVALID_ARGS",
                    f"arguments of {cluster}.{command} must be an object, got {type(args).__name__}",
                )
            try:
                normalised = server.validate_invoke(command, args)
            except HomeError as error:
                raise error.at(f"{device_id} {endpoint}.{cluster}.{command}") from None
            device.check_power(endpoint, cluster, command=command)
            try:
                response = server.invoke_validated(command, normalised)
            except HomeError as error:
                raise error.at(f"{device_id} {endpoint}.{cluster}.{command}") from None
            return InvokeResult(device_id, endpoint, cluster, command, response)

    def apply(self, step: WorkflowStep) -> StepResult:
        """Run one step now: ``invoke`` its command or ``write`` its attribute (what every dispatcher calls)."""
        if step.kind == "invoke":
            return self.invoke(step.device_id, step.endpoint, step.cluster, step.name, step.args)
        return self.write(step.device_id, step.endpoint, step.cluster, step.name, step.value)

    def _validate_step(self, step: WorkflowStep) -> None:
        _device, server = self._devices.server(step.device_id, step.endpoint, step.cluster)
        try:
            if step.kind == "invoke":
                server.validate_invoke(step.name, step.args)
            else:
                server.validate_write(step.name, step.value)
        except HomeError as error:
            raise error.at(f"{step.device_id} {step.endpoint}.{step.cluster}.{step.name}") from None

    # ------------------------------------------------------------------------------ time
    @property
    def tick(self) -> int:
        return self.clock.tick

    @_locked
    def now(self) -> datetime:
        return self.clock.now_datetime

    def time_text(self, tick: int, *, tenths: bool = False) -> str:
        """The virtual time of ``tick`` as "YYYY-MM-DD HH:MM:SS" (with ".d" tenths when asked)."""
        return self.clock.time_text(tick, tenths=tenths)

    @_locked
    def now_text(self) -> str:
        return self.clock.now_text()

    advance = _forward("_timeline", Timeline.advance)
    run_until = _forward("_timeline", Timeline.run_until)

    # ------------------------------------------------------------------------------ workflows
    schedule = _forward("_workflows", WorkflowBook.schedule)
    workflow = _forward("_workflows", WorkflowBook.workflow)
    workflows = _forward("_workflows", WorkflowBook.listed)
    cancel = _forward("_workflows", WorkflowBook.cancel)

    # ------------------------------------------------------------------------------ automations
    add_automation = _forward("_rules", HomeRules.add)
    add_replay_rule = _forward("_rules", HomeRules.add_replay_rule)
    replace_automations = _forward("_rules", HomeRules.replace)
    automations = _forward("_rules", HomeRules.listed)
    automation = _forward("_rules", HomeRules.rule)
    remove_automation = _forward("_rules", HomeRules.remove)
    enable_automation = _forward("_rules", HomeRules.enable)
    disable_automation = _forward("_rules", HomeRules.disable)
    next_automation_firing = _forward("_rules", HomeRules.next_firing)
    automation_status = _forward("_rules", HomeRules.status)
    automation_history = _forward("_rules", HomeRules.history)
    on_automations_changed = _forward("_rules", HomeRules.on_changed)

    def _check_condition(self, condition: StateCondition) -> None:
        if condition.room_id is not None:
            self._devices.room(condition.room_id)
        else:
            self.read_path(condition.device_id or "", condition.path or "")

    def physics_source(self, device_id: str, path: str) -> tuple[str, str] | None:
        """(room, variable) when an attribute is a reading derived from room physics ("compartment" for one
        fed by a device's own compartment), else None (a discrete attribute that changes by events)."""
        return self._handoff.source(self._devices.devices.get(device_id), path)

    def publish_automation(self, event: AutomationEvent) -> None:
        self.bus.publish_automation(event)

    @property
    def automation_firings(self) -> int:
        return self._automations.firings

    @_locked
    def subscribe_automations(self, listener: AutomationListener) -> Callable[[], None]:
        """Receive every rule firing (and skip, and loop cut) as an AutomationEvent."""
        return self.bus.subscribe_automations(listener)

    # ------------------------------------------------------------------------------ snapshots and events
    snapshot = _forward("_snapshots", HomeSnapshots.snapshot)

    diff = staticmethod(HomeSnapshots.diff)

    @_locked
    def to_config(self) -> HomeConfig:
        """The home as it is now, as a config (current environment, baselines, device state)."""
        return self._snapshots.to_config(self.name, self.seed, self.tier, self.extensions)

    @_locked
    def save(self, path: str) -> None:
        """Write the home as it is now to ``path`` atomically (it loads back into the same state)."""
        write_atomically(path, dump_home(self.to_config()))

    @_locked
    def subscribe(
        self, listener: Listener, *, sample_interval_s: float | LeftOut | None = LEFT_OUT
    ) -> Callable[[], None]:
        """Receive every attribute change. Sensor readings are reported at every segment boundary of the room
        physics (a device changed, a trajectory left its piece) and, while a room is still moving, sampled
        every ``sample_interval_s`` virtual seconds (default ``sensor_report_interval_s``; None: boundaries
        only; at least MIN_SAMPLE_INTERVAL_S). Rooms at rest are not sampled, so the cost of a subscriber
        grows with the events of the home, not with the virtual time that passes."""
        return self._reports.subscribe(listener, sample_interval_s)


def prepared_home(config: HomeConfig, built_readings: BuiltReadings) -> EmulatedHome:
    """A home built from a prepared ``config`` (one config, built again for each run of it, with the default
    arguments), sharing ``built_readings`` with the other homes built from it: a device nothing wrote to since its
    home was built is read once for them all (emulator/device_readings.py)."""
    home = EmulatedHome(config)
    home._snapshots.watch_built(built_readings)  # nothing ran in it since it was built
    return home
