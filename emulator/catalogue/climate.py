"""Heating, cooling, air and water: ACs, heat pumps, fans, purifiers, (de)humidifiers, heaters."""

from __future__ import annotations

from clusters.electrical import HEAT_PUMP_ENERGY_FEATURES, HEAT_PUMP_ESA, HEAT_PUMP_POWER, HEAT_PUMP_STANDBY_MW
from emulator.catalogue.build import (
    AIR_PURIFIER,
    DEVICE_ENERGY_MANAGEMENT,
    ELECTRICAL_SENSOR,
    FAN,
    HEAT_PUMP,
    HUMIDITY_SENSOR,
    POWER_SOURCE,
    ROOM_AIR_CONDITIONER,
    THERMOSTAT,
    WATER_HEATER,
    cluster,
    endpoint,
)
from emulator.catalogue.spec import ClusterSpec, DeviceTypeSpec, EndpointSpec, PowerDependency, PowerDraw

_FAN_WRITES = frozenset({"FanControl.FanMode", "FanControl.PercentSetting"})
_FAN_POWER = PowerDependency(frozenset({"FanControl"}), writes=_FAN_WRITES, endpoints=frozenset({1}))


def _fan_control() -> ClusterSpec:
    # Off/Low/Medium/High with Step, as SimuHome's fans behave (FanModeSequence OffLowMedHigh).
    return cluster("FanControl", "Step", FanModeSequence=0, FanMode=0, PercentSetting=0, PercentCurrent=0)


def _electrical_endpoint(endpoint_id: int, power: dict[str, int] | None = None) -> EndpointSpec:
    return endpoint(
        endpoint_id,
        ELECTRICAL_SENSOR,
        cluster("PowerTopology", "NodeTopology"),
        cluster("ElectricalPowerMeasurement", "AlternatingCurrent", options=power or {}),
        ClusterSpec("ElectricalEnergyMeasurement", HEAT_PUMP_ENERGY_FEATURES),
    )


def _humidity_device(name: str, label: str, product_id: int, role: str) -> DeviceTypeSpec:
    return DeviceTypeSpec(
        name=name,
        label=label,
        origin="simuhome",
        description=f"A {label.lower()} (fan on endpoint 1) with its own humidity sensor on endpoint 2.",
        vendor_name="homefabric",
        product_name=label,
        product_id=product_id,
        endpoints=(
            endpoint(
                1,
                FAN,
                cluster("Identify", IdentifyType=0),
                cluster("Groups", "GroupNames"),
                cluster("OnOff"),
                _fan_control(),
                compat=("OnOff",),
            ),
            endpoint(
                2,
                HUMIDITY_SENSOR,
                cluster("Identify", IdentifyType=0),
                cluster("RelativeHumidityMeasurement", MinMeasuredValue=1000, MaxMeasuredValue=9500),
            ),
        ),
        power_rules=(_FAN_POWER,),
        roles=((role, 1),),
    )


DEVICE_TYPES = (
    DeviceTypeSpec(
        name="air_conditioner",
        label="Air conditioner",
        origin="simuhome",
        description="A room AC: power on, SystemMode 3 (cool) or 4 (heat), setpoints and fan speed drive the room.",
        vendor_name="homefabric",
        product_name="Room Air Conditioner",
        product_id=1,
        endpoints=(
            endpoint(
                # DeadFrontBehavior (required by Room Air Conditioner): while off, Thermostat and FanControl refuse
                # commands and writes with INVALID_IN_STATE (the power rule below).
                1,
                ROOM_AIR_CONDITIONER,
                cluster("Identify", IdentifyType=0),
                cluster("OnOff", "DeadFrontBehavior"),
                cluster(
                    "Thermostat",
                    "Heating",
                    "Cooling",
                    ControlSequenceOfOperation=4,
                    SystemMode=0,
                    OccupiedCoolingSetpoint=2600,
                    OccupiedHeatingSetpoint=2000,
                ),
                _fan_control(),
            ),
        ),
        power_rules=(
            PowerDependency(
                frozenset({"Thermostat", "FanControl"}),
                endpoints=frozenset({1}),
                writes=_FAN_WRITES
                | {"Thermostat.OccupiedCoolingSetpoint", "Thermostat.OccupiedHeatingSetpoint", "Thermostat.SystemMode"},
            ),
        ),
        roles=(("ac", 1),),
    ),
    DeviceTypeSpec(
        name="air_purifier",
        label="Air purifier",
        origin="simuhome",
        description="Lowers PM10 while on with a non-zero fan speed.",
        vendor_name="homefabric",
        product_name="Air Purifier",
        product_id=2,
        endpoints=(
            endpoint(
                1,
                AIR_PURIFIER,
                cluster("Identify", IdentifyType=2),
                cluster("OnOff"),
                _fan_control(),
                compat=("OnOff",),
            ),
        ),
        power_rules=(_FAN_POWER,),
        roles=(("purifier", 1),),
    ),
    DeviceTypeSpec(
        name="fan",
        label="Fan",
        origin="simuhome",
        description="Cools a room slightly (down to 2 °C below its baseline) while on.",
        vendor_name="homefabric",
        product_name="Fan",
        product_id=2,
        endpoints=(
            endpoint(
                1,
                FAN,
                cluster("Identify", IdentifyType=0),
                cluster("Groups", "GroupNames"),
                cluster("OnOff"),
                _fan_control(),
                compat=("OnOff",),
            ),
        ),
        power_rules=(_FAN_POWER,),
        roles=(("fan", 1),),
    ),
    _humidity_device("humidifier", "Humidifier", 6, "humidifier"),
    _humidity_device("dehumidifier", "Dehumidifier", 7, "dehumidifier"),
    DeviceTypeSpec(
        name="heat_pump",
        label="Heat pump",
        origin="simuhome",
        description="A heat pump: power source (ep 1), electrical sensor (ep 2), energy management (ep 3) and "
        "its thermostat on endpoint 4 (SystemMode 4 heats, 3 cools).",
        vendor_name="Heat Pump",
        product_name="Heat Pump",
        product_id=0x0309,
        endpoints=(
            endpoint(
                1,
                [HEAT_PUMP, POWER_SOURCE],
                cluster("Identify", IdentifyType=0),
                cluster(
                    "PowerSource",
                    "Wired",
                    options={"description": "AC Grid Connection", "order": 0, "status": "Standby"},
                    WiredAssessedInputVoltage=220000,
                ),
            ),  # SimuHome's heat pump reports its mains
            _electrical_endpoint(2, HEAT_PUMP_POWER),
            endpoint(
                3, DEVICE_ENERGY_MANAGEMENT, cluster("DeviceEnergyManagement", "PowerAdjustment", options=HEAT_PUMP_ESA)
            ),
            endpoint(
                4,
                THERMOSTAT,
                cluster("Identify", IdentifyType=0),
                cluster(
                    "Thermostat",
                    "Heating",
                    "Cooling",
                    ControlSequenceOfOperation=4,
                    SystemMode=0,
                    OccupiedCoolingSetpoint=2600,
                    OccupiedHeatingSetpoint=2000,
                ),
            ),
        ),
        roles=(("heat_pump", 4),),
        # SimuHome's rated 3.45 kW while it heats or cools; a controller's standby when SystemMode is Off.
        power_draw=PowerDraw(
            meter_endpoint=2,
            mode=(4, "Thermostat", "SystemMode"),
            off_values=frozenset({0}),
            running_mW=HEAT_PUMP_POWER["active_power_mW"],
            standby_mW=HEAT_PUMP_STANDBY_MW,
        ),
    ),
    DeviceTypeSpec(
        name="thermostat",
        label="Thermostat",
        description="A wall thermostat driving the room's central heating and cooling (auto mode keeps a deadband).",
        vendor_name="homefabric",
        product_name="Thermostat",
        product_id=0x8010,
        endpoints=(
            endpoint(
                1,
                THERMOSTAT,
                cluster("Identify", IdentifyType=0),
                cluster(
                    "Thermostat",
                    "Heating",
                    "Cooling",
                    "AutoMode",
                    ControlSequenceOfOperation=4,
                    SystemMode=0,
                    OccupiedCoolingSetpoint=2600,
                    OccupiedHeatingSetpoint=2000,
                ),
            ),
        ),
        roles=(("thermostat", 1),),
    ),
    DeviceTypeSpec(
        name="water_heater",
        label="Water heater",
        description="An electric water heater: the tank temperature follows the heating setpoint while in heat mode; "
        "Boost heats on demand.",
        vendor_name="homefabric",
        product_name="Water Heater",
        product_id=0x8011,
        endpoints=(
            endpoint(
                1,
                WATER_HEATER,
                cluster("Identify", IdentifyType=0),
                cluster(
                    "Thermostat",
                    "Heating",
                    ControlSequenceOfOperation=2,
                    SystemMode=4,
                    OccupiedHeatingSetpoint=5500,
                    options={"heat_limits": (3000, 8000)},
                ),
                cluster("WaterHeaterManagement"),
                cluster("WaterHeaterMode"),
            ),
        ),
        roles=(("compartment", 1),),
    ),
    DeviceTypeSpec(
        name="electrical_sensor",
        label="Electrical sensor",
        origin="simuhome",
        description="Measures electrical power and energy (SimuHome factory type; not used by its benchmark).",
        vendor_name="homefabric",
        product_name="Electrical Sensor",
        product_id=0x0510,
        endpoints=(_electrical_endpoint(1),),
    ),
)
