import pytest

from clusters import HomeError, Status
from clusters.air_quality import AirQualityServer
from clusters.boolean_state import BooleanStateServer
from clusters.measurement import (
    IlluminanceMeasurementServer,
    Pm10ConcentrationMeasurementServer,
    Pm25ConcentrationMeasurementServer,
    RelativeHumidityMeasurementServer,
    TemperatureMeasurementServer,
    lux_to_measured_value,
    measured_value_to_lux,
)
from clusters.occupancy_sensing import OccupancySensingServer


def test_temperature_and_humidity_clamp_to_range(mount):
    temperature = TemperatureMeasurementServer(values={"MinMeasuredValue": -2300, "MaxMeasuredValue": 5000})
    humidity = RelativeHumidityMeasurementServer(values={"MinMeasuredValue": 1000, "MaxMeasuredValue": 9500})
    ep = mount(temperature, humidity)
    assert temperature.read("MeasuredValue") is None and humidity.read("Tolerance") == 0
    temperature.set_measured_value(2150.6)
    humidity.set_measured_value(9900)
    assert temperature.read("MeasuredValue") == 2151 and humidity.read("MeasuredValue") == 9500
    temperature.set_measured_value(-9000)
    assert temperature.read("MeasuredValue") == -2300
    assert ("TemperatureMeasurement", "MeasuredValue", 2151, -2300) in [c[1:] for c in ep.changes]


def test_sensor_values_are_read_only_but_bindable(mount):
    temperature = TemperatureMeasurementServer()
    mount(temperature)
    with pytest.raises(HomeError) as err:
        temperature.write("MeasuredValue", 100)
    assert err.value.status == Status.UNSUPPORTED_WRITE and temperature.read("MeasuredValue") is None
    temperature.bind_source("MeasuredValue", lambda: 2222)
    assert temperature.read("MeasuredValue") == 2222


def test_illuminance_uses_the_log_encoding(mount):
    light = IlluminanceMeasurementServer()
    mount(light)
    light.set_lux(1000)
    assert light.read("MeasuredValue") == 30001
    assert measured_value_to_lux(30001) == pytest.approx(1000)
    light.set_lux(0.5)
    assert light.read("MeasuredValue") == 0  # too dark to measure
    light.set_lux(10**9)
    assert light.read("MeasuredValue") == 0xFFFE
    assert lux_to_measured_value(1) == 1


def test_concentration_level_and_peak(mount):
    pm10 = Pm10ConcentrationMeasurementServer(features=1 | 2 | 4 | 8 | 16)
    pm25 = Pm25ConcentrationMeasurementServer(features=1, level_thresholds=(5, 10, 20))
    mount(pm10, pm25)
    assert pm10.read("MeasurementUnit") == 4 and pm10.read("MeasurementMedium") == 0
    assert pm10.read("LevelValue") == 0
    for value, level in ((12.5, 1), (50, 2), (120, 3), (400, 4)):
        pm10.set_measured_value(value)
        assert pm10.read("MeasuredValue") == float(value) and pm10.read("LevelValue") == level
    pm10.set_measured_value(2000)
    assert pm10.read("MeasuredValue") == 1000.0 and pm10.read("PeakMeasuredValue") == 2000.0
    pm25.set_measured_value(7)
    assert pm25.read("MeasuredValue") == 7.0 and not pm25.has_attribute("LevelValue")


def test_level_without_medium_and_critical_features(mount):
    pm10 = Pm10ConcentrationMeasurementServer(features=2)
    mount(pm10)
    assert not pm10.has_attribute("MeasuredValue")
    pm10.set_measured_value(50)
    assert pm10.read("LevelValue") == 3
    pm10.set_measured_value(1000)
    assert pm10.read("LevelValue") == 3


def test_air_quality_levels_depend_on_features(mount):
    full, basic = AirQualityServer(), AirQualityServer(features=0)
    mount(full, device_types=())
    full.set_air_quality(6)
    assert full.read("AirQuality") == 6
    basic.set_air_quality(4)
    with pytest.raises(HomeError) as err:
        basic.set_air_quality(2)
    assert err.value.status == Status.CONSTRAINT_ERROR and err.value.allowed == [0, 1, 4]
    assert basic.read("AirQuality") == 4


def test_boolean_state(mount):
    contact = BooleanStateServer()
    ep = mount(contact)
    contact.set_state(True)
    assert contact.read("StateValue") is True
    assert [c[2:] for c in ep.changes] == [("StateValue", False, True)]


def test_occupancy_hold_time(mount, clock):
    sensor = OccupancySensingServer()
    mount(sensor)
    assert (sensor.read("OccupancySensorType"), sensor.read("OccupancySensorTypeBitmap")) == (0, 1)
    assert sensor.read("PIROccupiedToUnoccupiedDelay") == 10 and not sensor.has_attribute(
        "UltrasonicOccupiedToUnoccupiedDelay"
    )
    sensor.set_occupied(True)
    assert sensor.read("Occupancy") == 1
    clock.advance_to(50)
    sensor.set_occupied(False)
    clock.advance_to(149)
    assert sensor.occupied
    clock.advance_to(150)
    assert sensor.read("Occupancy") == 0
    sensor.set_occupied(True)
    sensor.set_occupied(False, immediate=True)
    assert sensor.read("Occupancy") == 0


def test_presence_again_cancels_vacating(mount, clock):
    sensor = OccupancySensingServer()
    mount(sensor)
    sensor.write("HoldTime", 30)
    assert sensor.read("PIROccupiedToUnoccupiedDelay") == 30
    sensor.set_occupied(True)
    sensor.set_occupied(False)
    clock.advance_to(200)
    sensor.set_occupied(True)
    sensor.set_occupied(False)
    clock.advance_to(499)
    assert sensor.occupied
    clock.advance_to(500)
    assert not sensor.occupied


@pytest.mark.parametrize(("features", "sensor_type", "bitmap"), [(4, 1, 2), (2 | 4, 2, 3), (8, 3, 4), (32, 0, 0)])
def test_sensor_type_follows_features(features, sensor_type, bitmap):
    sensor = OccupancySensingServer(features=features)
    assert (sensor.read("OccupancySensorType"), sensor.read("OccupancySensorTypeBitmap")) == (sensor_type, bitmap)


@pytest.mark.parametrize(
    ("call", "status"),
    [
        (lambda s: s.write("HoldTime", 301), Status.CONSTRAINT_ERROR),
        (lambda s: s.write("PIROccupiedToUnoccupiedDelay", 0), Status.CONSTRAINT_ERROR),
        (lambda s: s.write("PIRUnoccupiedToOccupiedThreshold", 0), Status.CONSTRAINT_ERROR),
        (lambda s: s.write("Occupancy", 1), Status.UNSUPPORTED_WRITE),
        (lambda s: s.write("UltrasonicOccupiedToUnoccupiedDelay", 5), Status.UNSUPPORTED_ATTRIBUTE),
    ],
)
def test_occupancy_refusals_leave_state_unchanged(mount, call, status):
    sensor = OccupancySensingServer()
    mount(sensor)
    before = sensor.read_all()
    with pytest.raises(HomeError) as err:
        call(sensor)
    assert err.value.status == status
    assert sensor.read_all() == before
