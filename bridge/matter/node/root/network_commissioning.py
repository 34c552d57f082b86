"""Network Commissioning (0x0031) with the Ethernet feature: the bridge is already on the network."""

from __future__ import annotations

from clusters.base import ClusterServer

__all__ = ["NetworkCommissioningServer"]

ETHERNET_FEATURE = 0x04


class NetworkCommissioningServer(ClusterServer):
    cluster_name = "NetworkCommissioning"
    revision = 1
    default_features = ETHERNET_FEATURE
    defaults = {
        "MaxNetworks": 1,
        "Networks": [{"networkID": b"eth0".hex(), "connected": True}],
        "InterfaceEnabled": True,
        "LastNetworkingStatus": None,
        "LastNetworkID": None,
        "LastConnectErrorValue": None,
    }
