import pytest

from clusters import HomeError, Status
from clusters.thermostat import ThermostatServer

AUTO = 1 | 2 | 32  # Heating | Cooling | AutoMode
SIMUHOME_AC = {
    "OccupiedCoolingSetpoint": 2000,
    "OccupiedHeatingSetpoint": 2800,
    "ControlSequenceOfOperation": 4,
    "SystemMode": 0,
}


def thermostat(mount, **kwargs):
    server = ThermostatServer(**kwargs)
    mount(server)
    return server


def setpoints(server):
    return server.read("OccupiedHeatingSetpoint"), server.read("OccupiedCoolingSetpoint")


def test_defaults_and_limits(mount):
    server = thermostat(mount)
    assert server.read("LocalTemperature") == 2500 and setpoints(server) == (2000, 2600)
    assert (server.read("AbsMinHeatSetpointLimit"), server.read("AbsMaxHeatSetpointLimit")) == (700, 3000)
    assert (server.read("AbsMinCoolSetpointLimit"), server.read("AbsMaxCoolSetpointLimit")) == (1600, 3200)
    assert not server.has_attribute("MinSetpointDeadBand")
    assert server.read("AcceptedCommandList") == [0]


def test_simuhome_defaults_are_settable_without_auto_mode(mount):
    server = thermostat(mount, values=SIMUHOME_AC)
    server.write("OccupiedCoolingSetpoint", 2200)  # SimuHome bug 4: refused there, fine in Matter
    server.write("SystemMode", "Cool")
    assert setpoints(server) == (2800, 2200) and server.read("SystemMode") == 3


def test_deadband_enforced_with_auto_mode(mount):
    server = thermostat(mount, features=AUTO)
    assert server.read("MinSetpointDeadBand") == 25
    server.write("OccupiedHeatingSetpoint", 2350)
    with pytest.raises(HomeError) as err:
        server.write("OccupiedHeatingSetpoint", 2351)
    assert err.value.status == Status.CONSTRAINT_ERROR and err.value.allowed == {"max": 2350}
    assert setpoints(server) == (2350, 2600)
    server.write("SystemMode", "Auto")
    assert server.read("SystemMode") == 1


def test_simuhome_compatible_deadband(mount):
    server = thermostat(mount, values=SIMUHOME_AC, deadband_centi=25, enforce_deadband=True)
    with pytest.raises(HomeError) as err:
        server.write("OccupiedCoolingSetpoint", 2824)
    assert err.value.reason == "DEADBAND"
    server.write("OccupiedCoolingSetpoint", 2825)
    assert setpoints(server) == (2800, 2825)


def test_system_mode_follows_control_sequence(mount):
    server = thermostat(mount)
    server.write("ControlSequenceOfOperation", 0)  # CoolingOnly
    with pytest.raises(HomeError) as err:
        server.write("SystemMode", 4)
    assert err.value.status == Status.CONSTRAINT_ERROR and 4 not in err.value.allowed
    with pytest.raises(HomeError):
        server.write("SystemMode", 1)  # Auto needs the AutoMode feature
    server.write("SystemMode", 3)
    assert server.read("SystemMode") == 3
    restricted = thermostat(mount, system_modes=(0, 1, 3, 4))
    with pytest.raises(HomeError):
        restricted.write("SystemMode", 7)
    restricted.write("SystemMode", 1)
    assert restricted.read("SystemMode") == 1


def test_cooling_only_thermostat(mount):
    server = thermostat(mount, features=2)
    assert not server.has_attribute("OccupiedHeatingSetpoint") and server.read("ControlSequenceOfOperation") == 0
    with pytest.raises(HomeError) as err:
        server.write("ControlSequenceOfOperation", 2)
    assert err.value.status == Status.CONSTRAINT_ERROR
    with pytest.raises(HomeError) as err:
        server.invoke("SetpointRaiseLower", {"Mode": 0, "Amount": 5})
    assert err.value.status == Status.INVALID_COMMAND
    server.invoke("SetpointRaiseLower", {"Mode": 1, "Amount": -5})
    assert server.read("OccupiedCoolingSetpoint") == 2550


def test_setpoint_raise_lower_clamps_to_limits(mount):
    server = thermostat(mount)
    server.invoke("SetpointRaiseLower", {"Mode": 0, "Amount": 20})
    assert setpoints(server) == (2200, 2600)
    server.invoke("SetpointRaiseLower", {"Mode": 2, "Amount": 127})
    assert setpoints(server) == (3000, 3200)
    server.invoke("SetpointRaiseLower", {"mode": 1, "amount": -128})
    assert setpoints(server) == (3000, 1920)


def test_setpoint_raise_lower_pushes_the_other_setpoint_in_auto_mode(mount):
    server = thermostat(mount, features=AUTO)
    server.invoke("SetpointRaiseLower", {"Mode": 0, "Amount": 10})  # heat 2100, cool 2600: fine
    server.invoke("SetpointRaiseLower", {"Mode": 0, "Amount": 40})  # heat 2500 → cool pushed to 2750
    assert setpoints(server) == (2500, 2750)
    server.invoke("SetpointRaiseLower", {"Mode": 1, "Amount": -120})  # cool 1600 (limit) → heat 1350
    assert setpoints(server) == (1350, 1600)


def test_writable_limits(mount):
    server = thermostat(mount, heat_limits=(1000, 2800))
    server.write("MaxHeatSetpointLimit", 2500)
    with pytest.raises(HomeError) as err:
        server.write("OccupiedHeatingSetpoint", 2600)
    assert err.value.allowed == {"min": 1000, "max": 2500}
    with pytest.raises(HomeError):
        server.write("MinHeatSetpointLimit", 900)  # below AbsMinHeatSetpointLimit


@pytest.mark.parametrize(
    ("call", "status"),
    [
        (lambda s: s.write("OccupiedHeatingSetpoint", 3001), Status.CONSTRAINT_ERROR),
        (lambda s: s.write("OccupiedCoolingSetpoint", 1599), Status.CONSTRAINT_ERROR),
        (lambda s: s.write("OccupiedCoolingSetpoint", "cold"), Status.INVALID_DATA_TYPE),
        (lambda s: s.write("SystemMode", 2), Status.CONSTRAINT_ERROR),
        (lambda s: s.write("LocalTemperature", 2000), Status.UNSUPPORTED_WRITE),
        (lambda s: s.invoke("SetpointRaiseLower", {"Mode": 3, "Amount": 1}), Status.CONSTRAINT_ERROR),
        (lambda s: s.invoke("SetpointRaiseLower", {"Mode": 0, "Amount": 500}), Status.CONSTRAINT_ERROR),
        (lambda s: s.invoke("SetpointRaiseLower", {"Mode": 0}), Status.INVALID_COMMAND),
        (lambda s: s.invoke("ClearWeeklySchedule"), Status.UNSUPPORTED_COMMAND),
    ],
)
def test_refusals_leave_state_unchanged(mount, call, status):
    server = thermostat(mount)
    before = server.read_all()
    with pytest.raises(HomeError) as err:
        call(server)
    assert err.value.status == status
    assert server.read_all() == before


def test_local_temperature_can_be_bound(mount):
    server = thermostat(mount)
    server.bind_source("LocalTemperature", lambda: 2137)
    assert server.read("LocalTemperature") == 2137


def test_needs_heating_or_cooling():
    with pytest.raises(ValueError):
        ThermostatServer(features=32)


def test_absent_setpoint_limits_are_the_specifications_defaults(mount):
    # A thermostat serving none of the optional limits (as many real ones): 700..3000 heat, 1600..3200 cool.
    limits = {
        name: None
        for name in (
            "AbsMinHeatSetpointLimit",
            "AbsMaxHeatSetpointLimit",
            "AbsMinCoolSetpointLimit",
            "AbsMaxCoolSetpointLimit",
            "MinHeatSetpointLimit",
            "MaxHeatSetpointLimit",
            "MinCoolSetpointLimit",
            "MaxCoolSetpointLimit",
        )
    }
    server = thermostat(mount, values=limits)
    assert not any(server.has_attribute(name) for name in limits)
    server.write("OccupiedCoolingSetpoint", 3200)
    server.write("OccupiedHeatingSetpoint", 700)
    for name, value in (
        ("OccupiedCoolingSetpoint", 3201),
        ("OccupiedCoolingSetpoint", 1599),
        ("OccupiedHeatingSetpoint", 3001),
        ("OccupiedHeatingSetpoint", 699),
    ):
        with pytest.raises(HomeError) as error:
            server.write(name, value)
        assert error.value.status is Status.CONSTRAINT_ERROR
    # a served Abs limit bounds its absent Min/Max limit
    server = thermostat(mount, values={**limits, "AbsMaxCoolSetpointLimit": 2800})
    with pytest.raises(HomeError, match=r"1600\.\.2800"):
        server.write("OccupiedCoolingSetpoint", 2900)
