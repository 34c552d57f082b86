import pytest

from clusters import HomeError, Status
from clusters.level_control import LevelControlServer
from clusters.on_off import OnOffServer


def light(mount, on=True, **kwargs):
    on_off = OnOffServer(features=1, values={"OnOff": on})
    level = LevelControlServer(**kwargs)
    ep = mount(on_off, level)
    return on_off, level, ep


def level_changes(ep):
    return [(c[0], c[4]) for c in ep.changes if c[2] == "CurrentLevel"]


def test_fresh_light_has_null_level_until_switched_on(mount):
    on_off, level, _ = light(mount, on=False)
    assert level.read("CurrentLevel") is None
    assert level.read("MinLevel") == 1 and level.read("MaxLevel") == 254
    on_off.invoke("On")
    assert level.read("CurrentLevel") == 254  # nothing stored, no OnLevel → MaxLevel


def test_move_to_level_immediate_and_clamped(mount):
    _, level, _ = light(mount)
    level.invoke("MoveToLevel", {"Level": 100})
    assert level.read("CurrentLevel") == 100
    level.invoke("MoveToLevel", {"Level": 0})  # Lighting: MinLevel 1
    assert level.read("CurrentLevel") == 1


def test_move_to_level_transition_over_virtual_time(mount, clock):
    _, level, ep = light(mount, values={"CurrentLevel": 100})
    level.invoke("MoveToLevel", {"Level": 150, "TransitionTime": 50})  # 5 s
    assert level.read("CurrentLevel") == 100 and level.read("RemainingTime") == 50
    clock.advance_to(10)
    assert level.read("CurrentLevel") == 110 and level.read("RemainingTime") == 40
    clock.advance_to(25)
    assert level.read("CurrentLevel") == 120  # stored once per second
    clock.advance_to(49)
    assert level.read("CurrentLevel") == 140
    clock.advance_to(50)
    assert level.read("CurrentLevel") == 150 and level.read("RemainingTime") == 0
    assert level_changes(ep) == [(1.0, 110), (2.0, 120), (3.0, 130), (4.0, 140), (5.0, 150)]


def test_null_transition_time_uses_on_off_transition_time(mount, clock):
    _, level, _ = light(mount, values={"CurrentLevel": 10, "OnOffTransitionTime": 20})
    level.invoke("MoveToLevel", {"Level": 30})
    assert level.read("CurrentLevel") == 10
    clock.advance_to(20)
    assert level.read("CurrentLevel") == 30


def test_new_command_replaces_active_transition(mount, clock):
    _, level, _ = light(mount, values={"CurrentLevel": 100})
    level.invoke("MoveToLevel", {"Level": 200, "TransitionTime": 100})
    clock.advance_to(30)
    assert level.read("CurrentLevel") == 130
    level.invoke("MoveToLevel", {"Level": 50})
    assert level.read("CurrentLevel") == 50 and level.read("RemainingTime") == 0
    clock.advance_to(200)
    assert level.read("CurrentLevel") == 50


def test_move_uses_rate_then_default_rate_then_one_per_second(mount, clock):
    _, level, _ = light(mount, values={"CurrentLevel": 250})
    level.invoke("Move", {"MoveMode": 0, "Rate": 2})
    clock.advance_to(20)
    assert level.read("CurrentLevel") == 254  # reached MaxLevel after 2 s and stopped
    level.invoke("Move", {"MoveMode": 1})  # no Rate, no DefaultMoveRate → 1 level/s
    clock.advance_to(50)
    assert level.read("CurrentLevel") == 251
    level.write("DefaultMoveRate", 10)
    level.invoke("Move", {"MoveMode": 1})
    clock.advance_to(60)
    assert level.read("CurrentLevel") == 241


def test_step_and_stop(mount, clock):
    _, level, _ = light(mount, values={"CurrentLevel": 100})
    level.invoke("Step", {"StepMode": 0, "StepSize": 20})
    assert level.read("CurrentLevel") == 120
    level.invoke("Step", {"StepMode": 1, "StepSize": 200})
    assert level.read("CurrentLevel") == 1
    level.invoke("Step", {"StepMode": 0, "StepSize": 100, "TransitionTime": 100})
    clock.advance_to(35)
    level.invoke("Stop")
    assert level.read("CurrentLevel") == 36 and level.read("RemainingTime") == 0
    clock.advance_to(200)
    assert level.read("CurrentLevel") == 36


def test_off_light_suppresses_commands_unless_execute_if_off(mount):
    _, level, _ = light(mount, on=False, values={"CurrentLevel": 1})
    assert level.invoke("MoveToLevel", {"Level": 100}) == {"suppressed": True}
    assert level.read("CurrentLevel") == 1
    assert level.invoke("MoveToLevel", {"Level": 100, "OptionsMask": 1, "OptionsOverride": 1}) is None
    assert level.read("CurrentLevel") == 100
    level.write("Options", 1)
    level.invoke("Step", {"StepMode": 1, "StepSize": 10})
    assert level.read("CurrentLevel") == 90
    # the mask selects the override bit, which vetoes the attribute's ExecuteIfOff
    assert level.invoke("Stop", {"OptionsMask": 1, "OptionsOverride": 0}) == {"suppressed": True}


def test_with_on_off_variants_switch_the_sibling(mount, clock):
    on_off, level, _ = light(mount, on=False, values={"CurrentLevel": 1})
    level.invoke("MoveToLevelWithOnOff", {"Level": 80})
    assert on_off.read("OnOff") is True and level.read("CurrentLevel") == 80
    level.invoke("MoveToLevelWithOnOff", {"Level": 1, "TransitionTime": 10})
    assert on_off.read("OnOff") is True
    clock.advance_to(10)
    assert on_off.read("OnOff") is False and level.read("CurrentLevel") == 1
    on_off.invoke("On")
    assert level.read("CurrentLevel") == 80  # back to where the dimming began
    level.invoke("StepWithOnOff", {"StepMode": 1, "StepSize": 254})
    assert on_off.read("OnOff") is False
    level.invoke("MoveWithOnOff", {"MoveMode": 0, "Rate": 100})
    assert on_off.read("OnOff") is True
    clock.advance_to(15)
    level.invoke("StopWithOnOff")
    assert level.read("CurrentLevel") == 51 and on_off.read("OnOff") is True


def test_on_off_coupling_restores_levels(mount):
    on_off, level, _ = light(mount, values={"CurrentLevel": 120})
    on_off.invoke("Off")
    assert level.read("CurrentLevel") == 1
    on_off.invoke("Toggle")
    assert level.read("CurrentLevel") == 120
    level.write("OnLevel", 42)
    on_off.invoke("Off")
    on_off.invoke("On")
    assert level.read("CurrentLevel") == 42


def test_on_transition_time_ramps_from_min_level(mount, clock):
    on_off, level, _ = light(mount, on=False, values={"CurrentLevel": 1, "OnTransitionTime": 20, "OnLevel": 41})
    on_off.invoke("On")
    assert level.read("CurrentLevel") == 1
    clock.advance_to(10)
    assert level.read("CurrentLevel") == 21
    on_off.invoke("Off")  # switching off stops the ramp
    clock.advance_to(30)
    assert level.read("CurrentLevel") == 1


def test_volume_without_coupling_ignores_on_off(mount):
    on_off, level, _ = light(mount, on=False, couple_on_off=False, features=0, values={"CurrentLevel": 10})
    assert level.read("MinLevel") == 0 and not level.has_attribute("RemainingTime")
    level.invoke("MoveToLevel", {"Level": 30})
    assert level.read("CurrentLevel") == 30
    level.invoke("MoveToLevelWithOnOff", {"Level": 40})
    assert on_off.read("OnOff") is False
    on_off.invoke("On")
    assert level.read("CurrentLevel") == 40


def test_frequency_feature(mount):
    _, level, _ = light(mount, features=7, values={"MinFrequency": 100, "MaxFrequency": 200})
    level.invoke("MoveToClosestFrequency", {"Frequency": 500})
    assert level.read("CurrentFrequency") == 200
    _, plain, _ = light(mount)
    with pytest.raises(HomeError) as err:
        plain.invoke("MoveToClosestFrequency", {"Frequency": 5})
    assert err.value.status == Status.UNSUPPORTED_COMMAND


@pytest.mark.parametrize(
    ("call", "status"),
    [
        (lambda s: s.invoke("MoveToLevel", {"Level": 255}), Status.CONSTRAINT_ERROR),
        (lambda s: s.invoke("Move", {"MoveMode": 0, "Rate": 0}), Status.INVALID_COMMAND),
        (lambda s: s.invoke("MoveWithOnOff", {"MoveMode": 0, "Rate": 0}), Status.INVALID_COMMAND),
        (lambda s: s.invoke("Step", {"StepMode": 0, "StepSize": 0}), Status.INVALID_COMMAND),
        (lambda s: s.invoke("Move", {"MoveMode": 2}), Status.CONSTRAINT_ERROR),
        (lambda s: s.invoke("MoveToLevel", {"Level": "high"}), Status.INVALID_COMMAND),
        (lambda s: s.write("OnLevel", 0), Status.CONSTRAINT_ERROR),
        (lambda s: s.write("Options", 4), Status.CONSTRAINT_ERROR),
        (lambda s: s.write("CurrentLevel", 5), Status.UNSUPPORTED_WRITE),
    ],
)
def test_refusals_leave_state_unchanged(mount, call, status):
    on_off, level, _ = light(mount, on=False, values={"CurrentLevel": 1})
    before = level.read_all()
    with pytest.raises(HomeError) as err:
        call(level)
    assert err.value.status == status
    assert level.read_all() == before and on_off.read("OnOff") is False
