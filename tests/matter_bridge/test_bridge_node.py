"""The bridge's data model over a EmulatedHome: layout, identity, stable endpoint numbers, routing, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.matter.codec.kv_store import JsonFileStore, MemoryStore
from bridge.matter.im.event_log import EventLog
from bridge.matter.im.im_messages import EventPath
from bridge.matter.node.bridge_node import (
    BridgeNode,
    serial_number_for,
    unique_id_for,
)
from clusters import HomeError, Status
from clusters.basic_information import BasicInformationServer
from clusters.device_types import AGGREGATOR, BRIDGED_NODE, ROOT_NODE
from emulator.home_config import DeviceConfig
from tests.emulator.helpers import fabric

DESCRIPTOR, BDBI, FIXED_LABEL, ON_OFF, LEVEL, OPSTATE = 0x1D, 0x39, 0x40, 0x06, 0x08, 0x60


def _home() -> object:
    return fabric(
        [("lamp", "dimmable_light", "kitchen"), ("pump", "heat_pump", "attic"), ("washer", "laundry_washer", "kitchen")]
    )


def _types(node: BridgeNode, ep: int) -> list[int]:
    return [t["deviceType"] for t in node.read(ep, DESCRIPTOR, "DeviceTypeList")]


def test_root_aggregator_and_bridged_endpoints() -> None:
    home = _home()
    node = BridgeNode(home, [BasicInformationServer(product_name="Bridge")])  # type: ignore[arg-type]
    eps = node.endpoints()
    assert eps[:2] == [0, 1]
    assert _types(node, 0) == [ROOT_NODE[0]]
    assert _types(node, 1) == [AGGREGATOR[0]] == [14]
    assert node.read(0, DESCRIPTOR, "PartsList") == eps[1:]
    assert node.read(1, DESCRIPTOR, "PartsList") == eps[2:]
    assert 0x28 in node.clusters(0) and node.read(0, 0x28, "ProductName") == "Bridge"
    # 1 endpoint for the lamp, 4 for the heat pump, 1 for the washer
    assert len(eps) == 2 + 1 + 4 + 1
    mapping = node.bridged_endpoints()
    assert sorted(mapping.values()) == sorted(
        [("lamp", 1), ("pump", 1), ("pump", 2), ("pump", 3), ("pump", 4), ("washer", 1)]
    )


def test_bridged_device_identity_and_room_label() -> None:
    home = _home()
    node = BridgeNode(home)  # type: ignore[arg-type]
    lamp = node.endpoint_of("lamp", 1)
    assert lamp is not None
    assert _types(node, lamp) == [BRIDGED_NODE[0], 257]  # Bridged Node + Dimmable Light
    assert node.read(lamp, BDBI, "NodeLabel") == "lamp"
    assert node.read(lamp, BDBI, "Reachable") is True
    assert node.read(lamp, BDBI, "SerialNumber") == "lamp"
    device_info = home.device("lamp").find(0, "BasicInformation")  # type: ignore[attr-defined]
    assert node.read(lamp, BDBI, "VendorName") == device_info.read("VendorName")
    assert node.read(lamp, BDBI, "ProductName") == device_info.read("ProductName")
    assert node.read(lamp, FIXED_LABEL, "LabelList") == [{"label": "room", "value": "kitchen"}]
    servers = node.read(lamp, DESCRIPTOR, "ServerList")
    assert {DESCRIPTOR, BDBI, ON_OFF, LEVEL} <= set(servers)
    assert servers == sorted(node.clusters(lamp))


def test_composed_device_keeps_its_parts() -> None:
    node = BridgeNode(_home())  # type: ignore[arg-type]
    top = node.endpoint_of("pump", 1)
    children = [node.endpoint_of("pump", ep) for ep in (2, 3, 4)]
    assert node.read(top, DESCRIPTOR, "PartsList") == children  # type: ignore[arg-type]
    assert BRIDGED_NODE[0] in _types(node, top)  # type: ignore[arg-type]
    for child in children:
        assert BRIDGED_NODE[0] not in _types(node, child)  # type: ignore[arg-type]
        assert BDBI not in node.clusters(child)  # type: ignore[arg-type]
        assert node.read(child, DESCRIPTOR, "PartsList") == []  # type: ignore[arg-type]


def test_endpoint_numbers_stable_across_restarts_new_devices_new_numbers_gaps_kept(tmp_path: Path) -> None:
    store_path = tmp_path / "state.json"
    first = BridgeNode(_home(), store=JsonFileStore(store_path))  # type: ignore[arg-type]
    before = first.bridged_endpoints()
    first.close()
    # Restart: same numbers.
    again = BridgeNode(_home(), store=JsonFileStore(store_path))  # type: ignore[arg-type]
    assert again.bridged_endpoints() == before
    again.close()
    # Lamp removed, a new fan added: the lamp's number is a gap, the fan gets a new number.
    home = fabric([("pump", "heat_pump", "attic"), ("washer", "laundry_washer", "kitchen"), ("fan", "fan", "kitchen")])
    later = BridgeNode(home, store=JsonFileStore(store_path))
    after = later.bridged_endpoints()
    lamp_number = next(n for n, key in before.items() if key == ("lamp", 1))
    assert lamp_number not in after
    assert {n: k for n, k in after.items() if k[0] != "fan"} == {n: k for n, k in before.items() if k[0] != "lamp"}
    assert later.endpoint_of("fan", 1) == max(before) + 1


def test_refresh_picks_up_added_devices() -> None:
    home = _home()
    node = BridgeNode(home)  # type: ignore[arg-type]
    changes: list[tuple[int, int, str]] = []
    node.add_change_listener(lambda *c: changes.append(c))
    parts_version = node.data_version(0, DESCRIPTOR)
    home.add_device(DeviceConfig.model_validate({"id": "plug", "type": "smart_plug", "room": "kitchen"}))  # type: ignore[attr-defined]
    node.refresh()
    plug = node.endpoint_of("plug", 1)
    assert plug is not None and plug in node.read(0, DESCRIPTOR, "PartsList")
    assert (0, DESCRIPTOR, "PartsList") in changes
    assert node.data_version(0, DESCRIPTOR) != parts_version


def test_reads_writes_invokes_go_through_the_fabric_and_bump_versions() -> None:
    home = _home()
    node = BridgeNode(home)  # type: ignore[arg-type]
    lamp = node.endpoint_of("lamp", 1)
    assert lamp is not None
    version = node.data_version(lamp, ON_OFF)
    assert node.invoke(lamp, ON_OFF, "On", {}) is None
    assert home.read("lamp", 1, "OnOff", "OnOff") is True  # type: ignore[attr-defined]
    assert node.data_version(lamp, ON_OFF) == (version + 1) & 0xFFFFFFFF
    node.write(lamp, LEVEL, "OnLevel", 100)
    assert home.read("lamp", 1, "LevelControl", "OnLevel") == 100  # type: ignore[attr-defined]
    home.write("lamp", 1, "LevelControl", "OnLevel", 50)  # type: ignore[attr-defined]
    assert node.read(lamp, LEVEL, "OnLevel") == 50


def test_fabric_refusals_map_to_im_statuses() -> None:
    node = BridgeNode(_home())  # type: ignore[arg-type]
    washer = node.endpoint_of("washer", 1)
    assert washer is not None
    with pytest.raises(HomeError) as error:
        node.invoke(washer, OPSTATE, "Start", {})  # the washer is off
    assert error.value.status == Status.INVALID_IN_STATE
    with pytest.raises(HomeError) as error:
        node.write(washer, ON_OFF, "OnOff", True)
    assert error.value.status == Status.UNSUPPORTED_WRITE
    with pytest.raises(HomeError) as error:
        node.server(999, ON_OFF)
    assert error.value.status == Status.UNSUPPORTED_ENDPOINT
    with pytest.raises(HomeError) as error:
        node.server(washer, 0x0300)
    assert error.value.status == Status.UNSUPPORTED_CLUSTER
    node.invoke(washer, ON_OFF, "On", {})
    assert node.invoke(washer, OPSTATE, "Start", {}) == {"commandResponseState": {"errorStateID": 0}}


def test_startup_events_and_reachable_changed() -> None:
    events = EventLog(MemoryStore())
    node = BridgeNode(_home(), [BasicInformationServer()], events=events)  # type: ignore[arg-type]
    startups = events.query([EventPath(cluster=BDBI, event=0)])
    assert len(startups) == 3  # one per bridged device
    assert events.query([EventPath(0, 0x28, 0)])
    node.set_reachable("lamp", False)
    (changed,) = events.query([EventPath(cluster=BDBI, event=3)])
    assert changed.endpoint == node.endpoint_of("lamp", 1)
    assert node.read(changed.endpoint, BDBI, "Reachable") is False
    node.set_reachable("lamp", False)  # no change, no event
    assert len(events.query([EventPath(cluster=BDBI, event=3)])) == 1
    assert 3 in node.read(changed.endpoint, BDBI, "EventList") and node.read(0, 0x28, "EventList") == [0]
    numbers = [r.number for r in events.query([EventPath()])]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)


def test_event_numbers_continue_after_restart() -> None:
    store = MemoryStore()
    log = EventLog(store)
    last = max(log.emit(0, 0x28, 0, 2, b"\x15\x18").number for _ in range(5))
    again = EventLog(store)
    assert again.emit(0, 0x28, 0, 2, b"\x15\x18").number > last


def test_long_device_ids_get_a_stable_32_char_serial_number() -> None:
    long_id = "x" * 50
    assert len(serial_number_for(long_id)) == 32 and serial_number_for(long_id) == serial_number_for(long_id)
    assert serial_number_for("short") == "short"


def test_unique_id_is_not_the_serial_number_and_survives_restarts(tmp_path: Path) -> None:
    """Core §11.1.5.19: UniqueID shall not be the SerialNumber; it stays the same across restarts."""
    store_path = tmp_path / "state.json"
    devices = [("lamp", "dimmable_light", "r"), ("x" * 50, "fan", "r"), ("tv", "tv", "r")]
    first = BridgeNode(fabric(devices), store=JsonFileStore(store_path))
    ids = {}
    for device_id, _, _ in devices:
        top = first.endpoint_of(device_id, 1)
        unique, serial = first.read(top, BDBI, "UniqueID"), first.read(top, BDBI, "SerialNumber")  # type: ignore[arg-type]
        assert unique != serial and len(unique) == 32 and device_id not in unique
        ids[device_id] = unique
    assert len(set(ids.values())) == len(devices)
    again = BridgeNode(fabric(devices), store=JsonFileStore(store_path))
    assert {d: again.read(again.endpoint_of(d, 1), BDBI, "UniqueID") for d in ids} == ids  # type: ignore[arg-type]
    other_bridge = BridgeNode(fabric(devices), store=JsonFileStore(tmp_path / "other.json"))
    assert other_bridge.read(other_bridge.endpoint_of("lamp", 1), BDBI, "UniqueID") != ids["lamp"]  # type: ignore[arg-type]
    assert unique_id_for(b"k", "lamp") == unique_id_for(b"k", "lamp") != unique_id_for(b"k", "lamp2")
