"""The privilege each read, write and invoke needs (Matter core spec §9.10 and the cluster tables).

Defaults: reads need View, writes and invokes need Operate. The exceptions below are the ones of the
clusters this node serves (commissioning clusters need Administer; labels and thermostat limits Manage).
"""

from __future__ import annotations

from bridge.matter.im.data_model import Privilege

ACCESS_CONTROL, GENERAL_COMMISSIONING, NETWORK_COMMISSIONING = 0x001F, 0x0030, 0x0031
ADMINISTRATOR_COMMISSIONING, OPERATIONAL_CREDENTIALS, GROUP_KEY_MANAGEMENT = 0x003C, 0x003E, 0x003F
TIME_SYNCHRONIZATION, BASIC_INFORMATION, BRIDGED_DEVICE_BASIC_INFORMATION = 0x0038, 0x0028, 0x0039
IDENTIFY, GROUPS, THERMOSTAT = 0x0003, 0x0004, 0x0201
GENERAL_DIAGNOSTICS = 0x0033

_ADMIN_CLUSTERS = frozenset(
    {
        ACCESS_CONTROL,
        GENERAL_COMMISSIONING,
        NETWORK_COMMISSIONING,
        ADMINISTRATOR_COMMISSIONING,
        OPERATIONAL_CREDENTIALS,
        GROUP_KEY_MANAGEMENT,
        TIME_SYNCHRONIZATION,
    }
)

_READ: dict[tuple[int, int], Privilege] = {
    (ACCESS_CONTROL, 0x0000): "administer",  # ACL
    (ACCESS_CONTROL, 0x0001): "administer",  # Extension
    (OPERATIONAL_CREDENTIALS, 0x0000): "administer",  # NOCs
    (NETWORK_COMMISSIONING, 0x0001): "administer",  # Networks
}

_WRITE: dict[tuple[int, int], Privilege] = {
    (BASIC_INFORMATION, 0x0005): "manage",  # NodeLabel
    (BASIC_INFORMATION, 0x0006): "administer",  # Location
    (BASIC_INFORMATION, 0x0010): "manage",  # LocalConfigDisabled
    (BRIDGED_DEVICE_BASIC_INFORMATION, 0x0005): "manage",  # NodeLabel
    (GROUP_KEY_MANAGEMENT, 0x0000): "manage",  # GroupKeyMap
    **{(THERMOSTAT, a): "manage" for a in (0x0010, 0x0015, 0x0016, 0x0017, 0x0018, 0x0019, 0x001B, 0x001C)},
}

_INVOKE_MANAGE = frozenset({IDENTIFY, GROUPS})
_INVOKE_COMMAND: dict[tuple[int, int], Privilege] = {
    (GENERAL_DIAGNOSTICS, 0x00): "manage",  # TestEventTrigger
}


def event_privilege(cluster_id: int) -> Privilege:
    """AccessControl's events need Administer (spec §9.10.7); every other event View."""
    return "administer" if cluster_id == ACCESS_CONTROL else "view"


def read_privilege(cluster_id: int, attribute_id: int) -> Privilege:
    return _READ.get((cluster_id, attribute_id), "view")


def write_privilege(cluster_id: int, attribute_id: int) -> Privilege:
    if cluster_id in _ADMIN_CLUSTERS:
        return _WRITE.get((cluster_id, attribute_id), "administer")
    return _WRITE.get((cluster_id, attribute_id), "operate")


def invoke_privilege(cluster_id: int, command_id: int) -> Privilege:
    if cluster_id in _ADMIN_CLUSTERS:
        return "administer"
    if (cluster_id, command_id) in _INVOKE_COMMAND:
        return _INVOKE_COMMAND[(cluster_id, command_id)]
    return "manage" if cluster_id in _INVOKE_MANAGE else "operate"
