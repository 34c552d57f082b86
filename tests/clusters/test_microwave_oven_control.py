import pytest

from clusters import HomeError, Status
from clusters.cycle_programs import MICROWAVE_PROGRAM, RUNNING, STOPPED
from clusters.microwave_oven_control import POWER_IN_WATTS, MicrowaveOvenControlServer
from clusters.modes import MicrowaveOvenModeServer
from clusters.on_off import OnOffServer
from clusters.operational_state import OperationalStateServer


def at(seconds: float) -> int:
    return round(seconds * 10)


@pytest.fixture
def oven(mount):
    control, mode = MicrowaveOvenControlServer(), MicrowaveOvenModeServer()
    op = OperationalStateServer(MICROWAVE_PROGRAM)
    mount(control, mode, op)
    return control, mode, op


def test_defaults(oven):
    control, _, op = oven
    assert control.read_all()["CookTime"] == 30 and control.read("MaxCookTime") == 3600
    assert (
        control.read("PowerSetting"),
        control.read("MinPower"),
        control.read("MaxPower"),
        control.read("PowerStep"),
    ) == (100, 10, 100, 10)
    assert op.read("PhaseList") == ["Cooking"]


def test_set_cooking_parameters_and_start(oven, clock):
    control, mode, op = oven
    control.invoke("SetCookingParameters", {"CookMode": 1, "CookTime": 90, "PowerSetting": 60})
    assert (mode.read("CurrentMode"), control.read("CookTime"), control.read("PowerSetting")) == (1, 90, 60)
    assert op.read("OperationalState") == STOPPED
    control.invoke("SetCookingParameters", {"cookTime": 45, "startAfterSetting": True})
    # missing fields take the spec defaults: the Normal mode and maximum power
    assert (mode.read("CurrentMode"), control.read("PowerSetting")) == (0, 100)
    assert op.read("OperationalState") == RUNNING and op.read("CountdownTime") == 45
    clock.advance_to(at(45))
    assert op.read("OperationalState") == STOPPED and op.read("CountdownTime") is None


@pytest.mark.parametrize(
    ("args", "status"),
    [
        ({"CookMode": 5}, Status.CONSTRAINT_ERROR),
        ({"CookTime": 0}, Status.CONSTRAINT_ERROR),
        ({"CookTime": 3601}, Status.CONSTRAINT_ERROR),
        ({"PowerSetting": 55}, Status.CONSTRAINT_ERROR),
        ({"PowerSetting": 110}, Status.CONSTRAINT_ERROR),
        ({"WattSettingIndex": 0}, Status.INVALID_COMMAND),
    ],
)
def test_set_cooking_parameters_refusals(oven, args, status):
    control, mode, _ = oven
    before = (control.read_all(), mode.read_all())
    with pytest.raises(HomeError) as err:
        control.invoke("SetCookingParameters", args)
    assert err.value.status == status
    assert (control.read_all(), mode.read_all()) == before


def test_set_cooking_parameters_refused_unless_stopped(oven):
    control, _, op = oven
    op.invoke("Start")
    with pytest.raises(HomeError) as err:
        control.invoke("SetCookingParameters", {"CookTime": 60})
    assert err.value.status == Status.INVALID_IN_STATE and control.read("CookTime") == 30


def test_start_after_setting_needs_power(mount):
    control, op, power = MicrowaveOvenControlServer(), OperationalStateServer(MICROWAVE_PROGRAM), OnOffServer()
    mount(control, MicrowaveOvenModeServer(), op, power)
    with pytest.raises(HomeError) as err:
        control.invoke("SetCookingParameters", {"CookTime": 60, "StartAfterSetting": True})
    assert err.value.reason == "POWER_OFF" and control.read("CookTime") == 30
    power.invoke("On")
    control.invoke("SetCookingParameters", {"CookTime": 60, "StartAfterSetting": True})
    assert op.read("CountdownTime") == 60


def test_add_more_time_extends_the_cycle(oven, clock):
    control, _, op = oven
    control.invoke("SetCookingParameters", {"CookTime": 60, "StartAfterSetting": True})
    clock.advance_to(at(50))
    control.invoke("AddMoreTime", {"TimeToAdd": 30})
    assert control.read("CookTime") == 90 and op.read("CountdownTime") == 40
    clock.advance_to(at(60))
    assert op.read("OperationalState") == RUNNING
    clock.advance_to(at(90))
    assert op.read("OperationalState") == STOPPED


@pytest.mark.parametrize(("seconds", "status"), [(3600, Status.CONSTRAINT_ERROR), (0, Status.CONSTRAINT_ERROR)])
def test_add_more_time_refusals(oven, seconds, status):
    control, _, _ = oven
    with pytest.raises(HomeError) as err:
        control.invoke("AddMoreTime", {"TimeToAdd": seconds})
    assert err.value.status == status and control.read("CookTime") == 30


def test_add_more_time_refused_in_error(oven):
    control, _, op = oven
    op.restore("OperationalState", 3)
    with pytest.raises(HomeError) as err:
        control.invoke("AddMoreTime", {"TimeToAdd": 10})
    assert err.value.status == Status.INVALID_IN_STATE and control.read("CookTime") == 30


def test_watts_feature(mount):
    control = MicrowaveOvenControlServer(supported_watts=[700, 1000, 850], watt_rating=1000)
    mount(control)
    assert control.read("FeatureMap") == POWER_IN_WATTS and not control.has_attribute("PowerSetting")
    assert control.read("SelectedWattIndex") == 1 and control.read("WattRating") == 1000
    control.invoke("SetCookingParameters", {"WattSettingIndex": 2, "CookTime": 10})
    assert control.read("SelectedWattIndex") == 2
    for args, status in (
        ({"WattSettingIndex": 3}, Status.CONSTRAINT_ERROR),
        ({"PowerSetting": 50}, Status.INVALID_COMMAND),
    ):
        with pytest.raises(HomeError) as err:
            control.invoke("SetCookingParameters", args)
        assert err.value.status == status
    assert control.read("SelectedWattIndex") == 2
    control.invoke("SetCookingParameters", {})
    assert control.read("SelectedWattIndex") == 1 and control.read("CookTime") == 30
