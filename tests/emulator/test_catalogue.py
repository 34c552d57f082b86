"""Every device type uses official ids (device types from python-matter-server's device_types, clusters
from chip.clusters.Objects) and conforms to the official data model (tests/conformance/matter_model.json,
generated from matter.js's @matter/model): mandatory clusters, features, attributes, commands, events.
SimuHome's layout is kept."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, cast

import chip.clusters.Objects as Objects
import pytest
from matter_server.client.models.device_types import ALL_TYPES

from emulator.catalogue import CATALOGUE, SIMUHOME_TYPES
from emulator.clock import VirtualClock
from emulator.device import Device
from tests.conformance.model import endpoint_problems, unexpected


def test_catalogue_size_and_simuhome_types() -> None:
    assert len(CATALOGUE) >= 30
    assert set(SIMUHOME_TYPES) == {
        "on_off_light",
        "dimmable_light",
        "air_conditioner",
        "air_purifier",
        "fan",
        "humidifier",
        "dehumidifier",
        "heat_pump",
        "tv",
        "window_covering_controller",
        "dishwasher",
        "laundry_washer",
        "laundry_dryer",
        "rvc",
        "freezer",
        "refrigerator",
        "electrical_sensor",
    }


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_device_type_uses_official_ids_and_has_mandatory_clusters(name: str) -> None:
    spec = CATALOGUE[name]
    device = Device(f"{name}_1", spec, "room")
    device.attach(VirtualClock(datetime(2025, 8, 23, 9)))
    for endpoint_spec in spec.endpoints:
        endpoint = device.endpoints[endpoint_spec.endpoint_id]
        official: set[str] = {"Descriptor"}
        for device_type, _revision in endpoint_spec.device_types:
            assert device_type in ALL_TYPES, f"{name}: device type {device_type:#06x} is not an official type"
            official |= {c.__name__ for c in ALL_TYPES[device_type].clusters}
        servers = {server.cluster_id: server for server in endpoint.clusters.values()}
        problems = endpoint_problems(
            f"{name} ep{endpoint_spec.endpoint_id}", [t for t, _ in endpoint_spec.device_types], servers
        )
        problems = unexpected(problems, set())
        assert not problems, "\n".join(problems)
        present = set(endpoint.clusters)
        extra = present - official
        assert extra == set(endpoint_spec.compat_clusters), (
            f"{name} ep{endpoint_spec.endpoint_id}: clusters outside the official device types {sorted(extra)} "
            f"must be declared as SimuHome-compatibility clusters"
        )
        for cluster_name, server in endpoint.clusters.items():
            assert server.cluster_id == getattr(Objects, cluster_name).id
            assert set(server.read("AcceptedCommandList")) <= _client_command_ids(cluster_name)
        descriptor = endpoint.clusters["Descriptor"]
        assert descriptor.read("DeviceTypeList") == [
            {"deviceType": t, "revision": r} for t, r in endpoint_spec.device_types
        ]
        assert sorted(descriptor.read("ServerList")) == sorted(s.cluster_id for s in endpoint.clusters.values())
    root = device.endpoints[0]
    assert root.clusters["Descriptor"].read("PartsList") == sorted(e for e in device.endpoints if e != 0)
    assert root.clusters["BasicInformation"].read("SerialNumber") == f"{name}_1"[:32]
    assert root.clusters["BasicInformation"].read("UniqueID") not in ("", f"{name}_1"[:32])


@pytest.mark.parametrize(
    ("name", "paths"),
    [
        (
            "air_conditioner",
            [
                "1.OnOff.OnOff",
                "1.Thermostat.SystemMode",
                "1.Thermostat.OccupiedCoolingSetpoint",
                "1.FanControl.PercentSetting",
                "1.Thermostat.LocalTemperature",
            ],
        ),
        (
            "heat_pump",
            [
                "4.Thermostat.SystemMode",
                "4.Thermostat.OccupiedHeatingSetpoint",
                "1.PowerSource.Status",
                "2.ElectricalPowerMeasurement.ActivePower",
                "3.DeviceEnergyManagement.ESAType",
            ],
        ),
        ("humidifier", ["1.OnOff.OnOff", "1.FanControl.PercentSetting", "2.RelativeHumidityMeasurement.MeasuredValue"]),
        ("dehumidifier", ["2.RelativeHumidityMeasurement.MeasuredValue"]),
        ("dimmable_light", ["1.LevelControl.CurrentLevel", "1.OnOff.OnOff"]),
        ("tv", ["1.Channel.CurrentChannel", "1.MediaPlayback.CurrentState", "1.LevelControl.CurrentLevel"]),
        ("dishwasher", ["1.OperationalState.CountdownTime", "1.DishwasherMode.CurrentMode", "1.OnOff.OnOff"]),
        ("laundry_washer", ["1.LaundryWasherControls.SpinSpeedCurrent", "1.TemperatureControl.TemperatureSetpoint"]),
        ("laundry_dryer", ["1.LaundryDryerControls.SelectedDrynessLevel"]),
        ("rvc", ["1.RvcRunMode.CurrentMode", "1.RvcOperationalState.OperationalState", "1.RvcCleanMode.CurrentMode"]),
        ("refrigerator", ["1.TemperatureControl.TemperatureSetpoint", "1.TemperatureMeasurement.MeasuredValue"]),
        ("window_covering_controller", ["1.WindowCovering.TargetPositionLiftPercent100ths"]),
        ("fan_light", ["1.LevelControl.CurrentLevel", "2.FanControl.PercentSetting"]),
    ],
)
def test_simuhome_attribute_paths_exist(name: str, paths: list[str]) -> None:
    device = Device("d", CATALOGUE[name], "room")
    for path in paths:
        endpoint, cluster, attribute = path.split(".")
        assert device.endpoints[int(endpoint)].clusters[cluster].has_attribute(attribute), path


def _client_command_ids(cluster_name: str) -> set[int]:
    """The ids of chip's client → server commands of a cluster (chip's classes are untyped)."""
    commands: Mapping[str, Any] = vars(getattr(getattr(Objects, cluster_name), "Commands", object))
    return {
        cast(Any, c).command_id for c in commands.values() if isinstance(c, type) and getattr(c, "is_client", False)
    }
