"""The EmulatedHome: the one public way into an emulated home for tools, bridges and the benchmark.

Rooms with environment physics, devices (Matter nodes) in rooms, a paused virtual clock with one
event queue, scheduled workflows, snapshots and diffs, and an event bus of attribute changes.
Every call is serialised by one re-entrant lock, so asyncio tasks (and threads) may share a fabric.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, TypeVar

from clusters import ClusterError, ClusterServer
from emulator.automations.cron import parse_cron
from emulator.automations.engine import AutomationEngine
from emulator.automations.model import MAX_RULES, AutomationRule, AutomationSpec
from emulator.catalogue import device_type_spec
from emulator.clock import TICKS_PER_SECOND, TIME_FORMAT, Timer, VirtualClock, seconds_to_ticks
from emulator.device import Device, DeviceView, initial_node_label
from emulator.errors import HomeError
from emulator.events import AttributeEvent, AutomationListener, EventBus, Listener
from emulator.home_config import (
    DeviceConfig,
    EnvironmentState,
    HomeConfig,
    RoomConfig,
    WorkflowConfig,
)
from emulator.physics import ENVIRONMENT_KEYS, PhysicsEngine, PhysicsParams
from emulator.power_draw import apply_power_draw, drives_power
from emulator.workflows import STATUSES, Workflow, WorkflowStep

T = TypeVar("T")
PATH_PARTS = 3
MIN_SAMPLE_INTERVAL_S = 1.0  # a subscriber's sampling cadence is bounded: at most one sample a virtual second


class _Default:
    """Marks an argument left out (None means something else)."""


_DEFAULT = _Default()


def _locked(method: Callable[..., T]) -> Callable[..., T]:
    @functools.wraps(method)
    def wrapper(self: EmulatedHome, *args: Any, **kwargs: Any) -> T:
        with self._lock:
            return method(self, *args, **kwargs)

    return wrapper


@dataclass(frozen=True)
class Room:
    room_id: str
    name: str
    type: str
    floor: int
    parent: str | None


def parse_path(path: str) -> tuple[int, str, str]:
    """"1.OnOff.OnOff" → (1, "OnOff", "OnOff"), with a clear error for anything else."""
    parts = path.split(".") if isinstance(path, str) else []
    if len(parts) != PATH_PARTS or not parts[0].lstrip("-").isdigit():
        raise HomeError("INVALID_ARGUMENT", f"attribute path {path!r} is not '<endpoint>.<Cluster>.<Attribute>'",
                          allowed="e.g. '1.OnOff.OnOff'")
    return int(parts[0]), parts[1], parts[2]


def round_state(value: float) -> float:
    return round(value, 2) + 0.0  # + 0.0 turns -0.0 into 0.0


class EmulatedHome:
    def __init__(self, config: HomeConfig, *, physics: PhysicsParams | None = None,
                 sensor_report_interval_s: float = 10.0) -> None:
        self._lock = threading.RLock()
        self.name = config.name
        self.seed = config.seed
        self.tier = config.tier
        self.extensions = dict(config.extensions)
        params = physics or PhysicsParams.model_validate(config.extensions.get("physics", {}))
        base = datetime.strptime(config.base_time, TIME_FORMAT)
        self.clock = VirtualClock(base)
        self.bus = EventBus()
        self.physics = PhysicsEngine(self.clock, params, self._devices_in)
        self._automations = AutomationEngine(self)
        self.sensor_report_interval_s = sensor_report_interval_s
        self._rooms: dict[str, Room] = {}
        self._devices: dict[str, Device] = {}
        self._by_room: dict[str, list[Device]] = {}
        self._workflows: dict[str, Workflow] = {}
        self._workflow_counter = 0
        self._sampler: Timer | None = None  # the one pending wake-up of sensor sampling
        self._report_due: dict[str, int | None] = {}  # moving room → its next reportable change (None: boundary)
        self._sample_intervals: dict[int, float] = {}  # subscription → the sampling cadence it asked for
        self._moving_rooms: set[str] = set()  # rooms whose readings may still change (sampled)
        self._room_generation: dict[str, int] = {}  # segments begun per room (a final report checks it)
        self._subscriptions = 0
        for room in config.rooms:
            self._add_room(room)
        for device in config.devices:
            self._place(device)
        for room_id in self._rooms:
            self.physics.start(room_id)
        self.physics.segment_listener = self._segment_began
        self._moving_rooms.update(self._rooms)  # every room's first segment began above: it may still move
        for rule in config.automations:
            self._add_rule(rule.model_copy(deep=True))
        for workflow in config.workflows:
            self._restore_workflow(workflow)

    # ------------------------------------------------------------------------------ construction
    @classmethod
    def from_file(cls, path: str, **kwargs: Any) -> EmulatedHome:
        from emulator.home_config import load_home

        return cls(load_home(path), **kwargs)

    def _devices_in(self, room_id: str) -> list[Device]:
        return self._by_room.get(room_id, [])

    def _add_room(self, room: RoomConfig) -> None:
        self._rooms[room.id] = Room(room.id, room.name, room.type, room.floor, room.parent)
        self._by_room[room.id] = []
        environment = room.environment.model_dump()
        baseline = (room.baseline or room.environment).model_dump()
        self.physics.add_room(room.id, environment, baseline)

    def _place(self, config: DeviceConfig) -> Device:
        try:
            spec = device_type_spec(config.type)
        except KeyError as error:
            raise HomeError("UNKNOWN_DEVICE_TYPE", str(error.args[0])) from None
        device = Device(config.id, spec, config.room, config.name)
        for path, value in sorted(config.attributes.items()):
            endpoint, cluster, attribute = parse_path(path)
            server = device.cluster(endpoint, cluster)
            try:
                server.restore(attribute, value)
            except ClusterError as error:
                raise HomeError.from_cluster(error, f"device {config.id!r} attribute {path}") from None
        device.attach(self.clock)
        if self.physics.params.power_follows_mode:
            apply_power_draw(device)  # a stored or default ActivePower must match the stored mode
        self._devices[device.device_id] = device
        self._by_room[device.room_id].append(device)
        self._bind_sensors(device, config.attributes)
        device.add_sink(self._on_device_change)
        return device

    def _bind_sensors(self, device: Device, stored: Mapping[str, Any]) -> None:
        room_id = device.room_id
        physics = self.physics
        compartments = {ep for role, ep in device.spec.roles if role == "compartment"}
        for ep_id, endpoint in device.endpoints.items():
            for name, server in endpoint.clusters.items():
                if ep_id in compartments and name in ("TemperatureMeasurement", "Thermostat"):
                    attribute = "MeasuredValue" if name == "TemperatureMeasurement" else "LocalTemperature"
                    physics.start_compartment(device, ep_id, stored.get(f"{ep_id}.{name}.{attribute}"))
                    physics.bind_sensor(room_id, server, attribute, functools.partial(
                        _int_reading, lambda d=device, e=ep_id: physics.compartment_value(d, e), server, attribute),
                        compartment=True)
                    continue
                binding = _ROOM_SENSORS.get((name, _sensor_attribute(name)))
                if binding is not None and server.has_attribute(_sensor_attribute(name)):
                    variable, convert = binding
                    attribute = _sensor_attribute(name)
                    physics.bind_sensor(room_id, server, attribute, functools.partial(
                        convert, lambda r=room_id, v=variable: physics.value(r, v), server), variable=variable)

    def _on_device_change(self, device: Device, endpoint: int, cluster: str, attribute: str,
                          old: Any, new: Any) -> None:
        self.physics.device_changed(device, cluster, attribute)
        if self.physics.params.power_follows_mode and drives_power(device, endpoint, cluster, attribute):
            apply_power_draw(device)
        self._automations.on_attribute(device.device_id, endpoint, cluster, attribute)
        if self.bus.has_listeners:
            tick = self.clock.tick
            self.bus.publish(AttributeEvent(device.device_id, endpoint, cluster, attribute, old, new, tick,
                                            self.time_text(tick, tenths=True)))

    # ------------------------------------------------------------------------------ rooms
    @_locked
    def rooms(self) -> list[Room]:
        return sorted(self._rooms.values(), key=lambda r: r.room_id)

    @_locked
    def room(self, room_id: str) -> Room:
        room = self._rooms.get(room_id)
        if room is None:
            raise HomeError("ROOM_NOT_FOUND", f"no room {room_id!r}", allowed=sorted(self._rooms))
        return room

    @_locked
    def room_state(self, room_id: str, *, exact: bool = False) -> dict[str, float]:
        """Temperature (centi-°C), humidity (centi-%), illuminance (lux), pm10 (µg/m³) now."""
        self.room(room_id)
        state = self.physics.state(room_id)
        return state if exact else {k: round_state(v) for k, v in state.items()}

    @_locked
    def set_room_state(self, room_id: str, variable: str, value: float, *, baseline: bool = False) -> None:
        """Scenario injection: put a room variable (or its baseline) at a value now."""
        self.room(room_id)
        if variable not in ENVIRONMENT_KEYS:
            raise HomeError("INVALID_ARGUMENT", f"unknown room variable {variable!r}", allowed=list(ENVIRONMENT_KEYS))
        if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
            raise HomeError("INVALID_ARGUMENT", f"{variable} must be a finite number, got {value!r}")
        if baseline:
            self.physics.set_baseline(room_id, variable, value)
        else:
            self.physics.set_value(room_id, variable, value)

    # ------------------------------------------------------------------------------ devices
    @_locked
    def devices(self, room_id: str | None = None) -> list[DeviceView]:
        """The devices (of one room), sorted by id, as read-only views."""
        if room_id is not None:
            self.room(room_id)
            return [d.view for d in sorted(self._by_room[room_id], key=lambda d: d.device_id)]
        return [d.view for d in sorted(self._devices.values(), key=lambda d: d.device_id)]

    @_locked
    def device(self, device_id: str) -> DeviceView:
        """One device as a read-only view (the fabric's own methods change it)."""
        return self._device(device_id).view

    def _device(self, device_id: str) -> Device:
        device = self._devices.get(device_id) if isinstance(device_id, str) else None
        if device is None:
            raise HomeError("DEVICE_NOT_FOUND", f"no device {device_id!r}",
                              allowed=_nearby(device_id, self._devices))
        return device

    @_locked
    def describe_device(self, device_id: str) -> dict[str, Any]:
        """Endpoints → clusters → attributes (value, type, writable) and commands (with arguments)."""
        device = self._device(device_id)
        endpoints: dict[str, Any] = {}
        for ep_id, endpoint in sorted(device.endpoints.items()):
            clusters: dict[str, Any] = {}
            for name, server in endpoint.clusters.items():
                clusters[name] = _describe_cluster(server)
            endpoints[str(ep_id)] = {"device_types": [{"device_type": d, "revision": r} for d, r in
                                                      endpoint.device_types], "clusters": clusters}
        return {"device_id": device.device_id, "device_type": device.device_type, "room_id": device.room_id,
                "name": device.name, "endpoints": endpoints}

    @_locked
    def rename_device(self, device_id: str, name: str) -> None:
        """Give a device a new display name (a bridge's NodeLabel is the device's name); saved with the home."""
        device = self._device(device_id)
        if not isinstance(name, str):
            raise HomeError("INVALID_ARGUMENT", f"a device name must be text, got {type(name).__name__}")
        device.name = name

    @_locked
    def add_device(self, config: DeviceConfig) -> DeviceView:
        if config.id in self._devices:
            raise HomeError("DEVICE_ALREADY_EXISTS", f"device {config.id!r} already exists")
        self.room(config.room)
        device = self._place(config)
        self.physics.resegment(device.room_id)
        return device.view

    @_locked
    def remove_device(self, device_id: str) -> None:
        device = self._device(device_id)
        del self._devices[device_id]
        self._by_room[device.room_id].remove(device)
        servers = {id(s) for ep in device.endpoints.values() for s in ep.clusters.values()}
        self.physics.unbind_sensors(device.room_id, servers)
        device.clear_sinks()
        self.physics.resegment(device.room_id)

    # ------------------------------------------------------------------------------ data
    def _server(self, device_id: str, endpoint: int, cluster: str) -> tuple[Device, ClusterServer]:
        device = self._device(device_id)
        return device, device.cluster(endpoint, cluster)

    @_locked
    def read(self, device_id: str, endpoint: int, cluster: str, attribute: str) -> Any:
        _, server = self._server(device_id, endpoint, cluster)
        try:
            return server.read(attribute)
        except ClusterError as error:
            raise HomeError.from_cluster(error, f"{device_id} {endpoint}.{cluster}") from None

    @_locked
    def read_path(self, device_id: str, path: str) -> Any:
        return self.read(device_id, *parse_path(path))

    @_locked
    def read_all(self, device_id: str) -> dict[str, Any]:
        """Flat map "<endpoint>.<Cluster>.<Attribute>" → value (SimuHome's get_all_attributes)."""
        device = self._device(device_id)
        return {f"{ep}.{cl}.{at}": device.endpoints[ep].clusters[cl].read(at) for ep, cl, at in device.paths()}

    @_locked
    def write(self, device_id: str, endpoint: int, cluster: str, attribute: str, value: Any) -> dict[str, Any]:
        device, server = self._server(device_id, endpoint, cluster)
        where = f"{device_id} {endpoint}.{cluster}.{attribute}"
        try:
            normalised = server.validate_write(attribute, value)
            device.check_power(endpoint, cluster, attribute=attribute)
            old, new = server.write_validated(attribute, normalised)
        except ClusterError as error:
            raise HomeError.from_cluster(error, where) from None
        return {"device_id": device_id, "endpoint": endpoint, "cluster": cluster, "attribute": attribute,
                "old_value": old, "new_value": new}

    @_locked
    def invoke(self, device_id: str, endpoint: int, cluster: str, command: str,
               args: Mapping[str, Any] | None = None) -> dict[str, Any]:
        device, server = self._server(device_id, endpoint, cluster)
        if args is not None and not isinstance(args, Mapping):
            raise HomeError("COMMAND_INVALID_ARGS", f"arguments of {cluster}.{command} must be an object, "
                              f"got {type(args).__name__}")
        where = f"{device_id} {endpoint}.{cluster}.{command}"
        try:
            normalised = server.validate_invoke(command, args)
            device.check_power(endpoint, cluster, command=command)
            response = server.invoke_validated(command, normalised)
        except ClusterError as error:
            raise HomeError.from_cluster(error, where) from None
        return {"device_id": device_id, "endpoint": endpoint, "cluster": cluster, "command": command,
                "response": response}

    @_locked
    def apply(self, step: WorkflowStep) -> dict[str, Any]:
        """Run one step now: ``invoke`` its command or ``write`` its attribute (what every dispatcher calls)."""
        if step.kind == "invoke":
            return self.invoke(step.device_id, step.endpoint, step.cluster, step.name, step.args)
        return self.write(step.device_id, step.endpoint, step.cluster, step.name, step.value)

    # ------------------------------------------------------------------------------ time
    @property
    def tick(self) -> int:
        return self.clock.tick

    @_locked
    def now(self) -> datetime:
        return self.clock.now_datetime

    def time_text(self, tick: int, *, tenths: bool = False) -> str:
        """The virtual time of ``tick`` as "YYYY-MM-DD HH:MM:SS" (with ".d" tenths when asked)."""
        text = self.clock.datetime_at(tick).strftime(TIME_FORMAT)
        return f"{text}.{tick % TICKS_PER_SECOND}" if tenths else text

    @_locked
    def now_text(self) -> str:
        return self.clock.now_text()

    @_locked
    def advance(self, seconds: float) -> int:
        """Move virtual time forward; every timer due on the way runs. Returns events run."""
        if not isinstance(seconds, int | float) or isinstance(seconds, bool) or not math.isfinite(seconds) \
                or seconds < 0:
            raise HomeError("INVALID_ARGUMENT", f"seconds must be a finite number >= 0, got {seconds!r}")
        return self.clock.advance_to(self.clock.tick + seconds_to_ticks(seconds))

    @_locked
    def run_until(self, when: datetime | str | int) -> int:
        """Advance to an absolute time: a datetime, "YYYY-MM-DD HH:MM:SS", or a tick number."""
        tick = self._to_tick(when)
        if tick < self.clock.tick:
            raise HomeError("INVALID_ARGUMENT", f"{when!r} is in the past (now {self.clock.now_text()})")
        return self.clock.advance_to(tick)

    def _to_tick(self, when: datetime | str | int) -> int:
        if isinstance(when, bool):
            raise HomeError("INVALID_ARGUMENT", f"not a time: {when!r}")
        if isinstance(when, int):
            return when
        if isinstance(when, str):
            try:
                when = datetime.strptime(when, TIME_FORMAT)
            except ValueError:
                raise HomeError("INVALID_ARGUMENT", f"time {when!r} is not 'YYYY-MM-DD HH:MM:SS'") from None
        if isinstance(when, datetime):
            return self.clock.tick_of(when)
        raise HomeError("INVALID_ARGUMENT", f"not a time: {when!r}")

    # ------------------------------------------------------------------------------ workflows
    def _validate_step(self, step: WorkflowStep) -> None:
        _device, server = self._server(step.device_id, step.endpoint, step.cluster)
        where = f"{step.device_id} {step.endpoint}.{step.cluster}.{step.name}"
        try:
            if step.kind == "invoke":
                server.validate_invoke(step.name, step.args)
            else:
                server.validate_write(step.name, step.value)
        except ClusterError as error:
            raise HomeError.from_cluster(error, where) from None

    @_locked
    def schedule(self, start: datetime | str | int, steps: Iterable[WorkflowStep], description: str = "") -> Workflow:
        """Schedule steps at an absolute future time; every step is validated now."""
        steps = tuple(steps)
        if not steps:
            raise HomeError("VALIDATION_ERROR", "a workflow needs at least one step")
        tick = self._to_tick(start)
        if tick <= self.clock.tick:
            raise HomeError("VALIDATION_ERROR", f"start time {self.time_text(tick)} is not in the future "
                              f"(now {self.clock.now_text()})")
        for index, step in enumerate(steps):
            try:
                self._validate_step(step)
            except HomeError as error:
                raise HomeError(error.code, f"step {index}: {error.message}", status=error.status,
                                  allowed=error.allowed) from None
        self._workflow_counter += 1
        workflow = Workflow(f"wf-{self._workflow_counter:04d}", description, tick, self.time_text(tick), steps)
        workflow.timer = self.clock.call_at_tick(tick, lambda: self._run_workflow(workflow), workflow.workflow_id)
        self._workflows[workflow.workflow_id] = workflow
        return workflow

    def _run_workflow(self, workflow: Workflow) -> None:
        if workflow.status != "pending":
            return
        workflow.status = "running"
        for index, step in enumerate(workflow.steps):
            workflow.current_step = index
            try:
                result = self.apply(step)
            except HomeError as error:
                workflow.status = "failed"
                workflow.error = {"step": index, **error.to_dict()}
                return
            workflow.results.append(result)
        workflow.status = "completed"

    def _restore_workflow(self, config: WorkflowConfig) -> None:
        steps = tuple(replace(s, args=dict(s.args)) for s in config.steps)  # a step's args are not shared
        tick = self._to_tick(config.start_time)
        workflow = Workflow(config.id, config.description, tick, config.start_time, steps, config.status,
                            config.current_step, config.error, list(config.results))
        if workflow.status == "running":  # saved mid-way: it starts again from its first step
            workflow.status, workflow.current_step, workflow.results = "pending", 0, []
        if workflow.status == "pending":
            workflow.timer = self.clock.call_at_tick(max(tick, self.clock.tick), lambda: self._run_workflow(workflow),
                                                     workflow.workflow_id)
        self._workflows[workflow.workflow_id] = workflow
        number = config.id.rsplit("-", 1)[-1]
        if number.isdigit():
            self._workflow_counter = max(self._workflow_counter, int(number))

    @_locked
    def workflow(self, workflow_id: str) -> Workflow:
        workflow = self._workflows.get(workflow_id)
        if workflow is None:
            raise HomeError("WORKFLOW_NOT_FOUND", f"no workflow {workflow_id!r}", allowed=sorted(self._workflows))
        return workflow

    @_locked
    def workflows(self, status: str | None = None) -> list[Workflow]:
        if status is not None and status not in STATUSES:
            raise HomeError("VALIDATION_ERROR", f"unknown workflow status {status!r}", allowed=list(STATUSES))
        return [w for w in self._workflows.values() if status is None or w.status == status]

    @_locked
    def cancel(self, workflow_id: str) -> Workflow:
        workflow = self.workflow(workflow_id)
        if workflow.status == "pending":
            workflow.status = "cancelled"
            if workflow.timer is not None:
                workflow.timer.cancel()
        elif workflow.status != "cancelled":
            raise HomeError("INVALID_STATE", f"workflow {workflow_id} is {workflow.status} and cannot be cancelled",
                              allowed={"cancellable_status": "pending"})
        return workflow

    # ------------------------------------------------------------------------------ automations
    @_locked
    def add_automation(self, spec: AutomationSpec | Mapping[str, Any]) -> AutomationRule:
        """Create a rule (time, state or time-and-state); every device, attribute, room and step is checked now."""
        from pydantic import ValidationError

        from emulator.home_config import validation_problems

        try:
            spec = spec if isinstance(spec, AutomationSpec) else AutomationSpec.model_validate(spec)
        except ValidationError as error:
            problems = "; ".join(f"{path}: {message}" if path else message
                                 for path, message in validation_problems(error))
            raise HomeError("VALIDATION_ERROR", f"invalid automation: {problems}") from None
        trigger_conditions = [("trigger.condition", spec.trigger.condition)] if spec.trigger.kind == "state" else []
        for where, condition in trigger_conditions + [(f"conditions[{i}]", c) for i, c in enumerate(spec.conditions)]:
            self._check_condition(where, condition)
        for index, action in enumerate(spec.actions):
            try:
                self._validate_step(action.to_workflow_step())
            except HomeError as error:
                raise HomeError(error.code, f"actions[{index}]: {error.message}", status=error.status,
                                  allowed=error.allowed) from None
        self._check_rule_can_run(spec)
        fields = spec.model_dump(include=set(AutomationSpec.model_fields))  # a stored rule's history is not copied
        rule = AutomationRule(**fields, id=self._automations.new_id(), created_at=self.now_text())
        self._add_rule(rule)
        self._automations.notify_changed()
        return rule

    @_locked
    def add_replay_rule(self, rule: AutomationRule) -> None:
        """Add a stored rule to a throwaway copy of a home to watch its trigger: from now on every rule of this
        home records its firings (events, history) but runs no actions."""
        self._automations.dry_run = True
        self._add_rule(rule)

    def _check_rule_can_run(self, spec: AutomationSpec) -> None:
        """A new rule is refused when the home already holds MAX_RULES, or when its schedule has no firing left."""
        if len(self._automations.rules) >= MAX_RULES:
            raise HomeError("VALIDATION_ERROR", f"this home already has {MAX_RULES} automations, the limit; "
                                                "remove one before adding another")
        if spec.trigger.kind == "time" and parse_cron(spec.trigger.cron).next_after(self.clock.now_datetime) is None:
            raise HomeError("VALIDATION_ERROR", f"trigger.cron {spec.trigger.cron!r} never fires after now "
                                                f"({self.now_text()}); give a schedule with a firing still to come")

    def _add_rule(self, rule: AutomationRule) -> None:
        if rule.id in self._automations.rules:
            raise HomeError("AUTOMATION_ALREADY_EXISTS", f"automation {rule.id!r} already exists")
        self._automations.add(rule)

    def _check_condition(self, where: str, condition: Any) -> None:
        try:
            if condition.room_id is not None:
                self.room(condition.room_id)
            else:
                self.read_path(condition.device_id, condition.path)
        except HomeError as error:
            raise HomeError(error.code, f"{where}: {error.message}", status=error.status,
                              allowed=error.allowed) from None

    def physics_source(self, device_id: str, path: str) -> tuple[str, str] | None:
        """(room, variable) when an attribute is a reading derived from room physics ("compartment" for one
        fed by a device's own compartment), else None (a discrete attribute that changes by events)."""
        device = self._devices.get(device_id)
        endpoint, cluster, attribute = parse_path(path)
        server = device.find(endpoint, cluster) if device is not None else None
        if device is None or server is None:
            return None
        key = (id(server), attribute)
        if self.physics.is_compartment_sensor(server, attribute):
            return device.room_id, "compartment"
        binding = _ROOM_SENSORS.get((cluster, attribute))
        if binding is not None and key in self.physics.sensor_keys():
            return device.room_id, binding[0]
        return None

    @_locked
    def replace_automations(self, rules: Iterable[AutomationRule]) -> None:
        """Put exactly these stored rules in place (ids, history and enabled flags kept), e.g. after a restart."""
        rules = [rule.model_copy(deep=True) for rule in rules]
        ids = [rule.id for rule in rules]
        if len(set(ids)) != len(ids):
            raise HomeError("VALIDATION_ERROR", f"duplicate automation ids in {ids}")
        for rule_id in list(self._automations.rules):
            self._automations.remove(rule_id)
        for rule in rules:
            self._add_rule(rule)
        self._automations.notify_changed()

    @_locked
    def automations(self) -> list[AutomationRule]:
        """Every rule, in creation order (the order simultaneous firings run in)."""
        return list(self._automations.rules.values())

    @_locked
    def automation(self, rule_id: str) -> AutomationRule:
        rule = self._automations.rules.get(rule_id) if isinstance(rule_id, str) else None
        if rule is None:
            raise HomeError("AUTOMATION_NOT_FOUND", f"no automation {rule_id!r}",
                              allowed=sorted(self._automations.rules))
        return rule

    @_locked
    def remove_automation(self, rule_id: str) -> AutomationRule:
        self.automation(rule_id)
        return self._automations.remove(rule_id)

    @_locked
    def enable_automation(self, rule_id: str) -> AutomationRule:
        self.automation(rule_id)
        return self._automations.set_enabled(rule_id, True)

    @_locked
    def disable_automation(self, rule_id: str) -> AutomationRule:
        self.automation(rule_id)
        return self._automations.set_enabled(rule_id, False)

    @_locked
    def next_automation_firing(self, rule_id: str) -> str | None:
        """When the rule is next due as known now ("YYYY-MM-DD HH:MM:SS.d"), None when nothing is planned."""
        self.automation(rule_id)
        tick = self._automations.next_firing_tick(rule_id)
        return None if tick is None else self.time_text(tick, tenths=True)

    @_locked
    def automation_status(self, rule_id: str) -> dict[str, Any]:
        """The rule as JSON plus its kind, next firing and loop cuts (what the tools and the dashboard show)."""
        rule = self.automation(rule_id)
        return {**rule.model_dump(mode="json"), "kind": rule.kind(), "next_firing": self.next_automation_firing(
            rule_id), "loop_cuts": self._automations.loop_cuts(rule_id)}

    @_locked
    def automation_history(self) -> list[dict[str, Any]]:
        """The latest firings, skips and loop cuts (oldest first, at most 200)."""
        return [event.to_dict() for event in self._automations.history]

    @property
    def automation_firings(self) -> int:
        return self._automations.firings

    @_locked
    def subscribe_automations(self, listener: AutomationListener) -> Callable[[], None]:
        """Receive every rule firing (and skip, and loop cut) as an AutomationEvent."""
        return self.bus.subscribe_automations(listener)

    @_locked
    def on_automations_changed(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` after a rule is added, removed, enabled, disabled or fires (e.g. to save them)."""
        self._automations.change_listeners.append(callback)
        return lambda: self._automations.change_listeners.remove(callback)

    # ------------------------------------------------------------------------------ snapshots
    @_locked
    def snapshot(self) -> dict[str, Any]:
        """The whole home now, as plain JSON data (deterministic key order)."""
        return {
            "time": self.clock.now_text(), "tick": self.clock.tick,
            "base_time": self.clock.base_time.strftime(TIME_FORMAT),
            "rooms": {r.room_id: {"state": self.room_state(r.room_id)} for r in self.rooms()},
            "devices": {d.device_id: {"device_type": d.device_type, "room_id": d.room_id,
                                      "attributes": self.read_all(d.device_id)} for d in self.devices()},
        }

    @staticmethod
    def diff(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Changes between two snapshots: room variables and device attributes, sorted."""
        changes: list[dict[str, Any]] = []
        for room_id in sorted(set(before["rooms"]) | set(after["rooms"])):
            old = before["rooms"].get(room_id, {}).get("state", {})
            new = after["rooms"].get(room_id, {}).get("state", {})
            for key in sorted(set(old) | set(new)):
                if old.get(key) != new.get(key):
                    changes.append({"kind": "room", "room_id": room_id, "variable": key,
                                    "old": old.get(key), "new": new.get(key)})
        for device_id in sorted(set(before["devices"]) | set(after["devices"])):
            old_d, new_d = before["devices"].get(device_id), after["devices"].get(device_id)
            if old_d is None or new_d is None:
                changes.append({"kind": "device_added" if old_d is None else "device_removed",
                                "device_id": device_id})
                continue
            old_a, new_a = old_d["attributes"], new_d["attributes"]
            for path in sorted(set(old_a) | set(new_a)):
                if old_a.get(path) != new_a.get(path) or type(old_a.get(path)) is not type(new_a.get(path)):
                    changes.append({"kind": "attribute", "device_id": device_id, "path": path,
                                    "old": old_a.get(path), "new": new_a.get(path)})
        return changes

    @_locked
    def to_config(self) -> HomeConfig:
        """The home as it is now, as a config (current environment, baselines, device state)."""
        rooms = []
        for room in self._rooms.values():
            physics_room = self.physics.rooms[room.room_id]
            state = self.room_state(room.room_id, exact=True)  # rounding would move int sensor readings
            rooms.append(RoomConfig(
                id=room.room_id, name=room.name, type=room.type, floor=room.floor, parent=room.parent,
                environment=EnvironmentState(**state),
                baseline=EnvironmentState(**{**physics_room.baseline}),
            ))
        live = self.physics.sensor_keys()
        devices = [DeviceConfig(id=d.device_id, type=d.device_type, room=d.room_id, name=d.name,
                                attributes=_persistent_attributes(d, live)) for d in self._devices.values()]
        workflows = [WorkflowConfig(
            id=w.workflow_id, description=w.description, start_time=w.start_time, status=w.status,
            current_step=w.current_step, error=w.error, results=list(w.results),
            steps=[replace(s, args=dict(s.args)) for s in w.steps])
            for w in self._workflows.values()]
        return HomeConfig(name=self.name, seed=self.seed, tier=self.tier, base_time=self.now_text(),
                          rooms=rooms, devices=devices, extensions=self.extensions,
                          automations=[rule.model_copy(deep=True) for rule in self.automations()],
                          workflows=workflows)

    @_locked
    def save(self, path: str) -> None:
        """Write the home as it is now to ``path`` atomically (it loads back into the same state)."""
        from emulator.home_config import dump_home, write_atomically

        write_atomically(path, dump_home(self.to_config()))

    # ------------------------------------------------------------------------------ events
    @_locked
    def subscribe(self, listener: Listener, *, sample_interval_s: float | _Default | None = _DEFAULT
                  ) -> Callable[[], None]:
        """Receive every attribute change. Sensor readings are reported at every segment boundary of the room
        physics (a device changed, a trajectory left its piece) and, while a room is still moving, sampled
        every ``sample_interval_s`` virtual seconds (default ``sensor_report_interval_s``; None: boundaries
        only; at least MIN_SAMPLE_INTERVAL_S). Rooms at rest are not sampled, so the cost of a subscriber
        grows with the events of the home, not with the virtual time that passes."""
        interval = self.sensor_report_interval_s if isinstance(sample_interval_s, _Default) else sample_interval_s
        if interval is not None and (not isinstance(interval, int | float) or isinstance(interval, bool)
                                     or not math.isfinite(interval) or interval < MIN_SAMPLE_INTERVAL_S):
            raise HomeError("INVALID_ARGUMENT", f"sample_interval_s must be None or a number >= "
                              f"{MIN_SAMPLE_INTERVAL_S}, got {interval!r}")
        unsubscribe_bus = self.bus.subscribe(listener)
        self._subscriptions += 1
        key = self._subscriptions
        if interval is not None:
            self._sample_intervals[key] = float(interval)
            self._arm_sampler()

        def unsubscribe() -> None:
            with self._lock:
                unsubscribe_bus()
                self._sample_intervals.pop(key, None)

        return unsubscribe

    def _sample_interval(self) -> float | None:
        return min(self._sample_intervals.values()) if self._sample_intervals and self.bus.has_listeners else None

    def _arm_sampler(self, tick: int | None = None) -> None:
        """Wake the sampler at ``tick`` but not before one cadence from now (Matter's min interval), unless it is
        already due sooner."""
        interval = self._sample_interval()
        if interval is None:
            return
        due = max(tick or 0, self.clock.tick + seconds_to_ticks(interval))
        if self._sampler is not None and not self._sampler.cancelled:
            if self._sampler.due <= due:
                return
            self._sampler.cancel()
        self._sampler = self.clock.call_at_tick(due, self._sample_sensors, "sensor sampling")

    def _segment_began(self, room_id: str, variable: str) -> None:
        """A room's trajectory starts anew: its readings may move (sampling) and rules on it may fire."""
        self._room_generation[room_id] = self._room_generation.get(room_id, 0) + 1
        self._moving_rooms.add(room_id)
        self._report_due.pop(room_id, None)  # its next reportable change is computed afresh
        if self._sample_intervals:
            self._arm_sampler()
        self._automations.on_segment(room_id, variable)

    def _sample_sensors(self) -> None:
        """Report the rooms whose readings have moved by more than their reportable change, and sleep until the
        next such crossing (computed in closed form, emulator/reportable_change.py): one wake-up per reportable
        change, however long the virtual time in between."""
        self._sampler = None
        if self._sample_interval() is None:
            return
        now = self.clock.tick
        for room_id in sorted(self._moving_rooms):
            if room_id not in self._rooms:
                self._moving_rooms.discard(room_id)
                self._report_due.pop(room_id, None)
                continue
            due = self._report_due[room_id] if room_id in self._report_due else self.physics.next_report_tick(room_id)
            if due is not None and due <= now:
                self.physics.publish_sensors(room_id)
                due = self.physics.next_report_tick(room_id)
                if due is not None and due <= now:  # moved again within this tick (a boundary): report next time
                    due = now + 1
            self._report_due[room_id] = due
            if due is None:  # nothing to report before the room's next boundary, which re-arms the sampler
                self._moving_rooms.discard(room_id)
                self._report_due.pop(room_id, None)
                self._final_report(room_id)
        upcoming = [due for due in self._report_due.values() if due is not None]
        if upcoming:
            self._arm_sampler(min(upcoming))

    def _final_report(self, room_id: str) -> None:
        """One last report once the room is all but at rest (a reading may still flip by one unit close to
        rest), unless a new segment starts first: one event per settling, not one per sample."""
        if self.physics.next_knot_tick() is not None:
            return  # a sky knot reports every room within 15 virtual minutes anyway (and begins a new segment)
        after = self.physics.at_rest_after(room_id)
        if not after:
            return
        generation = self._room_generation.get(room_id, 0)

        def report() -> None:
            if self._room_generation.get(room_id, 0) == generation and room_id in self._rooms:
                self.physics.publish_sensors(room_id)

        self.clock.call_at_tick(self.clock.tick + after, report, f"sensor settle {room_id}")


# ---------------------------------------------------------------------------------- helpers
def _sensor_attribute(cluster: str) -> str:
    return {"Thermostat": "LocalTemperature", "AirQuality": "AirQuality"}.get(cluster, "MeasuredValue")


def _int_reading(compute: Callable[[], float], server: ClusterServer, attribute: str) -> int:
    return int(compute())


def _clamped(value: float, server: ClusterServer) -> float:
    low = server.read("MinMeasuredValue") if server.has_attribute("MinMeasuredValue") else None
    high = server.read("MaxMeasuredValue") if server.has_attribute("MaxMeasuredValue") else None
    if low is not None:
        value = max(value, low)
    if high is not None:
        value = min(value, high)
    return value


def _as_int(compute: Callable[[], float], server: ClusterServer) -> int:
    return int(_clamped(int(compute()), server))


def _as_float(compute: Callable[[], float], server: ClusterServer) -> float:
    return round(_clamped(compute(), server), 2) + 0.0


def _as_lux_measurement(compute: Callable[[], float], server: ClusterServer) -> int:
    # Matter encodes illuminance as 10000·log10(lux) + 1 (0 = too dark to measure)
    lux = compute()
    value = int(10000 * math.log10(lux) + 1) if lux >= 1 else 0
    return int(_clamped(min(value, 0xFFFE), server))


def _as_air_quality(compute: Callable[[], float], server: ClusterServer) -> int:
    # AirQualityEnum from PM10: Good 1 ≤ 30, Fair 2 ≤ 50, Moderate 3 ≤ 80, Poor 4 ≤ 150, VeryPoor 5, else 6
    pm10 = compute()
    for limit, level in ((30, 1), (50, 2), (80, 3), (150, 4), (250, 5)):
        if pm10 <= limit:
            return level
    return 6


_ROOM_SENSORS: dict[tuple[str, str], tuple[str, Callable[..., Any]]] = {
    ("Thermostat", "LocalTemperature"): ("temperature", _as_int),
    ("TemperatureMeasurement", "MeasuredValue"): ("temperature", _as_int),
    ("RelativeHumidityMeasurement", "MeasuredValue"): ("humidity", _as_int),
    ("IlluminanceMeasurement", "MeasuredValue"): ("illuminance", _as_lux_measurement),
    ("Pm10ConcentrationMeasurement", "MeasuredValue"): ("pm10", _as_float),
    ("Pm25ConcentrationMeasurement", "MeasuredValue"): ("pm10", lambda c, s: _as_float(lambda: 0.6 * c(), s)),
    ("AirQuality", "AirQuality"): ("pm10", _as_air_quality),
}


def _describe_cluster(server: ClusterServer) -> dict[str, Any]:
    from clusters.values import enum_members

    attributes: dict[str, Any] = {}
    for name in server.attribute_names():
        model = server.model.attributes[name]
        entry: dict[str, Any] = {"value": server.read(name), "type": model.type.describe(),
                                 "writable": server.is_writable(name)}
        if model.type.is_enum:
            entry["enum_values"] = enum_members(model.type.base)
        constraint = server.constraints.get(name)
        if constraint is not None:
            entry["constraint"] = constraint.describe()
        attributes[name] = entry
    commands = {name: {"arguments": server.command_spec(name).describe_args()} for name in server.command_names()}
    return {"cluster_id": server.cluster_id, "attributes": attributes, "commands": commands}


def _persistent_attributes(device: Device, physics_sensors: set[tuple[int, str]]) -> dict[str, Any]:
    """Attribute values a saved home needs to come back the same: not the globals, not sensor
    readings derived from room physics (the room state is saved instead)."""
    from clusters.basic_information import USER_SETTABLE
    from clusters.chip_model import GLOBAL_ATTRIBUTE_IDS

    out: dict[str, Any] = {}
    for ep, cluster, attribute in device.paths():
        server = device.endpoints[ep].clusters[cluster]
        if attribute in GLOBAL_ATTRIBUTE_IDS or (id(server), attribute) in physics_sensors:
            continue
        if cluster == "Descriptor" or (cluster == "BasicInformation" and attribute not in USER_SETTABLE):
            continue
        if cluster == "BasicInformation":  # kept only once a controller changed it (home files stay as they were)
            initial = initial_node_label(device.device_id, device.name) if attribute == "NodeLabel" \
                else server.defaults[attribute]
            if server.read(attribute) == initial:
                continue
        out[f"{ep}.{cluster}.{attribute}"] = server.read(attribute)
    return out


def _nearby(name: Any, known: Mapping[str, Any]) -> list[str]:
    import difflib

    if not isinstance(name, str):
        return sorted(known)[:20]
    close = difflib.get_close_matches(name, list(known), n=5, cutoff=0.5)
    return close or sorted(known)[:20]
