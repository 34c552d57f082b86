import pytest

from clusters import HomeError, Status
from clusters.temperature_control import (
    TEMPERATURE_LEVEL,
    TEMPERATURE_NUMBER,
    TEMPERATURE_STEP,
    TemperatureControlServer,
)


def test_washer_defaults_and_set_temperature_spellings(mount):
    server = TemperatureControlServer()
    mount(server)
    assert server.read("FeatureMap") == TEMPERATURE_NUMBER
    assert (server.read("TemperatureSetpoint"), server.read("MinTemperature"), server.read("MaxTemperature")) == (
        2000,
        500,
        9500,
    )
    assert not server.has_attribute("Step") and not server.has_attribute("SelectedTemperatureLevel")
    assert server.invoke("SetTemperature", {"target_temperature": 4000}) is None
    assert server.read("TemperatureSetpoint") == 4000
    server.invoke("SetTemperature", {"TargetTemperature": 9500})
    assert server.read("TemperatureSetpoint") == 9500


@pytest.mark.parametrize(("low", "high", "setpoint"), [(100, 700, 700), (-2300, -1500, -1500)])
def test_fridge_and_freezer_ranges(mount, low, high, setpoint):
    server = TemperatureControlServer(min_temperature=low, max_temperature=high)
    mount(server)
    assert server.read("TemperatureSetpoint") == setpoint  # the default setpoint is kept inside the range
    server.invoke("SetTemperature", {"target_temperature": low})
    assert server.read("TemperatureSetpoint") == low
    with pytest.raises(HomeError) as err:
        server.invoke("SetTemperature", {"target_temperature": high + 1})
    assert err.value.status == Status.CONSTRAINT_ERROR and err.value.allowed == {"min": low, "max": high}
    assert server.read("TemperatureSetpoint") == low


@pytest.mark.parametrize(
    ("args", "status"),
    [
        ({}, Status.INVALID_COMMAND),
        ({"target_temperature": 499}, Status.CONSTRAINT_ERROR),
        ({"target_temperature_level": 1}, Status.INVALID_COMMAND),  # no TL feature
        ({"target_temperature": "hot"}, Status.INVALID_COMMAND),
    ],
)
def test_set_temperature_refusals(mount, args, status):
    server = TemperatureControlServer()
    mount(server)
    before = server.read_all()
    with pytest.raises(HomeError) as err:
        server.invoke("SetTemperature", args)
    assert err.value.status == status
    assert server.read_all() == before


def test_setpoint_is_read_only(mount):
    server = TemperatureControlServer()
    mount(server)
    with pytest.raises(HomeError) as err:
        server.write("TemperatureSetpoint", 3000)
    assert err.value.status == Status.UNSUPPORTED_WRITE and server.read("TemperatureSetpoint") == 2000


def test_step_feature(mount):
    server = TemperatureControlServer(min_temperature=3000, max_temperature=9000, step=500)
    mount(server)
    assert server.read("FeatureMap") == TEMPERATURE_NUMBER | TEMPERATURE_STEP and server.read("Step") == 500
    server.invoke("SetTemperature", {"TargetTemperature": 4000})
    with pytest.raises(HomeError) as err:
        server.invoke("SetTemperature", {"TargetTemperature": 4250})
    assert err.value.status == Status.CONSTRAINT_ERROR and err.value.allowed["step"] == 500
    assert server.read("TemperatureSetpoint") == 4000


def test_level_feature(mount):
    server = TemperatureControlServer(levels=["Cold", "Warm", "Hot", "Very hot"], selected_level=1)
    mount(server)
    assert server.read("FeatureMap") == TEMPERATURE_LEVEL and not server.has_attribute("TemperatureSetpoint")
    server.invoke("SetTemperature", {"target_temperature_level": 3})
    assert server.read("SelectedTemperatureLevel") == 3
    for args, status in (
        ({"TargetTemperatureLevel": 4}, Status.CONSTRAINT_ERROR),
        ({"TargetTemperature": 3000}, Status.INVALID_COMMAND),
    ):
        with pytest.raises(HomeError) as err:
            server.invoke("SetTemperature", args)
        assert err.value.status == status
    assert server.read("SelectedTemperatureLevel") == 3


def test_invalid_range_is_a_construction_error():
    with pytest.raises(ValueError):
        TemperatureControlServer(min_temperature=700, max_temperature=100, setpoint=300)
