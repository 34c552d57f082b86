import pytest

from clusters import HomeError, Status
from clusters.electrical import (
    HEAT_PUMP_ENERGY_FEATURES,
    HEAT_PUMP_ESA,
    HEAT_PUMP_POWER,
    DeviceEnergyManagementServer,
    ElectricalEnergyMeasurementServer,
    ElectricalPowerMeasurementServer,
    PowerTopologyServer,
)


def test_heat_pump_power_values():
    power = ElectricalPowerMeasurementServer(**HEAT_PUMP_POWER)
    assert power.read("PowerMode") == 2 and power.read("ActivePower") == 3_450_000
    assert power.read("Voltage") == 230_000 and power.read("ActiveCurrent") == 15_000
    assert power.read("Frequency") == 50_000 and power.read("PowerFactor") == 9500
    assert power.read("ApparentPower") == 3_631_579 and power.read("RMSPower") == 3_450_000
    assert power.read("NumberOfMeasurementTypes") == len(power.read("Accuracy")) == 9
    assert {a["measurementType"] for a in power.read("Accuracy")} == {1, 2, 5, 7, 8, 9, 10, 11, 12}


def test_set_power_and_unknown_defaults(mount):
    power = ElectricalPowerMeasurementServer(voltage_mV=230_000)
    ep = mount(power)
    assert power.read("ActivePower") is None  # electrical_sensor: unknown until measured
    power.set_power(460_000)
    assert power.read("ActiveCurrent") == 2000 and power.active_power_mW == 460_000
    assert ("ElectricalPowerMeasurement", "ActivePower", None, 460_000) in [c[1:] for c in ep.changes]
    dc = ElectricalPowerMeasurementServer(features=1)
    assert dc.read("PowerMode") == 1 and not dc.has_attribute("Frequency")
    with pytest.raises(HomeError) as err:
        power.write("ActivePower", 1)
    assert err.value.status == Status.UNSUPPORTED_WRITE and power.read("ActivePower") == 460_000


def test_energy_integrates_sibling_power(mount, clock):
    power = ElectricalPowerMeasurementServer(voltage_mV=230_000, active_power_mW=1_000_000)  # 1 kW
    energy = ElectricalEnergyMeasurementServer(features=HEAT_PUMP_ENERGY_FEATURES)
    mount(power, energy)
    assert energy.read("CumulativeEnergyImported") is None and not energy.has_attribute("CumulativeEnergyExported")
    assert energy.read("Accuracy")["measurementType"] == 14
    clock.advance_to(36_000)  # one hour
    power.set_power(2_000_000)
    assert energy.read("CumulativeEnergyImported")["energy"] == 1_000_000  # 1 kWh in mWh
    clock.advance_to(54_000)  # half an hour at 2 kW
    energy.flush()
    assert energy.read("CumulativeEnergyImported") == {
        "energy": 2_000_000,
        "startSystime": 0,
        "endSystime": 5_400_000_000,
    }
    assert energy.read("PeriodicEnergyImported") == {
        "energy": 1_000_000,
        "startSystime": 3_600_000_000,
        "endSystime": 5_400_000_000,
    }
    assert clock.pending() == 0  # no ticking timers


def test_energy_up_to_now_reads_without_recording(mount, clock):
    """imported_mWh_now: the recorded energy plus the steady draw since, with nothing written or emitted."""
    power = ElectricalPowerMeasurementServer(voltage_mV=230_000, active_power_mW=8_000)  # a standby draw
    energy = ElectricalEnergyMeasurementServer(features=HEAT_PUMP_ENERGY_FEATURES)
    mount(power, energy)
    assert energy.imported_mWh_now() == 0
    clock.advance_to(36_000)  # one hour at 8 W, never recorded: the attribute still says unknown
    assert energy.imported_mWh_now() == 8_000
    assert energy.read("CumulativeEnergyImported") is None
    power.set_power(1_000_000)
    clock.advance_to(54_000)  # + half an hour at 1 kW
    assert energy.imported_mWh_now() == 8_000 + 500_000
    assert energy.read("CumulativeEnergyImported")["energy"] == 8_000  # recorded at the change only
    assert ElectricalEnergyMeasurementServer().imported_mWh_now() is None  # no meter to integrate: unknown


def test_add_energy_exported(mount):
    energy = ElectricalEnergyMeasurementServer(features=1 | 2 | 4)
    mount(energy)
    energy.add_energy(imported_mWh=10, exported_mWh=4)
    energy.add_energy(exported_mWh=1)
    assert energy.read("CumulativeEnergyImported")["energy"] == 10
    assert energy.read("CumulativeEnergyExported")["energy"] == 5


def test_power_topology_node():
    node = PowerTopologyServer()
    assert node.read("FeatureMap") == 1 and not node.has_attribute("AvailableEndpoints")
    dynamic = PowerTopologyServer(features=4 | 8, values={"AvailableEndpoints": [1, 2]})
    assert dynamic.read("AvailableEndpoints") == [1, 2] and dynamic.read("ActiveEndpoints") == []


def test_heat_pump_esa_values_and_offline_refusal(mount):
    esa = DeviceEnergyManagementServer(**HEAT_PUMP_ESA)
    mount(esa)
    assert esa.read("ESAType") == 1 and esa.read("ESAState") == 0 and esa.read("ESACanGenerate") is False
    assert esa.read("AbsMinPower") == 1_000_000 and esa.read("AbsMaxPower") == 8_000_000
    assert esa.read("PowerAdjustmentCapability") == {"powerAdjustCapability": [], "cause": 0}
    before = esa.read_all()
    with pytest.raises(HomeError) as err:
        esa.invoke("PowerAdjustRequest", {"power": 2_000_000, "duration": 60, "cause": 0})
    assert err.value.status == Status.INVALID_IN_STATE and esa.read_all() == before


ADJUSTABLE = [{"minPower": 1_000_000, "maxPower": 4_000_000, "minDuration": 10, "maxDuration": 600}]


def test_power_adjustment_lasts_its_duration(mount, clock):
    esa = DeviceEnergyManagementServer(esa_type="SpaceHeating", power_adjustments=ADJUSTABLE)
    mount(esa)
    esa.invoke("PowerAdjustRequest", {"Power": 2_000_000, "Duration": 60, "Cause": "GridOptimization"})
    assert esa.read("ESAState") == 3 and esa.adjusted_power_mW == 2_000_000
    assert esa.read("PowerAdjustmentCapability")["cause"] == 2
    clock.advance_to(600)
    assert esa.read("ESAState") == 1 and esa.adjusted_power_mW is None
    assert esa.read("PowerAdjustmentCapability")["cause"] == 0
    esa.invoke("PowerAdjustRequest", {"power": 1_000_000, "duration": 600, "cause": 0})
    esa.invoke("CancelPowerAdjustRequest")
    assert esa.read("ESAState") == 1 and clock.pending() == 0


@pytest.mark.parametrize(
    ("call", "status"),
    [
        (
            lambda s: s.invoke("PowerAdjustRequest", {"power": 5_000_000, "duration": 60, "cause": 0}),
            Status.CONSTRAINT_ERROR,
        ),
        (
            lambda s: s.invoke("PowerAdjustRequest", {"power": 2_000_000, "duration": 5, "cause": 0}),
            Status.CONSTRAINT_ERROR,
        ),
        (
            lambda s: (
                s.restore("OptOutState", 2)
                or s.invoke("PowerAdjustRequest", {"power": 2_000_000, "duration": 60, "cause": 1})
            ),
            Status.FAILURE,
        ),
        (lambda s: s.invoke("CancelPowerAdjustRequest"), Status.INVALID_IN_STATE),
        (lambda s: s.invoke("PauseRequest", {"duration": 5, "cause": 0}), Status.UNSUPPORTED_COMMAND),
        (lambda s: s.write("ESAState", 3), Status.UNSUPPORTED_WRITE),
    ],
)
def test_esa_refusals(mount, call, status):
    esa = DeviceEnergyManagementServer(power_adjustments=ADJUSTABLE)
    mount(esa)
    with pytest.raises(HomeError) as err:
        call(esa)
    assert err.value.status == status
    assert esa.read("ESAState") == 1 and esa.adjusted_power_mW is None


def _events(server):
    events = []
    server.add_event_listener(lambda s, name, fields, priority: events.append((name, fields)))
    return events


def test_energy_measured_events(mount, clock):
    power = ElectricalPowerMeasurementServer(voltage_mV=230_000, active_power_mW=1_000_000)
    energy = ElectricalEnergyMeasurementServer(features=HEAT_PUMP_ENERGY_FEATURES)
    mount(power, energy)
    events = _events(energy)
    assert energy.read("EventList") == [0, 1]
    clock.advance_to(36_000)
    power.set_power(2_000_000)
    assert events == [
        (
            "CumulativeEnergyMeasured",
            {"energyImported": {"energy": 1_000_000, "startSystime": 0, "endSystime": 3_600_000_000}},
        ),
        (
            "PeriodicEnergyMeasured",
            {"energyImported": {"energy": 1_000_000, "startSystime": 0, "endSystime": 3_600_000_000}},
        ),
    ]
    assert ElectricalEnergyMeasurementServer(features=1 | 4).read("EventList") == [0]  # cumulative only


def test_power_adjust_events(mount, clock):
    esa = DeviceEnergyManagementServer(esa_type="SpaceHeating", power_adjustments=ADJUSTABLE)
    mount(esa)
    events = _events(esa)
    esa.invoke("PowerAdjustRequest", {"power": 2_000_000, "duration": 60, "cause": 1})
    clock.advance_to(600)
    esa.invoke("PowerAdjustRequest", {"power": 1_000_000, "duration": 600, "cause": 0})
    clock.advance_to(900)
    esa.invoke("CancelPowerAdjustRequest")
    assert events == [
        ("PowerAdjustStart", {}),
        ("PowerAdjustEnd", {"cause": 0, "duration": 60, "energyUse": 33333}),
        ("PowerAdjustStart", {}),
        ("PowerAdjustEnd", {"cause": 4, "duration": 30, "energyUse": 8333}),
    ]
