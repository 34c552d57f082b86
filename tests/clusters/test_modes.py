import chip.clusters.Objects as Objects
import pytest

from clusters import HomeError, Status
from clusters.cycle_programs import DISHWASHER_PROGRAM, PAUSED, RUNNING, SEEKING_CHARGER, STOPPED
from clusters.laundry_controls import LaundryWasherControlsServer
from clusters.modes import (
    DishwasherModeServer,
    LaundryWasherModeServer,
    MicrowaveOvenModeServer,
    OvenModeServer,
    RefrigeratorAndTemperatureControlledCabinetModeServer,
    RvcCleanModeServer,
    RvcRunModeServer,
    WaterHeaterModeServer,
)
from clusters.on_off import OnOffServer
from clusters.operational_state import (
    OperationalStateServer,
    OvenCavityOperationalStateServer,
    RvcOperationalStateServer,
)


def at(seconds: float) -> int:
    return round(seconds * 10)


def labels(server):
    return {m["mode"]: m["label"] for m in server.read("SupportedModes")}


def test_default_supported_modes_and_tags():
    dish = DishwasherModeServer()
    assert labels(dish) == {
        0: "Normal",
        1: "Heavy Duty",
        2: "Light Wash",
        3: "Quick Wash",
        4: "Low Energy",
        5: "Silent",
    }
    assert dish.read("SupportedModes")[1] == {"label": "Heavy Duty", "mode": 1, "modeTags": [{"value": 0x4001}]}
    washer = LaundryWasherModeServer()
    assert labels(washer) == {0: "Normal", 1: "Delicate", 2: "Heavy", 3: "Whites", 4: "Quick Normal", 5: "Heavy Whites"}
    run = RvcRunModeServer()
    tag = Objects.RvcRunMode.Enums.ModeTag
    assert [(m["mode"], m["label"], m["modeTags"]) for m in run.read("SupportedModes")] == [
        (1, "Idle", [{"value": tag.kIdle}]),
        (2, "Vacuum", [{"value": tag.kCleaning}]),
        (3, "Mapping", [{"value": tag.kMapping}]),
    ]
    assert run.read("CurrentMode") == 1
    assert labels(RvcCleanModeServer()) == {1: "Vacuum", 2: "Deep Clean", 3: "Mop"}
    rtcc = RefrigeratorAndTemperatureControlledCabinetModeServer()
    assert labels(rtcc) == {0: "Normal", 1: "Energy Save", 2: "Rapid Cool", 3: "Rapid Freeze"}
    assert rtcc.has_tag(3, Objects.RefrigeratorAndTemperatureControlledCabinetMode.Enums.ModeTag.kRapidFreeze)
    assert WaterHeaterModeServer().read("CurrentMode") == 0
    assert OvenModeServer().label(0) == "Bake"
    assert not DishwasherModeServer().has_attribute("StartUpMode")  # removed from the derived clusters


def test_change_to_mode_response_and_aliases(mount):
    dish = DishwasherModeServer()
    ep = mount(dish)
    response = dish.invoke("ChangeToMode", {"new_mode": 1})
    assert response["status"] == 0 and "Heavy Duty" in response["statusText"]
    assert dish.read("CurrentMode") == 1
    assert dish.invoke("ChangeToMode", {"NewMode": 1})["status"] == 0  # same mode: success, no change
    assert [c[2:] for c in ep.changes] == [("CurrentMode", 0, 1)]
    rtcc = RefrigeratorAndTemperatureControlledCabinetModeServer()
    mount(rtcc)
    rtcc.invoke("ChangeToMode", {"mode": 2})
    assert rtcc.read("CurrentMode") == 2
    clean = RvcCleanModeServer()
    mount(clean)
    clean.invoke("ChangeToMode", {"mode": 3})
    assert clean.read("CurrentMode") == 3
    with pytest.raises(HomeError) as err:
        dish.invoke("ChangeToMode", {"mode": 2})  # only RTCC and RVC clean take SimuHome's `mode`
    assert err.value.status == Status.INVALID_COMMAND


@pytest.mark.parametrize(
    "server_class",
    [
        DishwasherModeServer,
        RefrigeratorAndTemperatureControlledCabinetModeServer,
        RvcRunModeServer,
        RvcCleanModeServer,
        WaterHeaterModeServer,
    ],
)
def test_unknown_mode_is_unsupported(mount, server_class):
    server = server_class()
    mount(server)
    before = server.read_all()
    with pytest.raises(HomeError) as err:
        server.invoke("ChangeToMode", {"NewMode": 99})
    assert err.value.status == Status.CONSTRAINT_ERROR and err.value.response["status"] == 1
    assert {"mode": server.read("CurrentMode"), "label": server.label()} in err.value.allowed["modes"]
    assert server.read_all() == before


def test_current_mode_is_read_only(mount):
    dish = DishwasherModeServer()
    mount(dish)
    with pytest.raises(HomeError) as err:
        dish.write("CurrentMode", 3)
    assert err.value.status == Status.UNSUPPORTED_WRITE and dish.read("CurrentMode") == 0


def test_mode_change_refused_while_running(mount):
    power, op, dish = (
        OnOffServer(values={"OnOff": True}),
        OperationalStateServer(DISHWASHER_PROGRAM),
        DishwasherModeServer(),
    )
    mount(power, op, dish)
    op.invoke("Start")
    with pytest.raises(HomeError) as err:
        dish.invoke("ChangeToMode", {"NewMode": 2})
    assert err.value.status == Status.INVALID_IN_STATE and err.value.response["status"] == 3
    assert dish.read("CurrentMode") == 0
    op.invoke("Pause")
    assert dish.invoke("ChangeToMode", {"NewMode": 2})["status"] == 0


def test_oven_mode_blocked_by_cavity_state(mount):
    cavity, oven = OvenCavityOperationalStateServer(), OvenModeServer()
    mount(cavity, oven)
    cavity.invoke("Start")
    with pytest.raises(HomeError) as err:
        oven.invoke("ChangeToMode", {"NewMode": 2})
    assert err.value.response["status"] == 3 and oven.read("CurrentMode") == 0


def test_microwave_oven_mode_has_no_command(mount):
    server = MicrowaveOvenModeServer()
    mount(server)
    assert labels(server) == {0: "Normal", 1: "Defrost"} and server.read("AcceptedCommandList") == []
    with pytest.raises(HomeError) as err:
        server.invoke("ChangeToMode", {"NewMode": 1})
    assert err.value.status == Status.UNSUPPORTED_COMMAND


def test_custom_supported_modes():
    server = WaterHeaterModeServer(
        supported_modes=[
            {"Label": "Eco", "Mode": 7, "ModeTags": [{"Value": 4}]},
            {"label": "Boost", "mode": 9, "modeTags": []},
        ]
    )
    assert server.read("CurrentMode") == 7 and server.label(9) == "Boost"
    assert server.read("SupportedModes")[0] == {"label": "Eco", "mode": 7, "modeTags": [{"value": 4}]}
    assert DishwasherModeServer(current_mode=3).read("CurrentMode") == 3
    with pytest.raises(ValueError):
        WaterHeaterModeServer(
            supported_modes=[{"label": "A", "mode": 1, "modeTags": []}, {"label": "B", "mode": 1, "modeTags": []}]
        )
    with pytest.raises(ValueError):
        DishwasherModeServer(current_mode=42)


def test_washer_mode_change_updates_controls(mount):
    washer, controls = LaundryWasherModeServer(), LaundryWasherControlsServer()
    mount(washer, controls)
    controls.write("SpinSpeedCurrent", 2)  # High
    controls.write("NumberOfRinses", 0)
    washer.invoke("ChangeToMode", {"NewMode": 2})  # Heavy: Medium/High/Extra High, rinses 1..3
    assert controls.read("SpinSpeeds") == ["Medium", "High", "Extra High"]
    assert controls.read("SpinSpeedCurrent") == 1  # still High
    assert controls.read("SupportedRinses") == [1, 2, 3] and controls.read("NumberOfRinses") == 1
    washer.invoke("ChangeToMode", {"NewMode": 1})  # Delicate: Low/Medium
    assert controls.read("SpinSpeeds") == ["Low", "Medium"] and controls.read("SpinSpeedCurrent") == 0
    assert controls.read("SupportedRinses") == [1, 2] and controls.read("NumberOfRinses") == 1


# ------------------------------------------------------------------------------------------- RVC
@pytest.fixture
def robot(mount):
    op, run, clean = RvcOperationalStateServer(), RvcRunModeServer(), RvcCleanModeServer()
    mount(op, run, clean)
    return op, run, clean


def test_rvc_run_mode_starts_and_finishes_cleaning(robot, clock):
    op, run, _ = robot
    run.invoke("ChangeToMode", {"new_mode": 2})
    assert run.read("CurrentMode") == 2
    assert op.read("PhaseList") == ["Cleaning", "SeekingCharger", "Docked"]
    assert (op.read("OperationalState"), op.read("CurrentPhase"), op.read("CountdownTime")) == (RUNNING, 0, 1815)
    clock.advance_to(at(1800))
    assert op.read("OperationalState") == SEEKING_CHARGER and run.read("CurrentMode") == 2
    clock.advance_to(at(1815))
    assert op.read("OperationalState") == STOPPED and run.read("CurrentMode") == 1


def test_rvc_mapping_names_the_first_phase(robot):
    op, run, _ = robot
    run.invoke("ChangeToMode", {"NewMode": 3})
    assert op.read("PhaseList")[0] == "Mapping" and op.read("OperationalState") == RUNNING


def test_rvc_non_idle_to_non_idle_is_refused(robot):
    op, run, _ = robot
    run.invoke("ChangeToMode", {"NewMode": 2})
    before = (op.read_all(), run.read_all())
    with pytest.raises(HomeError) as err:
        run.invoke("ChangeToMode", {"NewMode": 3})
    assert err.value.status == Status.INVALID_IN_STATE and err.value.response["status"] == 3
    assert (op.read_all(), run.read_all()) == before


def test_rvc_direct_mode_change_feature_allows_it(mount):
    op, run = RvcOperationalStateServer(), RvcRunModeServer(features=0x10000)
    mount(op, run)
    run.invoke("ChangeToMode", {"NewMode": 2})
    run.invoke("ChangeToMode", {"NewMode": 3})
    assert run.read("CurrentMode") == 3 and op.read("PhaseList")[0] == "Mapping"


def test_rvc_idle_while_running_seeks_charger(robot, clock):
    op, run, _ = robot
    run.invoke("ChangeToMode", {"NewMode": 2})
    clock.advance_to(at(100))
    run.invoke("ChangeToMode", {"NewMode": 1})
    assert run.read("CurrentMode") == 1
    assert op.read("OperationalState") == SEEKING_CHARGER and op.read("CountdownTime") == 15
    clock.advance_to(at(115))
    assert op.read("OperationalState") == STOPPED


def test_rvc_start_refused_while_paused_seek(robot, clock):
    op, run, _ = robot
    op.invoke("GoHome")
    op.invoke("Pause")
    with pytest.raises(HomeError) as err:
        run.invoke("ChangeToMode", {"NewMode": 2})
    assert err.value.response["status"] == 3 and op.read("OperationalState") == PAUSED and run.read("CurrentMode") == 1


def test_rvc_clean_mode_only_while_idle(robot):
    _, run, clean = robot
    run.invoke("ChangeToMode", {"NewMode": 2})
    with pytest.raises(HomeError) as err:
        clean.invoke("ChangeToMode", {"mode": 2})
    assert err.value.status == Status.INVALID_IN_STATE and err.value.response["status"] == 0x40
    assert clean.read("CurrentMode") == 1
    run.invoke("ChangeToMode", {"NewMode": 1})
    assert clean.invoke("ChangeToMode", {"mode": 2})["status"] == 0
