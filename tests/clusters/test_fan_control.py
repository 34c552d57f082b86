import pytest

from clusters import HomeError, Status
from clusters.fan_control import FanControlServer


def fan(mount, **kwargs):
    server = FanControlServer(**kwargs)
    mount(server)
    return server


def state(server):
    return server.read("FanMode"), server.read("PercentSetting"), server.read("PercentCurrent")


@pytest.mark.parametrize(("percent", "mode"), [(0, 0), (1, 1), (33, 1), (34, 2), (66, 2), (67, 3), (100, 3)])
def test_percent_setting_sets_mode_by_band(mount, percent, mode):
    server = fan(mount)
    server.write("PercentSetting", percent)
    assert state(server) == (mode, percent, percent)


@pytest.mark.parametrize(
    ("mode", "expected"), [(0, (0, 0)), (1, (1, 33)), (2, (2, 66)), (3, (3, 100)), (4, (3, 100)), (6, (3, 100))]
)
def test_fan_mode_write_sets_percent(mount, mode, expected):
    server = fan(mount, values={"PercentSetting": 50, "PercentCurrent": 50, "FanMode": 2})
    server.write("FanMode", mode)
    assert state(server) == (expected[0], expected[1], expected[1])


def test_null_percent_write_is_a_no_op(mount):
    server = fan(mount, values={"PercentSetting": 40, "PercentCurrent": 40, "FanMode": 2})
    assert server.write("PercentSetting", None) == (40, 40)
    assert state(server) == (2, 40, 40)


def test_auto_only_with_a_sequence_that_has_auto(mount):
    server = fan(mount, features=16 | 2, values={"FanModeSequence": 2, "PercentSetting": 66})
    server.write("FanMode", "Smart")
    assert server.read("FanMode") == 5 and server.read("PercentSetting") is None
    server.write("FanMode", 1)
    assert state(server) == (1, 33, 33)


def test_step_follows_simuhome_rules(mount):
    server = fan(mount)
    server.invoke("Step", {"Direction": 0})
    assert state(server) == (1, 33, 33)
    server.invoke("Step", {"Direction": 0})
    server.invoke("Step", {"Direction": 0})
    assert state(server) == (3, 100, 100)
    server.invoke("Step", {"Direction": 0})  # wraps to Off by default
    assert state(server) == (0, 0, 0)
    server.invoke("Step", {"Direction": 1})  # from 0 down wraps to 100
    assert state(server) == (3, 100, 100)
    server.invoke("Step", {"Direction": 0, "Wrap": False})
    assert state(server) == (3, 100, 100)
    server.write("PercentSetting", 40)
    server.invoke("Step", {"direction": 1})  # nearest step to 40 is 33; one step down from there
    assert state(server) == (0, 0, 0)
    server.invoke("Step", {"Direction": 1, "LowestOff": False})
    assert state(server) == (3, 100, 100)  # lowest step is Low; wraps to High


def test_multi_speed(mount):
    server = fan(mount, features=1 | 16, values={"SpeedMax": 3})
    server.write("PercentSetting", 50)
    assert (server.read("SpeedSetting"), server.read("SpeedCurrent")) == (2, 2)
    server.write("SpeedSetting", 3)
    assert state(server) == (3, 100, 100)
    server.invoke("Step", {"Direction": 1})
    assert server.read("SpeedSetting") == 2 and server.read("PercentCurrent") == 66
    server.write("FanMode", 0)
    assert (server.read("SpeedSetting"), server.read("PercentCurrent")) == (0, 0)


def test_rocking_wind_and_airflow(mount):
    server = fan(mount, features=4 | 8 | 32, values={"RockSupport": 0b011, "WindSupport": 0b10})
    server.write("RockSetting", 0b010)
    server.write("WindSetting", 0b10)
    server.write("AirflowDirection", "Reverse")
    assert (server.read("RockSetting"), server.read("WindSetting"), server.read("AirflowDirection")) == (2, 2, 1)


@pytest.mark.parametrize(
    ("call", "status"),
    [
        (lambda s: s.write("PercentSetting", 101), Status.CONSTRAINT_ERROR),
        (lambda s: s.write("PercentSetting", "high"), Status.INVALID_DATA_TYPE),
        (lambda s: s.write("FanMode", 5), Status.CONSTRAINT_ERROR),
        (lambda s: s.write("FanMode", 7), Status.CONSTRAINT_ERROR),
        (lambda s: s.write("PercentCurrent", 10), Status.UNSUPPORTED_WRITE),
        (lambda s: s.write("SpeedSetting", 4), Status.CONSTRAINT_ERROR),
        (lambda s: s.write("RockSetting", 0b100), Status.CONSTRAINT_ERROR),
        (lambda s: s.write("WindSetting", 0b01), Status.CONSTRAINT_ERROR),
        (lambda s: s.invoke("Step", {"Direction": 2}), Status.CONSTRAINT_ERROR),
        (lambda s: s.invoke("Step", {}), Status.INVALID_COMMAND),
    ],
)
def test_refusals_leave_state_unchanged(mount, call, status):
    server = fan(
        mount,
        features=1 | 4 | 8 | 16,
        values={"FanModeSequence": 1, "SpeedMax": 3, "RockSupport": 3, "WindSupport": 2, "PercentSetting": 33},
    )
    before = server.read_all()
    with pytest.raises(HomeError) as err:
        call(server)
    assert err.value.status == status
    assert server.read_all() == before


def test_step_needs_the_step_feature(mount):
    server = fan(mount, features=0)
    with pytest.raises(HomeError) as err:
        server.invoke("Step", {"Direction": 0})
    assert err.value.status == Status.UNSUPPORTED_COMMAND
    assert not server.has_attribute("SpeedMax")
