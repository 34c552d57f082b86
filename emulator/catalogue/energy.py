"""Energy: rooftop solar, a home battery and an EV charger — each a power source with its own meter (Electrical
Sensor), the battery and charger also energy-smart appliances (Device Energy Management).

Their behaviour: the charger's session lives in its EnergyEvse cluster (clusters/energy_evse.py); the panels'
output follows the sun and the battery's state of charge follows its power (emulator/role_behaviour.py, by role).
"""

from __future__ import annotations

from emulator.catalogue.build import (
    BATTERY_STORAGE,
    DEVICE_ENERGY_MANAGEMENT,
    ELECTRICAL_SENSOR,
    ENERGY_EVSE,
    POWER_SOURCE,
    SOLAR_POWER,
    cluster,
    endpoint,
)
from emulator.catalogue.spec import ClusterSpec, DeviceTypeSpec
from emulator.role_behaviour import BATTERY_CAPACITY_MWH, BATTERY_MAX_POWER_MW

EVSE_MIN_POWER_MW, EVSE_MAX_POWER_MW = 230 * 6_000, 230 * 32_000  # 6 A … 32 A at 230 V
_MAINS = {"voltage_mV": 230_000, "frequency_mHz": 50_000, "power_factor": 10_000, "active_power_mW": 0}


def _meter(*energy_features: str) -> tuple[ClusterSpec, ...]:
    return (
        cluster("PowerTopology", "NodeTopology"),
        cluster("ElectricalPowerMeasurement", "AlternatingCurrent", options=_MAINS),
        cluster("ElectricalEnergyMeasurement", *energy_features, "CumulativeEnergy", "PeriodicEnergy"),
    )


DEVICE_TYPES = (
    DeviceTypeSpec(
        name="solar_power",
        label="Solar panels",
        description="A 5 kWp rooftop array and its inverter: ActivePower is negative (exported) and follows the sun "
        "over the day (clear sky, updated every 15 minutes); exported energy accumulates.",
        vendor_name="homefabric",
        product_name="Solar Inverter",
        product_id=0x8080,
        endpoints=(
            endpoint(
                1,
                [SOLAR_POWER, POWER_SOURCE, ELECTRICAL_SENSOR],
                cluster("Identify", IdentifyType=0),
                cluster("PowerSource", "Wired", options={"description": "Solar PV", "order": 1}),
                *_meter("ExportedEnergy"),
            ),
        ),
        roles=(("solar", 1),),
    ),
    DeviceTypeSpec(
        name="battery_storage",
        label="Home battery",
        description=f"A {BATTERY_CAPACITY_MWH // 1_000_000} kWh home battery: PowerAdjustRequest (Device Energy "
        f"Management) charges it (Power > 0) or discharges it (Power < 0) at up to "
        f"{BATTERY_MAX_POWER_MW // 1_000_000} kW, with 95 % efficiency each way, between 10 % and 100 %.",
        vendor_name="homefabric",
        product_name="Home Battery",
        product_id=0x8081,
        endpoints=(
            endpoint(
                1,
                [BATTERY_STORAGE, POWER_SOURCE, ELECTRICAL_SENSOR, DEVICE_ENERGY_MANAGEMENT],
                cluster("Identify", IdentifyType=0),
                cluster(
                    "PowerSource",
                    "Battery",
                    "Rechargeable",
                    options={"description": "Home battery", "order": 2, "battery_percent": 50},
                ),
                *_meter("ImportedEnergy", "ExportedEnergy"),
                cluster(
                    "DeviceEnergyManagement",
                    "PowerAdjustment",
                    options={
                        "esa_type": 5,
                        "can_generate": True,
                        "abs_min_power_mW": -BATTERY_MAX_POWER_MW,
                        "abs_max_power_mW": BATTERY_MAX_POWER_MW,
                        "power_adjustments": [
                            {
                                "minPower": -BATTERY_MAX_POWER_MW,
                                "maxPower": BATTERY_MAX_POWER_MW,
                                "minDuration": 60,
                                "maxDuration": 86_400,
                            }
                        ],
                    },
                ),
            ),
        ),
        roles=(("battery", 1),),
    ),
    DeviceTypeSpec(
        name="evse",
        label="EV charger",
        description="A 32 A wall box: a vehicle plugs in (a scenario), EnableCharging lets up to "
        "MaximumChargeCurrent flow (230 V × current) until the vehicle is full or Disable; "
        "EnergyTransferStarted/Stopped mark each transfer and SessionEnergyCharged counts mWh. "
        "PowerAdjustRequest (Device Energy Management) caps the charging power while it lasts; its Forecast shows the "
        "session's charge and StartTimeAdjustRequest shifts a charge that has not begun (within a day of plugging in, "
        "or until ChargingEnabledUntil).",
        vendor_name="homefabric",
        product_name="EV Charger",
        product_id=0x8082,
        endpoints=(
            endpoint(
                1,
                [ENERGY_EVSE, POWER_SOURCE, ELECTRICAL_SENSOR, DEVICE_ENERGY_MANAGEMENT],
                cluster("Identify", IdentifyType=0),
                cluster("EnergyEvse"),
                cluster("EnergyEvseMode"),
                cluster("PowerSource", "Wired", options={"description": "Mains", "order": 0}),
                *_meter("ImportedEnergy"),
                cluster(
                    "DeviceEnergyManagement",
                    "PowerAdjustment",
                    "PowerForecastReporting",
                    "StartTimeAdjustment",
                    options={
                        "esa_type": 0,
                        "abs_min_power_mW": 0,
                        "abs_max_power_mW": EVSE_MAX_POWER_MW,
                        "power_adjustments": [
                            {
                                "minPower": EVSE_MIN_POWER_MW,
                                "maxPower": EVSE_MAX_POWER_MW,
                                "minDuration": 60,
                                "maxDuration": 86_400,
                            }
                        ],
                    },
                ),
            ),
        ),
        roles=(("evse", 1),),
    ),
)
