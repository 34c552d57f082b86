"""What an attribute a device does not serve is taken as: the Matter specification's default, in one table.

A device lists the attributes it serves in each cluster's AttributeList (global attribute 0xFFFB). An optional
attribute it leaves out is not an unknown: the specification says what it is taken as. The emulator's cluster
servers (``served_or_absent``), the benchmark's step planning and the episode generator (``device_rule`` over the
flat map a home's ``read_all`` gives) all read a device's rules through this table, so a live device serving fewer
attributes than ours is planned for exactly as the specification says.

Sources (Matter 1.4 Application Cluster Specification, as the @matter/model 0.17.9 element files carry it):

- Thermostat: AbsMin/AbsMax Heat 7 °C / 30 °C, Cool 16 °C / 32 °C (0.01 °C); Min/Max Heat/Cool setpoint
  limits default to the matching Abs limit (``default: {type: "reference", name: "AbsMin…"}``).
- LevelControl: MinLevel 1 with the Lighting feature, else 0 (Level Control §1.6.6.3); MaxLevel 254.
- ColorControl ColorTempPhysicalMin/MaxMireds and FanControl SpeedMax have no default: they are mandatory
  with their feature (CT, SPD). Absent anyway, they are taken as the widest value their constraint allows
  (1 / 65279 mireds, 100 speeds), so nothing planned is refused for a limit the device never stated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import clusters.official as Objects
from clusters.base import ClusterServer
from clusters.chip_model import cluster_model

LIGHTING = int(Objects.LevelControl.Bitmaps.Feature.kLighting)


@dataclass(frozen=True)
class AbsentValue:
    """How one optional attribute is taken when a device does not serve it."""

    basis: Literal["default", "constraint"]  # the spec's default, or (no default given) its constraint's bound
    value: int | None = None
    same_as: str | None = None  # the default is another attribute of the same cluster (served or absent)
    with_feature: tuple[int, int] | None = None  # (feature bit, value) that replaces ``value`` when set

    def resolve(self, feature_map: int, other: Callable[[str], int | None]) -> int | None:
        if self.same_as is not None:
            return other(self.same_as)
        if self.with_feature is not None and feature_map & self.with_feature[0]:
            return self.with_feature[1]
        return self.value


ABSENT_VALUES: dict[str, dict[str, AbsentValue]] = {
    "Thermostat": {
        "AbsMinHeatSetpointLimit": AbsentValue("default", 700),
        "AbsMaxHeatSetpointLimit": AbsentValue("default", 3000),
        "AbsMinCoolSetpointLimit": AbsentValue("default", 1600),
        "AbsMaxCoolSetpointLimit": AbsentValue("default", 3200),
        "MinHeatSetpointLimit": AbsentValue("default", same_as="AbsMinHeatSetpointLimit"),
        "MaxHeatSetpointLimit": AbsentValue("default", same_as="AbsMaxHeatSetpointLimit"),
        "MinCoolSetpointLimit": AbsentValue("default", same_as="AbsMinCoolSetpointLimit"),
        "MaxCoolSetpointLimit": AbsentValue("default", same_as="AbsMaxCoolSetpointLimit"),
    },
    "LevelControl": {
        "MinLevel": AbsentValue("default", 0, with_feature=(LIGHTING, 1)),
        "MaxLevel": AbsentValue("default", 254),
    },
    "ColorControl": {
        "ColorTempPhysicalMinMireds": AbsentValue("constraint", 1),
        "ColorTempPhysicalMaxMireds": AbsentValue("constraint", 65279),
    },
    "FanControl": {
        "SpeedMax": AbsentValue("constraint", 100),
    },
}


def value_or_absent(
    cluster: str, attribute: str, served: Callable[[str], object | None], feature_map: int = 0
) -> int | float | None:
    """``attribute`` of ``cluster`` as the device serves it (``served`` gives None for an attribute it does not
    serve), else what the table takes it as; None when it is neither served nor in the table."""
    value = served(attribute)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    absent = ABSENT_VALUES.get(cluster, {}).get(attribute)
    if absent is None:
        return None
    return absent.resolve(feature_map, lambda other: _int_or_none(value_or_absent(cluster, other, served, feature_map)))


def _int_or_none(value: int | float | None) -> int | None:
    return None if value is None else int(value)


def served_or_absent(server: ClusterServer, attribute: str) -> int:
    """A cluster server's own rule (a limit, a level bound): its served value, else the table's. For an
    attribute the table does not know, reading it raises the server's UNSUPPORTED_ATTRIBUTE as ever."""
    value = value_or_absent(
        server.cluster_name,
        attribute,
        lambda name: server.read(name) if server.has_attribute(name) else None,
        server.feature_map,
    )
    return int(server.read(attribute)) if value is None else int(value)


def served(values: Mapping[str, Any], endpoint: int, cluster: str, attribute: str) -> bool:
    """Whether a device serves an attribute, from its flat map ``"<ep>.<Cluster>.<Attribute>" → value`` (what
    ``HomeAPI.read_all`` gives, chip names): read, and listed in the cluster's AttributeList where the map
    carries one (a value read but not listed is not the device's)."""
    if f"{endpoint}.{cluster}.{attribute}" not in values:
        return False
    listed = values.get(f"{endpoint}.{cluster}.AttributeList")
    if not isinstance(listed, list):
        return True
    try:
        model = cluster_model(cluster).attributes.get(attribute)
    except KeyError:  # a cluster chip does not know: its list cannot be checked
        return True
    return model is None or model.attribute_id in listed


def device_rule(values: Mapping[str, Any], endpoint: int, cluster: str, attribute: str) -> int | None:
    """A device rule (a limit, a level bound) from its flat map: the served value, else what the specification
    takes the absent attribute as; None when neither (the device has no such rule)."""
    features = values.get(f"{endpoint}.{cluster}.FeatureMap")
    value = value_or_absent(
        cluster,
        attribute,
        lambda name: values.get(f"{endpoint}.{cluster}.{name}") if served(values, endpoint, cluster, name) else None,
        features if isinstance(features, int) else 0,
    )
    return None if value is None else int(value)
