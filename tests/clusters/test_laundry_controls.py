import pytest

from clusters import HomeError, Status
from clusters.cycle_programs import LAUNDRY_DRYER_PROGRAM, LAUNDRY_WASHER_PROGRAM
from clusters.laundry_controls import RINSE, LaundryDryerControlsServer, LaundryWasherControlsServer, WasherOptions
from clusters.modes import LaundryWasherModeServer
from clusters.on_off import OnOffServer
from clusters.operational_state import OperationalStateServer


def test_washer_controls_defaults_and_writes(mount):
    controls = LaundryWasherControlsServer()
    mount(controls)
    assert controls.read("SpinSpeeds") == ["Low", "Medium", "High", "Extra High"]
    assert (controls.read("SpinSpeedCurrent"), controls.read("NumberOfRinses")) == (1, 1)
    assert controls.read("SupportedRinses") == [0, 1, 2, 3] and controls.read("FeatureMap") == 3
    controls.write("SpinSpeedCurrent", 3)
    controls.write("NumberOfRinses", "Extra")  # enum member names are accepted
    assert (controls.read("SpinSpeedCurrent"), controls.read("NumberOfRinses")) == (3, 2)
    controls.write("SpinSpeedCurrent", "HIGH")  # SimuHome-style speed name → its index
    controls.write("SpinSpeedCurrent", None)
    assert controls.read("SpinSpeedCurrent") is None
    controls.write("SpinSpeedCurrent", "extra_high")
    assert controls.read("SpinSpeedCurrent") == 3


@pytest.mark.parametrize(
    ("name", "value", "status"),
    [
        ("SpinSpeedCurrent", 4, Status.CONSTRAINT_ERROR),
        ("SpinSpeedCurrent", "Turbo", Status.INVALID_DATA_TYPE),
        ("NumberOfRinses", 7, Status.CONSTRAINT_ERROR),
        ("SpinSpeeds", ["Low"], Status.UNSUPPORTED_WRITE),
        ("SupportedRinses", [1], Status.UNSUPPORTED_WRITE),
    ],
)
def test_washer_controls_refusals(mount, name, value, status):
    controls = LaundryWasherControlsServer()
    mount(controls)
    before = controls.read_all()
    with pytest.raises(HomeError) as err:
        controls.write(name, value)
    assert err.value.status == status
    assert controls.read_all() == before


def test_rinses_outside_supported_list_refused(mount):
    controls = LaundryWasherControlsServer(values={"SupportedRinses": [1, 2]})
    mount(controls)
    with pytest.raises(HomeError) as err:
        controls.write("NumberOfRinses", 0)
    assert err.value.status == Status.CONSTRAINT_ERROR and err.value.allowed == [1, 2]
    assert controls.read("NumberOfRinses") == 1


def test_washer_controls_refused_while_running(mount):
    power, op, controls = (
        OnOffServer(values={"OnOff": True}),
        OperationalStateServer(LAUNDRY_WASHER_PROGRAM),
        LaundryWasherControlsServer(),
    )
    mount(power, op, controls, LaundryWasherModeServer())
    op.invoke("Start")
    for name, value in (("SpinSpeedCurrent", 0), ("NumberOfRinses", 2)):
        with pytest.raises(HomeError) as err:
            controls.write(name, value)
        assert err.value.status == Status.INVALID_IN_STATE and err.value.reason == "RUNNING"
    assert (controls.read("SpinSpeedCurrent"), controls.read("NumberOfRinses")) == (1, 1)
    op.invoke("Stop")
    controls.write("SpinSpeedCurrent", 0)
    assert controls.read("SpinSpeedCurrent") == 0


def test_features_and_custom_options(mount):
    rinse_only = LaundryWasherControlsServer(features=RINSE)
    assert not rinse_only.has_attribute("SpinSpeeds") and rinse_only.has_attribute("NumberOfRinses")
    custom = LaundryWasherControlsServer(
        spin_speeds=["Off", "400", "800"], options_by_mode={"Normal": WasherOptions(("400", "800"), (1,))}
    )
    washer = LaundryWasherModeServer(current_mode=1)
    mount(custom, washer)
    custom.write("SpinSpeedCurrent", 2)
    washer.invoke("ChangeToMode", {"NewMode": 0})
    assert custom.read("SpinSpeeds") == ["400", "800"] and custom.read("SpinSpeedCurrent") == 1
    assert custom.read("SupportedRinses") == [1] and custom.read("NumberOfRinses") == 1
    washer.invoke("ChangeToMode", {"NewMode": 3})  # not in the table: unchanged
    assert custom.read("SpinSpeeds") == ["400", "800"]


def test_dryer_controls(mount):
    power, op, dryer = (
        OnOffServer(values={"OnOff": True}),
        OperationalStateServer(LAUNDRY_DRYER_PROGRAM),
        LaundryDryerControlsServer(),
    )
    mount(power, op, dryer)
    assert dryer.read("SupportedDrynessLevels") == [0, 1, 2, 3] and dryer.read("SelectedDrynessLevel") == 1
    dryer.write("SelectedDrynessLevel", "Max")
    assert dryer.read("SelectedDrynessLevel") == 3
    dryer.write("SelectedDrynessLevel", None)
    assert dryer.read("SelectedDrynessLevel") is None
    op.invoke("Start")
    with pytest.raises(HomeError) as err:
        dryer.write("SelectedDrynessLevel", 2)
    assert err.value.status == Status.INVALID_IN_STATE and dryer.read("SelectedDrynessLevel") is None


@pytest.mark.parametrize(
    ("value", "status"), [(2, Status.CONSTRAINT_ERROR), (9, Status.CONSTRAINT_ERROR), ("dry", Status.CONSTRAINT_ERROR)]
)
def test_dryer_refusals(mount, value, status):
    dryer = LaundryDryerControlsServer(supported_levels=[0, 1])
    mount(dryer)
    with pytest.raises(HomeError) as err:
        dryer.write("SelectedDrynessLevel", value)
    assert err.value.status == status and dryer.read("SelectedDrynessLevel") == 1
    with pytest.raises(HomeError) as err:
        dryer.write("SupportedDrynessLevels", [0])
    assert err.value.status == Status.UNSUPPORTED_WRITE
