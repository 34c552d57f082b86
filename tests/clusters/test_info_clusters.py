import pytest

from clusters import Endpoint, HomeError, Status
from clusters.basic_information import BasicInformationServer, BridgedDeviceBasicInformationServer
from clusters.descriptor import DescriptorServer
from clusters.on_off import OnOffServer
from clusters.power_source import PowerSourceServer


# ----------------------------------------------------------------------------------- PowerSource
def test_heat_pump_wired_power_source():
    source = PowerSourceServer(
        description="AC Grid Connection",
        status="Standby",
        values={"WiredNominalVoltage": 220_000, "WiredAssessedInputVoltage": 220_000},
    )
    assert source.read("Status") == 2 and source.read("Order") == 0
    assert source.read("Description") == "AC Grid Connection" and source.read("WiredPresent") is True
    assert source.read("WiredNominalVoltage") == 220_000 and source.read("FeatureMap") == 1
    assert source.read("ClusterRevision") == 3 and not source.has_attribute("BatPercentRemaining")
    with pytest.raises(ValueError):
        source.set_battery_percent(50)


def test_battery_levels(mount):
    battery = PowerSourceServer(features=2 | 8, battery_percent=80, endpoints=[1])
    ep = mount(battery)
    assert battery.read("Description") == "Battery" and battery.read("EndpointList") == [1]
    assert battery.read("BatPercentRemaining") == 160 and battery.read("BatChargeLevel") == 0
    assert battery.read("BatQuantity") == 2 and not battery.has_attribute("WiredPresent")
    battery.set_battery_percent(15)
    assert battery.read("BatChargeLevel") == 1 and battery.read("BatReplacementNeeded") is False
    battery.set_battery_percent(3)
    assert battery.read("BatChargeLevel") == 2 and battery.read("BatReplacementNeeded") is True
    assert ("PowerSource", "BatPercentRemaining", 30, 6) in [c[1:] for c in ep.changes]
    battery.set_status("Unavailable")
    assert battery.read("Status") == 3


def test_power_source_is_read_only():
    source = PowerSourceServer()
    with pytest.raises(HomeError) as err:
        source.write("Status", 3)
    assert err.value.status == Status.UNSUPPORTED_WRITE and source.read("Status") == 1


# ----------------------------------------------------------------------------------- BasicInformation
def test_basic_information_identity():
    info = BasicInformationServer(
        vendor_name="Heat Pump", product_name="Heat Pump", product_id=0x0309, serial_number="HP-0001"
    )
    assert info.read("VendorName") == "Heat Pump" and info.read("ProductID") == 777
    assert info.read("VendorID") == 0xFFF1 and info.read("SerialNumber") == "HP-0001"
    assert info.read("UniqueID") not in ("HP-0001", "") and len(info.read("UniqueID")) == 32  # Core §11.1.5.18
    assert info.read("DataModelRevision") == 17 and info.read("SpecificationVersion") == 0x01030000
    assert info.read("CapabilityMinima") == {"caseSessionsPerFabric": 3, "subscriptionsPerFabric": 3}
    assert info.read("MaxPathsPerInvoke") == 1 and info.read("ClusterRevision") == 3
    assert (
        BasicInformationServer(product_id=4).read("UniqueID")
        == BasicInformationServer(product_id=4).read("UniqueID")
        != BasicInformationServer(product_id=5).read("UniqueID")
    )


def test_basic_information_writes(mount):
    info = BasicInformationServer()
    mount(info)
    info.write("NodeLabel", "Living room lamp")
    info.write("Location", "KR")
    assert info.read("NodeLabel") == "Living room lamp" and info.read("Location") == "KR"
    before = info.read_all()
    for name, value, status in [
        ("NodeLabel", "x" * 33, Status.CONSTRAINT_ERROR),
        ("Location", "KOR", Status.CONSTRAINT_ERROR),
        ("NodeLabel", 5, Status.INVALID_DATA_TYPE),
        ("VendorName", "Other", Status.UNSUPPORTED_WRITE),
    ]:
        with pytest.raises(HomeError) as err:
            info.write(name, value)
        assert err.value.status == status
    assert info.read_all() == before
    with pytest.raises(HomeError) as err:
        BasicInformationServer(product_name="p" * 33)
    assert err.value.status == Status.CONSTRAINT_ERROR


def test_bridged_device_information(mount):
    bridged = BridgedDeviceBasicInformationServer(product_name="Fan", serial_number="F-1", node_label="Fan 1")
    ep = mount(bridged)
    assert bridged.read("UniqueID") not in ("F-1", "") and bridged.read("Reachable") is True
    bridged.set_reachable(False)
    assert bridged.read("Reachable") is False and ep.changes[-1][2:] == ("Reachable", True, False)
    bridged.write("NodeLabel", "Ceiling fan")
    with pytest.raises(HomeError) as err:
        bridged.write("NodeLabel", "y" * 40)
    assert err.value.status == Status.CONSTRAINT_ERROR and bridged.read("NodeLabel") == "Ceiling fan"
    with pytest.raises(HomeError) as err:
        bridged.invoke("KeepActive", {"stayActiveDuration": 1, "timeoutMs": 1})
    assert err.value.status == Status.UNSUPPORTED_COMMAND


# ----------------------------------------------------------------------------------- Descriptor
def test_descriptor_is_computed_from_the_endpoint(clock):
    descriptor = DescriptorServer(client_clusters=[0x0006])
    endpoint = Endpoint(1, [(0x0100, 3)], [descriptor, OnOffServer()])
    endpoint.parts = [2, 3]
    endpoint.attach(clock)
    assert descriptor.read("DeviceTypeList") == [{"deviceType": 0x0100, "revision": 3}]
    assert descriptor.read("ServerList") == [0x0006, 0x001D]
    assert descriptor.read("ClientList") == [0x0006] and descriptor.read("PartsList") == [2, 3]
    assert not descriptor.has_attribute("TagList") and descriptor.read("FeatureMap") == 0
    endpoint.parts.append(4)
    assert descriptor.read("PartsList") == [2, 3, 4]
    with pytest.raises(HomeError) as err:
        descriptor.write("PartsList", [])
    assert err.value.status == Status.UNSUPPORTED_WRITE


def test_descriptor_tags(mount):
    descriptor = DescriptorServer(tags=[{"namespaceID": 0x0F, "tag": 0x00, "label": "Grid"}])
    mount(descriptor)
    assert descriptor.read("FeatureMap") == 1
    assert descriptor.read("TagList") == [{"mfgCode": None, "namespaceID": 0x0F, "tag": 0, "label": "Grid"}]
    with pytest.raises(HomeError):
        DescriptorServer(tags=[{"namespaceID": 1}])  # tag missing
