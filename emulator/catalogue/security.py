"""Locks, coverings and alarms."""

from __future__ import annotations

from emulator.catalogue.build import (
    CONTACT_SENSOR,
    DOOR_LOCK,
    SMOKE_CO_ALARM,
    WATER_LEAK_DETECTOR,
    WINDOW_COVERING,
    cluster,
    endpoint,
)
from emulator.catalogue.spec import DeviceTypeSpec


def _covering(
    name: str, label: str, covering_type: str, product_id: int, origin: str, *features: str
) -> DeviceTypeSpec:
    return DeviceTypeSpec(
        name=name,
        label=label,
        origin=origin,
        description=f"A motorised {label.lower()}: 0 = fully open, 10000 = fully closed (0.01 %); moving takes time.",
        vendor_name="homefabric",
        product_name=label,
        product_id=product_id,
        endpoints=(
            endpoint(
                1,
                WINDOW_COVERING,
                cluster("Identify", IdentifyType=0),
                cluster(
                    "WindowCovering", "Lift", "PositionAwareLift", *features, options={"covering_type": covering_type}
                ),
            ),
        ),
        roles=(("covering", 1),),
    )


DEVICE_TYPES = (
    _covering("window_covering_controller", "Blinds", "RollerShade", 10, "simuhome"),
    _covering("curtain", "Curtain", "Drapery", 0x8040, "homefabric"),
    _covering("blind", "Venetian blind", "TiltBlindLiftAndTilt", 0x8041, "homefabric", "Tilt", "PositionAwareTilt"),
    DeviceTypeSpec(
        name="door_lock",
        label="Door lock",
        description="A smart lock: LockDoor / UnlockDoor (a PIN may be required), auto-relock after a delay.",
        vendor_name="homefabric",
        product_name="Smart Lock",
        product_id=0x8042,
        endpoints=(endpoint(1, DOOR_LOCK, cluster("Identify", IdentifyType=0), cluster("DoorLock")),),
    ),
    DeviceTypeSpec(
        name="smoke_co_alarm",
        label="Smoke and CO alarm",
        description="A battery smoke and carbon-monoxide alarm with a self test.",
        vendor_name="homefabric",
        product_name="Smoke CO Alarm",
        product_id=0x8043,
        endpoints=(
            endpoint(
                1,
                SMOKE_CO_ALARM,
                cluster("Identify", IdentifyType=0),
                cluster("SmokeCoAlarm", "SmokeAlarm", "CoAlarm"),
                cluster(
                    "PowerSource", "Battery", options={"description": "Battery", "order": 0, "battery_percent": 100}
                ),
            ),
        ),
    ),
    DeviceTypeSpec(
        name="contact_sensor",
        label="Contact sensor",
        description="A door/window contact: StateValue true when closed (in contact).",
        vendor_name="homefabric",
        product_name="Contact Sensor",
        product_id=0x8044,
        endpoints=(endpoint(1, CONTACT_SENSOR, cluster("Identify", IdentifyType=0), cluster("BooleanState")),),
    ),
    DeviceTypeSpec(
        name="water_leak_detector",
        label="Water leak detector",
        description="StateValue true when a leak is detected.",
        vendor_name="homefabric",
        product_name="Leak Detector",
        product_id=0x8045,
        endpoints=(endpoint(1, WATER_LEAK_DETECTOR, cluster("Identify", IdentifyType=0), cluster("BooleanState")),),
    ),
)
