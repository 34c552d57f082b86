import pytest

from clusters import HomeError, Status
from clusters.water_heater_management import WaterHeaterManagementServer


def test_defaults(mount):
    heater = WaterHeaterManagementServer(heater_types=1 | 4, tank_volume_l=150, tank_percentage=40)
    mount(heater)
    assert heater.read("HeaterTypes") == 5 and heater.read("TankVolume") == 150
    assert heater.read("TankPercentage") == 40 and heater.read("BoostState") == 0
    assert heater.read("HeatDemand") == 0 and heater.read("FeatureMap") == 3
    plain = WaterHeaterManagementServer(features=0)
    assert not plain.has_attribute("TankPercentage") and not plain.has_attribute("TankVolume")


def test_boost_lasts_its_duration(mount, clock):
    heater = WaterHeaterManagementServer(heater_types=4)
    ep = mount(heater)
    heater.invoke("Boost", {"BoostInfo": {"Duration": 60}})
    assert heater.boost_active and heater.read("HeatDemand") == 4
    clock.advance_to(599)
    assert heater.boost_active
    clock.advance_to(600)
    assert not heater.boost_active and heater.read("HeatDemand") == 0
    assert [c[2] for c in ep.changes] == ["HeatDemand", "BoostState", "BoostState", "HeatDemand"]


def test_boost_ramps_tank_percentage_lazily(mount, clock):
    heater = WaterHeaterManagementServer(tank_percentage=20)
    ep = mount(heater)
    heater.invoke("Boost", {"boostInfo": {"duration": 100, "targetPercentage": 80}})
    assert clock.pending() == 1
    clock.advance_to(500)
    assert heater.read("TankPercentage") == 50
    clock.advance_to(1000)
    assert heater.read("TankPercentage") == 80 and not heater.boost_active
    assert (100.0, "WaterHeaterManagement", "TankPercentage", 20, 80) in ep.changes


def test_cancel_boost_keeps_heat_reached(mount, clock):
    heater = WaterHeaterManagementServer(tank_percentage=0)
    mount(heater)
    heater.invoke("Boost", {"boostInfo": {"duration": 100, "targetPercentage": 100}})
    clock.advance_to(250)
    heater.invoke("CancelBoost")
    assert not heater.boost_active and heater.read("TankPercentage") == 25 and clock.pending() == 0
    heater.invoke("CancelBoost")  # nothing to cancel: still a success
    heater.set_tank_percentage(90)
    assert heater.read("TankPercentage") == 90


def test_new_boost_replaces_running_one(mount, clock):
    heater = WaterHeaterManagementServer()
    mount(heater)
    heater.invoke("Boost", {"boostInfo": {"duration": 10}})
    heater.invoke("Boost", {"boostInfo": {"duration": 30}})
    clock.advance_to(200)
    assert heater.boost_active
    clock.advance_to(300)
    assert not heater.boost_active and heater.read("HeatDemand") == 0


@pytest.mark.parametrize(
    ("info", "status", "features"),
    [
        ({"duration": 0}, Status.CONSTRAINT_ERROR, 3),
        ({"duration": 10, "targetPercentage": 101}, Status.CONSTRAINT_ERROR, 3),
        ({"duration": 10, "targetPercentage": 50}, Status.CONSTRAINT_ERROR, 1),
        ({"duration": 10, "targetReheat": 10}, Status.INVALID_COMMAND, 3),
        ({"duration": 10, "targetPercentage": 50, "targetReheat": 60}, Status.INVALID_COMMAND, 3),
        ({"duration": 10, "targetPercentage": 50, "targetReheat": 10, "oneShot": True}, Status.INVALID_COMMAND, 3),
        ({"oneShot": True}, Status.INVALID_COMMAND, 3),
    ],
)
def test_boost_refusals(mount, info, status, features):
    heater = WaterHeaterManagementServer(features=features)
    mount(heater)
    before = heater.read_all()
    with pytest.raises(HomeError) as err:
        heater.invoke("Boost", {"boostInfo": info})
    assert err.value.status == status
    assert heater.read_all() == before


def test_boost_events(mount, clock):
    heater = WaterHeaterManagementServer(heater_types=4)
    mount(heater)
    events = []
    heater.add_event_listener(lambda s, name, fields, priority: events.append((name, fields)))
    heater.invoke("Boost", {"BoostInfo": {"Duration": 60}})
    clock.advance_to(600)
    assert [name for name, _ in events] == ["BoostStarted", "BoostEnded"]
    assert events[0][1]["boostInfo"]["duration"] == 60
