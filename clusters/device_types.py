"""The utility device types that shape a node (Matter 1.3 device library), as ``(id, revision)``.

Ids as python-matter-server's ``matter_server.client.models.device_types`` has them (RootNode 22,
BridgedNode 19, Aggregator 14); this is the one place the emulator, the Matter bridge and the tools
take them from.
"""

from __future__ import annotations

ROOT_NODE = (0x0016, 3)  # endpoint 0 of every node
AGGREGATOR = (0x000E, 1)  # a bridge's endpoint 1: what makes a controller treat the node as a bridge
BRIDGED_NODE = (0x0013, 2)  # beside the device's own type on each bridged device's top endpoint
