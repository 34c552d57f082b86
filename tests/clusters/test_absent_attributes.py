"""Optional attributes a device does not serve are taken as the specification says (clusters.absent_attributes):
the table names real optional attributes, and the emulator's own rules (setpoint ranges, level bounds, fan
speeds) read an absent one as its table value instead of refusing with UNSUPPORTED_ATTRIBUTE."""

from __future__ import annotations

from typing import Any

import pytest

from clusters import ClusterError, Status
from clusters.absent_attributes import ABSENT_VALUES, served_or_absent
from clusters.chip_model import cluster_model
from clusters.fan_control import FanControlServer
from clusters.level_control import LevelControlServer
from clusters.thermostat import ThermostatServer

SETPOINT_LIMITS = tuple(ABSENT_VALUES["Thermostat"])


@pytest.mark.parametrize(("cluster", "attribute"), [(c, a) for c, names in ABSENT_VALUES.items() for a in names])
def test_the_table_names_optional_attributes_of_real_clusters(cluster: str, attribute: str) -> None:
    entry = ABSENT_VALUES[cluster][attribute]
    assert cluster_model(cluster).attributes[attribute].type.optional
    assert (entry.value is None) != (entry.same_as is None)  # a value or a reference, never both
    assert entry.same_as is None or entry.same_as in ABSENT_VALUES[cluster]


def test_a_thermostat_without_limit_attributes_checks_writes_against_the_defaults(mount: Any) -> None:
    server = ThermostatServer(heat_limits=(1000, 2500), cool_limits=(2000, 3000), values=dict.fromkeys(SETPOINT_LIMITS))
    mount(server)
    assert not any(server.has_attribute(name) for name in SETPOINT_LIMITS)
    assert served_or_absent(server, "MinCoolSetpointLimit") == 1600  # the constructor's 2000 is not served
    server.write("OccupiedCoolingSetpoint", 1700)
    server.write("OccupiedHeatingSetpoint", 2900)
    with pytest.raises(ClusterError) as refused:
        server.write("OccupiedCoolingSetpoint", 3300)
    assert refused.value.status == Status.CONSTRAINT_ERROR and refused.value.allowed == {"min": 1600, "max": 3200}


def test_a_served_abs_limit_is_the_default_of_its_absent_min_max_limit(mount: Any) -> None:
    server = ThermostatServer(
        heat_limits=(1000, 2500), values=dict.fromkeys(("MinHeatSetpointLimit", "MaxHeatSetpointLimit"))
    )
    mount(server)
    assert (served_or_absent(server, "MinHeatSetpointLimit"), served_or_absent(server, "MaxHeatSetpointLimit")) == (
        1000,
        2500,
    )
    with pytest.raises(ClusterError):
        server.write("OccupiedHeatingSetpoint", 2600)


@pytest.mark.parametrize(("features", "bottom"), [(1 | 2, 1), (1, 0)])  # OnOff|Lighting, OnOff only
def test_a_level_control_without_min_and_max_level_moves_between_the_defaults(
    mount: Any, features: int, bottom: int
) -> None:
    level = LevelControlServer(features=features, values={"CurrentLevel": 100, "MinLevel": None, "MaxLevel": None})
    mount(level)
    assert not level.has_attribute("MinLevel") and not level.has_attribute("MaxLevel")
    assert (level.min_level, level.max_level) == (bottom, 254)
    level.invoke("MoveToLevel", {"Level": 254, "TransitionTime": 0})
    assert level.read("CurrentLevel") == 254


def test_a_fan_without_speed_max_takes_its_constraint_bound(mount: Any) -> None:
    fan = FanControlServer(features=1, values={"SpeedMax": None})
    mount(fan)
    assert not fan.has_attribute("SpeedMax") and served_or_absent(fan, "SpeedMax") == 100
    fan.write("SpeedSetting", 100)
    with pytest.raises(ClusterError):
        fan.write("SpeedSetting", 101)
