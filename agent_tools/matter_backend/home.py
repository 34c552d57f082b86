"""``MatterHome``: the home API the agent tools use (the EmulatedHome's), over commissioned Matter nodes.

``ToolBox(MatterHome.connect("ws://host:5580/ws"))`` gives an agent the same tools, envelope and error
style against any nodes python-matter-server has commissioned: reads, writes and invokes become Matter
reads, writes and invokes (names ↔ ids from the official model, clusters.chip_model); refusals come back as the Matter
status mapped to the fabric's codes (UNSUPPORTED_ATTRIBUTE → ATTRIBUTE_NOT_FOUND, CONSTRAINT_ERROR, …).
Time is the host clock; workflows are run by a scheduler thread on that clock; room states come from
the measurement clusters of the room's devices. Calls block (bounded by the connection's timeout); use
from one thread at a time.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from agent_tools.matter_backend.connection import MatterServerConnection
from agent_tools.matter_backend.discovery import (
    MatterDevice,
    Room,
    discover,
    from_mapping,
    rooms_for,
)
from agent_tools.matter_backend.mapping import HomeMapping
from agent_tools.matter_backend.naming import (
    attribute_names_by_id,
    attribute_value,
    cluster_by_name,
    cluster_names_by_id,
    command_names_by_id,
    command_payload,
    error_from_status,
    needs_timed_invoke,
    response_failure,
    status_code_from_text,
    status_in_value,
)
from agent_tools.matter_backend.scheduler import HostScheduler
from agent_tools.matter_backend.ws_client import MatterServerError
from clusters import SERVER_CLASSES
from clusters.chip_model import ClusterModel
from clusters.status import Status
from clusters.values import enum_members
from emulator.clock import TIME_FORMAT
from emulator.errors import HomeError
from emulator.home_config import DeviceConfig
from emulator.home_results import InvokeResult, StepResult, WriteResult
from emulator.workflows import Workflow, WorkflowStep

DESCRIPTOR = 0x1D
SERVER_LIST, ATTRIBUTE_LIST, ACCEPTED_COMMANDS = 1, 0xFFFB, 0xFFF9
TIMED_REQUEST_MS = 10_000  # the window of a timed invoke (commands the specification requires it for)
# Room variable → (cluster, attribute, Matter value → room-state units).
ROOM_SENSORS: dict[str, tuple[str, str, Any]] = {
    "temperature": ("TemperatureMeasurement", "MeasuredValue", float),
    "humidity": ("RelativeHumidityMeasurement", "MeasuredValue", float),
    "illuminance": (
        "IlluminanceMeasurement",
        "MeasuredValue",
        lambda v: 0.0 if v == 0 else round(10 ** ((v - 1) / 10000), 2),
    ),  # Matter's log encoding
    "pm10": ("Pm10ConcentrationMeasurement", "MeasuredValue", float),
}


class MatterHome:
    """The EmulatedHome-shaped facade over one matter-server connection (see the module docstring)."""

    def __init__(self, connection: MatterServerConnection, devices: list[MatterDevice], rooms: list[Room]) -> None:
        self.connection = connection
        self._devices = {d.device_id: d for d in devices}
        self._rooms = {r.room_id: r for r in rooms}
        self._shown_devices: set[str] | None = None  # expose(): None shows every device, every room
        self._shown_rooms: set[str] | None = None
        self.name = "matter"
        self.scheduler = HostScheduler(self.apply, self.now)
        self._opened = time.monotonic()

    @classmethod
    def connect(cls, url: str, *, mapping: HomeMapping | None = None, **connection_options: Any) -> MatterHome:
        connection = MatterServerConnection(url, **connection_options)
        nodes = connection.open()
        devices = from_mapping(mapping, nodes) if mapping is not None else discover(nodes)
        return cls(connection, devices, rooms_for(devices, mapping))

    def close(self) -> None:
        self.scheduler.close()
        self.connection.close()

    # ------------------------------------------------------------------------------ rooms and devices
    def expose(self, device_ids: Iterable[str] | None = None, room_ids: Iterable[str] | None = None) -> None:
        """Show only these devices and rooms from now on (an episode's home may be a part of the live one: a
        device it lacks cannot be unplugged, but the tools need not see it); None: everything."""
        self._shown_devices = None if device_ids is None else set(device_ids)
        self._shown_rooms = None if room_ids is None else set(room_ids)

    def _visible_rooms(self) -> dict[str, Room]:
        return {k: r for k, r in self._rooms.items() if self._shown_rooms is None or k in self._shown_rooms}

    def _visible_devices(self) -> dict[str, MatterDevice]:
        return {k: d for k, d in self._devices.items() if self._shown_devices is None or k in self._shown_devices}

    def rooms(self) -> list[Room]:
        return list(self._visible_rooms().values())

    def room(self, room_id: str) -> Room:
        rooms = self._visible_rooms()
        room = rooms.get(room_id)
        if room is None:
            raise HomeError("ROOM_NOT_FOUND", f"no room {room_id!r}", allowed=sorted(rooms))
        return room

    def devices(self, room_id: str | None = None) -> list[MatterDevice]:
        if room_id is not None:
            self.room(room_id)
        return [d for d in self._visible_devices().values() if room_id is None or d.room_id == room_id]

    def device(self, device_id: str) -> MatterDevice:
        devices = self._visible_devices()
        device = devices.get(device_id)
        if device is None:
            raise HomeError("DEVICE_NOT_FOUND", f"no device {device_id!r}", allowed=sorted(devices))
        return device

    # ------------------------------------------------------------------------------ admin (the emulator's only)
    def snapshot(self) -> dict[str, Any]:
        """The home now in the emulated home's snapshot shape: every device's attributes as read now, each
        room's state where its sensors give one (None per variable otherwise); ``tick`` counts wall-clock
        tenths of a second since the connection was opened (real time cannot be advanced)."""
        rooms: dict[str, Any] = {}
        for room in self.rooms():
            try:
                rooms[room.room_id] = {"state": self.room_state(room.room_id)}
            except HomeError:
                rooms[room.room_id] = {"state": dict.fromkeys(ROOM_SENSORS)}
        return {
            "time": self.now_text(),
            "tick": int((time.monotonic() - self._opened) * 10),
            "base_time": self.now_text(),
            "rooms": rooms,
            "devices": {
                d.device_id: {
                    "device_type": d.device_type,
                    "room_id": d.room_id,
                    "attributes": self.read_all(d.device_id),
                }
                for d in self.devices()
            },
        }

    def add_device(self, config: DeviceConfig) -> MatterDevice:
        raise self._not_supported("adding a device (commission it to python-matter-server instead)")

    def remove_device(self, device_id: str) -> None:
        raise self._not_supported("removing a device (decommission it in python-matter-server instead)")

    @staticmethod
    def _not_supported(what: str) -> HomeError:
        return HomeError(
            "NOT_SUPPORTED",
            f"the Matter-controller backend cannot do {what}; it is an admin tool "
            "of the emulated home (homefabric's EmulatedHome)",
        )

    # ------------------------------------------------------------------------------ time and workflows
    def now(self) -> datetime:
        return datetime.now().replace(microsecond=0)

    def now_text(self) -> str:
        return self.now().strftime(TIME_FORMAT)

    def advance(self, seconds: float) -> None:
        """Real time cannot be advanced; the call cost of a tool call is the time it really took."""

    def schedule(self, start: str, steps: Iterable[WorkflowStep], description: str = "") -> Workflow:
        steps = list(steps)
        for index, step in enumerate(steps):  # refuse a malformed step now, as the fabric does
            try:
                self._target(step.device_id, step.endpoint, step.cluster)
                model = self._cluster_model(step.cluster)
                if step.kind == "invoke":
                    command_payload(step.cluster, self._command(model, step), step.args)
                else:
                    self._attribute(model, step.cluster, step.name)
            except HomeError as error:
                raise HomeError(error.code, f"steps[{index}]: {error.message}", allowed=error.allowed) from None
        return self.scheduler.schedule(start, steps, description)

    def workflow(self, workflow_id: str) -> Workflow:
        return self.scheduler.workflow(workflow_id)

    def workflows(self, status: str | None = None) -> list[Workflow]:
        return self.scheduler.workflows(status)

    def cancel(self, workflow_id: str) -> Workflow:
        return self.scheduler.cancel(workflow_id)

    def apply(self, step: WorkflowStep) -> StepResult:
        """Run one step now as a Matter invoke or write (the fabric's ``apply``)."""
        if step.kind == "invoke":
            return self.invoke(step.device_id, step.endpoint, step.cluster, step.name, step.args)
        return self.write(step.device_id, step.endpoint, step.cluster, step.name, step.value)

    # ------------------------------------------------------------------------------ addressing
    def _target(self, device_id: str, endpoint: int, cluster: str | None = None) -> tuple[MatterDevice, int]:
        device = self.device(device_id)
        number = device.matter_endpoint(endpoint)
        if number is None:
            raise HomeError(
                "ENDPOINT_NOT_FOUND",
                f"device {device_id!r} has no endpoint {endpoint}",
                allowed=sorted(device.endpoints),
            )
        return device, number

    @staticmethod
    def _cluster_model(cluster: str) -> ClusterModel:
        model = cluster_by_name(cluster)
        if model is None:
            raise HomeError("CLUSTER_NOT_FOUND", f"there is no Matter cluster named {cluster!r}")
        return model

    @staticmethod
    def _attribute(model: ClusterModel, cluster: str, attribute: str) -> Any:
        entry = model.attribute(attribute)
        if entry is None:
            raise HomeError(
                "ATTRIBUTE_NOT_FOUND",
                f"cluster {cluster} has no attribute {attribute!r}",
                allowed=sorted(model.attributes),
            )
        return entry

    @staticmethod
    def _command(model: ClusterModel, step: Any) -> Any:
        name = step if isinstance(step, str) else step.name
        command = model.commands.get(name)
        if command is None:
            raise HomeError(
                "COMMAND_NOT_FOUND", f"cluster {model.name} has no command {name!r}", allowed=sorted(model.commands)
            )
        return command

    def _where(self, device_id: str, endpoint: int, cluster: str, name: str) -> str:
        return f"device {device_id!r} endpoint {endpoint} {cluster}.{name}"

    def _server_clusters(self, device: MatterDevice, number: int) -> list[str]:
        values = self._read_paths(device, [f"{number}/{DESCRIPTOR}/{SERVER_LIST}"])
        ids = values.get(f"{number}/{DESCRIPTOR}/{SERVER_LIST}") or []
        if status_in_value(ids) is not None:
            return []
        names = cluster_names_by_id()
        return sorted(names.get(int(i), f"0x{int(i):04x}") for i in ids)

    def _missing_cluster(self, device: MatterDevice, endpoint: int, number: int, cluster: str) -> HomeError:
        return HomeError(
            "CLUSTER_NOT_FOUND",
            f"device {device.device_id!r} endpoint {endpoint} has no cluster {cluster!r}",
            allowed=self._server_clusters(device, number),
        )

    # ------------------------------------------------------------------------------ Matter calls
    def _matter(self, command: str, where: str, **args: Any) -> Any:
        try:
            return self.connection.call(command, **args)
        except MatterServerError as error:
            status = status_code_from_text(error.details)
            if status is not None:
                raise error_from_status(status, where, error.details) from None
            code = "TIMEOUT_ERROR" if "no answer" in error.details else "CONNECTION_ERROR"
            raise HomeError(code, f"{where}: matter-server: {error.details}") from None

    def _read_paths(self, device: MatterDevice, paths: list[str]) -> dict[str, Any]:
        where = f"device {device.device_id!r}"
        result = self._matter("read_attribute", where, node_id=device.node_id, attribute_path=paths)
        return result if isinstance(result, dict) else {}

    # ------------------------------------------------------------------------------ reads
    def read(self, device_id: str, endpoint: int, cluster: str, attribute: str) -> Any:
        device = self.device(device_id)
        if endpoint == 0 and cluster == "BasicInformation" and device.bridged and 0 not in device.endpoints:
            # A bridged device's identity (vendor, product, serial, …) lives on its top endpoint.
            return self.read(device_id, min(device.endpoints), "BridgedDeviceBasicInformation", attribute)
        device, number = self._target(device_id, endpoint)
        model = self._cluster_model(cluster)
        entry = self._attribute(model, cluster, attribute)
        path = f"{number}/{model.cluster_id}/{entry.attribute_id}"
        values = self._read_paths(device, [path])
        status = status_in_value(values[path]) if path in values else int(Status.UNSUPPORTED_ATTRIBUTE)
        if status is None:
            return attribute_value(cluster, attribute, values[path])
        # A status in place of the value (or no value): an error, never the value.
        where = self._where(device_id, endpoint, cluster, attribute)
        if status in (
            Status.UNSUPPORTED_CLUSTER,
            Status.UNSUPPORTED_ATTRIBUTE,
        ) and cluster not in self._server_clusters(device, number):
            raise self._missing_cluster(device, endpoint, number, cluster)
        if status == Status.UNSUPPORTED_ATTRIBUTE:
            raise HomeError(
                "ATTRIBUTE_NOT_FOUND",
                f"device {device_id!r} endpoint {endpoint} {cluster} does not "
                f"support attribute {attribute!r} (UnsupportedAttribute, 0x86)",
                status=Status.UNSUPPORTED_ATTRIBUTE,
            )
        raise error_from_status(status, where, str(values.get(path, {}).get("Reason") or ""))

    def read_path(self, device_id: str, path: str) -> Any:
        endpoint, cluster, attribute = path.split(".")
        return self.read(device_id, int(endpoint), cluster, attribute)

    def _endpoint_values(self, device: MatterDevice) -> dict[int, dict[str, dict[str, Any]]]:
        """device endpoint → cluster name → attribute name → value (one wildcard read per endpoint)."""
        numbers = {number: endpoint for endpoint, number in device.endpoints.items()}
        raw = self._read_paths(device, [f"{number}/*/*" for number in numbers])
        clusters = cluster_names_by_id()
        out: dict[int, dict[str, dict[str, Any]]] = {endpoint: {} for endpoint in device.endpoints}
        for path, value in raw.items():
            number, cluster_id, attribute_id = (int(p) for p in path.split("/"))
            cluster = clusters.get(cluster_id)
            endpoint = numbers.get(number)
            if cluster is None or endpoint is None:
                continue
            attribute = attribute_names_by_id(cluster).get(attribute_id)
            if attribute is not None and status_in_value(value) is None:  # a status is no value
                out[endpoint].setdefault(cluster, {})[attribute] = attribute_value(cluster, attribute, value)
        return out

    def read_all(self, device_id: str) -> dict[str, Any]:
        device = self.device(device_id)
        flat: dict[str, Any] = {}
        values = self._endpoint_values(device)
        if device.bridged and 0 not in device.endpoints and device.endpoints:
            identity = values[min(device.endpoints)].get("BridgedDeviceBasicInformation", {})
            values = {0: {"BasicInformation": identity}, **values}
        for endpoint, clusters in sorted(values.items()):
            for cluster, attributes in clusters.items():
                for attribute, value in attributes.items():
                    flat[f"{endpoint}.{cluster}.{attribute}"] = value
        return flat

    def node_id(self, device_id: str) -> int:
        """The Matter node the device is on (a bridged device: its bridge's): what a Binding entry's ``node`` names."""
        return self.device(device_id).node_id

    def describe_device(self, device_id: str) -> dict[str, Any]:
        """The fabric's ``describe_device`` shape from the device's own AttributeList / AcceptedCommandList."""
        device = self.device(device_id)
        endpoints: dict[str, Any] = {}
        for endpoint, clusters in sorted(self._endpoint_values(device).items()):
            described: dict[str, Any] = {}
            for cluster, values in sorted(clusters.items()):
                model = cluster_by_name(cluster)
                if model is None:
                    continue
                attributes = {}
                for name, value in values.items():
                    entry = model.attribute(name)
                    assert entry is not None  # _endpoint_values names only the model's attributes
                    item: dict[str, Any] = {"value": value, "type": entry.type.describe(), "writable": entry.writable}
                    if entry.type.is_enum:
                        item["enum_values"] = enum_members(entry.type.base)
                    attributes[name] = item
                accepted = values.get("AcceptedCommandList") or []
                names = command_names_by_id(cluster)
                commands = {}
                for command_id in accepted:
                    command = names.get(int(command_id))
                    if command is not None:
                        commands[command] = {"arguments": self._arguments(cluster, model.commands[command])}
                described[cluster] = {"attributes": attributes, "commands": commands}
            endpoints[str(endpoint)] = {"clusters": described}
        return {
            "device_id": device.device_id,
            "device_type": device.device_type,
            "room_id": device.room_id,
            "endpoints": endpoints,
        }

    @staticmethod
    def _arguments(cluster: str, command: Any) -> list[dict[str, Any]]:
        server_class = SERVER_CLASSES.get(cluster)
        spec = server_class.declared_command(command.name) if server_class is not None else None
        if spec is not None:
            return spec.describe_args()
        return [
            {"name": f.label[:1].upper() + f.label[1:], "type": f.type.describe(), "required": not f.type.optional}
            for f in command.fields
        ]

    def room_state(self, room_id: str, *, exact: bool = False) -> dict[str, Any]:
        """Temperature, humidity, illuminance and pm10 from the room's measurement clusters (first found)."""
        self.room(room_id)
        state: dict[str, Any] = dict.fromkeys(ROOM_SENSORS)
        for device in self.devices(room_id):
            for clusters in self._endpoint_values(device).values():
                for variable, (cluster, attribute, convert) in ROOM_SENSORS.items():
                    value = clusters.get(cluster, {}).get(attribute)
                    if state[variable] is None and isinstance(value, int | float) and math.isfinite(value):
                        state[variable] = convert(value)
        if all(v is None for v in state.values()):
            raise HomeError(
                "NOT_SUPPORTED",
                f"room {room_id!r} has no device with a temperature, humidity, "
                "illuminance or PM10 measurement cluster, so its environment cannot be read over "
                "Matter",
                allowed=[c for c, _, _ in ROOM_SENSORS.values()],
            )
        return state

    # ------------------------------------------------------------------------------ writes and commands
    def write(self, device_id: str, endpoint: int, cluster: str, attribute: str, value: Any) -> WriteResult:
        device, number = self._target(device_id, endpoint)
        model = self._cluster_model(cluster)
        entry = self._attribute(model, cluster, attribute)
        where = self._where(device_id, endpoint, cluster, attribute)
        old = self.read(device_id, endpoint, cluster, attribute)
        if not entry.writable:
            raise HomeError("READ_ONLY", f"{where} is read-only")
        result = self._matter(
            "write_attribute",
            where,
            node_id=device.node_id,
            attribute_path=f"{number}/{model.cluster_id}/{entry.attribute_id}",
            value=value,
        )
        for item in result if isinstance(result, list) else []:
            status = item.get("Status", 0) if isinstance(item, dict) else 0
            if status:
                raise error_from_status(int(status), where)
        new = self.read(device_id, endpoint, cluster, attribute)
        return WriteResult(device_id, endpoint, cluster, attribute, old, new)

    def invoke(
        self, device_id: str, endpoint: int, cluster: str, command: str, args: Mapping[str, Any] | None = None
    ) -> InvokeResult:
        device, number = self._target(device_id, endpoint)
        model = self._cluster_model(cluster)
        spec = self._command(model, command)
        where = self._where(device_id, endpoint, cluster, command)
        payload = command_payload(cluster, spec, dict(args or {}))
        timed = {"timed_request_timeout_ms": TIMED_REQUEST_MS} if needs_timed_invoke(cluster, command) else {}
        response = self._matter(
            "device_command",
            where,
            node_id=device.node_id,
            endpoint_id=number,
            cluster_id=model.cluster_id,
            command_name=command,
            payload=payload,
            **timed,
        )
        failure = response_failure(spec.response, response, where)
        if failure is not None:
            raise failure
        return InvokeResult(device_id, endpoint, cluster, command, response)
