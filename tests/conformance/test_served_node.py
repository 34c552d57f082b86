"""The bridge as a controller sees it — every endpoint of a home holding one device of every catalogue
type, root node included — conforms to the official data model (tests/conformance/matter_model.json)."""

from __future__ import annotations

import pytest

from bridge.matter.node.bridge_node import BridgeNode
from bridge.matter.node.node import MatterNode
from emulator.catalogue import CATALOGUE
from tests.conformance.model import KNOWN_GAPS, cluster_entries, device_types, endpoint_problems, unexpected
from tests.emulator.helpers import fabric


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> BridgeNode:
    home = fabric([(name, name, "room") for name in sorted(CATALOGUE)])
    node = MatterNode(lambda roots: BridgeNode(home, roots), tmp_path_factory.mktemp("state"), mdns=False)
    return node.data_model


def _problems(served: BridgeNode) -> list[str]:
    problems = []
    for endpoint in served.endpoints():
        problems += endpoint_problems(
            f"endpoint {endpoint}", [t for t, _ in served.device_types(endpoint)], served.clusters(endpoint)
        )
    return problems


def test_table_is_generated_from_the_official_model() -> None:
    assert device_types()[0x0016]["name"] == "RootNode"
    root = {c["name"] for c in device_types()[0x0016]["mandatory_server_clusters"]}
    assert {"AccessControl", "GeneralCommissioning", "GroupKeyManagement", "OperationalCredentials"} <= root
    on_off_lighting = cluster_entries()[(0x0006, 1)]
    assert {a["name"] for a in on_off_lighting["attributes"]} >= {"OnOff", "GlobalSceneControl", "StartUpOnOff"}


def test_served_bridge_conforms(served: BridgeNode) -> None:
    seen: set[str] = set()
    problems = unexpected(_problems(served), seen)
    assert not problems, "\n".join(problems)
    assert seen == set(KNOWN_GAPS), f"fixed gaps must leave KNOWN_GAPS: {sorted(set(KNOWN_GAPS) - seen)}"


def test_access_control_serves_extension_only_with_its_feature(served: BridgeNode) -> None:
    acl = served.clusters(0)[0x001F]
    assert not acl.feature_map & 0x1  # EXTS clear …
    assert 0x0001 not in acl.read("AttributeList") and not acl.has_attribute("Extension")  # … so no Extension
