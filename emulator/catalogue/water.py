"""Water: the main valve, a circulation pump and its controller, and the sensors of a water circuit and of the
weather (leak, freeze, rain)."""

from __future__ import annotations

from emulator.catalogue.build import (
    FLOW_SENSOR,
    PRESSURE_SENSOR,
    PUMP,
    PUMP_CONTROLLER,
    RAIN_SENSOR,
    WATER_FREEZE_DETECTOR,
    WATER_VALVE,
    cluster,
    endpoint,
)
from emulator.catalogue.spec import DeviceTypeSpec


def _boolean_sensor(
    name: str, label: str, device_type: tuple[int, int], product_id: int, meaning: str
) -> DeviceTypeSpec:
    return DeviceTypeSpec(
        name=name,
        label=label,
        description=f"StateValue true when {meaning}.",
        vendor_name="homefabric",
        product_name=label,
        product_id=product_id,
        endpoints=(endpoint(1, device_type, cluster("Identify", IdentifyType=0), cluster("BooleanState")),),
    )


DEVICE_TYPES = (
    DeviceTypeSpec(
        name="water_valve",
        label="Water valve",
        description="A motorised main water valve: Open (for OpenDuration seconds, else until Close) and Close take "
        "3 s; its flow meter (endpoint 2) reads 1.2 m³/h (12 × 0.1 m³/h) while open.",
        vendor_name="homefabric",
        product_name="Smart Water Valve",
        product_id=0x8060,
        endpoints=(
            endpoint(1, WATER_VALVE, cluster("Identify", IdentifyType=0), cluster("ValveConfigurationAndControl")),
            endpoint(2, FLOW_SENSOR, cluster("Identify", IdentifyType=0), cluster("FlowMeasurement", MeasuredValue=0)),
        ),
        roles=(("valve", 1), ("flow_meter", 2)),
    ),
    DeviceTypeSpec(
        name="pump",
        label="Circulation pump",
        description="A constant-speed pump that runs while on; OperationMode Normal/Minimum/Maximum sets its speed, "
        "and its flow (∝ speed) and pressure (∝ speed²) meters follow.",
        vendor_name="homefabric",
        product_name="Circulation Pump",
        product_id=0x8061,
        endpoints=(
            endpoint(
                1,
                PUMP,
                cluster("Identify", IdentifyType=0),
                cluster("OnOff"),
                cluster("PumpConfigurationAndControl", "ConstantSpeed"),
                cluster("FlowMeasurement"),
                cluster("PressureMeasurement"),
            ),
        ),
    ),
    DeviceTypeSpec(
        name="pump_controller",
        label="Pump controller",
        description="A wall controller for a pump (a client device: it serves only Identify).",
        vendor_name="homefabric",
        product_name="Pump Controller",
        product_id=0x8062,
        endpoints=(endpoint(1, PUMP_CONTROLLER, cluster("Identify", IdentifyType=0)),),
    ),
    DeviceTypeSpec(
        name="pressure_sensor",
        label="Water pressure sensor",
        description="Water pressure in kPa (a household main: about 300 kPa).",
        vendor_name="homefabric",
        product_name="Pressure Sensor",
        product_id=0x8063,
        endpoints=(
            endpoint(
                1,
                PRESSURE_SENSOR,
                cluster("Identify", IdentifyType=0),
                cluster("PressureMeasurement", MeasuredValue=300),
            ),
        ),
    ),
    DeviceTypeSpec(
        name="flow_sensor",
        label="Water flow sensor",
        description="Water flow in 0.1 m³/h (0 while nothing runs).",
        vendor_name="homefabric",
        product_name="Flow Sensor",
        product_id=0x8064,
        endpoints=(
            endpoint(1, FLOW_SENSOR, cluster("Identify", IdentifyType=0), cluster("FlowMeasurement", MeasuredValue=0)),
        ),
    ),
    _boolean_sensor(
        "water_freeze_detector",
        "Water freeze detector",
        WATER_FREEZE_DETECTOR,
        0x8065,
        "the water it watches is about to freeze",
    ),
    _boolean_sensor("rain_sensor", "Rain sensor", RAIN_SENSOR, 0x8066, "it is raining"),
)
