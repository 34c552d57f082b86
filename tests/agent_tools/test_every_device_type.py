"""The SimuHome-style read tools answer for a device of every catalogue type (issue 22: every face for the new
device library): its structure and all its attributes, and every cluster it serves can be read with get_attribute."""

from __future__ import annotations

from agent_tools import ToolBox
from emulator.catalogue import CATALOGUE
from tests.emulator.helpers import fabric as make_fabric


def test_every_catalogue_type_answers_the_read_tools() -> None:
    tools = ToolBox(make_fabric([(name, name, "room") for name in CATALOGUE]))
    refused = {}
    for name in sorted(CATALOGUE):
        for tool in ("get_device_structure", "get_all_attributes"):
            envelope = tools.call(tool, {"device_id": name})
            if envelope["status"]["code"] != 200:
                refused[(name, tool)] = envelope["error"]
        for endpoint in CATALOGUE[name].endpoints:
            for spec in endpoint.clusters:
                args = {"device_id": name, "endpoint_id": endpoint.endpoint_id, "cluster_id": spec.cluster}
                envelope = tools.call("get_attribute", {**args, "attribute_id": "ClusterRevision"})
                if envelope["status"]["code"] != 200:
                    refused[(name, f"{endpoint.endpoint_id}.{spec.cluster}")] = envelope["error"]
    assert refused == {}
