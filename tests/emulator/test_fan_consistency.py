"""Issue #14, item 4: FanControl's attributes stay as the spec ties them — FanMode is PercentSetting's band and
PercentCurrent follows PercentSetting — in generated homes and after every write or command."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusters.fan_control import AUTO, mode_for_percent
from emulator.emulated_home import EmulatedHome
from emulator.home_generation.generator import generate_home
from emulator.home_generation.params import TIERS

FAN_TYPES = ("fan", "air_purifier", "humidifier", "dehumidifier", "air_conditioner")


def fan_state(fabric: EmulatedHome, device_id: str) -> tuple[int, int | None, int]:
    return tuple(
        fabric.read(device_id, 1, "FanControl", name) for name in ("FanMode", "PercentSetting", "PercentCurrent")
    )


def assert_consistent(mode: int, setting: int | None, current: int) -> None:
    if mode == AUTO:
        assert setting is None  # the fan picks its own speed
        return
    assert setting is not None and mode == mode_for_percent(setting)
    assert current == setting


@pytest.mark.parametrize("tier", TIERS)
def test_generated_homes_have_consistent_fans(tier: str) -> None:
    for seed in (1, 2, 3):
        fabric = EmulatedHome(generate_home(tier, seed))
        fans = [d for d in fabric.devices() if d.device_type in FAN_TYPES]
        for device in fans:
            assert_consistent(*fan_state(fabric, device.device_id))


def test_a_generated_running_ac_changes_its_room() -> None:
    # The defect: "On · Cool · Fan 72 %" while FanMode Off and PercentCurrent 0 — and the room never changed.
    for seed in range(1, 30):
        fabric = EmulatedHome(generate_home("complex", seed))
        for device in fabric.devices():
            if (
                device.device_type == "air_conditioner"
                and fabric.read(device.device_id, 1, "OnOff", "OnOff")
                and fabric.read(device.device_id, 1, "Thermostat", "SystemMode") == 3
            ):
                room = device.room_id
                setpoint = fabric.read(device.device_id, 1, "Thermostat", "OccupiedCoolingSetpoint")
                if fabric.room_state(room, exact=True)["temperature"] <= setpoint + 100:
                    continue
                without = EmulatedHome(generate_home("complex", seed))
                without.invoke(device.device_id, 1, "OnOff", "Off")
                for home in (fabric, without):
                    home.advance(1800)
                cooled = fabric.room_state(room, exact=True)["temperature"]
                assert cooled < without.room_state(room, exact=True)["temperature"] - 10
                return
    pytest.fail("no generated home has a cooling AC in a room above its setpoint")


WRITES = st.one_of(
    st.tuples(st.just("write"), st.just("PercentSetting"), st.integers(0, 100)),
    st.tuples(st.just("write"), st.just("FanMode"), st.sampled_from([0, 1, 2, 3, 4])),
    st.tuples(st.just("invoke"), st.just("Step"), st.sampled_from([0, 1])),
)


HOME = generate_home("medium", 3)


@settings(max_examples=60, deadline=None)
@given(st.lists(WRITES, min_size=1, max_size=12))
def test_every_write_and_step_keeps_the_fan_consistent(operations: list[tuple[str, str, int]]) -> None:
    fabric = EmulatedHome(HOME)
    fan = next(d.device_id for d in fabric.devices() if d.device_type in FAN_TYPES)
    fabric.invoke(fan, 1, "OnOff", "On")
    for kind, name, value in operations:
        if kind == "write":
            fabric.write(fan, 1, "FanControl", name, value)
        else:
            fabric.invoke(fan, 1, "FanControl", name, {"direction": value})
        assert_consistent(*fan_state(fabric, fan))
