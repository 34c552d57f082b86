import pytest

from clusters import HomeError, Status
from clusters.smoke_co_alarm import SmokeCoAlarmServer

NORMAL, SMOKE, CO, BATTERY, TESTING, FAULT, END_OF_SERVICE, INTERCONNECT_SMOKE = 0, 1, 2, 3, 4, 5, 6, 7


def test_expressed_state_follows_priority(mount):
    alarm = SmokeCoAlarmServer()
    ep = mount(alarm)
    assert alarm.read("ExpressedState") == NORMAL and alarm.read("FeatureMap") == 3
    alarm.set_battery_alert("Warning")
    assert alarm.read("ExpressedState") == BATTERY
    alarm.set_end_of_service(True)
    assert alarm.read("ExpressedState") == END_OF_SERVICE
    alarm.set_hardware_fault(True)
    assert alarm.read("ExpressedState") == FAULT
    alarm.set_co("Critical")
    assert alarm.read("ExpressedState") == CO and alarm.read("COState") == 2
    alarm.set_interconnect_smoke(1)
    assert alarm.read("ExpressedState") == INTERCONNECT_SMOKE
    alarm.set_smoke(2)
    assert alarm.read("ExpressedState") == SMOKE
    alarm.set_smoke(0)
    alarm.set_interconnect_smoke(0)
    alarm.set_co(0)
    assert alarm.read("ExpressedState") == FAULT
    assert ("SmokeCoAlarm", "ExpressedState", CO, INTERCONNECT_SMOKE) in [c[1:] for c in ep.changes]


def test_self_test_runs_in_virtual_time(mount, clock):
    alarm = SmokeCoAlarmServer(self_test_s=3)
    mount(alarm)
    alarm.invoke("SelfTestRequest")
    assert alarm.read("TestInProgress") is True and alarm.read("ExpressedState") == TESTING
    clock.advance_to(29)
    assert alarm.read("TestInProgress") is True
    clock.advance_to(30)
    assert alarm.read("TestInProgress") is False and alarm.read("ExpressedState") == NORMAL


@pytest.mark.parametrize("setup", [lambda a: a.set_smoke("Warning"), lambda a: a.invoke("SelfTestRequest")])
def test_self_test_busy_while_alarming_or_testing(mount, setup):
    alarm = SmokeCoAlarmServer()
    mount(alarm)
    setup(alarm)
    before = alarm.read_all()
    with pytest.raises(HomeError) as err:
        alarm.invoke("SelfTestRequest")
    assert err.value.status == Status.BUSY and alarm.read_all() == before


def test_features_and_restore(mount):
    smoke_only = SmokeCoAlarmServer(features=1, values={"SmokeState": 1})
    mount(smoke_only)
    assert smoke_only.read("ExpressedState") == SMOKE and not smoke_only.has_attribute("COState")
    with pytest.raises(HomeError) as err:
        smoke_only.set_co(2)
    assert err.value.status == Status.UNSUPPORTED_ATTRIBUTE
    with pytest.raises(HomeError) as err:
        smoke_only.set_smoke(7)
    assert err.value.status == Status.CONSTRAINT_ERROR and smoke_only.read("SmokeState") == 1
    smoke_only.write("SmokeSensitivityLevel", "High")
    assert smoke_only.read("SmokeSensitivityLevel") == 0
    with pytest.raises(HomeError) as err:
        smoke_only.write("SmokeState", 0)
    assert err.value.status == Status.UNSUPPORTED_WRITE and smoke_only.read("SmokeState") == 1


def test_alarm_events(mount, clock):
    alarm = SmokeCoAlarmServer()
    mount(alarm)
    events = []
    alarm.add_event_listener(lambda server, name, fields, priority: events.append((name, fields, int(priority))))
    alarm.set_smoke("Critical")
    alarm.set_smoke(0)
    alarm.set_battery_alert("Warning")
    alarm.set_battery_alert(0)
    alarm.invoke("SelfTestRequest")
    clock.advance_to(100)
    assert events == [
        ("SmokeAlarm", {"alarmSeverityLevel": 2}, 2),
        ("AllClear", {}, 1),
        ("LowBattery", {"alarmSeverityLevel": 1}, 1),
        ("AllClear", {}, 1),
        ("SelfTestComplete", {}, 1),
        ("AllClear", {}, 1),
    ]
    co_only = SmokeCoAlarmServer(features=2)
    assert "SmokeAlarm" not in co_only.supported_events() and "COAlarm" in co_only.supported_events()
