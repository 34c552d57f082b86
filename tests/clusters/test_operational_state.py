from typing import Any

import pytest

from clusters import HomeError, Status
from clusters.chip_model import cluster_model
from clusters.cycle_programs import (
    DISHWASHER_PROGRAM,
    DOCKED,
    LAUNDRY_DRYER_PROGRAM,
    LAUNDRY_WASHER_PROGRAM,
    PAUSED,
    RUNNING,
    RVC_PROGRAM,
    SEEKING_CHARGER,
    STOPPED,
    CycleProgram,
    DurationFrom,
    Phase,
)
from clusters.laundry_controls import LaundryDryerControlsServer
from clusters.modes import DishwasherModeServer, LaundryWasherModeServer, RvcRunModeServer
from clusters.on_off import OnOffServer
from clusters.operational_state import (
    OperationalStateServer,
    OvenCavityOperationalStateServer,
    RvcOperationalStateServer,
)

OK = {"commandResponseState": {"errorStateID": 0}}


def at(seconds: float) -> int:
    return round(seconds * 10)


@pytest.fixture
def dishwasher(mount):
    power, op, mode = OnOffServer(), OperationalStateServer(DISHWASHER_PROGRAM), DishwasherModeServer()
    ep = mount(power, op, mode)
    return ep, power, op, mode


def test_dishwasher_cycle_phases_countdown_and_completion(dishwasher, clock):
    ep, power, op, _ = dishwasher
    assert op.read("PhaseList") == ["Pre-wash", "Main wash", "Rinse", "Dry", "Complete"]
    assert op.read("OperationalStateList") == [{"operationalStateID": s} for s in range(4)]
    power.invoke("On")
    assert op.invoke("Start") == OK
    assert (op.read("OperationalState"), op.read("CurrentPhase"), op.read("CountdownTime")) == (RUNNING, 0, 5400)
    assert clock.pending() == 1  # one timer: the next phase boundary
    clock.advance_to(at(0.5))
    assert op.read("CountdownTime") == 5400  # whole seconds, never early
    clock.advance_to(at(599))
    assert (op.read("CurrentPhase"), op.read("CountdownTime")) == (0, 4801)
    clock.advance_to(at(600))
    assert op.read("CurrentPhase") == 1
    clock.advance_to(at(3600))
    assert op.read("CurrentPhase") == 2
    clock.advance_to(at(4800))
    assert op.read("CurrentPhase") == 3
    clock.advance_to(at(5399))
    assert op.read("CountdownTime") == 1 and op.read("OperationalState") == RUNNING
    clock.advance_to(at(5400))
    assert (op.read("OperationalState"), op.read("CurrentPhase"), op.read("CountdownTime")) == (STOPPED, 4, None)
    assert clock.pending() == 0
    countdown_reports = [c for c in ep.changes if c[2] == "CountdownTime"]
    assert len(countdown_reports) <= 6  # reported at transitions only, not every second


@pytest.mark.parametrize(("mode", "total"), [(0, 5400), (1, 7200), (2, 3600), (3, 1800), (4, 5400), (5, 5400)])
def test_dishwasher_duration_follows_mode(dishwasher, mode, total):
    _, power, op, mode_server = dishwasher
    mode_server.invoke("ChangeToMode", {"NewMode": mode})
    power.invoke("On")
    op.invoke("Start")
    assert op.read("CountdownTime") == total
    assert DISHWASHER_PROGRAM.total_s(op.endpoint) == total


def test_pause_freezes_and_resume_continues(dishwasher, clock):
    _, power, op, _ = dishwasher
    power.invoke("On")
    op.invoke("Start")
    clock.advance_to(at(1000))
    assert op.invoke("Pause") == OK
    assert op.read("OperationalState") == PAUSED and op.read("CountdownTime") == 4400
    assert op.invoke("Pause") == OK  # already paused: no error
    clock.advance_to(at(9000))
    assert op.read("CountdownTime") == 4400 and op.read("CurrentPhase") == 1
    assert op.invoke("Resume") == OK
    assert op.read("OperationalState") == RUNNING
    clock.advance_to(at(9000 + 2600))
    assert op.read("CurrentPhase") == 2  # Rinse starts 3600 s into the cycle
    clock.advance_to(at(9000 + 4400))
    assert op.read("OperationalState") == STOPPED and op.read("CurrentPhase") == 4


def test_stop_clears_phase_and_countdown(dishwasher, clock):
    _, power, op, _ = dishwasher
    power.invoke("On")
    op.invoke("Start")
    clock.advance_to(at(700))
    assert op.invoke("Stop") == OK
    assert (op.read("OperationalState"), op.read("CurrentPhase"), op.read("CountdownTime")) == (STOPPED, None, None)
    assert clock.pending() == 0
    assert op.invoke("Start") == OK and op.read("CountdownTime") == 5400  # a fresh cycle


@pytest.mark.parametrize(
    ("setup", "command", "error_state"),
    [
        ([], "Pause", 3),
        ([], "Resume", 3),
        (["Start", "Pause"], "Start", 3),
    ],
)
def test_invalid_transitions_answer_with_error_state(dishwasher, setup, command, error_state):
    _, power, op, _ = dishwasher
    power.invoke("On")
    for step in setup:
        op.invoke(step)
    before = op.read_all()
    with pytest.raises(HomeError) as err:
        op.invoke(command)
    assert err.value.status == Status.INVALID_IN_STATE
    assert err.value.response == {"commandResponseState": {"errorStateID": error_state}}
    assert err.value.allowed["commands_valid_now"]
    assert op.read_all() == before


def test_start_while_running_is_not_an_error(dishwasher, clock):
    _, power, op, _ = dishwasher
    power.invoke("On")
    op.invoke("Start")
    clock.advance_to(at(10))
    assert op.invoke("Start") == OK and op.read("CountdownTime") == 5390
    assert op.invoke("Resume") == OK


def test_dead_front_refuses_start_and_power_off_stops(dishwasher, clock):
    _, power, op, _ = dishwasher
    before = op.read_all()
    with pytest.raises(HomeError) as err:
        op.invoke("Start")
    assert err.value.status == Status.INVALID_IN_STATE and err.value.reason == "POWER_OFF"
    assert err.value.response == {"commandResponseState": {"errorStateID": 1}}
    assert op.read_all() == before
    power.invoke("On")
    op.invoke("Start")
    op.invoke("Pause")
    power.invoke("Off")
    assert (op.read("OperationalState"), op.read("CurrentPhase"), op.read("CountdownTime")) == (STOPPED, None, None)
    assert clock.pending() == 0


def test_resume_refused_while_off(mount):
    power, op = OnOffServer(), OperationalStateServer(DISHWASHER_PROGRAM)
    mount(power, op, DishwasherModeServer())
    power.invoke("On")
    op.invoke("Start")
    op.invoke("Pause")
    power.invoke("Off")
    op.restore("OperationalState", PAUSED)  # e.g. a home file storing a paused, switched-off appliance
    with pytest.raises(HomeError) as err:
        op.invoke("Resume")
    assert err.value.reason == "POWER_OFF"


def test_washer_phases_fall_on_whole_seconds(mount, clock):
    power, op, mode = OnOffServer(), OperationalStateServer(LAUNDRY_WASHER_PROGRAM), LaundryWasherModeServer()
    mount(power, op, mode)
    assert op.read("PhaseList") == ["Pre-wash", "Main wash", "Rinse", "Spin", "Complete"]
    mode.invoke("ChangeToMode", {"new_mode": 4})  # Quick Normal, 900 s
    power.invoke("On")
    op.invoke("Start")
    assert LAUNDRY_WASHER_PROGRAM.phase_ends(900) == [112, 562, 787, 900]
    clock.advance_to(at(111.9))
    assert op.read("CurrentPhase") == 0
    clock.advance_to(at(112))
    assert op.read("CurrentPhase") == 1
    clock.advance_to(at(787))
    assert op.read("CurrentPhase") == 3
    clock.advance_to(at(900))
    assert op.read("CurrentPhase") == 4 and op.read("OperationalState") == STOPPED


@pytest.mark.parametrize(("level", "minutes"), [(0, 30), (1, 45), (2, 60), (3, 75), (None, 45)])
def test_dryer_duration_follows_dryness(mount, level, minutes):
    power, op, controls = OnOffServer(), OperationalStateServer(LAUNDRY_DRYER_PROGRAM), LaundryDryerControlsServer()
    mount(power, op, controls)
    controls.write("SelectedDrynessLevel", level)
    power.invoke("On")
    op.invoke("Start")
    assert op.read("PhaseList") == ["Heating", "Drying", "CoolDown", "Complete"]
    assert op.read("CountdownTime") == minutes * 60
    assert LAUNDRY_DRYER_PROGRAM.phase_ends(minutes * 60) == [minutes * 12, minutes * 48, minutes * 60]


def test_fixed_program_without_siblings_and_table_by_mode_number(mount):
    by_number = CycleProgram(
        phases=(Phase("Wash", share=1.0),),
        duration_from=DurationFrom("DishwasherMode", "CurrentMode", table={1: 100}, default=50),
    )
    op, mode = OperationalStateServer(by_number), DishwasherModeServer()
    mount(op, mode)  # no OnOff: no dead front
    op.invoke("Start")
    assert op.read("CountdownTime") == 50  # mode 0 is not in the table
    op.invoke("Stop")
    mode.invoke("ChangeToMode", {"NewMode": 1})
    op.invoke("Start")
    assert op.read("CountdownTime") == 100


def test_unknown_duration_refuses_start(mount):
    program = CycleProgram(
        phases=(Phase("Cook", share=1.0),), duration_from=DurationFrom("MicrowaveOvenControl", "CookTime")
    )
    op = OperationalStateServer(program)
    mount(op)
    with pytest.raises(HomeError) as err:
        op.invoke("Start")
    assert err.value.response == {"commandResponseState": {"errorStateID": 1}}
    assert op.read("OperationalState") == STOPPED


@pytest.mark.parametrize(
    "build",
    [
        lambda: Phase("x"),
        lambda: Phase("x", share=0.5, seconds=3),
        lambda: CycleProgram(phases=(Phase("a", share=0.5),), duration_s=10),
        lambda: CycleProgram(phases=(Phase("a", share=1.0),)),
        lambda: CycleProgram(phases=()),
    ],
)
def test_program_validation(build):
    with pytest.raises(ValueError):
        build()


def test_restore_mid_cycle_resumes_time_line(mount, clock):
    op = OperationalStateServer(DISHWASHER_PROGRAM, values={"OperationalState": RUNNING, "CountdownTime": 3000})
    mount(OnOffServer(values={"OnOff": True}), op, DishwasherModeServer())
    assert (op.read("CurrentPhase"), op.read("CountdownTime")) == (1, 3000)  # 2400 s done: Main wash
    clock.advance_to(at(1200))
    assert op.read("CurrentPhase") == 2
    clock.advance_to(at(3000))
    assert op.read("OperationalState") == STOPPED and op.read("CurrentPhase") == 4


def test_restore_paused_and_static_values(mount, clock):
    paused = OperationalStateServer(DISHWASHER_PROGRAM, values={"OperationalState": PAUSED, "CurrentPhase": 2})
    mount(OnOffServer(values={"OnOff": True}), paused, DishwasherModeServer())
    assert paused.read("CountdownTime") == 1800  # Rinse starts 3600 s into 5400
    clock.advance_to(at(100))
    assert paused.read("CountdownTime") == 1800
    paused.invoke("Resume")
    clock.advance_to(at(1300))
    assert paused.read("CurrentPhase") == 3
    clock.advance_to(at(1900))
    assert paused.read("CurrentPhase") == 4


def test_restore_after_attach_overrides_cycle(dishwasher, clock):
    _, power, op, _ = dishwasher
    power.invoke("On")
    op.invoke("Start")
    op.restore("CountdownTime", 100)
    assert op.read("CountdownTime") == 100 and op.read("CurrentPhase") == 3
    op.restore("OperationalState", STOPPED)
    assert op.read("CountdownTime") == 100 and op.read("OperationalState") == STOPPED
    clock.advance_to(at(200))
    assert op.read("OperationalState") == STOPPED  # no stale timer fired


def test_oven_cavity_accepts_start_and_stop_only(mount):
    oven = OvenCavityOperationalStateServer()
    mount(oven)
    model = cluster_model("OvenCavityOperationalState")
    assert oven.read("AcceptedCommandList") == sorted(model.commands[c].command_id for c in ("Start", "Stop"))
    with pytest.raises(HomeError) as err:
        oven.invoke("Pause")
    assert err.value.status == Status.UNSUPPORTED_COMMAND
    assert oven.invoke("Start") == OK and oven.read("OperationalState") == RUNNING
    assert oven.invoke("Stop") == OK and oven.read("OperationalState") == STOPPED


# ------------------------------------------------------------------------------------------- RVC
@pytest.fixture
def rvc(mount):
    op, run = RvcOperationalStateServer(), RvcRunModeServer()
    mount(op, run)
    return op, run


def test_rvc_defaults_and_accepted_commands(rvc):
    op, _ = rvc
    assert op.read("PhaseList") is None and op.read("CurrentPhase") is None
    assert [s["operationalStateID"] for s in op.read("OperationalStateList")] == [0, 1, 2, 3, 64, 65, 66]
    model = cluster_model("RvcOperationalState")
    assert op.read("AcceptedCommandList") == sorted(model.commands[c].command_id for c in ("Pause", "Resume", "GoHome"))


def test_rvc_go_home_from_stopped_seeks_then_docks(rvc, clock):
    op, _ = rvc
    assert op.invoke("GoHome") == OK
    assert op.read("OperationalState") == SEEKING_CHARGER and op.read("CountdownTime") == 15
    assert op.read("PhaseList") == ["Cleaning", "SeekingCharger", "Docked"] and op.read("CurrentPhase") == 1
    assert op.invoke("GoHome") == OK  # already going home
    clock.advance_to(at(10))
    assert op.read("OperationalState") == DOCKED
    clock.advance_to(at(15))
    assert (op.read("OperationalState"), op.read("CurrentPhase"), op.read("CountdownTime")) == (STOPPED, None, None)


def test_rvc_pause_resume_during_seek(rvc, clock):
    op, _ = rvc
    op.go_home()
    clock.advance_to(at(4))
    op.invoke("Pause")
    assert op.read("OperationalState") == PAUSED and op.read("CountdownTime") == 11
    clock.advance_to(at(100))
    op.invoke("Resume")
    assert op.read("OperationalState") == SEEKING_CHARGER
    clock.advance_to(at(106))
    assert op.read("OperationalState") == DOCKED


@pytest.mark.parametrize("command", ["Pause", "Resume"])
def test_rvc_refusals_when_stopped(rvc, command):
    op, _ = rvc
    before = op.read_all()
    with pytest.raises(HomeError) as err:
        op.invoke(command)
    assert err.value.status == Status.INVALID_IN_STATE
    assert err.value.response == {"commandResponseState": {"errorStateID": 3}}
    assert op.read_all() == before


def test_rvc_go_home_refused_when_stopped_in_non_idle_mode(mount):
    op, run = RvcOperationalStateServer(), RvcRunModeServer(current_mode=2)
    mount(op, run)
    with pytest.raises(HomeError) as err:
        op.invoke("GoHome")
    assert err.value.response == {"commandResponseState": {"errorStateID": 3}}
    assert op.read("OperationalState") == STOPPED


def test_rvc_program_constant():
    assert RVC_PROGRAM.phase_list() == ["Cleaning", "SeekingCharger", "Docked"]
    assert RVC_PROGRAM.total_s() == 1815
    assert RVC_PROGRAM.renamed({"Cleaning": "Mapping"}).phase_list()[0] == "Mapping"


def test_completion_and_error_events(dishwasher, clock):
    _, power, op, _ = dishwasher
    events: list[tuple[str, dict[str, Any], int]] = []
    op.add_event_listener(lambda server, name, fields, priority: events.append((name, fields, int(priority))))
    assert op.read("EventList") == [0, 1]  # OperationalError, OperationCompletion
    power.invoke("On")
    op.invoke("Start")
    clock.advance_to(at(5400))
    assert events == [("OperationCompletion", {"completionErrorCode": 0, "totalOperationalTime": 5400}, 1)]
    op.invoke("Start")
    clock.advance_to(at(5400 + 60))
    op.invoke("Stop")  # an operation ended early also completes
    assert events[-1] == ("OperationCompletion", {"completionErrorCode": 0, "totalOperationalTime": 60}, 1)
    op.restore("OperationalError", {"errorStateID": 2})  # UnableToCompleteOperation, e.g. from a scenario
    assert events[2:] == [("OperationalError", {"errorState": {"errorStateID": 2}}, 2)]
    op.restore("OperationalError", {"errorStateID": 2})
    assert len(events) == 3  # no change, no second event
