"""Endpoint-0 (root node) clusters that know about fabrics and sessions.

:func:`root_clusters` builds them for one node; :func:`root_endpoint` puts them, with Basic
Information and a Descriptor, on an endpoint 0 of device type Root Node (0x0016).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from bridge.matter.node.root.access_control import AccessControlServer
from bridge.matter.node.root.administrator_commissioning import AdministratorCommissioningServer
from bridge.matter.node.root.diagnostics import general_diagnostics
from bridge.matter.node.root.general_commissioning import GeneralCommissioningServer
from bridge.matter.node.root.group_key_management import GroupKeyManagementServer
from bridge.matter.node.root.network_commissioning import NetworkCommissioningServer
from bridge.matter.node.root.operational_credentials import OperationalCredentialsServer
from bridge.matter.node.root.services import RootServices, request_context
from clusters.base import ClusterServer
from clusters.basic_information import BasicInformationServer
from clusters.descriptor import DescriptorServer
from clusters.device_types import ROOT_NODE
from clusters.endpoint import Endpoint

__all__ = [
    "RootServices",
    "request_context",
    "root_clusters",
    "root_endpoint",
]


def root_clusters(
    services: RootServices, *, basic_information: Mapping[str, Any] | None = None, interfaces: list[str] | None = None
) -> list[ClusterServer]:
    """BasicInformation, General Diagnostics + the commissioning clusters (no Descriptor: the endpoint owner
    adds it). Building them is the node's boot: the persisted reboot count goes up by one."""
    info = {
        "vendor_id": services.vendor_id,
        "product_id": services.product_id,
        "product_name": "HomeFabric Bridge",
        "node_label": "HomeFabric",
        **(basic_information or {}),
    }
    if info["vendor_id"] != services.vendor_id or info["product_id"] != services.product_id:
        raise ValueError("BasicInformation VID/PID must match the attestation credentials")
    return [
        BasicInformationServer(**info),
        AccessControlServer(services),
        GeneralCommissioningServer(services),
        NetworkCommissioningServer(),
        AdministratorCommissioningServer(services),
        OperationalCredentialsServer(services),
        GroupKeyManagementServer(services),
        general_diagnostics(services.store, interfaces),
    ]


def root_endpoint(clusters: Iterable[ClusterServer]) -> Endpoint:
    return Endpoint(0, [ROOT_NODE], [DescriptorServer(), *clusters])
