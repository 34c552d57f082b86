"""A twin of a live Matter home: an emulated home (``HomeConfig``) built from the live nodes' interview.

Each discovered device (``discovery``) whose type is in the catalogue becomes that catalogue device, with the
discovered id, name and room, and — attribute by attribute, on the endpoints the device serves — the live
device's current values. An optional attribute the live device does not serve is left out of the twin too (set
to null in the home file: the emulator then does not serve it, as on the real device), so the oracle plans with
what the live device has (e.g. a thermostat without setpoint limits gets the specification's defaults in both).

What cannot be made equal is not hidden: ``extensions.matter_twin`` lists, per device, the attributes only the
live device serves (``live_only``), those only the twin serves (``twin_only``: mandatory in the emulator's
cluster), live values the emulator refuses (``refused``), feature maps that differ (``features``), and the devices
left out of the twin (``left_out``, with the reason: no catalogue type for their device types). Rooms get their
environment from the live temperature / humidity sensors in them, else typical indoor values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_tools.matter_backend.discovery import MatterDevice, Room
from agent_tools.matter_backend.naming import attribute_names_by_id, attribute_value, cluster_names_by_id
from agent_tools.matter_backend.naming import status_in_value as _status_in_value
from clusters.chip_model import cluster_model
from emulator.catalogue import CATALOGUE

TWIN_KEY = "matter_twin"
# Clusters that carry identity, structure or bookkeeping rather than device state: never copied.
STRUCTURE_CLUSTERS = frozenset(
    {
        "Descriptor",
        "BasicInformation",
        "BridgedDeviceBasicInformation",
        "FixedLabel",
        "UserLabel",
        "Identify",
        "Groups",
        "ScenesManagement",
        "Binding",
    }
)
GLOBAL_FIRST_ID = 0xFFF8  # GeneratedCommandList … ClusterRevision
# The identity a device tells (BasicInformation / BridgedDeviceBasicInformation), copied onto the twin's endpoint 0.
IDENTITY = (
    "VendorName",
    "VendorID",
    "ProductName",
    "ProductID",
    "NodeLabel",
    "ProductLabel",
    "SerialNumber",
    "HardwareVersion",
    "HardwareVersionString",
    "SoftwareVersion",
    "SoftwareVersionString",
    "ManufacturingDate",
    "PartNumber",
    "ProductURL",
    "UniqueID",
)
TYPICAL_ENVIRONMENT = {"temperature": 2200, "humidity": 4500, "illuminance": 300, "pm10": 10}
# Room environment variable → the attributes that measure it (the emulator derives them from the room).
SENSED = {
    "temperature": ("TemperatureMeasurement.MeasuredValue", "Thermostat.LocalTemperature"),
    "humidity": ("RelativeHumidityMeasurement.MeasuredValue",),
}


@dataclass
class DeviceFidelity:
    """How the twin of one device differs from the live device (paths ``ep.Cluster.Attribute``)."""

    live_only: list[str] = field(default_factory=list)
    twin_only: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    differs: dict[str, dict[str, Any]] = field(default_factory=dict)  # path → {"live", "twin"} after the build
    absent_clusters: list[str] = field(default_factory=list)  # "ep.Cluster" the twin serves and the device lacks
    features: dict[str, dict[str, int]] = field(default_factory=dict)  # cluster → {"live": …, "twin": …}

    def to_dict(self) -> dict[str, Any]:
        return {
            "live_only": self.live_only,
            "twin_only": self.twin_only,
            "refused": self.refused,
            "differs": self.differs,
            "absent_clusters": self.absent_clusters,
            "features": self.features,
        }


def live_values(node: Mapping[str, Any], device: MatterDevice) -> dict[str, Any]:
    """``ep.Cluster.Attribute`` → value (tools' JSON) of what the live device serves, globals included, on the
    device's own endpoint numbers (endpoint 0 left out: identity, not state)."""
    numbers = {number: endpoint for endpoint, number in device.endpoints.items() if endpoint != 0}
    names = cluster_names_by_id()
    out: dict[str, Any] = {}
    for path, value in node.get("attributes", {}).items():
        number, cluster_id, attribute_id = (int(p) for p in path.split("/"))
        endpoint, cluster = numbers.get(number), names.get(cluster_id)
        attribute = attribute_names_by_id(cluster).get(attribute_id) if cluster else None
        if endpoint is None or cluster is None or attribute is None or _status_in_value(value) is not None:
            continue
        out[f"{endpoint}.{cluster}.{attribute}"] = attribute_value(cluster, attribute, value)
    return out


def live_identity(node: Mapping[str, Any], device: MatterDevice) -> dict[str, Any]:
    """``0.BasicInformation.X`` → value: the live device's identity as the tools show it on endpoint 0 (a
    bridged device's comes from its BridgedDeviceBasicInformation)."""
    endpoint, cluster = (
        (device.top_endpoint, "BridgedDeviceBasicInformation") if device.bridged else (0, "BasicInformation")
    )
    cluster_id = cluster_model(cluster).cluster_id
    names = attribute_names_by_id(cluster)
    out: dict[str, Any] = {}
    for path, value in node.get("attributes", {}).items():
        number, cid, attribute_id = (int(p) for p in path.split("/"))
        name = names.get(attribute_id)
        if number == endpoint and cid == cluster_id and name in IDENTITY and _status_in_value(value) is None:
            out[f"0.BasicInformation.{name}"] = attribute_value(cluster, name, value)
    return out


def is_state(path: str) -> bool:
    """Whether ``ep.Cluster.Attribute`` is device state (what an episode sets or checks): not endpoint 0's
    identity, not structure or bookkeeping (``STRUCTURE_CLUSTERS``), not a global attribute."""
    endpoint, cluster, attribute = path.split(".")
    entry = cluster_model(cluster).attribute(attribute)
    return (
        endpoint != "0"
        and cluster not in STRUCTURE_CLUSTERS
        and entry is not None
        and entry.attribute_id < GLOBAL_FIRST_ID
    )


def state_paths(values: Mapping[str, Any]) -> dict[str, Any]:
    return {path: value for path, value in values.items() if is_state(path)}


def _twin_device(
    device: MatterDevice, live: dict[str, Any], identity: Mapping[str, Any]
) -> tuple[dict[str, Any], DeviceFidelity]:
    """The device's home-file entry (catalogue type, live values) and how it differs from the live device."""
    from emulator.emulated_home import EmulatedHome
    from emulator.home_config import HomeConfig

    probe = EmulatedHome(
        HomeConfig.model_validate(
            {
                "name": "probe",
                "base_time": "2025-01-01 00:00:00",
                "rooms": [{"id": "r", "name": "r", "type": "r", "environment": TYPICAL_ENVIRONMENT}],
                "devices": [{"id": "d", "type": device.device_type, "room": "r"}],
            }
        )
    )
    twin_all = probe.read_all("d")
    fidelity = DeviceFidelity()
    for cluster_path in sorted({p.rsplit(".", 1)[0] for p in twin_all if p.endswith(".FeatureMap")}):
        live_map, twin_map = live.get(f"{cluster_path}.FeatureMap"), twin_all[f"{cluster_path}.FeatureMap"]
        if live_map is not None and live_map != twin_map and cluster_path.split(".")[1] not in STRUCTURE_CLUSTERS:
            fidelity.features[cluster_path] = {"live": live_map, "twin": twin_map}
    twin_state, live_state = state_paths(twin_all), state_paths(live)
    attributes: dict[str, Any] = {}
    for path in sorted(twin_state):
        endpoint, cluster, attribute = path.split(".")
        if path in live_state:
            if live_state[path] != twin_state[path]:
                attributes[path] = live_state[path]
            continue
        entry = cluster_model(cluster).attribute(attribute)
        assert entry is not None  # the twin serves only attributes of its cluster's model
        same_features = live.get(f"{endpoint}.{cluster}.FeatureMap") == twin_all[f"{endpoint}.{cluster}.FeatureMap"]
        if same_features and entry.type.optional and not entry.type.nullable:
            # Not served live: not served by the twin either (with other features, what the twin's cluster
            # needs differs, so it keeps it and the report says so).
            attributes[path] = None
        else:
            fidelity.twin_only.append(path)
    fidelity.live_only = sorted(p for p in live_state if p not in twin_state)
    fidelity.absent_clusters = sorted(
        cluster_path
        for cluster_path in {p.rsplit(".", 1)[0] for p in twin_all if p.endswith(".FeatureMap")}
        if f"{cluster_path}.FeatureMap" not in live
        and cluster_path.split(".")[1] not in STRUCTURE_CLUSTERS
        and not cluster_path.startswith("0.")
    )
    for name in IDENTITY:  # who made it, what it is called: qt1 asks, so the twin says what the device says
        path = f"0.BasicInformation.{name}"
        if path in twin_all and path in identity and identity[path] != twin_all[path]:
            attributes[path] = identity[path]
        elif path in twin_all and path not in identity:
            fidelity.twin_only.append(path)
    return attributes, fidelity


def _checked(entry: dict[str, Any], fidelity: DeviceFidelity) -> dict[str, Any]:
    """The entry with every live value the emulator refuses taken out (and named in ``refused``)."""
    from emulator.emulated_home import EmulatedHome
    from emulator.errors import HomeError
    from emulator.home_config import HomeConfig

    attributes = dict(entry["attributes"])
    while True:
        try:
            EmulatedHome(
                HomeConfig.model_validate(
                    {
                        "name": "probe",
                        "base_time": "2025-01-01 00:00:00",
                        "rooms": [{"id": "r", "name": "r", "type": "r", "environment": TYPICAL_ENVIRONMENT}],
                        "devices": [{**entry, "room": "r", "attributes": attributes}],
                    }
                )
            )
            return {**entry, "attributes": attributes}
        except (HomeError, ValueError) as error:
            culprit = next((p for p in attributes if p in str(error)), None)
            if culprit is None:
                raise
            fidelity.refused[culprit] = str(error).splitlines()[0][:200]
            del attributes[culprit]


def twin_home(
    nodes: list[dict[str, Any]],
    devices: list[MatterDevice],
    rooms: list[Room],
    *,
    name: str,
    base_time: str,
    source: str,
) -> dict[str, Any]:
    """The twin as home-file data (``HomeConfig.model_validate`` it), fidelity report in ``extensions``."""
    by_node = {int(n["node_id"]): n for n in nodes}
    entries, report, left_out = [], {}, []
    environment: dict[str, dict[str, int]] = {}
    for device in sorted(devices, key=lambda d: d.device_id):
        live = live_values(by_node.get(device.node_id, {}), device)
        for variable, sensed_paths in SENSED.items():
            value = next((v for p, v in sorted(live.items()) if p.endswith(sensed_paths)), None)
            if isinstance(value, int):
                environment.setdefault(device.room_id, {}).setdefault(variable, value)
        if device.device_type not in CATALOGUE:
            types = sorted({f"0x{t:04x}" for types in device.matter_device_types.values() for t in types})
            left_out.append(
                {
                    "device_id": device.device_id,
                    "device_type": device.device_type,
                    "reason": f"no catalogue type has the device types {types}",
                }
            )
            continue
        attributes, fidelity = _twin_device(device, live, live_identity(by_node.get(device.node_id, {}), device))
        home_entry = {"id": device.device_id, "type": device.device_type, "name": device.name, "attributes": attributes}
        entries.append({**_checked(home_entry, fidelity), "room": device.room_id})
        report[device.device_id] = fidelity.to_dict()
    used_rooms = {e["room"] for e in entries}
    data = {
        "name": name,
        "base_time": base_time,
        "rooms": [
            {
                "id": r.room_id,
                "name": r.name,
                "type": r.room_id,
                "environment": {**TYPICAL_ENVIRONMENT, **environment.get(r.room_id, {})},
            }
            for r in rooms
            if r.room_id in used_rooms
        ],
        "devices": entries,
        "extensions": {TWIN_KEY: {"source": source, "devices": report, "left_out": left_out}},
    }
    _note_differences(data, devices, by_node)
    return data


def _note_differences(data: dict[str, Any], devices: list[MatterDevice], by_node: dict[int, Any]) -> None:
    """Name every value the built twin holds otherwise than the live device (values the emulator derives from
    the room, e.g. a second temperature sensor in one room, cannot all be copied)."""
    from emulator.emulated_home import EmulatedHome
    from emulator.home_config import HomeConfig

    twin = EmulatedHome(HomeConfig.model_validate(data))
    report = data["extensions"][TWIN_KEY]["devices"]
    for device in devices:
        if device.device_id not in report:
            continue
        live = state_paths(live_values(by_node.get(device.node_id, {}), device))
        for path, value in state_paths(twin.read_all(device.device_id)).items():
            if path in live and live[path] != value and path not in report[device.device_id]["refused"]:
                report[device.device_id]["differs"][path] = {"live": live[path], "twin": value}
