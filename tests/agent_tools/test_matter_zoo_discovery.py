"""The Matter backend on devices homefabric did not make, from their real interview, without a controller running.

``fixtures/matter_zoo_nodes.json`` is python-matter-server 7.0.1's ``get_nodes`` reply after commissioning the
device zoo (``tests/matter_zoo``: matter.js ServerNodes built from ``zoo.json``), captured with
``tests.matter_zoo.zoo_env.Zoo.nodes_dump``. Identity, names, rooms and types are checked against what
``zoo.json`` says was built; every Interaction Model status a controller can report in place of a value, a write
or an invoke is checked to be a structured tool error. The live run is ``test_matter_zoo_live.py``.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from chip.interaction_model import InteractionModelError
from chip.interaction_model import Status as ImStatus

from agent_tools.matter_backend import MatterHome, MatterServerError
from agent_tools.matter_backend.discovery import (
    discover,
    from_mapping,
    mapping_from,
    rooms_for,
    slug,
)
from agent_tools.matter_backend.mapping import HomeMapping, MappingError
from agent_tools.toolbox import ToolBox
from emulator.errors import HomeError
from tests.matter_zoo.zoo_env import expected_devices

NODES = json.loads((Path(__file__).parent / "fixtures" / "matter_zoo_nodes.json").read_text())


def by_serial(nodes: list[dict[str, Any]]) -> dict[str, Any]:
    return {d.serial_number or d.device_id: d for d in discover(nodes)}


def spec_of(key: str) -> dict[str, Any]:
    entry = expected_devices()[key]
    return {**entry.get("basic", {}), **entry.get("info", {}), **entry}


def test_types_rooms_names_and_endpoints_are_as_built() -> None:
    found = by_serial(NODES)
    for key, entry in expected_devices().items():
        spec = spec_of(key)
        device = found[spec["serialNumber"]]
        assert (device.device_type, device.room_id) == (entry["expect"]["device_type"], entry["expect"]["room"]), key
        # name: NodeLabel (matter.js fills an absent one with the ProductName), never the controller's words
        assert device.name == spec.get("nodeLabel") or spec["productName"], key
        assert (0 in device.endpoints) == (not device.bridged), key  # a plain node keeps endpoint 0
    # a misleading ProductName never overrides the Descriptor's device type
    plug = found["ZP-0006"]
    assert plug.name == "dishwasher" and plug.device_type == "on_off_plug_in_unit"
    assert found["sn-3"].device_type == "on_off_plug_in_unit"  # ProductName "oven"
    rooms = {r.room_id: r.name for r in rooms_for(discover(NODES))}
    assert rooms["living_room"] == "Living Room" and rooms["garage"] == "Garage"  # a label; a Common Area tag


def test_ids_are_the_devices_own_and_do_not_depend_on_node_ids_or_order() -> None:
    ids = {d.serial_number: d.device_id for d in discover(NODES)}
    for key in ("hall_light", "porch_light", "study_plug", "thermostat"):
        spec = spec_of(key)
        assert ids[spec["serialNumber"]] == slug(spec["uniqueId"])
    shuffled = copy.deepcopy(NODES)
    random.Random(7).shuffle(shuffled)
    for new_id, node in enumerate(shuffled, start=41):  # commissioned again, in another order
        node["node_id"] = new_id
    assert {d.serial_number: d.device_id for d in discover(shuffled)} == ids
    assert all(str(d.node_id) not in d.device_id for d in discover(shuffled))


def _without(nodes: list[dict[str, Any]], *paths: str) -> list[dict[str, Any]]:
    out = copy.deepcopy(nodes)
    for node in out:
        for path in paths:
            node["attributes"].pop(path, None)
    return out


def _node_of(serial: str, nodes: list[dict[str, Any]] = NODES) -> dict[str, Any]:
    return next(
        n for n in nodes if any(k.endswith(("/40/15", "/57/15")) and v == serial for k, v in n["attributes"].items())
    )


def test_without_a_unique_id_the_id_is_vendor_product_serial_else_the_bridge_and_endpoint() -> None:
    plain = _node_of("ZL-0001")
    device = by_serial(_without([plain], "0/40/18"))["ZL-0001"]
    assert device.device_id == "fff1_8001_zl_0001"
    bridge = _node_of("sn-1")
    porch = next(d for d in discover([bridge]) if d.serial_number == "sn-1")
    # a bridged device without its own vendor/product: the bridge's
    no_unique = by_serial(_without([bridge], f"{porch.top_endpoint}/57/18"))
    assert no_unique["sn-1"].device_id == "fff1_800a_sn_1"
    bare = discover(_without([bridge], f"{porch.top_endpoint}/57/18", f"{porch.top_endpoint}/57/15"))
    assert f"zoo_bridge_10_ep{porch.top_endpoint}" in {d.device_id for d in bare}
    with pytest.raises(MappingError, match="neither UniqueID"):
        discover(_without([plain], "0/40/18", "0/40/15"))
    twin = copy.deepcopy(plain)
    twin["node_id"] = 99
    with pytest.raises(MappingError, match="same identity"):
        discover([plain, twin])


def test_rooms_come_from_any_endpoint_user_before_fixed_label_else_unassigned() -> None:
    climate = _node_of("ZH-0008")
    assert "2/64/0" in climate["attributes"] and by_serial([climate])["ZH-0008"].room_id == "kitchen"
    user = copy.deepcopy(climate)
    user["attributes"]["1/65/0"] = [{"0": "Room", "1": "Pantry"}]  # the user's label wins over the maker's
    assert by_serial([user])["ZH-0008"].room_id == "pantry"
    assert by_serial(_without([climate], "2/64/0"))["ZH-0008"].room_id == "unassigned"
    tagged = copy.deepcopy(climate)
    tagged["attributes"]["1/29/4"] = [{"0": None, "1": 0x10, "2": 47, "3": None}]  # Common Area: Kitchen
    tagged["attributes"].pop("2/64/0")
    assert by_serial([tagged])["ZH-0008"].room_id == "kitchen"


def test_a_mapping_by_identity_survives_new_node_ids_and_overrides() -> None:
    devices = discover(NODES)
    mapping = mapping_from(devices)
    again = copy.deepcopy(NODES)
    for node in again:
        node["node_id"] += 100
    remapped = from_mapping(HomeMapping.model_validate(mapping.model_dump()), again)
    assert [(d.device_id, d.device_type, d.room_id, d.endpoints, d.name) for d in remapped] == [
        (d.device_id, d.device_type, d.room_id, d.endpoints, d.name) for d in devices
    ]
    assert {d.node_id for d in remapped} == {d.node_id + 100 for d in devices}
    edited = mapping.model_dump()
    edited["devices"] = [{"identity": "zoo_plug_6", "device_id": "kitchen_plug", "room_id": "scullery"}]
    [plug] = from_mapping(HomeMapping.model_validate(edited), NODES)
    assert (plug.device_id, plug.room_id, plug.device_type) == ("kitchen_plug", "scullery", "on_off_plug_in_unit")
    edited["devices"] = [{"identity": "no_such_device", "device_id": "x"}]
    with pytest.raises(MappingError, match="no commissioned device"):
        from_mapping(HomeMapping.model_validate(edited), NODES)
    with pytest.raises(ValueError, match="give identity, or node_id and endpoint"):
        HomeMapping.model_validate({"devices": [{"device_id": "x"}]})


# ---------------------------------------------------------------------------------- statuses
class StatusConnection:
    """matter-server answering with the captured interview's values, except the one path under test: there it
    puts ``status`` where the value belongs (reads), in the write result (writes) or in the error (invokes)."""

    def __init__(self, node: dict[str, Any], status: ImStatus, target: str) -> None:
        self.node, self.status, self.target = node, status, target
        self.reason = str(InteractionModelError(status))

    def call(self, command: str, **args: Any) -> Any:
        if command == "read_attribute":
            out: dict[str, Any] = {}
            for path in args["attribute_path"]:
                endpoint, cluster, attribute = path.split("/")
                for key, value in self.node["attributes"].items():
                    ep, cl, at = key.split("/")
                    if ep == endpoint and cluster in (cl, "*") and attribute in (at, "*"):
                        out[key] = value
                if path == self.target:
                    out[path] = {"TLVValue": None, "Reason": self.reason}
            return out
        if command == "write_attribute":
            return [{"Path": {"AttributeId": 0}, "Status": int(self.status)}]
        if command == "device_command":
            raise MatterServerError(command, self.reason, error_code=0)
        raise AssertionError(command)

    def close(self) -> None:
        pass


FAILURES = [s for s in ImStatus if s != ImStatus.Success]


@pytest.mark.parametrize("status", FAILURES, ids=lambda s: s.name)
def test_every_interaction_model_status_is_an_error_never_a_value(status: ImStatus) -> None:
    node = _node_of("ZD-0002")
    [device] = discover([node])
    connection = StatusConnection(node, status, "1/8/0")  # LevelControl.CurrentLevel
    home = MatterHome(connection, [device], rooms_for([device]))  # type: ignore[arg-type]
    tools = ToolBox(home)
    errors = []
    with pytest.raises(HomeError) as read:
        home.read(device.device_id, 1, "LevelControl", "CurrentLevel")
    errors.append(read.value)
    connection.target = "none"  # the write's read-before succeeds; the write itself answers the status
    with pytest.raises(HomeError) as write:
        home.write(device.device_id, 1, "LevelControl", "OnLevel", 100)
    errors.append(write.value)
    with pytest.raises(HomeError) as invoke:
        home.invoke(device.device_id, 1, "OnOff", "Toggle")
    errors.append(invoke.value)
    for error in errors:
        assert error.code and error.code not in ("CONNECTION_ERROR", "TIMEOUT_ERROR"), error
        assert f"0x{int(status):02x}" in error.message, error
    assert read.value.code != "ATTRIBUTE_NOT_FOUND" or status == ImStatus.UnsupportedAttribute
    # and through the tools: an error envelope, never a value
    connection.target = "1/8/0"
    answer = tools.call(
        "get_attribute",
        {"device_id": device.device_id, "endpoint_id": 1, "cluster_id": "LevelControl", "attribute_id": "CurrentLevel"},
    )
    assert answer["error"] is not None and answer["error"]["type"] == read.value.code, answer
    assert answer["status"]["code"] != 200 and answer["data"] is None, answer


def test_an_absent_cluster_is_named_with_what_the_endpoint_serves() -> None:
    node = _node_of("ZL-0001")
    [device] = discover([node])
    home = MatterHome(
        StatusConnection(node, ImStatus.UnsupportedCluster, "1/514/2"),  # type: ignore[arg-type]
        [device],
        rooms_for([device]),
    )
    with pytest.raises(HomeError) as error:
        home.read(device.device_id, 1, "FanControl", "PercentSetting")
    assert error.value.code == "CLUSTER_NOT_FOUND" and "OnOff" in error.value.allowed
    # endpoint 0 of a plain node: its identity reads
    assert home.read(device.device_id, 0, "BasicInformation", "UniqueID") == "zoo-hall-light-1"


# ---------------------------------------------------------------------------------- the twin
def test_the_twin_copies_types_rooms_names_values_and_says_what_differs() -> None:
    from agent_tools.matter_backend.twin import TWIN_KEY, live_values, state_paths, twin_home
    from emulator.emulated_home import EmulatedHome
    from emulator.home_config import HomeConfig

    devices = discover(NODES)
    data = twin_home(
        NODES, devices, rooms_for(devices), name="zoo twin", base_time="2025-08-23 14:00:00", source="fixture"
    )
    twin = EmulatedHome(HomeConfig.model_validate(data))
    report = data["extensions"][TWIN_KEY]
    assert {e["device_id"] for e in report["left_out"]} == {"zoo_plug_6", "zoo_bridged_plug_3"}  # no catalogue type
    assert "0x010a" in report["left_out"][0]["reason"]
    by_node = {n["node_id"]: n for n in NODES}
    for device in devices:
        if device.device_type == "on_off_plug_in_unit":
            continue
        view = twin.device(device.device_id)
        assert (view.device_type, view.room_id) == (device.device_type, device.room_id)
        twin_state = state_paths(twin.read_all(device.device_id))
        live_state = state_paths(live_values(by_node[device.node_id], device))
        fidelity = report["devices"][device.device_id]
        for path, value in twin_state.items():
            if path in live_state:
                assert value == live_state[path] or path in fidelity["refused"] or path in fidelity["differs"], (
                    device.device_id,
                    path,
                )
            else:
                assert path in fidelity["twin_only"], (device.device_id, path)
        assert sorted(set(live_state) - set(twin_state)) == fidelity["live_only"]
    # an optional attribute the live device does not serve is not served by the twin (same features)
    assert "1.TemperatureMeasurement.Tolerance" not in twin.read_all("zoo_climate_8")
    # features that differ are named, not hidden; the spec's limits hold in both for the limit-less thermostat
    assert report["devices"]["zoo_thermostat_4"]["features"]["1.Thermostat"] == {"live": 3, "twin": 35}
    assert twin.room_state("kitchen")["temperature"] == 2150
    # the identity the device tells is the twin's (a bridged device's from its BridgedDeviceBasicInformation)
    assert twin.read("zoo_hall_light_1", 0, "BasicInformation", "VendorName") == "homefabric zoo"
    assert twin.read("zoo_bridged_porch_1", 0, "BasicInformation", "SerialNumber") == "sn-1"
    assert "0.BasicInformation.VendorName" in report["devices"]["zoo_bridged_porch_1"]["twin_only"]
    assert not any(r["differs"] for r in report["devices"].values())  # the zoo's values all copy


def test_every_tool_answers_on_every_zoo_device_from_the_interview() -> None:
    """Reads of every kind on every device (endpoint 0 and clusters the emulator does not implement included)
    answer, and answer what the interview holds."""
    devices = discover(NODES)
    by_node = {n["node_id"]: n for n in NODES}
    for device in devices:
        home = MatterHome(
            StatusConnection(by_node[device.node_id], ImStatus.Success, "none"),  # type: ignore[arg-type]
            devices,
            rooms_for(devices),
        )
        tools = ToolBox(home)
        structure = tools.call("get_device_structure", {"device_id": device.device_id})
        assert structure["error"] is None, (device.device_id, structure)
        flat = tools.call("get_all_attributes", {"device_id": device.device_id})["data"]
        for endpoint, described in structure["data"]["endpoints"].items():
            for cluster, entry in described["clusters"].items():
                for attribute, item in entry["attributes"].items():
                    assert item["value"] == flat[f"{endpoint}.{cluster}.{attribute}"], (device.device_id, attribute)
        assert (0 in device.endpoints) == ("0" in structure["data"]["endpoints"])
