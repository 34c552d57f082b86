"""The Matter backend's pure parts: devices from an interview, the mapping file, names, values, statuses.

The interview is a real one: python-matter-server commissioned ``homefabric serve`` (the home in
``fixtures/matter_interview_home.json``) and its ``get_node`` reply is ``fixtures/matter_interview_node.json``,
captured by ``scripts/matter_interview_dump.py`` together with the emulator's own endpoint layout. Discovery
is checked against what the controller really stored. The live round trip through python-matter-server is
``test_matter_backend_live.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tools.matter_backend import HomeMapping, MappingError, discover, load_mapping
from agent_tools.matter_backend.discovery import from_mapping, rooms_for
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
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.home_config import load_home
from tests.emulator.helpers import fabric

FIXTURES = Path(__file__).parent / "fixtures"


class Interview:
    """The captured interview: matter-server's node dict and the served bridge's endpoint layout."""

    def __init__(self) -> None:
        captured = json.loads((FIXTURES / "matter_interview_node.json").read_text())
        self.node: dict[str, Any] = captured["node"]
        self.node_id: int = self.node["node_id"]
        self.layout: dict[str, Any] = captured["emulator_endpoints"]

    def endpoint_of(self, device_id: str, device_endpoint: int) -> int:
        return int(self.layout[device_id]["endpoints"][str(device_endpoint)])


@pytest.fixture(scope="module")
def bridged() -> Interview:
    return Interview()


def test_the_interview_is_of_the_home_our_bridge_serves(bridged: Interview) -> None:
    """The fixture stays honest: the bridge built from the same home lays it out as the served one did, and
    the controller stored the attributes that bridge serves (``ep/cluster/attr`` keys, struct fields by tag)."""
    node = BridgeNode(EmulatedHome(load_home(FIXTURES / "matter_interview_home.json")))
    for device_id, entry in bridged.layout.items():
        for device_ep, number in entry["endpoints"].items():
            assert node.endpoint_of(device_id, int(device_ep)) == number
    bridged_endpoints = {number for entry in bridged.layout.values() for number in entry["endpoints"].values()}
    served = {
        f"{ep}/{cluster}/{server.model.attribute(name).attribute_id}"
        for ep in bridged_endpoints
        for cluster, server in node.clusters(ep).items()
        for name in server.attribute_names()
    }
    stored = {key for key in bridged.node["attributes"] if int(key.split("/")[0]) in bridged_endpoints}
    assert stored == served  # the controller read every attribute of every bridged endpoint, and nothing else
    assert bridged.node["is_bridge"] and bridged.node["available"]


def test_labels_give_devices_rooms_types_and_simuhome_endpoints(bridged: Interview) -> None:
    node, data = bridged, bridged.node
    by_id = {d.device_id: d for d in discover([data])}
    devices = {d.name: d for d in by_id.values()}
    assert set(devices) == {"lamp", "heat_pump", "living_room_window_covering_cont"}  # NodeLabel cut at 32
    for device_id, device in by_id.items():  # the id is the bridged device's UniqueID (opaque on our bridge)
        assert device_id == data["attributes"][f"{device.top_endpoint}/57/18"]
    pump = devices["heat_pump"]
    assert (pump.room_id, pump.device_type, pump.bridged) == ("living_room", "heat_pump", True)
    assert pump.endpoints == {ep: node.endpoint_of("heat_pump", ep) for ep in (1, 2, 3, 4)}
    assert devices["lamp"].endpoints == {1: node.endpoint_of("lamp", 1)}
    assert [(r.room_id, r.name) for r in rooms_for(list(devices.values()))] == [("living_room", "Living Room")]


def test_a_mapping_is_authoritative(bridged: Interview, tmp_path: Path) -> None:
    node, data = bridged, bridged.node
    path = tmp_path / "mapping.json"
    path.write_text(
        json.dumps(
            {
                "rooms": [{"room_id": "lounge", "display_name": "Lounge"}],
                "devices": [
                    {
                        "node_id": node.node_id,
                        "endpoint": node.endpoint_of("heat_pump", 1),
                        "device_id": "hp",
                        "room_id": "lounge",
                        "device_type": "heat_pump",
                    }
                ],
            }
        )
    )
    devices = from_mapping(load_mapping(path), [data])
    assert [d.device_id for d in devices] == ["hp"]
    assert devices[0].endpoints == {ep: node.endpoint_of("heat_pump", ep) for ep in (1, 2, 3, 4)}
    path.write_text(
        json.dumps({"devices": [{"node_id": 0, "endpoint": 2, "device_id": "x", "room_id": "r", "device_type": "fan"}]})
    )
    with pytest.raises(MappingError, match=r"devices\.0\.node_id"):
        load_mapping(path)
    with pytest.raises(ValueError, match="used twice"):
        HomeMapping.model_validate(
            {"devices": [{"node_id": 1, "endpoint": 2, "device_id": "x", "room_id": "r", "device_type": "fan"}] * 2}
        )


def test_values_and_command_payloads(bridged: Interview) -> None:
    wire = bridged.node["attributes"][f"{bridged.endpoint_of('lamp', 1)}/29/0"]  # as the controller stored it
    device_types = attribute_value("Descriptor", "DeviceTypeList", wire)
    assert {(t["deviceType"], t["revision"]) for t in device_types} >= {(0x0101, 3), (0x0013, 2)}
    level = cluster_by_name("LevelControl").commands["MoveToLevel"]
    payload = command_payload("LevelControl", level, {"Level": 127})
    assert payload["level"] == 127 and set(payload) <= {f.label for f in level.fields}
    with pytest.raises(HomeError) as error:
        command_payload("LevelControl", level, {"Level": 999})
    assert error.value.code == "CONSTRAINT_ERROR"
    with pytest.raises(HomeError) as error:
        command_payload("LevelControl", level, {"Brightness": 1})
    assert error.value.code == "COMMAND_INVALID_ARGS" and error.value.allowed


def test_command_payload_refuses_an_argument_given_twice_as_the_fabric_does() -> None:
    # One spelling per field: "Level" and "level" name the same field, so which value wins is not guessed.
    level = cluster_by_name("LevelControl").commands["MoveToLevel"]
    with pytest.raises(HomeError, match="given twice") as error:
        command_payload("LevelControl", level, {"Level": 10, "level": 200})
    assert error.value.code == "COMMAND_INVALID_ARGS"
    home = fabric([("lamp", "dimmable_light", "hall")])
    with pytest.raises(HomeError, match="given twice") as same:
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
