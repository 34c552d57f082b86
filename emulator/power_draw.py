"""Metered power that follows what a device is doing (a heat pump draws its rated power only while heating or
cooling). The rule is data on the device type (``DeviceTypeSpec.power_draw``); this module applies it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from emulator.device import Device


def apply_power_draw(device: Device) -> None:
    """Set the device's ElectricalPowerMeasurement from its mode now (no-op for types without a rule)."""
    draw = device.spec.power_draw
    if draw is None:
        return
    meter = device.find(draw.meter_endpoint, "ElectricalPowerMeasurement")
    if meter is None:
        return
    mode = device.value(*draw.mode)
    power = draw.standby_mW if mode in draw.off_values else draw.running_mW
    if meter.read("ActivePower") != power:
        meter.set_power(power)  # type: ignore[attr-defined]  # the draw's meter is an ElectricalPowerMeasurementServer


def drives_power(device: Device, endpoint: int, cluster: str, attribute: str) -> bool:
    draw = device.spec.power_draw
    return draw is not None and draw.mode == (endpoint, cluster, attribute)
