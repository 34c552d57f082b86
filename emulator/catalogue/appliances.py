"""Kitchen and laundry appliances, the robot vacuum, fridges and freezers."""

from __future__ import annotations

from clusters.cycle_programs import (
    DISHWASHER_PROGRAM,
    GENERIC_PROGRAM,
    LAUNDRY_DRYER_PROGRAM,
    LAUNDRY_WASHER_PROGRAM,
    MICROWAVE_PROGRAM,
)
from emulator.catalogue.build import (
    COOK_SURFACE,
    COOKTOP,
    DISHWASHER,
    EXTRACTOR_HOOD,
    LAUNDRY_DRYER,
    LAUNDRY_WASHER,
    MICROWAVE_OVEN,
    OVEN,
    REFRIGERATOR,
    ROBOTIC_VACUUM_CLEANER,
    TEMPERATURE_CONTROLLED_CABINET,
    cluster,
    endpoint,
)
from emulator.catalogue.spec import DeviceTypeSpec

COOK_SURFACE_LEVELS = ("Low", "Medium", "High")
COOK_SURFACE_TEMPERATURES = (9000, 15000, 22000)  # centi-°C a surface approaches at each level


def _cabinet(name: str, label: str, setpoint: int, low: int, high: int, tag: str) -> DeviceTypeSpec:
    return DeviceTypeSpec(
        name=name,
        label=label,
        origin="simuhome",
        description=f"A {label.lower()}: SetTemperature({low}..{high} centi-°C); the compartment temperature "
        "approaches the setpoint.",
        vendor_name="homefabric",
        product_name=label,
        product_id=2,
        endpoints=(
            endpoint(
                1,
                [REFRIGERATOR, TEMPERATURE_CONTROLLED_CABINET],
                cluster("Identify", IdentifyType=0),
                cluster("RefrigeratorAndTemperatureControlledCabinetMode"),
                cluster(
                    "TemperatureControl",
                    options={"min_temperature": low, "max_temperature": high, "setpoint": setpoint},
                ),
                cluster("TemperatureMeasurement", MinMeasuredValue=-27315, MaxMeasuredValue=32766),
            ),
        ),
        roles=(("compartment", 1),),
    )


DEVICE_TYPES = (
    DeviceTypeSpec(
        name="dishwasher",
        label="Dishwasher",
        origin="simuhome",
        description="Power on, choose a mode, Start: a 1800–7200 s cycle by mode (Pre-wash, Main wash, Rinse, Dry).",
        vendor_name="homefabric",
        product_name="Dishwasher",
        product_id=0x75,
        endpoints=(
            endpoint(
                1,
                DISHWASHER,
                cluster("Identify", IdentifyType=0),
                cluster("OnOff", "DeadFrontBehavior"),
                cluster("OperationalState", options={"program": DISHWASHER_PROGRAM}),
                cluster("DishwasherMode"),
                cluster("DishwasherAlarm"),
            ),
        ),
    ),
    DeviceTypeSpec(
        name="laundry_washer",
        label="Washing machine",
        origin="simuhome",
        description="Power on, choose a mode, Start: a 900–5400 s cycle (Pre-wash, Main wash, Rinse, Spin).",
        vendor_name="Samsung Electronics",
        product_name="Laundry Washer",
        product_id=0x51,
        endpoints=(
            endpoint(
                1,
                LAUNDRY_WASHER,
                cluster("Identify", IdentifyType=0),
                cluster("OnOff", "DeadFrontBehavior"),
                cluster("OperationalState", options={"program": LAUNDRY_WASHER_PROGRAM}),
                cluster("LaundryWasherMode"),
                cluster("LaundryWasherControls", "Spin", "Rinse"),
                cluster(
                    "TemperatureControl", options={"min_temperature": 500, "max_temperature": 9500, "setpoint": 2000}
                ),
            ),
        ),
    ),
    DeviceTypeSpec(
        name="laundry_dryer",
        label="Tumble dryer",
        origin="simuhome",
        description="Power on, choose a dryness level, Start: 30/45/60/75 min by dryness (Heating, Drying, CoolDown).",
        vendor_name="Generic Vendor",
        product_name="Laundry Dryer",
        product_id=0x80,
        endpoints=(
            endpoint(
                1,
                LAUNDRY_DRYER,
                cluster("Identify", IdentifyType=0),
                cluster("OnOff", "DeadFrontBehavior"),
                cluster("OperationalState", options={"program": LAUNDRY_DRYER_PROGRAM}),
                cluster("LaundryDryerControls"),
            ),
        ),
    ),
    DeviceTypeSpec(
        name="rvc",
        label="Robot vacuum",
        origin="simuhome",
        description="Change the run mode to Vacuum (2) or Mapping (3) to start: 1800 s cleaning, then seeking the "
        "charger and docked; GoHome sends it back.",
        vendor_name="homefabric",
        product_name="Robot Vacuum Cleaner",
        product_id=3,
        endpoints=(
            endpoint(
                1,
                ROBOTIC_VACUUM_CLEANER,
                cluster("Identify", IdentifyType=0),
                cluster("RvcRunMode"),
                cluster("RvcOperationalState"),
                cluster("RvcCleanMode"),
            ),
        ),
    ),
    _cabinet("freezer", "Freezer", -1500, -2300, -1500, "Freezer"),
    _cabinet("refrigerator", "Refrigerator", 700, 100, 700, "Refrigerator"),
    DeviceTypeSpec(
        name="oven",
        label="Oven",
        description="A built-in oven: the cavity (endpoint 2) has a mode, a temperature setpoint and a cooking cycle.",
        vendor_name="homefabric",
        product_name="Built-in Oven",
        product_id=0x8020,
        endpoints=(
            endpoint(1, OVEN, cluster("Identify", IdentifyType=0)),
            endpoint(
                2,
                TEMPERATURE_CONTROLLED_CABINET,
                cluster("OvenMode"),
                cluster("OvenCavityOperationalState", options={"program": GENERIC_PROGRAM}),
                cluster(
                    "TemperatureControl",
                    options={"min_temperature": 5000, "max_temperature": 25000, "setpoint": 18000, "step": 500},
                ),
                cluster("TemperatureMeasurement", MinMeasuredValue=0, MaxMeasuredValue=30000),
            ),
        ),
        roles=(("compartment", 2),),
    ),
    DeviceTypeSpec(
        name="microwave_oven",
        label="Microwave oven",
        description="Set the cooking parameters (time, power), then Start; the cycle lasts the cook time.",
        vendor_name="homefabric",
        product_name="Microwave Oven",
        product_id=0x8021,
        endpoints=(
            endpoint(
                1,
                MICROWAVE_OVEN,
                cluster("Identify", IdentifyType=0),
                cluster("OperationalState", options={"program": MICROWAVE_PROGRAM}),
                cluster("MicrowaveOvenMode"),
                cluster("MicrowaveOvenControl", "PowerAsNumber"),
            ),
        ),
    ),
    DeviceTypeSpec(
        name="wine_cooler",
        label="Wine cooler",
        description="A temperature-controlled cabinet: SetTemperature(500..1800 centi-°C); the cabinet temperature "
        "approaches the setpoint.",
        vendor_name="homefabric",
        product_name="Wine Cooler",
        product_id=0x8022,
        endpoints=(
            endpoint(
                1,
                TEMPERATURE_CONTROLLED_CABINET,
                cluster("RefrigeratorAndTemperatureControlledCabinetMode"),
                cluster(
                    "TemperatureControl", options={"min_temperature": 500, "max_temperature": 1800, "setpoint": 1200}
                ),
                cluster("TemperatureMeasurement", MinMeasuredValue=-27315, MaxMeasuredValue=32766),
            ),
        ),
        roles=(("compartment", 1),),
    ),
    DeviceTypeSpec(
        name="cooktop",
        label="Cooktop",
        description="An induction hob with two cook surfaces (endpoints 2 and 3). Matter lets a controller only switch "
        "it off (OffOnly): a surface is switched on at the hob; while on, its temperature approaches its "
        "level's (Low 90 °C, Medium 150 °C, High 220 °C).",
        vendor_name="homefabric",
        product_name="Induction Cooktop",
        product_id=0x8023,
        endpoints=(
            endpoint(1, COOKTOP, cluster("Identify", IdentifyType=0), cluster("OnOff", "OffOnly")),
            *(
                endpoint(
                    surface,
                    COOK_SURFACE,
                    cluster("OnOff", "OffOnly"),
                    cluster(
                        "TemperatureControl",
                        "TemperatureLevel",
                        options={
                            "levels": COOK_SURFACE_LEVELS,
                            "selected_level": 1,
                            "level_temperatures": COOK_SURFACE_TEMPERATURES,
                        },
                    ),
                    cluster("TemperatureMeasurement", MinMeasuredValue=0, MaxMeasuredValue=30000),
                )
                for surface in (2, 3)
            ),
        ),
        roles=(("compartment", 2), ("compartment", 3)),
    ),
    DeviceTypeSpec(
        name="extractor_hood",
        label="Extractor hood",
        description="A cooker hood: its fan has Off/Low/Medium/High (FanMode) or a percentage; in Auto it follows the "
        "cooktop in its room (the hottest surface that is on: Low/Medium/High → 33/66/100 %) and runs on five minutes "
        "after the hob goes off.",
        vendor_name="homefabric",
        product_name="Extractor Hood",
        product_id=0x8024,
        endpoints=(
            endpoint(
                1,
                EXTRACTOR_HOOD,
                cluster("Identify", IdentifyType=0),
                cluster("FanControl", "Step", "Auto", FanModeSequence=2, FanMode=0, PercentSetting=0, PercentCurrent=0),
            ),
        ),
    ),
)
