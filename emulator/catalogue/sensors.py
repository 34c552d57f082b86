"""Environment and presence sensors (their readings follow the room's physics)."""

from __future__ import annotations

from emulator.catalogue.build import (
    AIR_QUALITY_SENSOR,
    HUMIDITY_SENSOR,
    LIGHT_SENSOR,
    OCCUPANCY_SENSOR,
    TEMPERATURE_SENSOR,
    cluster,
    endpoint,
)
from emulator.catalogue.spec import DeviceTypeSpec

DEVICE_TYPES = (
    DeviceTypeSpec(
        name="climate_sensor",
        label="Climate sensor",
        description="Room temperature (endpoint 1) and relative humidity (endpoint 2).",
        vendor_name="homefabric",
        product_name="Climate Sensor",
        product_id=0x8050,
        endpoints=(
            endpoint(
                1,
                TEMPERATURE_SENSOR,
                cluster("Identify", IdentifyType=0),
                cluster("TemperatureMeasurement", MinMeasuredValue=-4000, MaxMeasuredValue=8500),
            ),
            endpoint(
                2,
                HUMIDITY_SENSOR,
                cluster("Identify", IdentifyType=0),
                cluster("RelativeHumidityMeasurement", MinMeasuredValue=0, MaxMeasuredValue=10000),
            ),
        ),
    ),
    DeviceTypeSpec(
        name="temperature_sensor",
        label="Temperature sensor",
        description="The room temperature (0.01 °C).",
        vendor_name="homefabric",
        product_name="Temperature Sensor",
        product_id=0x8054,
        endpoints=(
            endpoint(
                1,
                TEMPERATURE_SENSOR,
                cluster("Identify", IdentifyType=0),
                cluster("TemperatureMeasurement", MinMeasuredValue=-4000, MaxMeasuredValue=8500),
            ),
        ),
    ),
    DeviceTypeSpec(
        name="humidity_sensor",
        label="Humidity sensor",
        description="The room's relative humidity (0.01 %).",
        vendor_name="homefabric",
        product_name="Humidity Sensor",
        product_id=0x8055,
        endpoints=(
            endpoint(
                1,
                HUMIDITY_SENSOR,
                cluster("Identify", IdentifyType=0),
                cluster("RelativeHumidityMeasurement", MinMeasuredValue=0, MaxMeasuredValue=10000),
            ),
        ),
    ),
    DeviceTypeSpec(
        name="occupancy_sensor",
        label="Occupancy sensor",
        description="Presence in the room (passive infrared).",
        vendor_name="homefabric",
        product_name="Motion Sensor",
        product_id=0x8051,
        endpoints=(
            endpoint(
                1, OCCUPANCY_SENSOR, cluster("Identify", IdentifyType=0), cluster("OccupancySensing", "PassiveInfrared")
            ),
        ),
    ),
    DeviceTypeSpec(
        name="air_quality_sensor",
        label="Air quality sensor",
        description="Air quality class, PM10 and PM2.5, temperature and humidity of the room.",
        vendor_name="homefabric",
        product_name="Air Quality Monitor",
        product_id=0x8052,
        endpoints=(
            endpoint(
                1,
                AIR_QUALITY_SENSOR,
                cluster("Identify", IdentifyType=0),
                cluster("AirQuality"),
                cluster("Pm10ConcentrationMeasurement", "NumericMeasurement"),
                cluster("Pm25ConcentrationMeasurement", "NumericMeasurement"),
                cluster("TemperatureMeasurement", MinMeasuredValue=-4000, MaxMeasuredValue=8500),
                cluster("RelativeHumidityMeasurement", MinMeasuredValue=0, MaxMeasuredValue=10000),
            ),
        ),
    ),
    DeviceTypeSpec(
        name="light_sensor",
        label="Light sensor",
        description="Room illuminance (Matter encoding: 10000·log10(lux) + 1).",
        vendor_name="homefabric",
        product_name="Light Sensor",
        product_id=0x8053,
        endpoints=(endpoint(1, LIGHT_SENSOR, cluster("Identify", IdentifyType=0), cluster("IlluminanceMeasurement")),),
    ),
)
