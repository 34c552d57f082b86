import pytest

from clusters import HomeError, Status
from clusters.color_control import ColorControlServer
from clusters.on_off import OnOffServer

EXTENDED = 1 | 8 | 16  # HueSaturation | XY | ColorTemperature


def lamp(mount, on=True, **kwargs):
    on_off = OnOffServer(features=1, values={"OnOff": on})
    color = ColorControlServer(**kwargs)
    mount(on_off, color)
    return on_off, color


def test_color_temperature_light_attributes(mount):
    _, color = lamp(mount, physical_min_mireds=200, physical_max_mireds=370)
    assert color.read("ColorMode") == 2 and color.read("ColorCapabilities") == 16
    assert color.read("ColorTempPhysicalMinMireds") == 200 and color.read("ColorTempPhysicalMaxMireds") == 370
    assert color.read("ColorTemperatureMireds") == 250
    assert not color.has_attribute("CurrentHue")
    with pytest.raises(HomeError) as err:
        color.invoke("MoveToHue", {"Hue": 10, "Direction": 0, "TransitionTime": 0})
    assert err.value.status == Status.UNSUPPORTED_COMMAND


def test_move_to_color_temperature_transition_and_clamp(mount, clock):
    _, color = lamp(mount)
    color.invoke("MoveToColorTemperature", {"ColorTemperatureMireds": 450, "TransitionTime": 20})
    clock.advance_to(10)
    assert color.read("ColorTemperatureMireds") == 350 and color.read("RemainingTime") == 10
    clock.advance_to(20)
    assert color.read("ColorTemperatureMireds") == 450 and color.read("RemainingTime") == 0
    color.invoke("MoveToColorTemperature", {"ColorTemperatureMireds": 1000, "TransitionTime": 0})
    assert color.read("ColorTemperatureMireds") == 500  # physical maximum


def test_move_and_step_color_temperature_and_stop(mount, clock):
    _, color = lamp(mount)
    color.invoke("MoveColorTemperature", {"MoveMode": 1, "Rate": 10, "ColorTemperatureMaximumMireds": 300})
    clock.advance_to(30)
    assert color.read("ColorTemperatureMireds") == 280
    clock.advance_to(100)
    assert color.read("ColorTemperatureMireds") == 300  # stops at the given maximum
    color.invoke("StepColorTemperature", {"StepMode": 3, "StepSize": 40, "TransitionTime": 0})
    assert color.read("ColorTemperatureMireds") == 260
    color.invoke("MoveColorTemperature", {"MoveMode": 3, "Rate": 20})
    clock.advance_to(120)
    color.invoke("StopMoveStep")
    assert color.read("ColorTemperatureMireds") == 220
    clock.advance_to(200)
    assert color.read("ColorTemperatureMireds") == 220


def test_hue_saturation_and_mode_switching(mount, clock):
    _, color = lamp(mount, features=EXTENDED)
    assert color.read("ColorMode") == 1
    color.invoke("MoveToHue", {"Hue": 250, "Direction": 0, "TransitionTime": 10})  # shortest: downwards
    clock.advance_to(6)
    assert color.read("CurrentHue") == 252 and color.read("ColorMode") == 0
    clock.advance_to(10)
    assert color.read("CurrentHue") == 250
    color.invoke("MoveToHueAndSaturation", {"Hue": 10, "Saturation": 200, "TransitionTime": 0})
    assert (color.read("CurrentHue"), color.read("CurrentSaturation")) == (10, 200)
    color.invoke("StepHue", {"StepMode": 3, "StepSize": 20, "TransitionTime": 0})
    assert color.read("CurrentHue") == 245  # wraps around the circle
    color.invoke("MoveSaturation", {"MoveMode": 1, "Rate": 100})
    clock.advance_to(20)
    assert color.read("CurrentSaturation") == 254
    color.invoke("StepSaturation", {"StepMode": 3, "StepSize": 54, "TransitionTime": 0})
    color.invoke("MoveToSaturation", {"Saturation": 100, "TransitionTime": 0})
    assert color.read("CurrentSaturation") == 100
    color.invoke("MoveToColorTemperature", {"ColorTemperatureMireds": 300, "TransitionTime": 0})
    assert color.read("ColorMode") == 2 and color.read("EnhancedColorMode") == 2


def test_move_hue_runs_until_stopped_without_timers(mount, clock):
    _, color = lamp(mount, features=EXTENDED)
    color.invoke("MoveHue", {"MoveMode": 1, "Rate": 100})
    assert clock.pending() == 0
    clock.advance_to(30)
    assert color.read("CurrentHue") == 300 % 255
    color.invoke("MoveHue", {"MoveMode": 0, "Rate": 0})
    clock.advance_to(100)
    assert color.read("CurrentHue") == 45


def test_xy_commands(mount, clock):
    _, color = lamp(mount, features=EXTENDED)
    color.invoke("MoveToColor", {"ColorX": 1000, "ColorY": 2000, "TransitionTime": 0})
    assert (color.read("CurrentX"), color.read("CurrentY")) == (1000, 2000)
    color.invoke("StepColor", {"StepX": -2000, "StepY": 500, "TransitionTime": 10})
    clock.advance_to(10)
    assert (color.read("CurrentX"), color.read("CurrentY")) == (0, 2500)
    color.invoke("MoveColor", {"RateX": 100, "RateY": -1000})
    clock.advance_to(20)
    assert (color.read("CurrentX"), color.read("CurrentY")) == (100, 1500)
    clock.advance_to(100)
    assert color.read("CurrentY") == 0 and color.read("CurrentX") == 900
    color.invoke("MoveColor", {"RateX": 0, "RateY": 0})
    clock.advance_to(200)
    assert color.read("CurrentX") == 900


def test_execute_if_off(mount):
    _, color = lamp(mount, on=False)
    assert color.invoke("MoveToColorTemperature", {"ColorTemperatureMireds": 400}) == {"suppressed": True}
    assert color.read("ColorTemperatureMireds") == 250
    color.write("Options", 1)
    color.invoke("MoveToColorTemperature", {"ColorTemperatureMireds": 400})
    assert color.read("ColorTemperatureMireds") == 400


@pytest.mark.parametrize(
    ("call", "status"),
    [
        (lambda s: s.invoke("MoveToHue", {"Hue": 255, "Direction": 0, "TransitionTime": 0}), Status.CONSTRAINT_ERROR),
        (lambda s: s.invoke("MoveHue", {"MoveMode": 1, "Rate": 0}), Status.INVALID_COMMAND),
        (lambda s: s.invoke("StepSaturation", {"StepMode": 1, "StepSize": 0}), Status.INVALID_COMMAND),
        (lambda s: s.invoke("MoveColorTemperature", {"MoveMode": 1, "Rate": 0}), Status.INVALID_COMMAND),
        (lambda s: s.invoke("StepColorTemperature", {"StepMode": 0, "StepSize": 5}), Status.CONSTRAINT_ERROR),
        (
            lambda s: s.invoke(
                "MoveColorTemperature",
                {"MoveMode": 1, "Rate": 5, "ColorTemperatureMinimumMireds": 450, "ColorTemperatureMaximumMireds": 300},
            ),
            Status.CONSTRAINT_ERROR,
        ),
        (lambda s: s.invoke("MoveToColor", {"ColorX": 0xFF00, "ColorY": 0}), Status.CONSTRAINT_ERROR),
        (lambda s: s.write("Options", 2), Status.CONSTRAINT_ERROR),
        (lambda s: s.write("ColorTemperatureMireds", 300), Status.UNSUPPORTED_WRITE),
    ],
)
def test_refusals_leave_state_unchanged(mount, call, status):
    _, color = lamp(mount, features=EXTENDED)
    before = color.read_all()
    with pytest.raises(HomeError) as err:
        call(color)
    assert err.value.status == status
    assert color.read_all() == before


def test_unimplemented_features_are_rejected():
    with pytest.raises(ValueError):
        ColorControlServer(features=2)
