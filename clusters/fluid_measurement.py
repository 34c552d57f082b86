"""Pressure Measurement (0x0403) and Flow Measurement (0x0404): read-only readings of a water circuit.

Units are Matter's: pressure in kPa (MeasuredValue, int16), flow in 0.1 m³/h (MeasuredValue, uint16). Like the
other measurement clusters they only hold a value; the device that owns the circuit (a pump, a valve) or a
scenario sets it with ``set_measured_value``, clamped to MinMeasuredValue..MaxMeasuredValue.
"""

from __future__ import annotations

from clusters.measurement import NumericSensor


class PressureMeasurementServer(NumericSensor):
    """MeasuredValue in kPa (a household water main runs at 200–500 kPa)."""

    __slots__ = ()

    cluster_name = "PressureMeasurement"
    revision = 3
    defaults = {"MeasuredValue": None, "MinMeasuredValue": 0, "MaxMeasuredValue": 1600, "Tolerance": 0}


class FlowMeasurementServer(NumericSensor):
    """MeasuredValue in 0.1 m³/h (a house's main carries up to about 3 m³/h = 30)."""

    __slots__ = ()

    cluster_name = "FlowMeasurement"
    revision = 3
    defaults = {"MeasuredValue": None, "MinMeasuredValue": 0, "MaxMeasuredValue": 1000, "Tolerance": 0}
