"""The Matter backend's pure parts: devices from an interview, the mapping file, names, values, statuses.

The interview is what our own bridge serves: a BridgeNode over a generated home is read attribute by
attribute into matter-server's node-dict shape (``"ep/cluster/attr"`` keys, structs keyed by tag), so
discovery is checked against the layout the bridge really exposes. The live round trip through
python-matter-server is ``test_matter_backend_live.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tools.matter_backend import HomeMapping, MappingError, discover, load_mapping
from agent_tools.matter_backend.discovery import from_mapping, room_names, rooms_for
from agent_tools.matter_backend.naming import (
    attribute_value,
    cluster_by_name,
    command_payload,
    response_failure,
    status_from_text,
)
from bridge.matter.node.bridge_node import BridgeNode
from clusters import SERVER_CLASSES
from clusters.status import Status
from emulator.errors import FabricError
from emulator.fabric import Fabric
from emulator.home_config import HomeConfig
from tests.emulator.helpers import fabric


def _tagged(cluster_name: str, attribute: str, value: Any) -> Any:
    """The tools' JSON → matter-server's (struct keys → field tags), via the chip struct classes."""
    model = cluster_by_name(cluster_name)
    entry = model.attribute(attribute) if model else None
    if entry is None:
        return value

    def convert(item: Any, info: Any) -> Any:
        if isinstance(item, list) and info.is_list:
            return [convert(v, info.element) for v in item]
        if isinstance(item, dict) and info.is_struct:
            from clusters.chip_model import unwrap

            fields = {f.Label: f for f in info.base.descriptor.Fields}
            return {str(fields[k].Tag): convert(v, unwrap(fields[k].Type)) for k, v in item.items() if k in fields}
        return item

    return convert(value, entry.type)


def interview(node: BridgeNode, node_id: int = 7) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    for endpoint in node.endpoints():
        for cluster_id, server in node.clusters(endpoint).items():
            for attribute in server.attribute_names():
                try:
                    value = node.read(endpoint, cluster_id, attribute)
                except Exception:
                    continue
                attribute_id = server.model.attribute(attribute).attribute_id
                attributes[f"{endpoint}/{cluster_id}/{attribute_id}"] = _tagged(server.cluster_name, attribute, value)
    return {"node_id": node_id, "available": True, "is_bridge": True, "attributes": attributes}


@pytest.fixture(scope="module")
def bridged() -> tuple[Fabric, BridgeNode, dict[str, Any]]:
    config = HomeConfig.model_validate({
        "name": "t", "base_time": "2025-08-23 14:00:00",
        "rooms": [{"id": "living_room", "name": "Living Room", "type": "living_room",
                   "environment": {"temperature": 2500, "humidity": 5000, "illuminance": 300, "pm10": 20}}],
        "devices": [{"id": "lamp", "type": "dimmable_light", "room": "living_room"},
                    {"id": "heat_pump", "type": "heat_pump", "room": "living_room"},
                    {"id": "living_room_window_covering_controller_1", "type": "window_covering_controller",
                     "room": "living_room"}]})
    fabric = Fabric(config)
    node = BridgeNode(fabric)
    return fabric, node, interview(node)


def test_labels_give_devices_rooms_types_and_simuhome_endpoints(bridged: Any) -> None:
    _, node, data = bridged
    devices = {d.device_id: d for d in discover([data])}
    assert set(devices) == {"lamp", "heat_pump", "living_room_window_covering_cont"}  # NodeLabel cut at 32
    pump = devices["heat_pump"]
    assert (pump.room_id, pump.device_type, pump.bridged) == ("living_room", "heat_pump", True)
    assert pump.endpoints == {ep: node.endpoint_of("heat_pump", ep) for ep in (1, 2, 3, 4)}
    assert devices["lamp"].endpoints == {1: node.endpoint_of("lamp", 1)}
    assert [(r.room_id, r.name) for r in rooms_for(list(devices.values()), names=room_names([data]))] == \
        [("living_room", "Living Room")]


def test_a_mapping_is_authoritative(bridged: Any, tmp_path: Path) -> None:
    _, node, data = bridged
    path = tmp_path / "mapping.json"
    path.write_text(json.dumps({"rooms": [{"room_id": "lounge", "display_name": "Lounge"}], "devices": [
        {"node_id": 7, "endpoint": node.endpoint_of("heat_pump", 1), "device_id": "hp", "room_id": "lounge",
         "device_type": "heat_pump"}]}))
    devices = from_mapping(load_mapping(path), [data])
    assert [d.device_id for d in devices] == ["hp"]
    assert devices[0].endpoints == {ep: node.endpoint_of("heat_pump", ep) for ep in (1, 2, 3, 4)}
    path.write_text(json.dumps({"devices": [{"node_id": 0, "endpoint": 2, "device_id": "x", "room_id": "r",
                                             "device_type": "fan"}]}))
    with pytest.raises(MappingError, match=r"devices\.0\.node_id"):
        load_mapping(path)
    with pytest.raises(ValueError, match="used twice"):
        HomeMapping.model_validate({"devices": [{"node_id": 1, "endpoint": 2, "device_id": "x", "room_id": "r",
                                                 "device_type": "fan"}] * 2})


def test_values_and_command_payloads() -> None:
    wire = [{"0": 256, "1": 3}]
    assert attribute_value("Descriptor", "DeviceTypeList", wire) == [{"deviceType": 256, "revision": 3}]
    level = cluster_by_name("LevelControl").commands["MoveToLevel"]
    payload = command_payload("LevelControl", level, {"Level": 127})
    assert payload["level"] == 127 and set(payload) <= {f.label for f in level.fields}
    with pytest.raises(FabricError) as error:
        command_payload("LevelControl", level, {"Level": 999})
    assert error.value.code == "CONSTRAINT_ERROR"
    with pytest.raises(FabricError) as error:
        command_payload("LevelControl", level, {"Brightness": 1})
    assert error.value.code == "COMMAND_INVALID_ARGS" and error.value.allowed


def test_command_payload_refuses_an_argument_given_twice_as_the_fabric_does() -> None:
    # One spelling per field: "Level" and "level" name the same field, so which value wins is not guessed.
    level = cluster_by_name("LevelControl").commands["MoveToLevel"]
    with pytest.raises(FabricError, match="given twice") as error:
        command_payload("LevelControl", level, {"Level": 10, "level": 200})
    assert error.value.code == "COMMAND_INVALID_ARGS"
    home = fabric([("lamp", "dimmable_light", "hall")])
    with pytest.raises(FabricError, match="given twice") as same:
        home.invoke("lamp", 1, "LevelControl", "MoveToLevel", {"Level": 10, "level": 200})
    assert same.value.code == error.value.code
    # one normalisation for both: spellings mapped, defaults filled in alike
    server = SERVER_CLASSES["LevelControl"]()
    assert command_payload("LevelControl", level, {"level": 1}) == server.validate_invoke("MoveToLevel", {"Level": 1})


def test_statuses_and_refusals_in_responses() -> None:
    assert status_from_text("InteractionModelError: ConstraintError (0x87)") is Status.CONSTRAINT_ERROR
    assert status_from_text("UnsupportedAttribute") is Status.UNSUPPORTED_ATTRIBUTE
    assert status_from_text("connection reset") is None
    failure = response_failure("OperationalCommandResponse", {"commandResponseState": {"errorStateID": 3}}, "x")
    assert failure is not None and failure.code == "INVALID_STATE"
    assert response_failure("OperationalCommandResponse", {"commandResponseState": {"errorStateID": 0}}, "x") is None
