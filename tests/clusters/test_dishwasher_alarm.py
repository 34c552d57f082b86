import pytest

from clusters import HomeError, Status
from clusters.dishwasher_alarm import ALARM_BITS, DishwasherAlarmServer


def test_defaults_match_simuhome(mount):
    alarm = DishwasherAlarmServer()
    mount(alarm)
    assert (alarm.read("Mask"), alarm.read("Latch"), alarm.read("State"), alarm.read("Supported")) == (0, 0, 0, 0x3F)
    assert ALARM_BITS == {
        "InflowError": 1,
        "DrainError": 2,
        "DoorError": 4,
        "TempTooLow": 8,
        "TempTooHigh": 16,
        "WaterLevelError": 32,
    }
    assert alarm.read("FeatureMap") == 1


def test_modify_enabled_alarms_and_reset(mount):
    alarm = DishwasherAlarmServer(latch=ALARM_BITS["DoorError"])
    mount(alarm)
    alarm.set_alarm(ALARM_BITS["DrainError"])
    assert alarm.read("State") == 0  # suppressed: Mask is 0
    assert alarm.invoke("ModifyEnabledAlarms", {"mask": 0x07}) is None
    assert alarm.read("Mask") == 0x07
    alarm.set_alarm(ALARM_BITS["DrainError"] | ALARM_BITS["DoorError"])
    assert alarm.read("State") == 0x06
    alarm.set_alarm(ALARM_BITS["DrainError"] | ALARM_BITS["DoorError"], active=False)
    assert alarm.read("State") == 0x04  # the door alarm is latched
    alarm.invoke("Reset", {"alarms_to_reset": ALARM_BITS["DoorError"]})
    assert alarm.read("State") == 0
    alarm.set_alarm(0x03)
    alarm.invoke("Reset", {})  # no argument: every alarm
    assert alarm.read("State") == 0
    alarm.set_alarm(0x03)
    alarm.invoke("ModifyEnabledAlarms", {"Mask": 0x01})
    assert alarm.read("State") == 0x01  # disabling an alarm clears it


@pytest.mark.parametrize(
    ("command", "args", "status"),
    [
        ("ModifyEnabledAlarms", {"mask": 0x40}, Status.INVALID_COMMAND),
        ("ModifyEnabledAlarms", {"mask": 0x10}, Status.INVALID_COMMAND),  # not in Supported
        ("Reset", {"alarms": 0x20}, Status.INVALID_COMMAND),
        ("ModifyEnabledAlarms", {}, Status.INVALID_COMMAND),
    ],
)
def test_refusals(mount, command, args, status):
    alarm = DishwasherAlarmServer(supported=0x0F, mask=0x0F)
    mount(alarm)
    alarm.set_alarm(0x01)
    before = alarm.read_all()
    with pytest.raises(HomeError) as err:
        alarm.invoke(command, args)
    assert err.value.status == status
    assert alarm.read_all() == before


def test_without_reset_feature(mount):
    alarm = DishwasherAlarmServer(features=0)
    mount(alarm)
    assert not alarm.has_attribute("Latch")
    with pytest.raises(HomeError) as err:
        alarm.invoke("Reset", {"alarms": 1})
    assert err.value.status == Status.UNSUPPORTED_COMMAND
    with pytest.raises(HomeError) as err:
        alarm.write("Mask", 1)
    assert err.value.status == Status.UNSUPPORTED_WRITE
    with pytest.raises(ValueError):
        DishwasherAlarmServer(supported=0x80)


def test_notify_events(mount):
    alarm = DishwasherAlarmServer()
    mount(alarm)
    events = []
    alarm.add_event_listener(lambda server, name, fields, priority: events.append((name, fields)))
    alarm.invoke("ModifyEnabledAlarms", {"mask": 0x07})
    alarm.set_alarm(ALARM_BITS["DrainError"])
    alarm.invoke("Reset", {"alarms": ALARM_BITS["DrainError"]})
    assert events == [
        ("Notify", {"active": 2, "inactive": 0, "state": 2, "mask": 7}),
        ("Notify", {"active": 0, "inactive": 2, "state": 0, "mask": 7}),
    ]
