import pytest

from clusters import HomeError, Status
from clusters.window_covering import WindowCoveringServer

CURRENT = "CurrentPositionLiftPercent100ths"
TARGET = "TargetPositionLiftPercent100ths"


def test_defaults_and_type_options(mount):
    blind = WindowCoveringServer()
    curtain = WindowCoveringServer(covering_type="Drapery")
    mount(blind)
    assert blind.read("Type") == 0 and blind.read("EndProductType") == 0
    assert curtain.read("Type") == 4 and curtain.read("EndProductType") == 16
    assert blind.read(CURRENT) == 0 and blind.read("CurrentPositionLiftPercentage") == 0
    assert blind.read("ConfigStatus") == 1 | 8  # Operational + LiftPositionAware
    assert blind.read("FeatureMap") == 5 and blind.read("ClusterRevision") == 5
    assert not blind.has_attribute("CurrentPositionTiltPercent100ths")
    assert "GoToTiltPercentage" not in blind.command_names()


def test_go_to_lift_takes_virtual_time(mount, clock):
    server = WindowCoveringServer(full_travel_s=30)
    ep = mount(server)
    server.invoke("GoToLiftPercentage", {"lift_percent_100ths": 5000})  # SimuHome's argument name
    assert server.read(TARGET) == 5000
    assert server.read("OperationalStatus") == 2 | 2 << 2  # global closing + lift closing
    assert server.read("NumberOfActuationsLift") == 1
    assert clock.pending() == 1  # one timer for the whole move, not one per tick
    clock.advance_to(50)  # 5 s of a 15 s move
    assert server.read(CURRENT) == 1667 and server.read("CurrentPositionLiftPercentage") == 16
    assert server.closed_fraction() == pytest.approx(0.1667)
    clock.advance_to(149)
    assert server.read("OperationalStatus") == 2 | 2 << 2
    clock.advance_to(150)
    assert server.read(CURRENT) == 5000 and server.read("OperationalStatus") == 0
    assert (15.0, "WindowCovering", CURRENT, 0, 5000) in ep.changes


def test_open_close_and_stop_motion(mount, clock):
    server = WindowCoveringServer(full_travel_s=10)
    mount(server)
    server.invoke("DownOrClose")
    clock.advance_to(40)
    server.invoke("StopMotion")
    assert server.read(CURRENT) == 4000 and server.read(TARGET) == 4000
    assert server.read("OperationalStatus") == 0 and clock.pending() == 0
    server.invoke("UpOrOpen")
    assert server.read("OperationalStatus") == 1 | 1 << 2  # opening
    clock.advance_to(80)
    assert server.read(CURRENT) == 0 and server.read("NumberOfActuationsLift") == 2


def test_new_command_during_motion_retargets(mount, clock):
    server = WindowCoveringServer(full_travel_s=10)
    mount(server)
    server.invoke("DownOrClose")
    clock.advance_to(50)
    server.invoke("GoToLiftPercentage", {"LiftPercent100thsValue": 2000})
    assert server.read("OperationalStatus") == 1 | 1 << 2
    clock.advance_to(80)
    assert server.read(CURRENT) == 2000 and server.read("OperationalStatus") == 0


def test_go_to_current_position_is_not_an_actuation(mount):
    server = WindowCoveringServer()
    mount(server)
    server.invoke("GoToLiftPercentage", {"liftPercent100thsValue": 0})
    assert server.read("NumberOfActuationsLift") == 0 and server.read("OperationalStatus") == 0


def test_tilt_feature(mount, clock):
    server = WindowCoveringServer(features=1 | 2 | 4 | 16, tilt_travel_s=2)
    mount(server)
    server.invoke("GoToTiltPercentage", {"tilt_percent_100ths": 10000})
    assert server.read("OperationalStatus") == 2 | 2 << 4
    clock.advance_to(20)
    assert server.read("CurrentPositionTiltPercent100ths") == 10000
    assert server.read("CurrentPositionTiltPercentage") == 100
    assert server.read("NumberOfActuationsTilt") == 1 and server.read(CURRENT) == 0
    assert server.read("ConfigStatus") == 1 | 8 | 16


def test_restore_position_from_a_home_file(mount):
    server = WindowCoveringServer(values={CURRENT: 7000, TARGET: 7000})
    mount(server)
    assert server.read(CURRENT) == 7000 and server.closed_fraction() == 0.7
    with pytest.raises(HomeError) as err:
        server.restore(CURRENT, 12000)
    assert err.value.status == Status.CONSTRAINT_ERROR and server.read(CURRENT) == 7000


def test_safety_status_stops_and_refuses(mount, clock):
    server = WindowCoveringServer(full_travel_s=10)
    mount(server)
    server.invoke("DownOrClose")
    clock.advance_to(30)
    server.set_safety_status(0x20)  # obstacle detected
    assert server.read(CURRENT) == 3000 and not server.is_moving
    before = server.read_all()
    with pytest.raises(HomeError) as err:
        server.invoke("GoToLiftPercentage", {"liftPercent100thsValue": 100})
    assert err.value.status == Status.INVALID_IN_STATE
    assert server.read_all() == before


def test_maintenance_mode_is_busy(mount):
    server = WindowCoveringServer()
    mount(server)
    server.write("Mode", 4)
    assert server.read("ConfigStatus") & 1 == 0
    before = server.read_all()
    with pytest.raises(HomeError) as err:
        server.invoke("DownOrClose")
    assert err.value.status == Status.BUSY and server.read_all() == before
    server.write("Mode", 1)  # motor reversed
    assert server.read("ConfigStatus") == 1 | 4 | 8


@pytest.mark.parametrize(
    ("call", "status"),
    [
        (lambda s: s.invoke("GoToLiftPercentage", {"liftPercent100thsValue": 10001}), Status.CONSTRAINT_ERROR),
        (lambda s: s.invoke("GoToLiftPercentage", {"liftPercent100thsValue": 50.5}), Status.INVALID_COMMAND),
        (lambda s: s.invoke("GoToLiftValue", {"liftValue": 3}), Status.UNSUPPORTED_COMMAND),
        (lambda s: s.invoke("GoToTiltPercentage", {"tiltPercent100thsValue": 3}), Status.UNSUPPORTED_COMMAND),
        (lambda s: s.write(TARGET, 5000), Status.UNSUPPORTED_WRITE),  # Matter: read-only (SimuHome: writable)
        (lambda s: s.write(CURRENT, 5000), Status.UNSUPPORTED_WRITE),
    ],
)
def test_refusals_leave_state_unchanged(mount, call, status):
    server = WindowCoveringServer()
    mount(server)
    before = server.read_all()
    with pytest.raises(HomeError) as err:
        call(server)
    assert err.value.status == status
    assert server.read_all() == before
