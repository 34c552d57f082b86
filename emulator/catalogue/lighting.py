"""Lights and plugs."""

from __future__ import annotations

from emulator.catalogue.build import (
    COLOR_TEMPERATURE_LIGHT,
    DIMMABLE_LIGHT,
    DIMMABLE_PLUG_IN_UNIT,
    ELECTRICAL_SENSOR,
    EXTENDED_COLOR_LIGHT,
    FAN,
    ON_OFF_LIGHT,
    ON_OFF_PLUG_IN_UNIT,
    cluster,
    endpoint,
)
from emulator.catalogue.spec import ClusterSpec, DeviceTypeSpec, PowerDependency, PowerDraw


def _level() -> ClusterSpec:
    return cluster(
        "LevelControl",
        "OnOff",
        "Lighting",
        MinLevel=1,
        MaxLevel=254,
        CurrentLevel=None,
        OnLevel=None,
        Options=0,
        OnOffTransitionTime=0,
        RemainingTime=0,
    )


# Groups and ScenesManagement: mandatory on every light and plug (Device Library §4, §5).
_GROUPS_SCENES = (cluster("Groups", "GroupNames"), cluster("ScenesManagement", "SceneNames"))
_DIMMABLE_EP1 = (cluster("Identify", IdentifyType=0), *_GROUPS_SCENES, cluster("OnOff", "Lighting"))

DEVICE_TYPES = (
    DeviceTypeSpec(
        name="on_off_light",
        label="On/off light",
        origin="simuhome",
        description="A light that is only switched on or off (+500 lux while on).",
        vendor_name="homefabric",
        product_name="On/Off Light",
        product_id=4,
        endpoints=(endpoint(1, ON_OFF_LIGHT, *_DIMMABLE_EP1),),
        roles=(("light", 1),),
    ),
    DeviceTypeSpec(
        name="dimmable_light",
        label="Dimmable light",
        origin="simuhome",
        description="A light with a brightness level 1–254 (+500 × level/254 lux while on).",
        vendor_name="homefabric",
        product_name="Dimmable Light",
        product_id=3,
        endpoints=(endpoint(1, DIMMABLE_LIGHT, *_DIMMABLE_EP1, _level()),),
        roles=(("light", 1),),
    ),
    DeviceTypeSpec(
        name="color_temperature_light",
        label="Colour-temperature light",
        description="A dimmable light with a tunable white colour temperature (mireds).",
        vendor_name="homefabric",
        product_name="Tunable White Light",
        product_id=0x8001,
        endpoints=(
            endpoint(1, COLOR_TEMPERATURE_LIGHT, *_DIMMABLE_EP1, _level(), cluster("ColorControl", "ColorTemperature")),
        ),
        roles=(("light", 1),),
    ),
    DeviceTypeSpec(
        name="extended_color_light",
        label="Extended colour light",
        description="A dimmable light with hue/saturation, XY colour and colour temperature.",
        vendor_name="homefabric",
        product_name="Colour Light",
        product_id=0x8002,
        endpoints=(
            endpoint(
                1,
                EXTENDED_COLOR_LIGHT,
                *_DIMMABLE_EP1,
                _level(),
                cluster("ColorControl", "HueAndSaturation", "Xy", "ColorTemperature"),
            ),
        ),
        roles=(("light", 1),),
    ),
    DeviceTypeSpec(
        name="fan_light",
        label="Fan light",
        description="A ceiling fan with a light: the light on endpoint 1, the fan on endpoint 2.",
        vendor_name="homefabric",
        product_name="Ceiling Fan Light",
        product_id=0x8003,
        endpoints=(
            endpoint(1, DIMMABLE_LIGHT, *_DIMMABLE_EP1, _level()),
            endpoint(
                2,
                FAN,
                cluster("Identify", IdentifyType=0),
                cluster("Groups", "GroupNames"),
                cluster("OnOff"),
                cluster("FanControl", "Step", "MultiSpeed", FanModeSequence=0, SpeedMax=3),
                compat=("OnOff",),
            ),
        ),
        power_rules=(
            PowerDependency(
                frozenset({"FanControl"}),
                writes=frozenset({"FanControl.FanMode", "FanControl.PercentSetting", "FanControl.SpeedSetting"}),
                power_endpoint=2,
                endpoints=frozenset({2}),
            ),
        ),
        roles=(("light", 1), ("fan", 2)),
    ),
    DeviceTypeSpec(
        name="smart_plug",
        label="Smart plug",
        description="A switched outlet that also meters the power drawn through it (endpoint 2).",
        vendor_name="homefabric",
        product_name="Smart Plug",
        product_id=0x8004,
        endpoints=(
            endpoint(
                1,
                ON_OFF_PLUG_IN_UNIT,
                cluster("Identify", IdentifyType=0),
                *_GROUPS_SCENES,
                cluster("OnOff", "Lighting"),
            ),
            endpoint(
                2,
                ELECTRICAL_SENSOR,
                cluster("PowerTopology", "NodeTopology"),
                cluster("ElectricalPowerMeasurement", "AlternatingCurrent"),
                cluster("ElectricalEnergyMeasurement", "ImportedEnergy", "CumulativeEnergy"),
            ),
        ),
        # An open relay passes no current: 0 W while off; while on, the load is whatever is plugged in (unknown).
        power_draw=PowerDraw(
            meter_endpoint=2, mode=(1, "OnOff", "OnOff"), off_values=frozenset({False}), running_mW=None, standby_mW=0
        ),
    ),
    DeviceTypeSpec(
        name="dimmable_plug_in_unit",
        label="Dimmable plug",
        description="A dimming outlet for a table or floor lamp: level 1–254 (+500 × level/254 lux while on).",
        vendor_name="homefabric",
        product_name="Dimmer Plug",
        product_id=0x8005,
        endpoints=(endpoint(1, DIMMABLE_PLUG_IN_UNIT, *_DIMMABLE_EP1, _level()),),
        roles=(("light", 1),),
    ),
)
