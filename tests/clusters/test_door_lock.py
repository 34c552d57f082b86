import pytest

from clusters import HomeError, Status
from clusters.door_lock import DoorLockServer

LOCKED, UNLOCKED = 1, 2


def test_lock_unlock_without_pin(mount):
    lock = DoorLockServer()
    ep = mount(lock)
    assert lock.read("LockState") == LOCKED and lock.read("FeatureMap") == 0
    assert not lock.has_attribute("RequirePINforRemoteOperation")
    lock.invoke("UnlockDoor")
    assert lock.read("LockState") == UNLOCKED and not lock.is_locked
    lock.invoke("LockDoor", {})
    assert lock.is_locked
    assert [c[2:] for c in ep.changes] == [("LockState", 1, 2), ("LockState", 2, 1)]


@pytest.mark.parametrize("pin", ["1234", "31323334", b"1234"])
def test_correct_pin_in_every_spelling(mount, pin):
    lock = DoorLockServer(pin="1234")
    mount(lock)
    assert lock.read("RequirePINforRemoteOperation") is True and lock.read("FeatureMap") == 1 | 128
    lock.invoke("UnlockDoor", {"PINCode": pin})
    assert lock.read("LockState") == UNLOCKED


def test_odd_length_pin_digits(mount):
    lock = DoorLockServer(pin="12345")
    mount(lock)
    lock.invoke("UnlockDoor", {"pin_code": "12345"})
    assert not lock.is_locked


@pytest.mark.parametrize("args", [{}, {"PINCode": "9999"}, {"PINCode": "12345"}])
def test_wrong_or_missing_pin_fails_and_changes_nothing(mount, args):
    lock = DoorLockServer(pin="1234")
    mount(lock)
    before = lock.read_all()
    with pytest.raises(HomeError) as err:
        lock.invoke("UnlockDoor", args)
    assert err.value.status == Status.FAILURE
    assert lock.read_all() == before


def test_pin_not_required_but_checked_when_given(mount):
    lock = DoorLockServer(pin="1234")
    mount(lock)
    lock.write("RequirePINforRemoteOperation", False)
    lock.invoke("UnlockDoor")
    assert not lock.is_locked
    with pytest.raises(HomeError) as err:
        lock.invoke("LockDoor", {"PINCode": "0000"})
    assert err.value.status == Status.FAILURE and not lock.is_locked


def test_wrong_code_limit_locks_out_the_keypad(mount, clock):
    lock = DoorLockServer(pin="1234")
    mount(lock)
    lock.write("WrongCodeEntryLimit", 2)
    lock.write("UserCodeTemporaryDisableTime", 10)
    for _ in range(2):
        with pytest.raises(HomeError):
            lock.invoke("UnlockDoor", {"PINCode": "0000"})
    with pytest.raises(HomeError) as err:
        lock.invoke("UnlockDoor", {"PINCode": "1234"})
    assert err.value.reason == "LOCKED_OUT" and lock.is_locked
    clock.advance_to(100)
    lock.invoke("UnlockDoor", {"PINCode": "1234"})
    assert not lock.is_locked


def test_auto_relock_in_virtual_time(mount, clock):
    lock = DoorLockServer(auto_relock_s=30)
    mount(lock)
    lock.invoke("UnlockDoor")
    clock.advance_to(299)
    assert not lock.is_locked
    clock.advance_to(300)
    assert lock.is_locked
    lock.write("AutoRelockTime", 0)
    lock.invoke("UnlockDoor")
    clock.advance_to(1000)
    assert not lock.is_locked and clock.pending() == 0


def test_unlock_with_timeout_and_lock_cancels_relock(mount, clock):
    lock = DoorLockServer()
    mount(lock)
    lock.invoke("UnlockWithTimeout", {"Timeout": 5})
    assert not lock.is_locked
    clock.advance_to(50)
    assert lock.is_locked
    lock.invoke("UnlockWithTimeout", {"timeout": 5})
    lock.invoke("LockDoor")
    lock.operate_manually(False)
    clock.advance_to(200)
    assert not lock.is_locked  # the cancelled relock timer did not fire


@pytest.mark.parametrize(
    ("call", "status"),
    [
        (lambda s: s.write("OperatingMode", 3) and s.invoke("UnlockDoor", {"PINCode": "1234"}), Status.FAILURE),
        (lambda s: s.write("OperatingMode", 4), Status.CONSTRAINT_ERROR),  # Passage: not supported
        (lambda s: s.write("LockState", 2), Status.UNSUPPORTED_WRITE),
        (lambda s: s.invoke("UnlockWithTimeout", {"timeout": 0}), Status.CONSTRAINT_ERROR),
        (lambda s: s.invoke("UnboltDoor"), Status.UNSUPPORTED_COMMAND),
        (
            lambda s: s.restore("ActuatorEnabled", False) or s.invoke("UnlockDoor", {"PINCode": "1234"}),
            Status.INVALID_IN_STATE,
        ),
    ],
)
def test_refusals(mount, call, status):
    lock = DoorLockServer(pin="1234")
    mount(lock)
    with pytest.raises(HomeError) as err:
        call(lock)
    assert err.value.status == status
    assert lock.is_locked


def test_lock_events(mount, clock):
    from clusters.requester import Requester, acting_as

    lock = DoorLockServer(pin="1234", auto_relock_s=5)
    mount(lock)
    events = []
    lock.add_event_listener(lambda server, name, fields, priority: events.append((name, fields)))
    assert lock.read("EventList") == [0, 2, 3]  # DoorLockAlarm, LockOperation, LockOperationError
    with acting_as(Requester(2)):
        lock.invoke("UnlockDoor", {"PINCode": "1234"})
    assert events[-1] == (
        "LockOperation",
        {"lockOperationType": 1, "operationSource": 7, "userIndex": None, "fabricIndex": 2, "sourceNode": None},
    )
    clock.advance_to(50)  # auto relock
    assert events[-1][0] == "LockOperation" and events[-1][1]["operationSource"] == 4  # Auto
    lock.write("WrongCodeEntryLimit", 2)
    for _ in range(2):
        with pytest.raises(HomeError):
            lock.invoke("UnlockDoor", {"PINCode": "0000"})
    names = [name for name, _ in events]
    assert names[-3:] == ["LockOperationError", "DoorLockAlarm", "LockOperationError"]
    assert events[-1][1]["operationError"] == 1 and events[-2][1] == {"alarmCode": 4}  # WrongCodeEntryLimit
